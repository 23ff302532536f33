/*
 * Published dispatchers (af_dispatcher_publish / _unpublish / _published_new) and
 * descriptor bundles (af_dispatcher_bundle_json, af_bundle_export_copy), end to end.
 */
#include "app.h"
#include "harness.h"

#include <time.h>
#include <unistd.h>

typedef struct waiter {
    const char *name;
    uint32_t timeout_ms;
    af_status status;
    af_dispatcher *got;
} waiter;

static void *wait_thread(void *arg) {
    waiter *w = arg;
    w->status = af_dispatcher_published_new(w->name, w->timeout_ms, &w->got);
    return NULL;
}

TEST(publish__bad_arguments_are_errors) {
    af_dispatcher *out = NULL;
    CHECK_STATUS(af_dispatcher_publish(NULL, "x"), AF_ERR_NULL);
    af_dispatcher *d = af_dispatcher_new();
    CHECK_STATUS(af_dispatcher_publish(d, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("name");
    CHECK_STATUS(af_dispatcher_publish(d, BAD_UTF8), AF_ERR_UTF8);
    CHECK_STATUS(af_dispatcher_publish(d, ""), AF_ERR_INVALID);
    CHECK_LAST_ERROR("empty");
    CHECK_STATUS(af_dispatcher_unpublish(NULL), AF_ERR_NULL);
    CHECK_STATUS(af_dispatcher_unpublish("c-never-published"), AF_ERR_NOT_FOUND);
    CHECK_STATUS(af_dispatcher_published_new("x", 0, NULL), AF_ERR_NULL);
    CHECK_STATUS(af_dispatcher_published_new(NULL, 0, &out), AF_ERR_NULL);
    CHECK_STATUS(af_dispatcher_published_new(BAD_UTF8, 0, &out), AF_ERR_UTF8);
    CHECK(out == NULL);
    af_dispatcher_free(d);
}

TEST(publish__a_cold_start_call_waits_for_the_app_then_runs) {
    app *a = app_new();
    waiter w = {.name = "c-cold-start", .timeout_ms = 10000};
    pthread_t t;
    pthread_create(&t, NULL, wait_thread, &w);
    usleep(20000); /* the "service" waits before the "app" has published */
    CHECK_STATUS(af_dispatcher_publish(a->d, "c-cold-start"), AF_OK);
    pthread_join(t, NULL);
    CHECK_STATUS(w.status, AF_OK);
    CHECK(w.got != NULL && w.got != a->d);
    if (w.got) {
        char *o = run(w.got, "list_notes", NULL); /* the app's handlers answer */
        CHECK_SUCCESS(o);
        outcome_free(o);
        char *registry = af_registry_json(w.got);
        CHECK_HAS(registry, "\"create_order\"");
        af_string_free(registry);
        af_dispatcher_free(w.got); /* a second handle: withdraws nothing */
    }
    af_dispatcher *again = NULL;
    CHECK_STATUS(af_dispatcher_published_new("c-cold-start", 0, &again), AF_OK);
    af_dispatcher_free(again);
    app_close(a); /* the maker's free withdraws the publication */
    again = NULL;
    CHECK_STATUS(af_dispatcher_published_new("c-cold-start", 0, &again), AF_ERR_TIMED_OUT);
    CHECK(again == NULL);
}

TEST(publish__nothing_published_times_out_naming_what_was_not_ready) {
    af_dispatcher *out = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_STATUS(af_dispatcher_published_new("c-never-there", 30, &out), AF_ERR_TIMED_OUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_LAST_ERROR("c-never-there");
    CHECK_LAST_ERROR("30 ms");
    CHECK(out == NULL);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    CHECK_MSG(ms >= 29, "waited only %ld ms", ms);
}

TEST(publish__shutdown_withdraws_and_unpublish_leaves_handles_valid) {
    app *a = app_new();
    CHECK_STATUS(af_dispatcher_publish(a->d, "c-shutdown"), AF_OK);
    CHECK_STATUS(af_dispatcher_publish(a->d, "c-unpublish"), AF_OK);
    af_dispatcher *h = NULL;
    CHECK_STATUS(af_dispatcher_published_new("c-unpublish", 0, &h), AF_OK);
    CHECK_STATUS(af_dispatcher_unpublish("c-unpublish"), AF_OK);
    char *o = run(h, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    af_dispatcher_free(h);
    CHECK_STATUS(af_dispatcher_shutdown(a->d, 1000, NULL), AF_OK);
    h = NULL;
    CHECK_STATUS(af_dispatcher_published_new("c-shutdown", 0, &h), AF_ERR_TIMED_OUT);
    CHECK_STATUS(af_dispatcher_publish(a->d, "c-shutdown"), AF_ERR_INVALID);
    CHECK_LAST_ERROR("shutting down");
    app_close(a);
}

TEST(bundle__exports_without_a_running_app_equal_the_apps_own) {
    app *a = app_new();
    char *bundle = af_dispatcher_bundle_json(a->d);
    CHECK_HAS(bundle, "\"functions\"");
    CHECK_HAS(bundle, "\"create_order\"");
    const char *formats[] = {"mcp", "openai", "openai-chat", "anthropic", "gemini", "android-xml"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        char *want = af_export_copy(a->d, formats[i]);
        char *got = af_bundle_export_copy(bundle, formats[i]);
        CHECK_MSG(want && got && strcmp(want, got) == 0, "%s: the bundle's export differs", formats[i]);
        af_string_free(want);
        af_string_free(got);
    }
    CHECK(af_bundle_export_copy(bundle, "nope") == NULL);
    CHECK_LAST_ERROR("nope");
    af_string_free(bundle);
    CHECK(af_dispatcher_bundle_json(NULL) == NULL);
    CHECK(af_bundle_export_copy(NULL, "mcp") == NULL);
    CHECK_LAST_ERROR("bundle_json");
    CHECK(af_bundle_export_copy("{}", NULL) == NULL);
    CHECK_LAST_ERROR("format");
    CHECK(af_bundle_export_copy(BAD_UTF8, "mcp") == NULL);
    CHECK(af_bundle_export_copy("{\"functions\":[{\"id\":\"Bad Id\"}]}", "mcp") == NULL);
    CHECK_LAST_ERROR("functions[0]");
    app_close(a);
}

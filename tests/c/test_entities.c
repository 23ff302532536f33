/*
 * Entities looked up by id through the header: af_entities_json and af_entities_async on
 * the shared scenario's order entity (its lookup answers in its own table order).
 */
#include "app.h"

TEST(entities__af_entities_json_answers_in_the_order_of_the_ids_unknown_ones_left_out) {
    app *a = app_new();
    af_invocation inv = AF_INVOCATION_INIT; /* function_id NULL: not read */
    char *o = af_entities_json(a->d, &inv, "order", "[\"o-3\",\"zzz\",\"o-1\",\"o-3\"]");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":[{\"id\":\"o-3\",\"customer\":\"initech\",\"quantity\":1},"
                 "{\"id\":\"o-1\",\"customer\":\"acme\",\"quantity\":2}]");
    /* the lookup got each id once, as the lookup of an entity parameter does */
    CHECK_STREQ(a->last_lookup, "{\"ids\":[\"o-3\",\"zzz\",\"o-1\"]}");
    CHECK_EQ_INT(atomic_load(&a->lookup_runs), 1);
    outcome_free(o);

    /* NULL invocation: AF_INVOCATION_INIT's defaults; no ids: [] and no lookup */
    o = af_entities_json(a->d, NULL, "order", "[\"o-2\"]");
    CHECK_HAS(o, "\"result\":[{\"id\":\"o-2\"");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, "order", "[]");
    CHECK_HAS(o, "\"result\":[]");
    CHECK_EQ_INT(atomic_load(&a->lookup_runs), 2);
    outcome_free(o);
    app_close(a);
}

TEST(entities__af_entities_json_refuses_with_outcomes_naming_what_is_wrong) {
    app *a = app_new();
    char *o = af_entities_json(a->d, NULL, "ordr", "[\"o-1\"]");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "no entity named \\\"ordr\\\" (did you mean \\\"order\\\"?)");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, "order", "[\"o-1\",7]");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "ids_json[1]: expected an entity id (a string), found number 7");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, "order", "{\"ids\":[\"o-1\"]}");
    CHECK_HAS(o, "ids_json: expected an array of entity ids (strings), found an object");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, "order", "[\"o-1\"");
    CHECK_HAS(o, "ids_json: invalid JSON");
    outcome_free(o);
    /* NULL and invalid UTF-8: outcomes too, never NULL */
    o = af_entities_json(NULL, NULL, "order", "[]");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "af_entities_json: the dispatcher is NULL");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, NULL, "[]");
    CHECK_HAS(o, "af_entities_json: entity is NULL");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, "order", NULL);
    CHECK_HAS(o, "af_entities_json: ids_json is NULL");
    outcome_free(o);
    o = af_entities_json(a->d, NULL, "order", BAD_UTF8);
    CHECK_HAS(o, "ids_json is not valid UTF-8");
    outcome_free(o);
    af_invocation small = AF_INVOCATION_INIT;
    small.struct_size = 24;
    o = af_entities_json(a->d, &small, "order", "[]");
    CHECK_HAS(o, "af_invocation.struct_size is 24");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->lookup_runs), 0);

    /* shut down: LimitExceeded at once, no host code */
    CHECK_STATUS(af_dispatcher_shutdown(a->d, 0, NULL), AF_OK);
    o = af_entities_json(a->d, NULL, "order", "[\"o-1\"]");
    CHECK_CODE(o, "LimitExceeded");
    CHECK_HAS(o, "the dispatcher is shutting down");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->lookup_runs), 0);
    app_close(a);
}

static void h_lookup_fails(void *ud, af_call *call) {
    (void)ud;
    CHECK_STATUS(af_call_fail(call, AF_CODE_HANDLER_FAILED, "the database is down"), AF_OK);
}

static void h_lookup_never(void *ud, af_call *call) {
    (void)ud;
    (void)call; /* only a cancel or the timeout ends it */
}

#define NOTE_ENTITY(name)                                                                 \
    "{\"name\":\"" name "\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}"

TEST(entities__a_failing_lookup_keeps_its_code_and_names_the_entity) {
    app *a = app_new();
    CHECK_STATUS(af_register_entity(a->d, NOTE_ENTITY("broken"), h_lookup_fails, NULL, NULL), AF_OK);
    char *o = af_entities_json(a->d, NULL, "broken", "[\"b-1\"]");
    CHECK_CODE(o, "HandlerFailed");
    CHECK_HAS(o, "looking up broken failed: the database is down");
    outcome_free(o);
    /* and a timeout names it too */
    CHECK_STATUS(af_register_entity(a->d, NOTE_ENTITY("slow"), h_lookup_never, NULL, NULL), AF_OK);
    af_invocation inv = AF_INVOCATION_INIT;
    inv.timeout_ms = 20;
    o = af_entities_json(a->d, &inv, "slow", "[\"s-1\"]");
    CHECK_CODE(o, "TimedOut");
    CHECK_HAS(o, "looking up slow by id did not finish within 20 ms");
    outcome_free(o);
    app_close(a);
}

typedef struct outcome_box {
    atomic_int calls;
    char json[2048];
} outcome_box;

static void on_outcome_box(void *ud, const char *json) {
    outcome_box *b = ud;
    snprintf(b->json, sizeof b->json, "%s", json ? json : "(NULL)");
    atomic_fetch_add(&b->calls, 1);
}

static void wait_calls(outcome_box *b, int n) {
    for (int i = 0; i < 500 && atomic_load(&b->calls) < n; i++) sleep_us(10000);
}

TEST(entities__af_entities_async_answers_once_and_a_token_cancels_it) {
    app *a = app_new();
    outcome_box b = {0};
    CHECK_STATUS(af_entities_async(NULL, NULL, "order", "[]", on_outcome_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_entities_async(a->d, NULL, "order", "[]", NULL, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("on_outcome");
    CHECK_STATUS(af_entities_async(a->d, NULL, NULL, "[]", on_outcome_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("entity");
    CHECK_STATUS(af_entities_async(a->d, NULL, "order", BAD_UTF8, on_outcome_box, &b), AF_ERR_UTF8);
    CHECK_LAST_ERROR("ids_json");
    CHECK_EQ_INT(atomic_load(&b.calls), 0); /* never called on an error status */

    /* the lookup answers inline: before it returns */
    CHECK_STATUS(af_entities_async(a->d, NULL, "order", "[\"o-2\",\"o-1\"]", on_outcome_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 1);
    CHECK_HAS(b.json, "\"result\":[{\"id\":\"o-2\"");
    CHECK_HAS(b.json, "},{\"id\":\"o-1\"");
    /* refused before the lookup: answered at once too */
    CHECK_STATUS(af_entities_async(a->d, NULL, "nope", "[\"o-1\"]", on_outcome_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 2);
    CHECK_CODE(b.json, "InvalidArgument");

    /* cancelled by its token: Cancelled, once */
    CHECK_STATUS(af_register_entity(a->d, NOTE_ENTITY("slow"), h_lookup_never, NULL, NULL), AF_OK);
    af_cancel_token *t = af_cancel_token_new();
    af_invocation inv = AF_INVOCATION_INIT;
    inv.cancel_token = t;
    inv.platform = AF_PLATFORM_APPLE;
    CHECK_STATUS(af_entities_async(a->d, &inv, "slow", "[\"s-1\"]", on_outcome_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 2);
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    wait_calls(&b, 3);
    CHECK_EQ_INT(atomic_load(&b.calls), 3);
    CHECK_CODE(b.json, "Cancelled");
    CHECK_HAS(b.json, "looking up slow by id was cancelled");
    sleep_us(20000);
    CHECK_EQ_INT(atomic_load(&b.calls), 3); /* exactly once */
    af_cancel_token_free(t);
    CHECK_EQ_INT(af_dispatcher_in_flight(a->d), 0);
    app_close(a);
}

typedef struct later_lookup {
    pool *p;
    deferred *answer;
} later_lookup;

static void h_lookup_later(void *ud, af_call *call) {
    later_lookup *l = ud;
    /* answered from another thread, in the lookup's own order */
    l->answer = deferred_new(DEFER_RETURN, call, NULL, "[{\"id\":\"x-1\"},{\"id\":\"x-2\"}]");
    pool_post(l->p, deferred_run, l->answer, 5000);
}

TEST(entities__a_lookup_answered_later_and_gated_by_a_delegate) {
    app *a = app_new();
    later_lookup l = {pool_start(1), NULL};
    CHECK_STATUS(af_register_entity(a->d, NOTE_ENTITY("thing"), h_lookup_later, &l, NULL), AF_OK);
    outcome_box b = {0};
    CHECK_STATUS(af_entities_async(a->d, NULL, "thing", "[\"x-2\",\"x-1\"]", on_outcome_box, &b), AF_OK);
    wait_calls(&b, 1);
    CHECK_EQ_INT(atomic_load(&b.calls), 1);
    CHECK_HAS(b.json, "\"result\":[{\"id\":\"x-2\"},{\"id\":\"x-1\"}]");
    deferred_wait(l.answer);
    CHECK_STATUS(l.answer->status, AF_OK);
    deferred_free(l.answer);

    /* a delegate sees an entity lookup of search_order with the ids; its openApp ends it on
     * apple when not in the foreground, and passes in the foreground */
    probe *p = probe_add(a, "signin", GATE_OPEN_APP, "Sign in to see your orders.");
    af_invocation inv = AF_INVOCATION_INIT;
    inv.platform = AF_PLATFORM_APPLE;
    char *o = af_entities_json(a->d, &inv, "order", "[\"o-1\"]");
    CHECK_OPEN_APP(o);
    CHECK_HAS(o, "Sign in to see your orders.");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p->lookups_seen), 1);
    CHECK_STREQ(p->last_request, "{\"ids\":[\"o-1\"]}");
    inv.is_foreground = 1;
    o = af_entities_json(a->d, &inv, "order", "[\"o-1\"]");
    CHECK_HAS(o, "\"result\":[{\"id\":\"o-1\"");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p->invoked), 2);
    pool_stop(l.p);
    app_close(a);
}

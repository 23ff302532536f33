/*
 * Android AppFunctions calls through the header: af_android_execute_json and
 * af_android_execute_async with the images of GenericDocuments an AppFunctionService
 * walks (docs/android.md), on the shared scenario.
 */
#include "app.h"

#define CREATE_ORDER_DOC                                                                  \
    "{\"namespace\":\"\",\"id\":\"\",\"schemaType\":\"\",\"properties\":{"                \
    "\"customer\":{\"strings\":[\"acme\"]},\"quantity\":{\"longs\":[2]}}}"

TEST(android__af_android_execute_json_binds_the_document_and_answers_a_response) {
    app *a = app_new();
    af_invocation inv = inv_of("create_order", AF_PLATFORM_OTHER, 0, "com.example.agent");
    char *r = af_android_execute_json(a->d, &inv, CREATE_ORDER_DOC);
    /* the return value is a nested document; the dialog travels in the extras */
    CHECK_HAS(r, "\"androidAppfunctionsReturnValue\":{\"documents\":[{");
    CHECK_HAS(r, "\"customer\":{\"strings\":[\"acme\"]}");
    CHECK_HAS(r, "\"quantity\":{\"longs\":[2]}");
    CHECK_HAS(r, "\"priority\":{\"strings\":[\"Normal\"]}"); /* omitted: the default */
    CHECK_HAS(r, "\"extras\":{\"dev.appfunctions.extra.DIALOG\":\"Order created.\"}");
    CHECK_HAS(a->last_args, "\"quantity\":2");
    af_string_free(r);

    /* an unknown property is refused naming it (AppFunctionException 1001) */
    r = af_android_execute_json(a->d, &inv,
                                "{\"properties\":{\"colour\":{\"strings\":[\"red\"]}}}");
    CHECK_HAS(r, "\"errorCode\":1001");
    CHECK_HAS(r, "colour");
    af_string_free(r);
    /* a value the binder refuses, with the binder's message */
    r = af_android_execute_json(a->d, &inv,
                                "{\"properties\":{\"customer\":{\"strings\":[\"acme\"]},"
                                "\"quantity\":{\"longs\":[3000000000]}}}");
    CHECK_HAS(r, "\"errorCode\":1001");
    CHECK_HAS(r, "quantity");
    af_string_free(r);
    r = af_android_execute_json(a->d, &inv, "not json");
    CHECK_HAS(r, "\"errorCode\":1001");
    af_string_free(r);

    /* void / null: an empty document; NULL parameters: a document without properties */
    inv.function_id = "edit_note";
    r = af_android_execute_json(a->d, &inv,
                                "{\"properties\":{\"noteId\":{\"strings\":[\"99\"]},"
                                "\"content\":{\"strings\":[\"x\"]}}}");
    CHECK_HAS(r, "\"result\":{\"namespace\":\"\",\"id\":\"\",\"schemaType\":\"\",\"properties\":{}}");
    af_string_free(r);
    inv.function_id = "list_notes";
    r = af_android_execute_json(a->d, &inv, NULL);
    CHECK_HAS(r, "\"result\":");
    af_string_free(r);

    /* the pipeline's codes, as AppFunctionException codes */
    inv.function_id = "nope";
    r = af_android_execute_json(a->d, &inv, NULL);
    CHECK_HAS(r, "\"errorCode\":1003");
    af_string_free(r);
    CHECK_STATUS(af_set_function_enabled(a->d, "create_order", 0), AF_OK);
    inv.function_id = "create_order";
    r = af_android_execute_json(a->d, &inv, CREATE_ORDER_DOC);
    CHECK_HAS(r, "\"errorCode\":1002");
    af_string_free(r);

    /* bad handles and text: the system's error, naming what is wrong; never NULL */
    r = af_android_execute_json(NULL, &inv, NULL);
    CHECK_HAS(r, "\"errorCode\":2000");
    CHECK_HAS(r, "dispatcher");
    af_string_free(r);
    r = af_android_execute_json(a->d, NULL, NULL);
    CHECK_HAS(r, "\"errorCode\":2000");
    CHECK_HAS(r, "invocation");
    af_string_free(r);
    r = af_android_execute_json(a->d, &inv, BAD_UTF8);
    CHECK_HAS(r, "\"errorCode\":2000");
    CHECK_HAS(r, "parameters_document_json");
    af_string_free(r);
    app_close(a);
}

typedef struct response_box {
    atomic_int calls;
    char json[2048];
} response_box;

static void on_response_box(void *ud, const char *json) {
    response_box *b = ud;
    snprintf(b->json, sizeof b->json, "%s", json ? json : "(NULL)");
    atomic_fetch_add(&b->calls, 1);
}

static void h_never(void *ud, af_call *call) {
    (void)ud;
    (void)call; /* only a cancel or the timeout ends it */
}

TEST(android__af_android_execute_async_answers_once_and_cancels_with_2001) {
    app *a = app_new();
    response_box b = {0};
    af_invocation inv = inv_of("create_order", AF_PLATFORM_ANDROID, 0, "com.example.agent");
    CHECK_STATUS(af_android_execute_async(NULL, &inv, NULL, on_response_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_android_execute_async(a->d, NULL, NULL, on_response_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("invocation");
    CHECK_STATUS(af_android_execute_async(a->d, &inv, NULL, NULL, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("on_response");
    CHECK_STATUS(af_android_execute_async(a->d, &inv, BAD_UTF8, on_response_box, &b), AF_ERR_UTF8);
    CHECK_LAST_ERROR("parameters_document_json");
    CHECK_EQ_INT(atomic_load(&b.calls), 0); /* never called on an error status */

    CHECK_STATUS(af_android_execute_async(a->d, &inv, CREATE_ORDER_DOC, on_response_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 1); /* inline: before it returned */
    CHECK_HAS(b.json, "\"androidAppfunctionsReturnValue\"");
    /* a document that cannot be bound is answered at once too */
    CHECK_STATUS(af_android_execute_async(a->d, &inv, "[]", on_response_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 2);
    CHECK_HAS(b.json, "\"errorCode\":1001");

    /* cancelled from the CancellationSignal: AppFunctionException.ERROR_CANCELLED */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"never\"}", h_never, NULL, NULL), AF_OK);
    af_cancel_token *t = af_cancel_token_new();
    af_invocation slow = inv_of("never", AF_PLATFORM_ANDROID, 0, NULL);
    slow.cancel_token = t;
    CHECK_STATUS(af_android_execute_async(a->d, &slow, NULL, on_response_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 2);
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    for (int i = 0; i < 500 && atomic_load(&b.calls) < 3; i++) sleep_us(10000);
    CHECK_EQ_INT(atomic_load(&b.calls), 3);
    CHECK_HAS(b.json, "\"errorCode\":2001");
    sleep_us(20000);
    CHECK_EQ_INT(atomic_load(&b.calls), 3); /* exactly once */
    af_cancel_token_free(t);
    app_close(a);
}

/*
 * Every exported function of include/appfunctions.h: the documented result for good
 * input, for NULL and for invalid UTF-8 in each pointer argument (status / NULL / error
 * outcome, and af_last_error() naming the argument).
 */
#include "app.h"

/* A function whose handler runs a test-provided body (reg->extra). */
typedef void (*body_fn)(af_call *call);
static void body_handler(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    ((body_fn)r->extra)(call);
}
static void reg_body(app *a, const char *descriptor, body_fn body) {
    CHECK_STATUS(af_register_function(a->d, descriptor, body_handler, app_reg(a, (void *)body), app_reg_free),
                 AF_OK);
}

TEST(api__af_version_and_af_abi_version) {
    const char *v = af_version();
    CHECK(v != NULL && strchr(v, '.') != NULL);
    CHECK_EQ_INT(af_abi_version(), AF_ABI_VERSION);
}

TEST(api__af_last_error_and_af_string_free) {
    CHECK(af_last_error() != NULL);
    CHECK_STATUS(af_define_types(NULL, "{}"), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    af_string_free(NULL); /* "Calling with NULL is fine" */
    char *s = af_registry_json(NULL);
    CHECK(s == NULL);
}

TEST(api__af_dispatcher_new_and_free) {
    af_dispatcher *d = af_dispatcher_new();
    CHECK(d != NULL);
    af_dispatcher_free(d);
    af_dispatcher_free(NULL);
}

TEST(api__af_define_types) {
    app *a = app_bare(); /* Priority, Order, Note defined */
    CHECK_STATUS(af_define_types(NULL, TYPES_JSON), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_define_types(a->d, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_define_types(a->d, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_define_types(a->d, "{\"enums\":["), AF_ERR_INVALID);
    CHECK_STATUS(af_define_types(a->d, "{\"records\":[{\"name\":\"Bad\",\"fields\":[{\"name\":\"p\",\"type\":{\"enum\":\"Priorty\"}}]}]}"),
                 AF_ERR_INVALID);
    CHECK_LAST_ERROR("Priorty");
    /* redefining a name is an error */
    CHECK(af_define_types(a->d, "{\"enums\":[{\"name\":\"Priority\",\"members\":[\"A\"]}]}") != AF_OK);
    /* all or nothing: Color is not defined by a call that fails */
    CHECK(af_define_types(a->d, "{\"enums\":[{\"name\":\"Color\",\"members\":[\"Red\"]}],"
                                "\"records\":[{\"name\":\"Broken\",\"fields\":[{\"name\":\"x\",\"type\":\"nope\"}]}]}") != AF_OK);
    CHECK_STATUS(af_define_types(a->d, "{\"enums\":[{\"name\":\"Color\",\"members\":[\"Red\"]}]}"), AF_OK);
    app_close(a);
}

static void noop_handler(void *ud, af_call *call) {
    (void)ud;
    af_call_return(call, NULL);
}

TEST(api__af_register_function) {
    app *a = app_bare();
    atomic_long frees = 0;
    const char *ok = "{\"id\":\"ping\"}";
    /* the dispatcher takes user_data in every case: a refused registration frees it once */
    CHECK_STATUS(af_register_function(NULL, ok, noop_handler, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_register_function(a->d, NULL, noop_handler, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("descriptor_json");
    CHECK_EQ_INT(frees, 2);
    CHECK_STATUS(af_register_function(a->d, BAD_UTF8, noop_handler, counted_new(&frees), counted_free), AF_ERR_UTF8);
    CHECK_LAST_ERROR("descriptor_json");
    CHECK_EQ_INT(frees, 3);
    const char *typo = "{\"id\":\"create_order\",\"parameters\":[{\"name\":\"priority\",\"type\":{\"enum\":\"Priorty\"}}]}";
    CHECK_STATUS(af_register_function(a->d, typo, noop_handler, counted_new(&frees), counted_free), AF_ERR_INVALID);
    CHECK_LAST_ERROR("create_order.parameters.priority.type");
    CHECK_LAST_ERROR("Priorty");
    CHECK_EQ_INT(frees, 4);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"ping\",\"colour\":1}", noop_handler, counted_new(&frees), counted_free),
                 AF_ERR_INVALID);
    CHECK_LAST_ERROR("colour");
    CHECK_EQ_INT(frees, 5);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"Ping\"}", noop_handler, counted_new(&frees), counted_free),
                 AF_ERR_INVALID);
    CHECK_EQ_INT(frees, 6);
    /* a function needs a handler; an output function does not */
    CHECK(af_register_function(a->d, ok, NULL, counted_new(&frees), counted_free) != AF_OK);
    CHECK_EQ_INT(frees, 7);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"answer\",\"kind\":\"output\",\"parameters\":[{\"name\":\"text\",\"type\":\"string\"}]}",
                                      NULL, counted_new(&frees), counted_free),
                 AF_OK);
    CHECK_EQ_INT(frees, 8); /* no handler: the user_data has no use and is released at once */
    char *o = run(a->d, "answer", "{\"text\":\"42\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":{\"text\":\"42\"}");
    outcome_free(o);
    CHECK_STATUS(af_register_function(a->d, ok, noop_handler, counted_new(&frees), counted_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, ok, noop_handler, counted_new(&frees), counted_free), AF_ERR_DUPLICATE);
    CHECK_LAST_ERROR("ping");
    CHECK_EQ_INT(frees, 9);
    /* NULL free_user_data is allowed */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"pong\"}", noop_handler, NULL, NULL), AF_OK);
    o = run(a->d, "ping", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    app_close(a);
    CHECK_EQ_INT(frees, 10);
}

TEST(api__af_register_entity) {
    app *a = app_bare();
    atomic_long frees = 0;
    CHECK_STATUS(af_register_entity(NULL, ORDER_ENTITY_JSON, h_lookup_order, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_register_entity(a->d, ORDER_ENTITY_JSON, NULL, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("lookup");
    CHECK_STATUS(af_register_entity(a->d, NULL, h_lookup_order, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("descriptor_json");
    CHECK_STATUS(af_register_entity(a->d, BAD_UTF8, h_lookup_order, counted_new(&frees), counted_free), AF_ERR_UTF8);
    CHECK_LAST_ERROR("descriptor_json");
    CHECK_STATUS(af_register_entity(a->d, "{\"name\":\"order\",\"fields\":7}", h_lookup_order, counted_new(&frees), counted_free),
                 AF_ERR_INVALID);
    CHECK_EQ_INT(frees, 5);
    CHECK_STATUS(af_register_entity(a->d, ORDER_ENTITY_JSON, h_lookup_order, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK(af_register_entity(a->d, ORDER_ENTITY_JSON, h_lookup_order, counted_new(&frees), counted_free) != AF_OK);
    CHECK_EQ_INT(frees, 6);
    char *rj = af_registry_json(a->d);
    CHECK_HAS(rj, "\"search_order\"");
    af_string_free(rj);
    char *o = run(a->d, "search_order", "{\"query\":\"glob\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":[{\"id\":\"o-2\",\"customer\":\"globex\",\"quantity\":5}]");
    outcome_free(o);
    app_close(a);
}

TEST(api__af_unregister_function) {
    app *a = app_new();
    CHECK_STATUS(af_unregister_function(NULL, "list_notes"), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_unregister_function(a->d, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK_STATUS(af_unregister_function(a->d, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("function_id");
    CHECK_STATUS(af_unregister_function(a->d, "no_such_fn"), AF_ERR_NOT_FOUND);
    CHECK_LAST_ERROR("no_such_fn");
    long before = atomic_load(&a->frees);
    CHECK_STATUS(af_unregister_function(a->d, "list_notes"), AF_OK);
    CHECK_EQ_INT(atomic_load(&a->frees), before + 1); /* no call uses it: freed now */
    char *o = run(a->d, "list_notes", NULL);
    CHECK_CODE(o, "FunctionNotFound");
    outcome_free(o);
    CHECK_STATUS(af_unregister_function(a->d, "list_notes"), AF_ERR_NOT_FOUND);
    char *rj = af_registry_json(a->d);
    CHECK_LACKS(rj, "list_notes");
    af_string_free(rj);
    app_close(a);
}

TEST(api__af_set_function_enabled) {
    app *a = app_new();
    CHECK_STATUS(af_set_function_enabled(NULL, "list_notes", 0), AF_ERR_NULL);
    CHECK_STATUS(af_set_function_enabled(a->d, NULL, 0), AF_ERR_NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK_STATUS(af_set_function_enabled(a->d, BAD_UTF8, 0), AF_ERR_UTF8);
    CHECK_LAST_ERROR("function_id");
    CHECK_STATUS(af_set_function_enabled(a->d, "nope", 0), AF_ERR_NOT_FOUND);
    CHECK_STATUS(af_set_function_enabled(a->d, "list_notes", 0), AF_OK);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_CODE(o, "Disabled");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    char *rj = af_registry_json(a->d);
    CHECK_HAS(rj, "\"enabled\":false");
    af_string_free(rj);
    CHECK_STATUS(af_set_function_enabled(a->d, "list_notes", 1), AF_OK);
    o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    app_close(a);
}

TEST(api__af_set_limits) {
    app *a = app_new();
    CHECK_STATUS(af_set_limits(NULL, 100, 4), AF_ERR_NULL);
    CHECK_STATUS(af_set_limits(a->d, 0, 4), AF_ERR_INVALID);
    CHECK_STATUS(af_set_limits(a->d, 100, 0), AF_ERR_INVALID);
    CHECK_STATUS(af_set_limits(a->d, 64, 4), AF_OK);
    char *o = run(a->d, "create_note", "{\"title\":\"a very long title that makes the input larger\",\"content\":\"than 64 bytes\"}");
    CHECK_CODE(o, "InvalidArgument");
    outcome_free(o);
    o = run(a->d, "create_note", "{\"title\":\"t\",\"content\":\"c\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_STATUS(af_set_limits(a->d, 1 << 20, 1), AF_OK);
    o = run(a->d, "create_note", "{\"title\":[[[\"deep\"]]],\"content\":\"c\"}");
    CHECK_CODE(o, "InvalidArgument");
    outcome_free(o);
    app_close(a);
}

TEST(api__af_set_caller_policy) {
    app *a = app_new();
    CHECK_STATUS(af_set_caller_policy(NULL, "{}"), AF_ERR_NULL);
    CHECK_STATUS(af_set_caller_policy(a->d, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("policy_json");
    CHECK_STATUS(af_set_caller_policy(a->d, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("policy_json");
    CHECK_STATUS(af_set_caller_policy(a->d, "{\"allow\":"), AF_ERR_INVALID);
    CHECK_LAST_ERROR("policy");
    CHECK_STATUS(af_set_caller_policy(a->d, "{\"alow\":[]}"), AF_ERR_INVALID);
    CHECK_STATUS(af_set_caller_policy(a->d, "{\"deny\":[\"com.evil\"]}"), AF_OK);
    app_close(a);
}

TEST(api__af_set_function_caller_policy) {
    app *a = app_new();
    CHECK_STATUS(af_set_function_caller_policy(NULL, "list_notes", "{}"), AF_ERR_NULL);
    CHECK_STATUS(af_set_function_caller_policy(a->d, NULL, "{}"), AF_ERR_NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK_STATUS(af_set_function_caller_policy(a->d, BAD_UTF8, "{}"), AF_ERR_UTF8);
    CHECK_LAST_ERROR("function_id");
    CHECK_STATUS(af_set_function_caller_policy(a->d, "list_notes", NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("policy_json");
    CHECK_STATUS(af_set_function_caller_policy(a->d, "list_notes", BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("policy_json");
    CHECK_STATUS(af_set_function_caller_policy(a->d, "list_notes", "[1]"), AF_ERR_INVALID);
    CHECK_STATUS(af_set_function_caller_policy(a->d, "nope", "{}"), AF_ERR_NOT_FOUND);
    CHECK_STATUS(af_set_function_caller_policy(a->d, "list_notes", "{\"deny\":[\"com.evil\"]}"), AF_OK);
    app_close(a);
}

TEST(api__af_set_log_callback) {
    app *a = app_new();
    atomic_long frees = 0;
    log_sink s1, s2;
    log_sink_init(&s1);
    log_sink_init(&s2);
    CHECK_STATUS(af_set_log_callback(NULL, log_cb, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &s1, NULL), AF_OK);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, counted_new(&frees), counted_free), AF_OK);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &s2, NULL), AF_OK); /* replaces: previous freed */
    CHECK_EQ_INT(frees, 2);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, counted_new(&frees), counted_free), AF_OK);
    CHECK_STATUS(af_set_log_callback(a->d, NULL, NULL, NULL), AF_OK); /* removes */
    CHECK_EQ_INT(frees, 3);
    app_close(a);
}

static void logging_handler(void *user_data, af_call *call) {
    (void)user_data;
    CHECK_STATUS(af_call_log(call, 2, "from the host"), AF_OK);
    CHECK_STATUS(af_call_log(call, 9, "bad level"), AF_ERR_INVALID);
    CHECK_STATUS(af_call_log(call, 2, NULL), AF_ERR_NULL);
    CHECK_STATUS(af_call_log(call, 2, BAD_UTF8), AF_ERR_UTF8);
    CHECK_STATUS(af_call_return(call, NULL), AF_OK);
}

TEST(api__af_call_log_reaches_the_log_sink) {
    app *a = app_new();
    log_sink s;
    log_sink_init(&s);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &s, NULL), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"noisy\"}", logging_handler, NULL, NULL), AF_OK);
    char *o = run(a->d, "noisy", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&s.warnings), 1);
    char last[512];
    log_sink_last(&s, last, sizeof last);
    CHECK_HAS(last, "noisy: from the host");
    CHECK_STATUS(af_call_log(NULL, 2, "x"), AF_ERR_NULL);
    app_close(a);
}

static void check_error_outcome(char *o, const char *code, const char *mentions) {
    CHECK(o != NULL);
    CHECK_HAS(o, "\"status\":\"error\"");
    CHECK_HAS(o, code);
    if (mentions) CHECK_HAS(o, mentions);
    outcome_free(o);
}

TEST(api__af_execute_bad_input_is_an_error_outcome) {
    app *a = app_new();
    af_invocation inv = inv_of("list_notes", AF_PLATFORM_OTHER, 0, NULL);
    check_error_outcome(af_execute_json(NULL, &inv, NULL), "InvalidArgument", "dispatcher");
    check_error_outcome(af_execute_json(a->d, NULL, NULL), "InvalidArgument", "invocation");
    inv.function_id = NULL;
    check_error_outcome(af_execute_json(a->d, &inv, NULL), "InvalidArgument", "function_id");
    inv.function_id = BAD_UTF8;
    check_error_outcome(af_execute_json(a->d, &inv, NULL), "InvalidArgument", "function_id");
    inv.function_id = "list_notes";
    inv.caller_package = BAD_UTF8;
    check_error_outcome(af_execute_json(a->d, &inv, NULL), "InvalidArgument", "caller_package");
    inv.caller_package = NULL;
    inv.platform = 7;
    check_error_outcome(af_execute_json(a->d, &inv, NULL), "InvalidArgument", "platform");
    inv.platform = AF_PLATFORM_OTHER;
    check_error_outcome(af_execute_json(a->d, &inv, BAD_UTF8), "InvalidArgument", "args_json");
    check_error_outcome(af_execute_json(a->d, &inv, "{not json"), "InvalidArgument", NULL);
    check_error_outcome(af_execute_json(a->d, &inv, "{\"extra\":1}"), "InvalidArgument", "extra");
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    char *o = af_execute_json(a->d, &inv, NULL); /* NULL args is {} */
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"title\":\"Groceries\"");
    outcome_free(o);
    app_close(a);
}

typedef struct outcome_box {
    atomic_int calls;
    char json[1024];
} outcome_box;
static void on_outcome_box(void *ud, const char *json) {
    outcome_box *b = ud;
    snprintf(b->json, sizeof b->json, "%s", json ? json : "(NULL)");
    atomic_fetch_add(&b->calls, 1);
}

TEST(api__af_execute_async) {
    app *a = app_new();
    outcome_box b = {0};
    af_invocation inv = inv_of("list_notes", AF_PLATFORM_OTHER, 0, NULL);
    CHECK_STATUS(af_execute_async(NULL, &inv, NULL, on_outcome_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_execute_async(a->d, NULL, NULL, on_outcome_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("invocation");
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, NULL, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("on_outcome");
    CHECK_STATUS(af_execute_async(a->d, &inv, BAD_UTF8, on_outcome_box, &b), AF_ERR_UTF8);
    CHECK_LAST_ERROR("args_json");
    inv.function_id = NULL;
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_box, &b), AF_ERR_NULL);
    CHECK_LAST_ERROR("function_id");
    inv.function_id = BAD_UTF8;
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_box, &b), AF_ERR_UTF8);
    CHECK_LAST_ERROR("function_id");
    inv.function_id = "list_notes";
    inv.caller_package = BAD_UTF8;
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_box, &b), AF_ERR_UTF8);
    CHECK_LAST_ERROR("caller_package");
    inv.caller_package = NULL;
    inv.platform = -1;
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_box, &b), AF_ERR_INVALID);
    CHECK_LAST_ERROR("platform");
    inv.platform = AF_PLATFORM_OTHER;
    CHECK_EQ_INT(atomic_load(&b.calls), 0); /* on an error status the callback is not called */
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 1); /* inline: delivered before it returned */
    CHECK_SUCCESS(b.json);
    inv.function_id = "nope";
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_box, &b), AF_OK);
    CHECK_EQ_INT(atomic_load(&b.calls), 2);
    CHECK_CODE(b.json, "FunctionNotFound");
    app_close(a);
}

TEST(api__af_registry_json) {
    app *a = app_new();
    CHECK(af_registry_json(NULL) == NULL);
    CHECK_LAST_ERROR("dispatcher");
    char *r = af_registry_json(a->d);
    CHECK(r != NULL);
    /* declared functions in registration order, then the generated search_{entity} */
    const char *co = strstr(r, "\"id\":\"create_order\"");
    const char *en = strstr(r, "\"id\":\"edit_note\"");
    const char *so = strstr(r, "\"id\":\"search_order\"");
    CHECK(co && en && so && co < en && en < so);
    CHECK_HAS(so, "\"generated\":true");
    CHECK_HAS(r, "\"entities\":[");
    CHECK_HAS(r, "\"Priority\"");
    af_string_free(r);
    app_close(a);
}

TEST(api__af_parameters_schema_and_af_result_schema) {
    app *a = app_new();
    CHECK(af_parameters_schema_json(NULL, "create_order") == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_parameters_schema_json(a->d, NULL) == NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK(af_parameters_schema_json(a->d, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK(af_parameters_schema_json(a->d, "create_ordr") == NULL);
    CHECK_LAST_ERROR("create_ordr");
    CHECK(af_result_schema_json(NULL, "create_order") == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_result_schema_json(a->d, NULL) == NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK(af_result_schema_json(a->d, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("function_id");
    CHECK(af_result_schema_json(a->d, "nope") == NULL);
    CHECK_LAST_ERROR("nope");
    char *s = af_parameters_schema_json(a->d, "create_order");
    CHECK_HAS(s, "2020-12");
    CHECK_HAS(s, "\"type\":\"object\"");
    CHECK_HAS(s, "\"customer\"");
    CHECK_HAS(s, "Priority");
    af_string_free(s);
    s = af_parameters_schema_json(a->d, "search_order");
    CHECK_HAS(s, "\"query\"");
    CHECK_HAS(s, "\"limit\"");
    af_string_free(s);
    s = af_parameters_schema_json(a->d, "list_notes"); /* always an object schema */
    CHECK_HAS(s, "\"type\":\"object\"");
    af_string_free(s);
    s = af_result_schema_json(a->d, "cancel_order");
    CHECK_STREQ(s, "null");
    af_string_free(s);
    s = af_result_schema_json(a->d, "edit_note");
    CHECK_HAS(s, "null");
    CHECK_HAS(s, "Note");
    af_string_free(s);
    s = af_result_schema_json(a->d, "create_order");
    CHECK_HAS(s, "2020-12");
    CHECK_HAS(s, "Order");
    af_string_free(s);
    app_close(a);
}

TEST(api__af_cancel_token) {
    af_cancel_token *t = af_cancel_token_new();
    CHECK(t != NULL);
    CHECK_EQ_INT(af_cancel_token_is_cancelled(t), 0);
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    CHECK_EQ_INT(af_cancel_token_is_cancelled(t), 1);
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    CHECK_STATUS(af_cancel_token_cancel(NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("token");
    CHECK_EQ_INT(af_cancel_token_is_cancelled(NULL), 0);
    af_cancel_token_free(t);
    af_cancel_token_free(NULL);
}

TEST(api__af_add_delegate) {
    app *a = app_new();
    atomic_long frees = 0;
    af_delegate v = AF_DELEGATE_INIT;
    v.free_user_data = counted_free;
    CHECK_STATUS(af_add_delegate(NULL, &v, counted_new(&frees)), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_add_delegate(a->d, NULL, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("af_delegate is NULL");
    CHECK_STATUS(af_add_delegate(a->d, &v, counted_new(&frees)), AF_OK);
    char *o = run(a->d, "list_notes", NULL); /* an all-NULL delegate allows */
    CHECK_SUCCESS(o);
    outcome_free(o);
    app_close(a);
    CHECK_EQ_INT(frees, 2);
}

/* ---- gates ------------------------------------------------------------------------------ */

static af_gate *kept_gate;
static af_status second_answer;
static int gate_mode;
static void gate_api_invoking(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    kept_gate = gate;
    /* a call handle is not a gate, and a gate handle is not a call */
    CHECK_STATUS(af_gate_allow((af_gate *)call), AF_ERR_NOT_WAITING);
    CHECK(af_call_function_id((af_call *)gate) == NULL);
    CHECK_STATUS(af_call_say((af_call *)gate, "x"), AF_ERR_INVALID_HANDLE);
    CHECK_LAST_ERROR("gate");
    switch (gate_mode) {
    case 0:
        CHECK_STATUS(af_gate_deny(gate, NULL), AF_ERR_NULL); /* still refuses */
        CHECK_LAST_ERROR("message");
        break;
    case 1:
        CHECK_STATUS(af_gate_deny(gate, BAD_UTF8), AF_ERR_UTF8);
        CHECK_LAST_ERROR("message");
        break;
    case 2:
        CHECK_STATUS(af_gate_open_app(gate, NULL), AF_ERR_NULL);
        CHECK_LAST_ERROR("message");
        break;
    case 3:
        CHECK_STATUS(af_gate_open_app(gate, BAD_UTF8), AF_ERR_UTF8);
        CHECK_LAST_ERROR("message");
        break;
    case 4: CHECK_STATUS(af_gate_allow(gate), AF_OK); break;
    }
    second_answer = af_gate_allow(gate);
}

TEST(api__af_gate_allow_deny_open_app) {
    CHECK_STATUS(af_gate_allow(NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("gate");
    CHECK_STATUS(af_gate_deny(NULL, "no"), AF_ERR_NULL);
    CHECK_LAST_ERROR("gate");
    CHECK_STATUS(af_gate_open_app(NULL, "no"), AF_ERR_NULL);
    CHECK_LAST_ERROR("gate");
    app *a = app_new();
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoking = gate_api_invoking;
    CHECK_STATUS(af_add_delegate(a->d, &v, NULL), AF_OK);
    for (gate_mode = 0; gate_mode < 5; gate_mode++) {
        char *o = run_on(a->d, "list_notes", AF_PLATFORM_ANDROID, 0, NULL);
        if (gate_mode < 4) {
            CHECK_CODE(o, "Denied"); /* NULL or invalid UTF-8 still refuses, generically */
        } else {
            CHECK_SUCCESS(o);
        }
        CHECK_EQ_INT(second_answer, AF_ERR_ALREADY_COMPLETED);
        outcome_free(o);
        /* the gate of a call that ended */
        CHECK_STATUS(af_gate_allow(kept_gate), AF_ERR_ALREADY_COMPLETED);
        CHECK_STATUS(af_gate_deny(kept_gate, "late"), AF_ERR_ALREADY_COMPLETED);
        CHECK_STATUS(af_gate_open_app(kept_gate, "late"), AF_ERR_ALREADY_COMPLETED);
    }
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    app_close(a);
}

TEST(api__af_set_scope_hooks) {
    app *a = app_new();
    atomic_long frees = 0;
    CHECK_STATUS(af_set_scope_hooks(NULL, NULL, NULL, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_set_scope_hooks(a->d, NULL, NULL, counted_new(&frees), counted_free), AF_OK);
    CHECK_EQ_INT(frees, 2); /* no hooks: nothing to keep */
    app_install_scope_hooks(a);
    app_install_scope_hooks(a); /* replaces: the first one's user_data is released */
    CHECK_EQ_INT(atomic_load(&a->frees), 1);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->begins), 1);
    CHECK_EQ_INT(atomic_load(&a->ends), 1);
    app_close(a);
}

static void allow_hook(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    (void)call;
    CHECK_STATUS(af_gate_allow(gate), AF_OK);
}

TEST(api__af_set_permission_hook) {
    app *a = app_new();
    atomic_long frees = 0;
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"wipe\",\"requiresPermission\":true}", noop_handler, NULL, NULL), AF_OK);
    CHECK_STATUS(af_set_permission_hook(NULL, allow_hook, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_set_permission_hook(a->d, allow_hook, counted_new(&frees), counted_free), AF_OK);
    char *o = run(a->d, "wipe", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_STATUS(af_set_permission_hook(a->d, NULL, NULL, NULL), AF_OK); /* removes */
    CHECK_EQ_INT(frees, 2);
    o = run(a->d, "wipe", NULL);
    CHECK_CODE(o, "PermissionDenied");
    outcome_free(o);
    app_close(a);
}

/* ---- the call context ------------------------------------------------------------------- */

static af_call *dead_call;
static void cancel_cb_unused(void *ud) { (void)ud; }

static void accessors_body(af_call *call) {
    dead_call = call;
    /* NULL call */
    CHECK(af_call_function_id(NULL) == NULL);
    CHECK(af_call_args(NULL) == NULL);
    CHECK(af_call_lookup_request(NULL) == NULL);
    CHECK_EQ_INT(af_call_kind(NULL), -1);
    CHECK(af_call_descriptor_json(NULL) == NULL);
    CHECK(af_call_entity_copy(NULL) == NULL);
    CHECK_EQ_INT(af_call_platform(NULL), -1);
    CHECK_EQ_INT(af_call_is_foreground(NULL), 0);
    CHECK(af_call_caller_package(NULL) == NULL);
    CHECK_EQ_INT(af_call_is_cancelled(NULL), 1);
    CHECK_STATUS(af_call_on_cancel(NULL, cancel_cb_unused, NULL, NULL, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK_STATUS(af_call_item_set(NULL, "k", "1"), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK(af_call_item_get_json(NULL, "k") == NULL);
    CHECK_STATUS(af_call_say(NULL, "hi"), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK_STATUS(af_call_set_host_data(NULL, NULL, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK(af_call_host_data(NULL) == NULL);
    CHECK_STATUS(af_call_return(NULL, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK_STATUS(af_call_fail(NULL, AF_CODE_HANDLER_FAILED, "x"), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    /* a handle that never was one (not a pointer: never dereferenced) */
    af_call *bogus = (af_call *)(uintptr_t)0x7fff00ff00ull;
    CHECK(af_call_function_id(bogus) == NULL);
    CHECK_STATUS(af_call_say(bogus, "x"), AF_ERR_INVALID_HANDLE);
    CHECK_STATUS(af_call_return(bogus, NULL), AF_ERR_INVALID_HANDLE);
    /* the live call */
    CHECK_STREQ(af_call_function_id(call), "create_note");
    CHECK_HAS(af_call_args(call), "\"title\":\"t\"");
    CHECK(af_call_lookup_request(call) == NULL);
    CHECK_EQ_INT(af_call_kind(call), AF_CALL_FUNCTION);
    CHECK(af_call_entity_copy(call) == NULL);
    CHECK_EQ_INT(af_call_platform(call), AF_PLATFORM_ANDROID);
    CHECK_EQ_INT(af_call_is_foreground(call), 0);
    CHECK_STREQ(af_call_caller_package(call), "com.google.android.apps.gemini");
    CHECK_EQ_INT(af_call_is_cancelled(call), 0);
    CHECK_STATUS(af_call_on_cancel(call, NULL, NULL, NULL, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("cb");
    /* items */
    CHECK_STATUS(af_call_item_set(call, NULL, "1"), AF_ERR_NULL);
    CHECK_LAST_ERROR("key");
    CHECK_STATUS(af_call_item_set(call, BAD_UTF8, "1"), AF_ERR_UTF8);
    CHECK_LAST_ERROR("key");
    CHECK_STATUS(af_call_item_set(call, "k", NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_call_item_set(call, "k", BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_call_item_set(call, "k", "{not json"), AF_ERR_INVALID);
    CHECK_LAST_ERROR("k");
    CHECK(af_call_item_get_json(call, NULL) == NULL);
    CHECK_LAST_ERROR("key");
    CHECK(af_call_item_get_json(call, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("key");
    CHECK(af_call_item_get_json(call, "missing") == NULL);
    CHECK_STATUS(af_call_item_set(call, "k", "{\"n\":1}"), AF_OK);
    CHECK_STATUS(af_call_item_set(call, "k", "[2]"), AF_OK); /* replaces */
    char *v = af_call_item_get_json(call, "k");
    CHECK_STREQ(v, "[2]");
    af_string_free(v);
    /* dialog */
    CHECK_STATUS(af_call_say(call, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("text");
    CHECK_STATUS(af_call_say(call, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("text");
    CHECK_STATUS(af_call_say(call, "first"), AF_OK);
    CHECK_STATUS(af_call_say(call, "Note created."), AF_OK); /* the last one wins */
    /* host data */
    static int host;
    CHECK(af_call_host_data(call) == NULL);
    CHECK_STATUS(af_call_set_host_data(call, &host, NULL), AF_OK);
    CHECK(af_call_host_data(call) == &host);
    CHECK_STATUS(af_call_return(call, "{\"id\":9,\"title\":\"t\",\"content\":\"c\"}"), AF_OK);
    CHECK_STATUS(af_call_return(call, "{}"), AF_ERR_ALREADY_COMPLETED);
}

TEST(api__af_call_accessors_null_live_and_dead) {
    app *a = app_bare();
    reg_body(a, CREATE_NOTE_JSON, accessors_body);
    af_invocation inv = inv_of("create_note", AF_PLATFORM_ANDROID, 0, "com.google.android.apps.gemini");
    char *o = af_execute_json(a->d, &inv, "{\"title\":\"t\",\"content\":\"c\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Note created.\"");
    CHECK_HAS(o, "\"result\":{\"id\":9,\"title\":\"t\",\"content\":\"c\"}");
    outcome_free(o);
    /* the call has ended: its handle is refused, never dereferenced */
    CHECK(af_call_function_id(dead_call) == NULL);
    CHECK(af_call_args(dead_call) == NULL);
    CHECK(af_call_lookup_request(dead_call) == NULL);
    CHECK_EQ_INT(af_call_kind(dead_call), -1);
    CHECK(af_call_descriptor_json(dead_call) == NULL);
    CHECK(af_call_entity_copy(dead_call) == NULL);
    CHECK_EQ_INT(af_call_platform(dead_call), -1);
    CHECK_EQ_INT(af_call_is_foreground(dead_call), 0);
    CHECK(af_call_caller_package(dead_call) == NULL);
    CHECK_EQ_INT(af_call_is_cancelled(dead_call), 1);
    CHECK_STATUS(af_call_on_cancel(dead_call, cancel_cb_unused, NULL, NULL, NULL), AF_ERR_INVALID_HANDLE);
    CHECK_LAST_ERROR("ended");
    CHECK_STATUS(af_call_item_set(dead_call, "k", "1"), AF_ERR_INVALID_HANDLE);
    CHECK(af_call_item_get_json(dead_call, "k") == NULL);
    CHECK_STATUS(af_call_say(dead_call, "late"), AF_ERR_INVALID_HANDLE);
    CHECK_STATUS(af_call_set_host_data(dead_call, NULL, NULL), AF_ERR_INVALID_HANDLE);
    CHECK(af_call_host_data(dead_call) == NULL);
    CHECK_STATUS(af_call_return(dead_call, NULL), AF_ERR_ALREADY_COMPLETED);
    CHECK_STATUS(af_call_fail(dead_call, AF_CODE_HANDLER_FAILED, "late"), AF_ERR_ALREADY_COMPLETED);
    app_close(a);
}

static int return_mode;
static void return_body(af_call *call) {
    switch (return_mode) {
    case 0: CHECK_STATUS(af_call_return(call, BAD_UTF8), AF_ERR_UTF8); CHECK_LAST_ERROR("result_json"); break;
    case 1: CHECK_STATUS(af_call_fail(call, 99, "odd code"), AF_ERR_INVALID); CHECK_LAST_ERROR("code"); break;
    case 2: CHECK_STATUS(af_call_fail(call, AF_CODE_HANDLER_FAILED, NULL), AF_OK); break;
    case 3: CHECK_STATUS(af_call_fail(call, AF_CODE_HANDLER_FAILED, BAD_UTF8), AF_ERR_UTF8); CHECK_LAST_ERROR("message"); break;
    case 4: CHECK_STATUS(af_call_return(call, "{\"id\":\"not an int\",\"title\":\"t\",\"content\":\"c\"}"), AF_OK); break;
    case 5: CHECK_STATUS(af_call_return(call, NULL), AF_OK); break; /* NULL is null: not a Note */
    case 6: CHECK_STATUS(af_call_fail(call, AF_CODE_ENTITY_NOT_FOUND, "no such note"), AF_OK); break;
    case 7: CHECK_STATUS(af_call_return(call, "{not json"), AF_OK); break;
    }
}

TEST(api__af_call_return_and_af_call_fail) {
    app *a = app_bare();
    reg_body(a, CREATE_NOTE_JSON, return_body);
    const char *args = "{\"title\":\"t\",\"content\":\"c\"}";
    const char *want[] = {"HandlerFailed", "HandlerFailed", "HandlerFailed", "HandlerFailed",
                          "HandlerFailed", "HandlerFailed", "EntityNotFound", "HandlerFailed"};
    for (return_mode = 0; return_mode < 8; return_mode++) {
        char *o = run(a->d, "create_note", args);
        CHECK_HAS(o, "\"status\":\"error\"");
        CHECK_HAS(o, want[return_mode]);
        if (return_mode == 4) CHECK_HAS(o, "id");
        if (return_mode == 6) CHECK_HAS(o, "no such note");
        outcome_free(o);
    }
    app_close(a);
}

static void void_body(af_call *call) {
    if (return_mode == 0) CHECK_STATUS(af_call_return(call, NULL), AF_OK);
    else if (return_mode == 1) CHECK_STATUS(af_call_return(call, "null"), AF_OK);
    else CHECK_STATUS(af_call_return(call, "{\"x\":1}"), AF_OK);
}

TEST(api__af_call_return_for_a_void_function) {
    app *a = app_bare();
    reg_body(a, "{\"id\":\"touch\"}", void_body);
    for (return_mode = 0; return_mode < 3; return_mode++) {
        char *o = run(a->d, "touch", NULL);
        if (return_mode < 2) {
            CHECK_SUCCESS(o);
            CHECK_HAS(o, "\"result\":null");
        } else {
            CHECK_CODE(o, "HandlerFailed");
            CHECK_HAS(o, "void");
        }
        outcome_free(o);
    }
    app_close(a);
}

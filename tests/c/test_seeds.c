/*
 * The seed (seeds/000_a1c348d1a8fa00a8.txt), sentence by sentence: one scenario per
 * sentence of "Delegates", "The context" and "Calling functions in the app", named after
 * it, run through the C header against the shared orders/notes scenario.
 */
#include "app.h"

static const char *PLATFORM_NAMES[] = {"other", "apple", "android"};

/* ---- the seed's two delegates -------------------------------------------------------- */

/* SignInDelegate: cancel_order while signed out -> OpenApp("Sign in to cancel orders."). */
typedef struct sign_in {
    reg r;
    atomic_bool signed_in;
    atomic_int asked;
} sign_in;

static void sign_in_invoking(void *ud, af_call *call, af_gate *gate) {
    sign_in *s = ud;
    atomic_fetch_add(&s->asked, 1);
    const char *fn = af_call_function_id(call);
    if (fn && strcmp(fn, "cancel_order") == 0 && !atomic_load(&s->signed_in))
        CHECK_STATUS(af_gate_open_app(gate, "Sign in to cancel orders."), AF_OK);
    else
        CHECK_STATUS(af_gate_allow(gate), AF_OK);
}

static sign_in *add_sign_in(app *a) {
    sign_in *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->r.magic = 0x0DDBA11L;
    s->r.a = a;
    atomic_fetch_add(&a->regs, 1);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoking = sign_in_invoking;
    v.free_user_data = app_reg_free; /* on_invoked: the default */
    CHECK_STATUS(af_add_delegate(a->d, &v, s), AF_OK);
    return s;
}

/* TelemetryDelegate: "{Function} from {Platform}: {Outcome}" with the error message or "ok". */
typedef struct telemetry {
    reg r;
    pthread_mutex_t mu;
    char lines[2048];
    atomic_int count;
} telemetry;

static void telemetry_invoked(void *ud, af_call *call, const char *outcome) {
    telemetry *t = ud;
    const char *fn = af_call_function_id(call);
    int p = af_call_platform(call);
    char message[256] = "ok";
    if (!json_has(outcome, "\"status\":\"success\"")) {
        char code[64] = "", msg[190] = "";
        json_str(outcome, "errorCode", code, sizeof code);
        json_str(outcome, "message", msg, sizeof msg);
        snprintf(message, sizeof message, "%s %s", code[0] ? code : "openApp", msg);
    }
    pthread_mutex_lock(&t->mu);
    size_t n = strlen(t->lines);
    snprintf(t->lines + n, sizeof t->lines - n, "%s from %s: %s\n", fn ? fn : "(NULL)",
             p >= 0 && p <= 2 ? PLATFORM_NAMES[p] : "?", message);
    pthread_mutex_unlock(&t->mu);
    atomic_fetch_add(&t->count, 1);
}

static void telemetry_free(void *ud) {
    telemetry *t = ud;
    pthread_mutex_destroy(&t->mu);
    atomic_fetch_add(&t->r.a->frees, 1);
    free(t);
}

static telemetry *add_telemetry(app *a) {
    telemetry *t = calloc(1, sizeof *t);
    if (!t) abort();
    t->r.a = a;
    pthread_mutex_init(&t->mu, NULL);
    atomic_fetch_add(&a->regs, 1);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoked = telemetry_invoked;
    v.free_user_data = telemetry_free; /* on_invoking: the default */
    CHECK_STATUS(af_add_delegate(a->d, &v, t), AF_OK);
    return t;
}

static char *exec(app *a, const char *fn, int platform, int fg, const char *caller, const char *args) {
    af_invocation inv = inv_of(fn, platform, (uint8_t)fg, caller);
    char *o = af_execute_json(a->d, &inv, args);
    CHECK(o != NULL);
    return o;
}

static const char *CANCEL_O1 = "{\"order\":\"o-1\"}";
static const char *ACME = "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}";

/* ---- Delegates ------------------------------------------------------------------------- */

TEST(delegates__handle_what_cuts_across_every_function) {
    app *a = app_new();
    probe *p = probe_add(a, "flags", GATE_ALLOW, NULL);
    const char *calls[][2] = {{"create_order", "{\"customer\":\"acme\",\"quantity\":1}"},
                              {"cancel_order", CANCEL_O1},
                              {"search_order", "{\"query\":\"\"}"},
                              {"list_notes", NULL},
                              {"create_note", "{\"title\":\"a\",\"content\":\"b\"}"},
                              {"edit_note", "{\"noteId\":\"1\",\"title\":null,\"content\":\"x\"}"}};
    for (int i = 0; i < 6; i++) {
        char *o = run(a->d, calls[i][0], calls[i][1]);
        CHECK_SUCCESS(o);
        outcome_free(o);
    }
    /* every function, plus the lookup cancel_order's entity id went through */
    CHECK_EQ_INT(atomic_load(&p->invoking), 7);
    CHECK_EQ_INT(atomic_load(&p->invoked), 7);
    app_close(a);
}

TEST(delegates__declare_as_many_as_you_like) {
    app *a = app_new();
    static const char *names[] = {"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7",
                                  "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15"};
    probe *ps[16];
    for (int i = 0; i < 16; i++) ps[i] = probe_add(a, names[i], GATE_ALLOW, NULL);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    for (int i = 0; i < 16; i++) {
        CHECK_EQ_INT(atomic_load(&ps[i]->invoking), 1);
        CHECK_EQ_INT(atomic_load(&ps[i]->invoked), 1);
    }
    app_close(a); /* each delegate's user_data freed once */
}

static void sign_in_scenario(int platform) {
    app *a = app_new();
    sign_in *s = add_sign_in(a);
    telemetry *t = add_telemetry(a);
    /* signed out, not in the foreground */
    char *o = exec(a, "cancel_order", platform, 0, NULL, CANCEL_O1);
    if (platform == AF_PLATFORM_APPLE) {
        CHECK_OPEN_APP(o); /* the user is asked to continue in the app */
        CHECK_HAS(o, "\"message\":\"Sign in to cancel orders.\"");
        CHECK_HAS(o, "\"errorCode\":null");
    } else {
        CHECK_CODE(o, "Denied"); /* no equivalent: refused with the message */
        CHECK_HAS(o, "\"message\":\"Sign in to cancel orders.\"");
    }
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    /* the function then runs again in the foreground, which passes the gate on every
     * platform: the user is in the app (seed 000's rerun; an in-app assistant) */
    o = exec(a, "cancel_order", platform, 1, NULL, CANCEL_O1);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Cancelled order o-1 for acme.\"");
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    outcome_free(o);
    /* other functions are not gated; signed in, cancel_order runs everywhere */
    o = exec(a, "create_order", platform, 0, NULL, ACME);
    CHECK_SUCCESS(o);
    outcome_free(o);
    atomic_store(&s->signed_in, true);
    o = exec(a, "cancel_order", platform, 0, NULL, CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK(atomic_load(&s->asked) >= 4);
    CHECK_EQ_INT(atomic_load(&t->count), 7); /* 4 calls and the 3 lookups of cancel_order */
    app_close(a);
}

TEST(delegates__sign_in_delegate_on_apple) { sign_in_scenario(AF_PLATFORM_APPLE); }
TEST(delegates__sign_in_delegate_on_android) { sign_in_scenario(AF_PLATFORM_ANDROID); }
TEST(delegates__sign_in_delegate_in_process) { sign_in_scenario(AF_PLATFORM_OTHER); }

static void telemetry_scenario(int platform) {
    app *a = app_new();
    add_sign_in(a);
    telemetry *t = add_telemetry(a);
    char *o = exec(a, "create_order", platform, 0, NULL, ACME);
    outcome_free(o);
    o = exec(a, "cancel_order", platform, 0, NULL, CANCEL_O1);
    outcome_free(o);
    o = exec(a, "create_order", platform, 0, NULL, "{\"customer\":\"acme\",\"quantity\":\"two\"}");
    outcome_free(o);
    char want[256];
    pthread_mutex_lock(&t->mu);
    snprintf(want, sizeof want, "create_order from %s: ok\n", PLATFORM_NAMES[platform]);
    CHECK_HAS(t->lines, want);
    /* lookups go through delegates too: the telemetry sees search_order */
    snprintf(want, sizeof want, "search_order from %s: ok\n", PLATFORM_NAMES[platform]);
    CHECK_HAS(t->lines, want);
    if (platform == AF_PLATFORM_APPLE)
        snprintf(want, sizeof want, "cancel_order from apple: openApp Sign in to cancel orders.\n");
    else
        snprintf(want, sizeof want, "cancel_order from %s: Denied Sign in to cancel orders.\n",
                 PLATFORM_NAMES[platform]);
    CHECK_HAS(t->lines, want);
    snprintf(want, sizeof want, "create_order from %s: InvalidArgument quantity: expected int32",
             PLATFORM_NAMES[platform]);
    CHECK_HAS(t->lines, want);
    pthread_mutex_unlock(&t->mu);
    CHECK_EQ_INT(atomic_load(&t->count), 4);
    app_close(a);
}

TEST(delegates__telemetry_delegate_sees_function_platform_and_outcome_on_apple) { telemetry_scenario(AF_PLATFORM_APPLE); }
TEST(delegates__telemetry_delegate_sees_function_platform_and_outcome_on_android) { telemetry_scenario(AF_PLATFORM_ANDROID); }
TEST(delegates__telemetry_delegate_sees_function_platform_and_outcome_in_process) { telemetry_scenario(AF_PLATFORM_OTHER); }

TEST(delegates__both_methods_have_defaults_so_implement_only_what_you_need) {
    app *a = app_new();
    probe *only_invoking = probe_add_partial(a, "gate", GATE_ALLOW, NULL, true, false);
    probe *only_invoked = probe_add_partial(a, "log", GATE_DENY, "never asked", false, true);
    probe *neither = probe_add_partial(a, "none", GATE_DENY, "never asked", false, false);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&only_invoking->invoking), 1);
    CHECK_EQ_INT(atomic_load(&only_invoking->invoked), 0);
    CHECK_EQ_INT(atomic_load(&only_invoked->invoking), 0);
    CHECK_EQ_INT(atomic_load(&only_invoked->invoked), 1);
    CHECK_EQ_INT(atomic_load(&neither->invoking) + atomic_load(&neither->invoked), 0);
    app_close(a);
}

TEST(delegates__on_invoking_runs_after_the_arguments_are_bound_and_before_the_handler) {
    app *a = app_new();
    probe *p = probe_add(a, "p", GATE_ALLOW, NULL);
    char *o = run(a->d, "create_order", "{\"customer\":\"acme\",\"quantity\":2}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    /* bound: the default priority is filled in */
    CHECK_HAS(p->last_args, "\"priority\":\"Normal\"");
    char tr[1024];
    app_trace_get(a, tr, sizeof tr);
    CHECK_STREQ(tr, "invoking:p:create_order|handler:create_order|invoked:p:create_order");
    /* arguments that do not bind never reach the delegate */
    app_trace_reset(a);
    o = run(a->d, "create_order", "{\"customer\":\"acme\"}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "quantity");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p->invoking), 1);
    app_trace_get(a, tr, sizeof tr);
    CHECK_STREQ(tr, "invoked:p:create_order");
    app_close(a);
}

TEST(delegates__first_delegate_that_does_not_allow_decides) {
    app *a = app_new();
    probe *p1 = probe_add(a, "first", GATE_ALLOW, NULL);
    probe *p2 = probe_add(a, "second", GATE_DENY, "Feature flag off.");
    probe *p3 = probe_add(a, "third", GATE_OPEN_APP, "Never asked.");
    char *o = run_on(a->d, "list_notes", AF_PLATFORM_APPLE, 0, NULL);
    CHECK_CODE(o, "Denied");
    CHECK_HAS(o, "\"message\":\"Feature flag off.\"");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p1->invoking), 1);
    CHECK_EQ_INT(atomic_load(&p2->invoking), 1);
    CHECK_EQ_INT(atomic_load(&p3->invoking), 0); /* the rest are not asked */
    CHECK_EQ_INT(atomic_load(&p3->invoked), 1);  /* but all see the outcome */
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    app_close(a);
}

TEST(delegates__first_delegate_that_does_not_allow_decides_when_it_answers_later) {
    app *a = app_new();
    pool *pl = pool_start(2);
    probe *p1 = probe_add(a, "first", GATE_ALLOW, NULL);
    p1->later = pl;
    p1->later_us = 2000;
    probe *p2 = probe_add(a, "second", GATE_OPEN_APP, "Open the app.");
    p2->later = pl;
    p2->later_us = 2000;
    probe *p3 = probe_add(a, "third", GATE_DENY, "Never asked.");
    char *o = run_on(a->d, "list_notes", AF_PLATFORM_APPLE, 0, NULL);
    CHECK_OPEN_APP(o);
    CHECK_HAS(o, "Open the app.");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p3->invoking), 0);
    pool_stop(pl);
    CHECK_EQ_INT(p1->answers[0]->status, AF_OK);
    CHECK_EQ_INT(p2->answers[0]->status, AF_OK);
    app_close(a);
}

TEST(delegates__deny_refuses_the_call_with_denied) {
    app *a = app_new();
    probe_add(a, "flags", GATE_DENY, "Orders are read-only today.");
    for (int p = 0; p < 3; p++) {
        for (int fg = 0; fg < 2; fg++) {
            char *o = exec(a, "create_order", p, fg, NULL, ACME);
            CHECK_CODE(o, "Denied");
            CHECK_HAS(o, "\"message\":\"Orders are read-only today.\"");
            outcome_free(o);
        }
    }
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    app_close(a);
}

TEST(delegates__open_app_on_ios_asks_to_continue_in_the_app) {
    app *a = app_new();
    add_sign_in(a);
    char *o = exec(a, "cancel_order", AF_PLATFORM_APPLE, 0, NULL, CANCEL_O1);
    CHECK_OPEN_APP(o);
    CHECK_HAS(o, "Sign in to cancel orders.");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    app_close(a);
}

static void fg_probe_handler(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    CHECK_EQ_INT(af_call_is_foreground(call), 1); /* context.IsForeground is set */
    CHECK_EQ_INT(af_call_platform(call), AF_PLATFORM_APPLE);
    af_call_return(call, NULL);
}

TEST(delegates__open_app_reruns_in_the_foreground_which_passes_the_gate) {
    app *a = app_bare();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"sign_in_first\"}", fg_probe_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    probe_add(a, "sign_in", GATE_OPEN_APP, "Sign in first.");
    char *o = exec(a, "sign_in_first", AF_PLATFORM_APPLE, 0, NULL, NULL);
    CHECK_OPEN_APP(o);
    outcome_free(o);
    o = exec(a, "sign_in_first", AF_PLATFORM_APPLE, 1, NULL, NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    app_close(a);
}

TEST(delegates__open_app_on_android_is_refused_with_the_message_unless_in_the_foreground) {
    app *a = app_new();
    add_sign_in(a);
    char *o = exec(a, "cancel_order", AF_PLATFORM_ANDROID, 0, "com.google.android.apps.gemini", CANCEL_O1);
    CHECK_CODE(o, "Denied");
    CHECK_HAS(o, "\"message\":\"Sign in to cancel orders.\"");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    o = exec(a, "cancel_order", AF_PLATFORM_ANDROID, 1, "com.google.android.apps.gemini", CANCEL_O1);
    CHECK_SUCCESS(o); /* in the foreground the gate passes, on android too */
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    app_close(a);
}

static void failing_handler(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    app_trace(r->a, "handler:boom");
    af_call_fail(call, AF_CODE_HANDLER_FAILED, "the printer is on fire");
}

TEST(delegates__on_invoked_runs_after_the_handler_with_its_result_or_exception) {
    app *a = app_new();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"boom\"}", failing_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    probe *p = probe_add_partial(a, "t", GATE_ALLOW, NULL, false, true);
    char *o = run(a->d, "create_order", ACME);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_HAS(p->last_outcome, "\"status\":\"success\"");
    CHECK_HAS(p->last_outcome, "\"customer\":\"acme\"");
    CHECK_HAS(p->last_outcome, "\"dialog\":\"Order created.\"");
    o = run(a->d, "boom", NULL);
    CHECK_CODE(o, "HandlerFailed");
    outcome_free(o);
    CHECK_HAS(p->last_outcome, "\"errorCode\":\"HandlerFailed\"");
    CHECK_HAS(p->last_outcome, "the printer is on fire");
    char tr[1024];
    app_trace_get(a, tr, sizeof tr);
    CHECK_STREQ(tr, "handler:create_order|invoked:t:create_order|handler:boom|invoked:t:boom");
    app_close(a);
}

TEST(delegates__a_refusal_arrives_as_denied) {
    app *a = app_new();
    add_sign_in(a);
    probe *p = probe_add_partial(a, "t", GATE_ALLOW, NULL, false, true);
    char *o = exec(a, "cancel_order", AF_PLATFORM_ANDROID, 0, NULL, CANCEL_O1);
    outcome_free(o);
    CHECK_HAS(p->last_outcome, "\"errorCode\":\"Denied\"");
    CHECK_HAS(p->last_outcome, "Sign in to cancel orders.");
    o = exec(a, "cancel_order", AF_PLATFORM_APPLE, 0, NULL, CANCEL_O1);
    outcome_free(o);
    CHECK_HAS(p->last_outcome, "\"status\":\"openApp\"");
    app_close(a);
}

/* C has no exceptions: what "fails" in on_invoked is a misuse of the call (completing it,
 * changing its dialog) — logged and ignored, the outcome unchanged. */
static void misbehaving_invoked(void *ud, af_call *call, const char *outcome) {
    (void)ud;
    (void)outcome;
    CHECK_STATUS(af_call_return(call, "{\"id\":\"o-666\"}"), AF_ERR_ALREADY_COMPLETED);
    CHECK_STATUS(af_call_fail(call, AF_CODE_INTERNAL_ERROR, "x"), AF_ERR_ALREADY_COMPLETED);
    af_call_say(call, "too late to talk");
}

TEST(delegates__what_fails_in_on_invoked_is_logged_and_ignored) {
    app *a = app_new();
    log_sink s;
    log_sink_init(&s);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &s, NULL), AF_OK);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoked = misbehaving_invoked;
    CHECK_STATUS(af_add_delegate(a->d, &v, NULL), AF_OK);
    probe *after = probe_add_partial(a, "after", GATE_ALLOW, NULL, false, true);
    char *o = run(a->d, "create_order", ACME);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Order created.\"");
    CHECK_LACKS(o, "o-666");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&after->invoked), 1); /* the next delegate still runs */
    CHECK(atomic_load(&s.warnings) >= 2);
    app_close(a);
}

TEST(delegates__run_in_registration_order_resolved_from_the_calls_scope) {
    app *a = app_new();
    app_install_scope_hooks(a);
    probe *p1 = probe_add(a, "one", GATE_ALLOW, NULL);
    probe *p2 = probe_add(a, "two", GATE_ALLOW, NULL);
    probe *p3 = probe_add(a, "three", GATE_ALLOW, NULL);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    char tr[1024];
    app_trace_get(a, tr, sizeof tr);
    CHECK_STREQ(tr, "begin|invoking:one:list_notes|invoking:two:list_notes|invoking:three:list_notes|"
                    "handler:list_notes|invoked:one:list_notes|invoked:two:list_notes|"
                    "invoked:three:list_notes|end");
    /* each delegate saw the call's scope (the host data scope begin attached) */
    CHECK(p1->host_data_seen != NULL);
    CHECK(p1->host_data_seen == p2->host_data_seen && p2->host_data_seen == p3->host_data_seen);
    app_close(a);
}

TEST(delegates__entity_lookups_go_through_them_as_well) {
    app *a = app_new();
    probe *p = probe_add(a, "p", GATE_ALLOW, NULL);
    char *o = run(a->d, "cancel_order", CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p->lookups_seen), 1);
    char tr[1024];
    app_trace_get(a, tr, sizeof tr);
    CHECK_STREQ(tr, "invoking:p:search_order|lookup:{\"ids\":[\"o-1\"]}|invoked:p:search_order|"
                    "invoking:p:cancel_order|handler:cancel_order|invoked:p:cancel_order");
    app_close(a);
    /* a delegate that refuses the lookup refuses the call: no handler */
    a = app_new();
    p = probe_add(a, "p", GATE_DENY, "Orders are private.");
    p->only_for = "search_order";
    o = run(a->d, "cancel_order", CANCEL_O1);
    CHECK_CODE(o, "Denied");
    CHECK_HAS(o, "Orders are private.");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->lookup_runs), 0);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    app_close(a);
}

/* on_invoking of a lookup: kind AF_CALL_ENTITY_LOOKUP, af_call_args NULL, the request. */
TEST(delegates__entity_lookup_calls_have_no_request_record) {
    app *a = app_new();
    probe *p = probe_add(a, "p", GATE_ALLOW, NULL);
    p->only_for = "nothing"; /* allow everything, just record */
    char *o = run(a->d, "search_order", "{\"query\":\"ac\",\"limit\":1}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":[{\"id\":\"o-1\",\"customer\":\"acme\",\"quantity\":2}]");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p->lookups_seen), 1);
    CHECK_STREQ(p->last_args, "(NULL)");
    CHECK_STREQ(p->last_request, "{\"query\":\"ac\",\"limit\":1}");
    CHECK_STREQ(p->last_entity, "order");
    o = run(a->d, "search_order", "{\"query\":\"\"}"); /* no limit: the key is absent */
    CHECK_HAS(o, "o-3");
    outcome_free(o);
    CHECK_STREQ(p->last_request, "{\"query\":\"\"}");
    o = run(a->d, "cancel_order", "{\"order\":\"o-2\"}");
    outcome_free(o);
    CHECK_STREQ(p->last_args, "{\"order\":{\"id\":\"o-2\",\"customer\":\"globex\",\"quantity\":5}}");
    app_close(a);
}

/* ---- The context ----------------------------------------------------------------------- */

/* whoami() -> string: "function|platform|foreground|caller|item:seen|host" */
static void context_handler(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    char buf[512];
    /* the seed's context.Function: the descriptor of the function being called */
    char *desc = af_call_descriptor_json(call);
    CHECK_HAS(desc, "\"id\":\"whoami\"");
    CHECK_HAS(desc, "\"result\":\"string\"");
    af_string_free(desc);
    char *item = af_call_item_get_json(call, "seen");
    snprintf(buf, sizeof buf, "\"%s|%d|%d|%s|%s|%s\"", af_call_function_id(call), af_call_platform(call),
             af_call_is_foreground(call), af_call_caller_package(call), item ? "item" : "-",
             af_call_host_data(call) ? "host" : "-");
    af_string_free(item);
    CHECK_STATUS(af_call_return(call, buf), AF_OK);
}

static app *context_app(void) {
    app *a = app_new();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"whoami\",\"result\":\"string\"}", context_handler,
                                      app_reg(a, NULL), app_reg_free), AF_OK);
    return a;
}

TEST(context__function_id_and_function) {
    app *a = context_app();
    char *o = run(a->d, "whoami", NULL);
    CHECK_HAS(o, "\"result\":\"whoami|");
    outcome_free(o);
    /* the handler checks af_call_descriptor_json; its result schema comes from the registry */
    char *s = af_result_schema_json(a->d, "whoami");
    CHECK_HAS(s, "\"type\":\"string\"");
    af_string_free(s);
    app_close(a);
}

TEST(context__platform_apple_android_or_other_an_in_process_call) {
    app *a = context_app();
    char *o = exec(a, "whoami", AF_PLATFORM_APPLE, 0, NULL, NULL);
    CHECK_HAS(o, "\"result\":\"whoami|1|");
    outcome_free(o);
    o = exec(a, "whoami", AF_PLATFORM_ANDROID, 0, NULL, NULL);
    CHECK_HAS(o, "\"result\":\"whoami|2|");
    outcome_free(o);
    o = exec(a, "whoami", AF_PLATFORM_OTHER, 0, NULL, NULL);
    CHECK_HAS(o, "\"result\":\"whoami|0|");
    outcome_free(o);
    o = exec(a, "whoami", 3, 0, NULL, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "platform");
    outcome_free(o);
    app_close(a);
}

TEST(context__is_foreground_ios_the_app_is_in_the_foreground_for_this_run) {
    app *a = context_app();
    char *o = exec(a, "whoami", AF_PLATFORM_APPLE, 1, NULL, NULL);
    CHECK_HAS(o, "\"result\":\"whoami|1|1|");
    outcome_free(o);
    o = exec(a, "whoami", AF_PLATFORM_APPLE, 0, NULL, NULL);
    CHECK_HAS(o, "\"result\":\"whoami|1|0|");
    outcome_free(o);
    app_close(a);
}

TEST(context__caller_package_android_the_calling_agents_package_empty_from_the_shell) {
    app *a = context_app();
    char *o = exec(a, "whoami", AF_PLATFORM_ANDROID, 0, "com.google.android.apps.gemini", NULL);
    CHECK_HAS(o, "\"result\":\"whoami|2|0|com.google.android.apps.gemini|");
    outcome_free(o);
    o = exec(a, "whoami", AF_PLATFORM_ANDROID, 0, NULL, NULL); /* the shell */
    CHECK_HAS(o, "\"result\":\"whoami|2|0||");
    outcome_free(o);
    o = exec(a, "whoami", AF_PLATFORM_ANDROID, 0, "", NULL);
    CHECK_HAS(o, "\"result\":\"whoami|2|0||");
    outcome_free(o);
    app_close(a);
}

TEST(context__request_the_bound_request_record_null_for_entity_lookups) {
    app *a = app_new();
    char *o = run(a->d, "edit_note", "{\"noteId\":\"2\",\"title\":null,\"content\":\"new\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":{\"id\":2,\"title\":\"Ideas\",\"content\":\"new\"}");
    outcome_free(o);
    CHECK_STREQ(a->last_args, "{\"noteId\":\"2\",\"title\":null,\"content\":\"new\"}");
    o = run(a->d, "cancel_order", "{\"order\":\"o-3\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    /* the entity id in the request is replaced by the entity */
    CHECK_STREQ(a->last_args, "{\"order\":{\"id\":\"o-3\",\"customer\":\"initech\",\"quantity\":1}}");
    /* the lookup itself had no request record (h_lookup_order checks af_call_args == NULL) */
    CHECK_STREQ(a->last_lookup, "{\"ids\":[\"o-3\"]}");
    app_close(a);
}

TEST(context__services_the_calls_di_scope) {
    app *a = context_app();
    app_install_scope_hooks(a);
    probe *p = probe_add(a, "p", GATE_ALLOW, NULL);
    char *o = run(a->d, "whoami", NULL);
    CHECK_HAS(o, "|host\""); /* the handler saw the scope */
    outcome_free(o);
    o = run(a->d, "cancel_order", CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    /* one scope per call: the delegate, the lookup and the handler saw the same one */
    CHECK(p->host_data_seen != NULL);
    CHECK(a->last_host_data_seen_by_lookup == p->host_data_seen);
    CHECK(a->last_host_data_seen_by_handler == p->host_data_seen);
    CHECK_EQ_INT(atomic_load(&a->begins), 2); /* the lookup opens no scope of its own */
    CHECK_EQ_INT(atomic_load(&a->ends), 2);
    app_close(a);
}

static void items_invoking(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    if (af_call_kind(call) == AF_CALL_ENTITY_LOOKUP) {
        char *v = af_call_item_get_json(call, "seen"); /* a lookup sees its call's items */
        CHECK_STREQ(v, "{\"by\":\"first\"}");
        af_string_free(v);
    } else {
        CHECK_STATUS(af_call_item_set(call, "seen", "{\"by\":\"first\"}"), AF_OK);
    }
    af_gate_allow(gate);
}
static void items_invoking2(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    char *v = af_call_item_get_json(call, "seen");
    CHECK_STREQ(v, "{\"by\":\"first\"}");
    af_string_free(v);
    af_gate_allow(gate);
}
static void items_invoked(void *ud, af_call *call, const char *outcome) {
    (void)ud;
    (void)outcome;
    char *v = af_call_item_get_json(call, "seen");
    if (af_call_kind(call) == AF_CALL_FUNCTION) CHECK_STREQ(v, "{\"by\":\"first\"}");
    af_string_free(v);
}

TEST(context__items_state_shared_between_delegates_and_the_handler) {
    app *a = context_app();
    af_delegate v1 = AF_DELEGATE_INIT;
    v1.on_invoking = items_invoking;
    af_delegate v2 = AF_DELEGATE_INIT;
    v2.on_invoking = items_invoking2;
    v2.on_invoked = items_invoked;
    CHECK_STATUS(af_add_delegate(a->d, &v1, NULL), AF_OK);
    CHECK_STATUS(af_add_delegate(a->d, &v2, NULL), AF_OK);
    char *o = run(a->d, "whoami", NULL);
    CHECK_HAS(o, "|item|"); /* the handler saw the item */
    outcome_free(o);
    o = run(a->d, "whoami", NULL); /* items are per call: a fresh call starts empty */
    CHECK_HAS(o, "|item|");
    outcome_free(o);
    app_close(a);
}

static void say_in_lookup(void *ud, af_call *call) {
    reg *r = ud;
    CHECK_STATUS(af_call_say(call, "Looked it up."), AF_OK);
    h_lookup_order(r, call);
}
static void silent_cancel(void *ud, af_call *call) {
    (void)ud;
    af_call_return(call, NULL);
}

TEST(context__say_text_for_siri_or_returned_with_the_android_result) {
    app *a = app_new();
    for (int p = 0; p < 3; p++) {
        char *o = exec(a, "create_order", p, 0, NULL, ACME);
        CHECK_SUCCESS(o);
        CHECK_HAS(o, "\"dialog\":\"Order created.\"");
        outcome_free(o);
    }
    char *o = run(a->d, "list_notes", NULL); /* nothing said: null */
    CHECK_HAS(o, "\"dialog\":null");
    outcome_free(o);
    app_close(a);
    /* what a lookup says is the dialog of the call it serves */
    a = app_bare();
    CHECK_STATUS(af_register_entity(a->d, ORDER_ENTITY_JSON, say_in_lookup, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, CANCEL_ORDER_JSON, silent_cancel, app_reg(a, NULL), app_reg_free), AF_OK);
    o = run(a->d, "cancel_order", CANCEL_O1);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Looked it up.\"");
    outcome_free(o);
    app_close(a);
}

static const char *OPENS_APP_FN = "{\"id\":\"show_order\",\"title\":\"Show order\",\"opensApp\":true,"
                                  "\"parameters\":[{\"name\":\"order\",\"type\":{\"entity\":\"order\"}}]}";

TEST(context__opens_app_brings_the_app_to_the_foreground_before_the_handler_on_ios) {
    app *a = app_new();
    CHECK_STATUS(af_register_function(a->d, OPENS_APP_FN, silent_cancel, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = exec(a, "show_order", AF_PLATFORM_APPLE, 0, NULL, CANCEL_O1);
    CHECK_OPEN_APP(o);
    CHECK_HAS(o, "Show order");
    outcome_free(o);
    o = exec(a, "show_order", AF_PLATFORM_APPLE, 1, NULL, CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    char *rj = af_registry_json(a->d);
    CHECK_HAS(rj, "\"opensApp\":true");
    af_string_free(rj);
    app_close(a);
}

TEST(context__opens_app_android_runs_it_in_the_background) {
    app *a = app_new();
    CHECK_STATUS(af_register_function(a->d, OPENS_APP_FN, silent_cancel, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = exec(a, "show_order", AF_PLATFORM_ANDROID, 0, "com.google.android.apps.gemini", CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    o = exec(a, "show_order", AF_PLATFORM_OTHER, 0, NULL, CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    app_close(a);
}

/* ---- Calling functions in the app ------------------------------------------------------ */

TEST(calling__every_call_goes_through_the_dispatcher_scope_binding_delegates_handler_result) {
    app *a = app_new();
    app_install_scope_hooks(a);
    probe_add(a, "d", GATE_ALLOW, NULL);
    const char *callers[] = {NULL, NULL, "com.google.android.apps.gemini"};
    for (int p = 0; p < 3; p++) { /* your own code, Siri, Gemini */
        app_trace_reset(a);
        char *o = exec(a, "create_order", p, 0, callers[p], ACME);
        CHECK_SUCCESS(o);
        outcome_free(o);
        char tr[512];
        app_trace_get(a, tr, sizeof tr);
        CHECK_STREQ(tr, "begin|invoking:d:create_order|handler:create_order|invoked:d:create_order|end");
    }
    CHECK_EQ_INT(atomic_load(&a->begins), 3); /* a new scope per call */
    app_close(a);
}

TEST(calling__call_it_directly_from_a_test_create_test_order) {
    app *a = app_new();
    af_invocation inv = inv_of("create_order", AF_PLATFORM_OTHER, 0, NULL);
    char *o = af_execute_json(a->d, &inv, "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Order created.\"");
    CHECK_HAS(o, "\"result\":{\"id\":\"o-100\",\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
    CHECK_HAS(o, "\"errorCode\":null");
    outcome_free(o);
    /* and the failure branch: "{ErrorCode}: {Message}" */
    o = af_execute_json(a->d, &inv, "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Urgent\"}");
    char code[64], msg[256];
    CHECK(json_str(o, "errorCode", code, sizeof code));
    CHECK(json_str(o, "message", msg, sizeof msg));
    CHECK_STREQ(code, "InvalidArgument");
    CHECK_HAS(msg, "priority");
    CHECK_HAS(msg, "Urgent");
    outcome_free(o);
    app_close(a);
}

static void no_handler_completion(void *ud, af_call *call) {
    (void)ud;
    (void)call; /* never completes: the timeout ends the call */
}

TEST(calling__execute_never_throws_every_failure_is_an_outcome) {
    app *a = app_new();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"boom\"}", failing_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"hang\"}", no_handler_completion, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"wipe\",\"requiresPermission\":true}", silent_cancel, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_set_function_enabled(a->d, "list_notes", 0), AF_OK);
    struct {
        const char *fn, *args, *code;
    } cases[] = {
        {"create_ordr", "{}", "FunctionNotFound"},
        {"list_notes", NULL, "Disabled"},
        {"create_order", "{\"customer\":1,\"quantity\":2}", "InvalidArgument"},
        {"create_order", "[]", "InvalidArgument"},
        {"create_order", "{\"customer\":\"a\",\"quantity\":99999999999}", "InvalidArgument"},
        {"cancel_order", "{\"order\":\"o-404\"}", "EntityNotFound"},
        {"wipe", NULL, "PermissionDenied"},
        {"boom", NULL, "HandlerFailed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *o = run(a->d, cases[i].fn, cases[i].args);
        CHECK_HAS(o, "\"status\":\"error\"");
        char want[64];
        snprintf(want, sizeof want, "\"errorCode\":\"%s\"", cases[i].code);
        CHECK_HAS(o, want);
        outcome_free(o);
    }
    char *o = run(a->d, "create_ordr", "{}");
    CHECK_HAS(o, "did you mean \\\"create_order\\\"");
    outcome_free(o);
    af_invocation inv = inv_of("hang", AF_PLATFORM_OTHER, 0, NULL);
    inv.timeout_ms = 20;
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_CODE(o, "TimedOut");
    outcome_free(o);
    app_close(a);
}

TEST(calling__arguments_are_a_json_object_keyed_by_the_parameter_names_in_camel_case) {
    app *a = app_new();
    char *o = run(a->d, "edit_note", "{\"noteId\":\"1\",\"title\":\"Shopping\",\"content\":\"bread\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":{\"id\":1,\"title\":\"Shopping\",\"content\":\"bread\"}");
    outcome_free(o);
    o = run(a->d, "edit_note", "{\"note_id\":\"1\",\"title\":\"x\",\"content\":\"y\"}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "note_id");
    outcome_free(o);
    o = run(a->d, "edit_note", "{\"noteId\":\"99\",\"title\":null,\"content\":\"y\"}"); /* nullable result */
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":null");
    outcome_free(o);
    app_close(a);
}

TEST(calling__enums_are_their_member_names) {
    app *a = app_new();
    const char *members[] = {"Low", "Normal", "High"};
    for (int i = 0; i < 3; i++) {
        char args[128], want[64];
        snprintf(args, sizeof args, "{\"customer\":\"acme\",\"quantity\":1,\"priority\":\"%s\"}", members[i]);
        snprintf(want, sizeof want, "\"priority\":\"%s\"", members[i]);
        char *o = run(a->d, "create_order", args);
        CHECK_HAS(o, want);
        outcome_free(o);
    }
    char *o = run(a->d, "create_order", "{\"customer\":\"acme\",\"quantity\":1,\"priority\":2}");
    CHECK_CODE(o, "InvalidArgument");
    outcome_free(o);
    o = run(a->d, "create_order", "{\"customer\":\"acme\",\"quantity\":1,\"priority\":\"high\"}");
    CHECK_CODE(o, "InvalidArgument");
    outcome_free(o);
    app_close(a);
}

TEST(calling__entities_are_their_ids_entity_not_found_names_the_parameter_and_id) {
    app *a = app_new();
    char *o = run(a->d, "cancel_order", "{\"order\":\"o-2\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Cancelled order o-2 for globex.\"");
    outcome_free(o);
    o = run(a->d, "cancel_order", "{\"order\":\"o-9\"}");
    CHECK_CODE(o, "EntityNotFound");
    CHECK_HAS(o, "\"message\":\"order: no order with id \\\"o-9\\\"\"");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    o = run(a->d, "cancel_order", "{\"order\":{\"id\":\"o-2\"}}");
    CHECK_CODE(o, "InvalidArgument");
    outcome_free(o);
    app_close(a);
}

static void when_handler(void *ud, af_call *call) {
    (void)ud;
    char at[64] = "";
    CHECK(json_str(af_call_args(call), "at", at, sizeof at));
    char out[96];
    snprintf(out, sizeof out, "\"%s\"", at);
    af_call_return(call, out);
}

TEST(calling__date_time_values_are_iso_8601_strings) {
    app *a = app_new();
    CHECK_STATUS(af_register_function(a->d,
                                      "{\"id\":\"remind_note\",\"parameters\":[{\"name\":\"noteId\",\"type\":\"string\"},"
                                      "{\"name\":\"at\",\"type\":\"dateTime\"}],\"result\":\"dateTime\"}",
                                      when_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = run(a->d, "remind_note", "{\"noteId\":\"1\",\"at\":\"2025-03-01T09:30:00+01:00\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "2025-03-01T09:30:00");
    outcome_free(o);
    o = run(a->d, "remind_note", "{\"noteId\":\"1\",\"at\":\"next tuesday\"}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "at");
    outcome_free(o);
    app_close(a);
}

TEST(calling__invocation_defaults_to_other_not_foreground_so_open_app_refuses_like_android) {
    app *a = app_new();
    add_sign_in(a);
    af_invocation inv = AF_INVOCATION_INIT; /* the defaults */
    inv.function_id = "cancel_order";
    char *o = af_execute_json(a->d, &inv, CANCEL_O1);
    CHECK_CODE(o, "Denied"); /* refused because it is not in the foreground */
    CHECK_HAS(o, "\"message\":\"Sign in to cancel orders.\"");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    inv.is_foreground = 1; /* an in-app assistant: the user is in the app, the gate passes */
    o = af_execute_json(a->d, &inv, CANCEL_O1);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    app_close(a);
}

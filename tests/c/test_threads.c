/*
 * Threads and the call's life: many threads executing, completion from another thread,
 * re-entrancy, registration while calls run, second and late completions, the permission
 * hook, caller policy, cancellation, timeouts (on time whatever host callbacks block), scope
 * end on every path, the log callback.
 */
#include "app.h"

/* ---- 8 threads x N calls ----------------------------------------------------------------- */

typedef struct worker {
    app *a;
    int index;
    long calls;
    long ok;
} worker;

static void *execute_worker(void *arg) {
    worker *w = arg;
    char args[128];
    for (long i = 0; i < w->calls; i++) {
        char *o;
        switch (i % 4) {
        case 0:
            snprintf(args, sizeof args, "{\"customer\":\"c%d\",\"quantity\":%ld}", w->index, i);
            o = run_on(w->a->d, "create_order", (int)(i % 3), 0, args);
            break;
        case 1: o = run_on(w->a->d, "search_order", (int)(i % 3), 0, "{\"query\":\"o\",\"limit\":2}"); break;
        case 2: o = run_on(w->a->d, "cancel_order", (int)(i % 3), 0, "{\"order\":\"o-2\"}"); break;
        default: o = run_on(w->a->d, "edit_note", (int)(i % 3), 0, "{\"noteId\":\"1\",\"title\":null,\"content\":\"x\"}"); break;
        }
        if (json_has(o, "\"status\":\"success\"")) w->ok++;
        else check_failed(__FILE__, __LINE__, "call %ld of thread %d: %s", i, w->index, o);
        outcome_free(o);
    }
    return NULL;
}

TEST(threads__execute_from_8_threads_x_10000_calls) {
    long n = env_long("AF_THREAD_CALLS", 10000);
    test_note("8 threads x %ld calls (AF_THREAD_CALLS)", n);
    app *a = app_new();
    app_install_scope_hooks(a);
    probe *p = probe_add(a, "p", GATE_ALLOW, NULL);
    pthread_t t[8];
    worker w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (worker){a, i, n, 0};
        pthread_create(&t[i], NULL, execute_worker, &w[i]);
    }
    long ok = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        ok += w[i].ok;
    }
    CHECK_EQ_INT(ok, 8 * n);
    /* every call and every cancel_order's lookup went through the delegate */
    CHECK_EQ_INT(atomic_load(&p->invoking), 8 * n + 8 * (n / 4 + (n % 4 > 2)));
    CHECK_EQ_INT(atomic_load(&p->invoked), atomic_load(&p->invoking));
    CHECK_EQ_INT(atomic_load(&a->begins), 8 * n);
    app_close(a);
}

/* ---- completion from another thread ----------------------------------------------------- */

typedef struct later_ctx {
    reg r;
    pool *pl;
    deferred *answers[64];
    atomic_int n;
    unsigned delay_us;
    int kind; /* DEFER_RETURN or DEFER_FAIL */
} later_ctx;

static void later_handler(void *ud, af_call *call) {
    later_ctx *c = ud;
    atomic_fetch_add(&c->r.a->handler_runs, 1);
    deferred *d = deferred_new(c->kind, call, NULL, c->kind == DEFER_RETURN ? "[{\"id\":7,\"title\":\"later\",\"content\":\"from another thread\"}]" : "the disk is full");
    d->code = AF_CODE_HANDLER_FAILED;
    int i = atomic_fetch_add(&c->n, 1);
    if (i >= 64) abort();
    c->answers[i] = d;
    pool_post(c->pl, deferred_run, d, c->delay_us);
}

static void later_free(void *ud) {
    later_ctx *c = ud;
    for (int i = 0; i < atomic_load(&c->n); i++) {
        deferred_wait(c->answers[i]);
        deferred_free(c->answers[i]);
    }
    atomic_fetch_add(&c->r.a->frees, 1);
    free(c);
}

static later_ctx *reg_later(app *a, const char *descriptor, pool *pl, unsigned delay_us, int kind) {
    later_ctx *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->r.a = a;
    c->pl = pl;
    c->delay_us = delay_us;
    c->kind = kind;
    atomic_fetch_add(&a->regs, 1);
    CHECK_STATUS(af_register_function(a->d, descriptor, later_handler, c, later_free), AF_OK);
    return c;
}

static const char *LATER_NOTES = "{\"id\":\"list_notes_later\",\"result\":{\"array\":{\"record\":\"Note\"}}}";

typedef struct outcome_slot {
    atomic_int calls;
    pthread_t thread;
    char json[1024];
} outcome_slot;
static void on_outcome_slot(void *ud, const char *json) {
    outcome_slot *s = ud;
    s->thread = pthread_self();
    snprintf(s->json, sizeof s->json, "%s", json);
    atomic_fetch_add(&s->calls, 1);
}

TEST(threads__asynchronous_completion_from_another_thread) {
    app *a = app_bare();
    app_install_scope_hooks(a);
    pool *pl = pool_start(2);
    later_ctx *c = reg_later(a, LATER_NOTES, pl, 3000, DEFER_RETURN);
    /* af_execute_json blocks until the other thread completes */
    char *o = run(a->d, "list_notes_later", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "from another thread");
    outcome_free(o);
    deferred_wait(c->answers[0]); /* the outcome is delivered inside af_call_return */
    CHECK_EQ_INT(c->answers[0]->status, AF_OK);
    /* af_execute_async returns at once; the outcome arrives on the completing thread */
    outcome_slot s = {0};
    af_invocation inv = inv_of("list_notes_later", AF_PLATFORM_ANDROID, 0, NULL);
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    CHECK_EQ_INT(atomic_load(&s.calls), 0);
    while (atomic_load(&s.calls) == 0) sleep_us(500);
    CHECK_SUCCESS(s.json);
    CHECK(!pthread_equal(s.thread, pthread_self()));
    pool_stop(pl);
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    CHECK_EQ_INT(atomic_load(&a->ends), 2);
    /* failing later works the same way */
    pl = pool_start(1);
    reg_later(a, "{\"id\":\"fail_later\"}", pl, 1000, DEFER_FAIL);
    o = run(a->d, "fail_later", NULL);
    CHECK_CODE(o, "HandlerFailed");
    CHECK_HAS(o, "the disk is full");
    outcome_free(o);
    pool_stop(pl);
    app_close(a);
}

/* ---- re-entrancy ------------------------------------------------------------------------- */

static atomic_int nested_count;
static void nested_handler(void *ud, af_call *call) {
    reg *r = ud;
    int nth = atomic_fetch_add(&nested_count, 1) + 1;
    atomic_fetch_add(&r->a->handler_runs, 1);
    /* a handler calls af_execute_json on the same dispatcher (no library lock is held) */
    char *inner = run_on(r->a->d, "create_order", af_call_platform(call), 0,
                         "{\"customer\":\"inner\",\"quantity\":1}");
    CHECK_SUCCESS(inner);
    char id[32] = "";
    CHECK(json_str(inner, "id", id, sizeof id));
    outcome_free(inner);
    /* and registers a function from inside the handler */
    char desc[96];
    snprintf(desc, sizeof desc, "{\"id\":\"made_in_handler_%d\",\"result\":{\"array\":{\"record\":\"Note\"}}}",
             nth);
    CHECK_STATUS(af_register_function(r->a->d, desc, h_list_notes, app_reg(r->a, NULL), app_reg_free), AF_OK);
    char out[64];
    snprintf(out, sizeof out, "\"%s\"", id);
    CHECK_STATUS(af_call_return(call, out), AF_OK);
}

static void reentrant_invoking(void *ud, af_call *call, af_gate *gate) {
    reg *r = ud;
    const char *fn = af_call_function_id(call);
    if (fn && strcmp(fn, "outer") == 0) {
        char *o = run(r->a->d, "list_notes", NULL); /* a delegate calls back in too */
        CHECK_SUCCESS(o);
        outcome_free(o);
    }
    af_gate_allow(gate);
}

TEST(threads__af_execute_from_inside_a_handler_on_the_same_dispatcher) {
    app *a = app_new();
    app_install_scope_hooks(a);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoking = reentrant_invoking;
    v.free_user_data = app_reg_free;
    CHECK_STATUS(af_add_delegate(a->d, &v, app_reg(a, NULL)), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"outer\",\"result\":\"string\"}", nested_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = run(a->d, "outer", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":\"o-100\"");
    outcome_free(o);
    /* async outer, too */
    outcome_slot s = {0};
    af_invocation inv = inv_of("outer", AF_PLATFORM_APPLE, 1, NULL);
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    CHECK_HAS(s.json, "\"result\":\"o-101\"");
    o = run(a->d, "made_in_handler_1", NULL); /* registered from inside the handler */
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->begins), 7); /* (outer, list_notes, create_order) x2, made_in_handler_1 */
    app_close(a);
}

/* ---- registration while calls run ---------------------------------------------------------- */

typedef struct churn {
    app *a;
    atomic_bool stop;
    long cycles;
} churn;

static void *churn_main(void *arg) {
    churn *c = arg;
    char desc[96], id[32];
    while (!atomic_load(&c->stop)) {
        snprintf(id, sizeof id, "temp_%ld", c->cycles % 4);
        snprintf(desc, sizeof desc, "{\"id\":\"%s\",\"result\":{\"array\":{\"record\":\"Note\"}}}", id);
        af_status s = af_register_function(c->a->d, desc, h_list_notes, app_reg(c->a, NULL), app_reg_free);
        CHECK(s == AF_OK || s == AF_ERR_DUPLICATE);
        if (c->cycles % 2) {
            s = af_unregister_function(c->a->d, id);
            CHECK(s == AF_OK || s == AF_ERR_NOT_FOUND);
        }
        if (c->cycles % 16 == 0) {
            af_delegate v = AF_DELEGATE_INIT;
            v.free_user_data = app_reg_free;
            CHECK_STATUS(af_add_delegate(c->a->d, &v, app_reg(c->a, NULL)), AF_OK);
            app_install_scope_hooks(c->a);
        }
        c->cycles++;
    }
    return NULL;
}

typedef struct caller_ctx {
    app *a;
    int index;
    long n, found, not_found;
} caller_ctx;

static void *temp_caller(void *arg) {
    caller_ctx *c = arg;
    char id[32];
    for (long i = 0; i < c->n; i++) {
        snprintf(id, sizeof id, "temp_%ld", (i + c->index) % 4);
        char *o = run(c->a->d, id, NULL);
        if (json_has(o, "\"status\":\"success\"")) c->found++;
        else if (json_has(o, "FunctionNotFound")) c->not_found++;
        else check_failed(__FILE__, __LINE__, "unexpected outcome %s", o);
        outcome_free(o);
    }
    return NULL;
}

TEST(threads__registration_and_unregistration_while_calls_run) {
    long n = env_long("AF_THREAD_CALLS", 10000) / 2;
    app *a = app_new();
    app_install_scope_hooks(a);
    churn ch = {.a = a};
    pthread_t tc, t[4];
    caller_ctx cc[4];
    pthread_create(&tc, NULL, churn_main, &ch);
    for (int i = 0; i < 4; i++) {
        cc[i] = (caller_ctx){a, i, n, 0, 0};
        pthread_create(&t[i], NULL, temp_caller, &cc[i]);
    }
    long found = 0, missing = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        found += cc[i].found;
        missing += cc[i].not_found;
    }
    atomic_store(&ch.stop, true);
    pthread_join(tc, NULL);
    test_note("%ld registration cycles; %ld calls found their function, %ld did not", ch.cycles, found, missing);
    CHECK_EQ_INT(found + missing, 4 * n);
    CHECK(found > 0);
    app_close(a); /* every registration's user_data freed exactly once */
}

/* ---- second and late completions ----------------------------------------------------------- */

static af_call *kept_call;
static void double_return_handler(void *ud, af_call *call) {
    (void)ud;
    kept_call = call;
    CHECK_STATUS(af_call_return(call, NULL), AF_OK);
    CHECK_STATUS(af_call_return(call, NULL), AF_ERR_ALREADY_COMPLETED);
    CHECK_STATUS(af_call_fail(call, AF_CODE_HANDLER_FAILED, "again"), AF_ERR_ALREADY_COMPLETED);
}

static void late_return_task(void *arg) {
    af_status *s = arg;
    *s = af_call_return(kept_call, NULL);
}

TEST(threads__a_second_completion_returns_already_completed_and_is_logged) {
    app *a = app_new();
    log_sink s;
    log_sink_init(&s);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &s, NULL), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"twice\"}", double_return_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = run(a->d, "twice", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&s.warnings), 2);
    char last[512];
    log_sink_last(&s, last, sizeof last);
    CHECK_HAS(last, "twice");
    /* once more from another thread, after the call ended */
    af_status late = -1;
    pool *pl = pool_start(1);
    pool_post(pl, late_return_task, &late, 0);
    pool_stop(pl);
    CHECK_EQ_INT(late, AF_ERR_ALREADY_COMPLETED);
    CHECK_EQ_INT(atomic_load(&s.warnings), 3);
    log_sink_last(&s, last, sizeof last);
    CHECK_HAS(last, "after it ended");
    app_close(a);
}

TEST(threads__a_late_completion_after_other_calls_still_returns_already_completed) {
    app *a = app_new();
    log_sink s;
    log_sink_init(&s);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &s, NULL), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"twice\"}", double_return_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = run(a->d, "twice", NULL);
    outcome_free(o);
    af_call *first = kept_call;
    /* more calls on this thread: the library may reuse the handle's slot */
    for (int i = 0; i < 3; i++) {
        o = run(a->d, "list_notes", NULL);
        outcome_free(o);
    }
    CHECK_STATUS(af_call_return(first, NULL), AF_ERR_ALREADY_COMPLETED);
    CHECK_STATUS(af_call_fail(first, AF_CODE_HANDLER_FAILED, "late"), AF_ERR_ALREADY_COMPLETED);
    CHECK(af_call_function_id(first) == NULL);
    app_close(a);
}

/* ---- the permission hook --------------------------------------------------------------------- */

typedef struct perm {
    reg r;
    pool *pl;
    int kind;
    atomic_int asked;
    deferred *answers[8];
    atomic_int n;
} perm;
static void perm_hook(void *ud, af_call *call, af_gate *gate) {
    perm *p = ud;
    atomic_fetch_add(&p->asked, 1);
    CHECK_STREQ(af_call_function_id(call), "wipe_notes");
    deferred *d = deferred_new(p->kind, NULL, gate, "The user said no.");
    p->answers[atomic_fetch_add(&p->n, 1)] = d;
    pool_post(p->pl, deferred_run, d, 2000); /* the user answers later, on another thread */
}
static void perm_free(void *ud) {
    perm *p = ud;
    for (int i = 0; i < atomic_load(&p->n); i++) {
        deferred_wait(p->answers[i]);
        deferred_free(p->answers[i]);
    }
    atomic_fetch_add(&p->r.a->frees, 1);
    free(p);
}
static void wipe_handler(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    af_call_return(call, NULL);
}

TEST(pipeline__permission_hook_none_is_permission_denied_and_it_may_answer_later) {
    app *a = app_new();
    app_install_scope_hooks(a);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"wipe_notes\",\"requiresPermission\":true}", wipe_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    char *o = run(a->d, "wipe_notes", NULL);
    CHECK_CODE(o, "PermissionDenied");
    CHECK_HAS(o, "permission");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    pool *pl = pool_start(1);
    perm *p = calloc(1, sizeof *p);
    p->r.a = a;
    p->pl = pl;
    p->kind = DEFER_ALLOW;
    atomic_fetch_add(&a->regs, 1);
    CHECK_STATUS(af_set_permission_hook(a->d, perm_hook, p, perm_free), AF_OK);
    o = run(a->d, "wipe_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    p->kind = DEFER_DENY;
    o = run(a->d, "wipe_notes", NULL);
    CHECK_CODE(o, "PermissionDenied");
    CHECK_HAS(o, "The user said no.");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 1);
    o = run(a->d, "list_notes", NULL); /* not asked for other functions */
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&p->asked), 2);
    pool_stop(pl);
    app_close(a);
}

/* ---- caller policy ------------------------------------------------------------------------------ */

TEST(pipeline__caller_policy_dispatcher_wide_and_per_function_is_denied_with_no_handler_run) {
    app *a = app_new();
    app_install_scope_hooks(a);
    probe *pr = probe_add(a, "p", GATE_ALLOW, NULL);
    const char *args = "{\"customer\":\"acme\",\"quantity\":1}";
    CHECK_STATUS(af_set_caller_policy(a->d, "{\"allow\":[\"com.google.android.apps.gemini\",\"com.example.agent\",\"\"],\"deny\":[\"com.evil\"]}"), AF_OK);
    struct {
        const char *caller;
        bool allowed;
    } cases[] = {{"com.evil", false}, {"com.unknown", false}, {"com.google.android.apps.gemini", true}, {NULL, true}};
    for (int i = 0; i < 4; i++) {
        af_invocation inv = inv_of("create_order", AF_PLATFORM_ANDROID, 0, cases[i].caller);
        char *o = af_execute_json(a->d, &inv, args);
        if (cases[i].allowed) {
            CHECK_SUCCESS(o);
        } else {
            CHECK_CODE(o, "Denied");
            CHECK_HAS(o, cases[i].caller);
        }
        outcome_free(o);
    }
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 2);
    CHECK_EQ_INT(atomic_load(&pr->invoking), 2); /* refused before the delegates */
    CHECK_EQ_INT(atomic_load(&pr->invoked), 4);  /* which still see the refusal */
    /* per function: replaces the descriptor's "callers" */
    CHECK_STATUS(af_set_function_caller_policy(a->d, "create_order", "{\"deny\":[\"com.google.android.apps.gemini\"]}"), AF_OK);
    af_invocation inv = inv_of("create_order", AF_PLATFORM_ANDROID, 0, "com.google.android.apps.gemini");
    char *o = af_execute_json(a->d, &inv, args);
    CHECK_CODE(o, "Denied");
    CHECK_HAS(o, "create_order");
    outcome_free(o);
    inv.function_id = "list_notes"; /* other functions still allowed */
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    inv = inv_of("create_order", AF_PLATFORM_ANDROID, 0, "com.example.agent");
    o = af_execute_json(a->d, &inv, args);
    CHECK_SUCCESS(o);
    outcome_free(o);
    /* a descriptor's own "callers" */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"gemini_only\",\"callers\":{\"allow\":[\"com.google.android.apps.gemini\"]}}",
                                      wipe_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    inv = inv_of("gemini_only", AF_PLATFORM_ANDROID, 0, "com.example.agent");
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_CODE(o, "Denied");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 4);
    app_close(a);
}

/* ---- cancellation ------------------------------------------------------------------------------ */

TEST(pipeline__cancellation_before_the_handler_starts_the_handler_never_runs) {
    app *a = app_new();
    app_install_scope_hooks(a);
    probe *pr = probe_add(a, "p", GATE_ALLOW, NULL);
    af_cancel_token *t = af_cancel_token_new();
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    af_invocation inv = inv_of("create_order", AF_PLATFORM_OTHER, 0, NULL);
    inv.cancel_token = t;
    char *o = af_execute_json(a->d, &inv, "{\"customer\":\"acme\",\"quantity\":1}");
    CHECK_CODE(o, "Cancelled");
    outcome_free(o);
    outcome_slot s = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, "{\"customer\":\"acme\",\"quantity\":1}", on_outcome_slot, &s), AF_OK);
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    CHECK_CODE(s.json, "Cancelled");
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    CHECK_EQ_INT(atomic_load(&pr->invoking), 0);
    CHECK_EQ_INT(atomic_load(&pr->invoked), 2);
    CHECK_EQ_INT(atomic_load(&a->ends), 2); /* the scope began and ended */
    af_cancel_token_free(t);
    app_close(a);
}

static void cancel_task(void *arg) { af_cancel_token_cancel(arg); }

typedef struct cancel_when_gated {
    probe *pr;
    af_cancel_token *t;
} cancel_when_gated;

/* Cancels once the probe's on_invoking has been handed its gate (it keeps it pending), not
 * after a fixed delay: on a loaded machine the call may not have reached its gate by then. */
static void cancel_once_gated(void *arg) {
    cancel_when_gated *w = arg;
    uint64_t give_up = now_us() + 10 * 1000000ull;
    while (atomic_load(&w->pr->invoking) == 0 && now_us() < give_up) sleep_us(1000);
    af_cancel_token_cancel(w->t);
}

TEST(pipeline__cancellation_while_a_gate_is_pending_the_handler_never_runs_late_answer_refused) {
    app *a = app_new();
    app_install_scope_hooks(a);
    probe *pr = probe_add(a, "p", GATE_NONE, NULL); /* never answers by itself */
    af_cancel_token *t = af_cancel_token_new();
    pool *pl = pool_start(1);
    cancel_when_gated w = {pr, t};
    pool_post(pl, cancel_once_gated, &w, 0);
    af_invocation inv = inv_of("list_notes", AF_PLATFORM_OTHER, 0, NULL);
    inv.cancel_token = t;
    char *o = af_execute_json(a->d, &inv, NULL);
    CHECK_CODE(o, "Cancelled");
    outcome_free(o);
    pool_stop(pl);
    CHECK_EQ_INT(atomic_load(&pr->invoking), 1);
    CHECK_STATUS(af_gate_allow(pr->pending), AF_ERR_ALREADY_COMPLETED);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    CHECK_EQ_INT(atomic_load(&pr->invoked), 1);
    af_cancel_token_free(t);
    app_close(a);
}

typedef struct running {
    reg r;
    atomic_int cancel_callbacks;
    atomic_int saw_cancelled;
    af_call *call;
    atomic_int started;
} running;

static void on_cancel_cb(void *ud) {
    running *rn = ud;
    atomic_fetch_add(&rn->cancel_callbacks, 1);
    if (af_call_is_cancelled(rn->call)) atomic_fetch_add(&rn->saw_cancelled, 1);
}

static void running_handler(void *ud, af_call *call) {
    running *rn = ud;
    rn->call = call;
    CHECK_EQ_INT(af_call_is_cancelled(call), 0);
    CHECK_STATUS(af_call_on_cancel(call, on_cancel_cb, rn, NULL, NULL), AF_OK);
    atomic_store(&rn->started, 1); /* and returns without completing: it runs "in the background" */
}

static void running_free(void *ud) {
    running *rn = ud;
    atomic_fetch_add(&rn->r.a->frees, 1);
    free(rn);
}

static running *reg_running(app *a, const char *id) {
    running *rn = calloc(1, sizeof *rn);
    rn->r.a = a;
    atomic_fetch_add(&a->regs, 1);
    char desc[64];
    snprintf(desc, sizeof desc, "{\"id\":\"%s\",\"result\":\"int32\"}", id);
    CHECK_STATUS(af_register_function(a->d, desc, running_handler, rn, running_free), AF_OK);
    return rn;
}

TEST(pipeline__cancelling_a_running_async_handler_cancelled_exactly_once_late_completion_refused) {
    app *a = app_new();
    app_install_scope_hooks(a);
    log_sink ls;
    log_sink_init(&ls);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &ls, NULL), AF_OK);
    probe *pr = probe_add(a, "p", GATE_ALLOW, NULL);
    running *rn = reg_running(a, "long_job");
    af_cancel_token *t = af_cancel_token_new();
    af_invocation inv = inv_of("long_job", AF_PLATFORM_OTHER, 0, NULL);
    inv.cancel_token = t;
    outcome_slot s = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    CHECK_EQ_INT(atomic_load(&rn->started), 1);
    CHECK_EQ_INT(atomic_load(&s.calls), 0);
    /* cancel from another thread: the outcome is delivered there */
    pool *pl = pool_start(1);
    pool_post(pl, cancel_task, t, 1000);
    pool_stop(pl);
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    CHECK_CODE(s.json, "Cancelled");
    CHECK_EQ_INT(atomic_load(&rn->cancel_callbacks), 1);
    CHECK_EQ_INT(atomic_load(&rn->saw_cancelled), 1); /* af_call_is_cancelled inside on_cancel */
    CHECK_EQ_INT(atomic_load(&pr->invoked), 1);
    CHECK_EQ_INT(atomic_load(&a->ends), 1);
    /* the handler finishes its work later: refused, logged, nothing delivered twice */
    long warnings = atomic_load(&ls.warnings);
    CHECK_STATUS(af_call_return(rn->call, "42"), AF_ERR_ALREADY_COMPLETED);
    CHECK_EQ_INT(atomic_load(&ls.warnings), warnings + 1);
    char last[512];
    log_sink_last(&ls, last, sizeof last);
    CHECK_HAS(last, "long_job");
    CHECK_EQ_INT(af_call_is_cancelled(rn->call), 1);
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK); /* again: nothing happens */
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    CHECK_EQ_INT(atomic_load(&rn->cancel_callbacks), 1);
    af_cancel_token_free(t);
    app_close(a);
}

typedef struct cancel_when_started {
    running *rn;
    af_cancel_token *t;
} cancel_when_started;

/* Cancels once the handler has started (not after a fixed delay, which a loaded machine
 * can outlast before the call reaches its handler). */
static void cancel_once_started(void *arg) {
    cancel_when_started *w = arg;
    uint64_t give_up = now_us() + 10 * 1000000ull;
    while (atomic_load(&w->rn->started) == 0 && now_us() < give_up) sleep_us(1000);
    af_cancel_token_cancel(w->t);
}

TEST(pipeline__cancelling_a_running_handler_of_a_blocking_af_execute) {
    app *a = app_new();
    app_install_scope_hooks(a);
    running *rn = reg_running(a, "long_job");
    af_cancel_token *t = af_cancel_token_new();
    af_invocation inv = inv_of("long_job", AF_PLATFORM_APPLE, 1, NULL);
    inv.cancel_token = t;
    pool *pl = pool_start(1);
    cancel_when_started w = {rn, t};
    pool_post(pl, cancel_once_started, &w, 0);
    char *o = af_execute_json(a->d, &inv, NULL);
    pool_stop(pl);
    CHECK_CODE(o, "Cancelled");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&rn->cancel_callbacks), 1);
    CHECK_STATUS(af_call_fail(rn->call, AF_CODE_HANDLER_FAILED, "late"), AF_ERR_ALREADY_COMPLETED);
    af_cancel_token_free(t);
    app_close(a);
}

TEST(pipeline__timeouts_end_the_call_timed_out) {
    app *a = app_new();
    app_install_scope_hooks(a);
    log_sink ls;
    log_sink_init(&ls);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &ls, NULL), AF_OK);
    running *rn = reg_running(a, "slow_job");
    af_invocation inv = inv_of("slow_job", AF_PLATFORM_ANDROID, 0, NULL);
    inv.timeout_ms = 20;
    uint64_t t0 = now_us();
    char *o = af_execute_json(a->d, &inv, NULL);
    CHECK(now_us() - t0 >= 20000);
    CHECK_CODE(o, "TimedOut");
    CHECK_HAS(o, "20 ms");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&rn->cancel_callbacks), 1);
    CHECK_STATUS(af_call_return(rn->call, "1"), AF_ERR_ALREADY_COMPLETED);
    /* asynchronous: the library's timer thread ends it (a longer timeout, so that even
       under valgrind the handler has started before it elapses) */
    inv.timeout_ms = 500;
    outcome_slot s = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    while (atomic_load(&s.calls) == 0) sleep_us(1000);
    CHECK_CODE(s.json, "TimedOut");
    CHECK(!pthread_equal(s.thread, pthread_self()));
    CHECK_EQ_INT(atomic_load(&rn->cancel_callbacks), 2);
    CHECK_STATUS(af_call_return(rn->call, "1"), AF_ERR_ALREADY_COMPLETED);
    CHECK(atomic_load(&ls.warnings) >= 2);
    /* a call that finishes in time is not affected */
    inv.function_id = "list_notes";
    inv.timeout_ms = 5000;
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    sleep_us(2000);
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    app_close(a);
}

static atomic_int inline_late_status;
static atomic_int inline_late_cancelled_after;
static atomic_int inline_late_cancel_callbacks;
static atomic_int inline_late_callbacks_in_handler;
static void count_cancel(void *ud) {
    (void)ud;
    atomic_fetch_add(&inline_late_cancel_callbacks, 1);
}
/* blocks on the thread of af_execute_json past the call's deadline, then answers inline */
static void answers_inline_after_40ms(void *ud, af_call *call) {
    (void)ud;
    uint64_t id = 0;
    CHECK_STATUS(af_call_on_cancel(call, count_cancel, NULL, NULL, &id), AF_OK);
    sleep_us(40000);
    CHECK_EQ_INT(af_call_is_cancelled(call), 0); /* no timer watches a blocking call */
    atomic_store(&inline_late_status, af_call_return(call, "1"));
    atomic_store(&inline_late_cancelled_after, af_call_is_cancelled(call));
    atomic_store(&inline_late_callbacks_in_handler, atomic_load(&inline_late_cancel_callbacks));
}

TEST(pipeline__a_blocking_af_execute_whose_handler_answers_inline_after_its_deadline_ends_timed_out) {
    app *a = app_new();
    app_install_scope_hooks(a);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"late_inline\",\"result\":\"int32\"}", answers_inline_after_40ms,
                                      app_reg(a, NULL), app_reg_free),
                 AF_OK);
    af_invocation inv = inv_of("late_inline", AF_PLATFORM_ANDROID, 0, NULL);
    inv.timeout_ms = 10;
    char *o = af_execute_json(a->d, &inv, NULL);
    CHECK_CODE(o, "TimedOut");
    CHECK_HAS(o, "10 ms");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&inline_late_status), AF_ERR_ALREADY_COMPLETED);
    CHECK_EQ_INT(atomic_load(&inline_late_cancelled_after), 1);
    CHECK_EQ_INT(atomic_load(&inline_late_callbacks_in_handler), 0); /* they run once it returns */
    CHECK_EQ_INT(atomic_load(&inline_late_cancel_callbacks), 1);
    /* in time, the same answer is the outcome */
    inv.timeout_ms = 30000;
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&inline_late_status), AF_OK);
    CHECK_EQ_INT(atomic_load(&inline_late_cancelled_after), 0);
    CHECK_EQ_INT(atomic_load(&inline_late_cancel_callbacks), 1);
    app_close(a);
}

/* ---- scope end on every path -------------------------------------------------------------------- */

TEST(pipeline__scope_end_runs_exactly_once_on_every_path) {
    app *a = app_new();
    app_install_scope_hooks(a);
    probe *pr = probe_add(a, "gate", GATE_DENY, "No.");
    pr->only_for = "create_note";
    running *rn = reg_running(a, "slow_job");
    (void)rn;
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"wipe_notes\",\"requiresPermission\":true}", wipe_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"boom\"}", wipe_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_set_function_enabled(a->d, "boom", 0), AF_OK);
    CHECK_STATUS(af_set_function_caller_policy(a->d, "edit_note", "{\"deny\":[\"com.evil\"]}"), AF_OK);
    af_cancel_token *cancelled = af_cancel_token_new();
    af_cancel_token_cancel(cancelled);
    struct {
        const char *fn, *args, *caller;
        const af_cancel_token *token;
        uint32_t timeout;
        const char *expect;
    } paths[] = {
        {"nope", NULL, NULL, NULL, 0, "FunctionNotFound"},
        {"boom", NULL, NULL, NULL, 0, "Disabled"},
        {"edit_note", "{\"noteId\":\"1\",\"title\":null,\"content\":\"x\"}", "com.evil", NULL, 0, "Denied"},
        {"create_order", "{}", NULL, NULL, 0, "InvalidArgument"},
        {"cancel_order", "{\"order\":\"o-77\"}", NULL, NULL, 0, "EntityNotFound"},
        {"create_note", "{\"title\":\"a\",\"content\":\"b\"}", NULL, NULL, 0, "Denied"},
        {"wipe_notes", NULL, NULL, NULL, 0, "PermissionDenied"},
        {"list_notes", NULL, NULL, cancelled, 0, "Cancelled"},
        {"slow_job", NULL, NULL, NULL, 10, "TimedOut"},
        {"list_notes", NULL, NULL, NULL, 0, "\"status\":\"success\""},
    };
    int n = (int)(sizeof paths / sizeof paths[0]);
    for (int i = 0; i < n; i++) {
        for (int async = 0; async < 2; async++) {
            long b0 = atomic_load(&a->begins), e0 = atomic_load(&a->ends);
            af_invocation inv = inv_of(paths[i].fn, AF_PLATFORM_ANDROID, 0, paths[i].caller);
            inv.cancel_token = paths[i].token;
            inv.timeout_ms = paths[i].timeout;
            const char *o;
            char *owned = NULL;
            outcome_slot s = {0};
            if (async) {
                CHECK_STATUS(af_execute_async(a->d, &inv, paths[i].args, on_outcome_slot, &s), AF_OK);
                while (atomic_load(&s.calls) == 0) sleep_us(500);
                o = s.json;
            } else {
                o = owned = af_execute_json(a->d, &inv, paths[i].args);
            }
            CHECK_HAS(o, paths[i].expect);
            CHECK_MSG(atomic_load(&a->begins) == b0 + 1 && atomic_load(&a->ends) == e0 + 1,
                      "%s (%s): %ld begins, %ld ends", paths[i].expect, async ? "async" : "sync",
                      atomic_load(&a->begins) - b0, atomic_load(&a->ends) - e0);
            outcome_free(owned);
        }
    }
    af_cancel_token_free(cancelled);
    app_close(a);
}

/* ---- timeouts fire on time whatever host code does (issue 18) ------------------------------ */

typedef struct lateness {
    atomic_int outcomes;
    pthread_t caller;
} lateness;

/* One call of run_timeouts: when it was started and af_execute_async returned (on the
 * calling thread), and when and where its outcome came. */
typedef struct timed_call {
    lateness *l;
    uint64_t started_us, returned_us;
    uint64_t outcome_us;
    int timed_out, on_caller_thread;
} timed_call;

static void never_answers(void *ud, af_call *call) {
    reg *r = ud;
    (void)call; /* returns without completing: only the timeout ends the call */
    atomic_fetch_add(&r->a->handler_runs, 1);
}

static void telemetry_blocks_100ms(void *ud, af_call *call, const char *outcome_json) {
    (void)ud;
    (void)call;
    (void)outcome_json;
    sleep_us(100000); /* a telemetry delegate writing its log (seed 000) */
}

static void on_outcome_lateness(void *ud, const char *json) {
    timed_call *c = ud;
    c->outcome_us = now_us();
    c->timed_out = json_has(json, "\"errorCode\":\"TimedOut\"");
    c->on_caller_thread = pthread_equal(pthread_self(), c->l->caller);
    atomic_fetch_add(&c->l->outcomes, 1); /* publishes the fields above */
}

/* Runs n calls with a 20 ms timeout that never answer and returns the latest outcome's
 * lateness: how long after its own deadline it came (what a call waits for besides its
 * own on_invoked). Counted per call, from its own start, so that a slow start of the
 * later calls (a loaded machine, valgrind) is not counted against the library. */
static long long run_timeouts(app *a, int n, lateness *l, int *ended_on_caller) {
    memset(l, 0, sizeof *l);
    l->caller = pthread_self();
    timed_call *calls = calloc((size_t)n, sizeof *calls);
    if (!calls) abort();
    af_invocation inv = inv_of("never", AF_PLATFORM_OTHER, 0, NULL);
    inv.timeout_ms = 20;
    for (int i = 0; i < n; i++) {
        calls[i].l = l;
        calls[i].started_us = now_us();
        CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_lateness, &calls[i]), AF_OK);
        calls[i].returned_us = now_us();
    }
    uint64_t give_up = now_us() + 60 * 1000000ull;
    while (atomic_load(&l->outcomes) < n && now_us() < give_up) sleep_us(2000);
    CHECK_EQ_INT(atomic_load(&l->outcomes), n);
    long long latest = 0;
    *ended_on_caller = 0;
    for (int i = 0; i < n && atomic_load(&l->outcomes) == n; i++) {
        timed_call *c = &calls[i];
        CHECK_MSG(c->timed_out, "call %d did not end TimedOut", i);
        /* a call ends on a library completion thread; on the calling thread only if its
         * deadline passed while its handler still ran inline there (the header: callbacks
         * run on the thread driving the call), which needs af_execute_async to have taken
         * at least the 20 ms timeout */
        if (c->on_caller_thread) {
            (*ended_on_caller)++;
            CHECK_MSG(c->returned_us - c->started_us >= 20000,
                      "call %d ended on the calling thread, yet af_execute_async returned %lld us after it started, before its deadline",
                      i, (long long)(c->returned_us - c->started_us));
        }
        long long late = (long long)c->outcome_us - (long long)(c->started_us + 20000);
        if (late > latest) latest = late;
    }
    free(calls);
    return latest;
}

TEST(threads__fifty_20ms_timeouts_with_an_on_invoked_blocking_100ms_all_end_within_a_second) {
    /* One timer thread running every timed-out call's on_invoked in turn made the last of
     * these 50 outcomes arrive 5 s after its deadline. The timer only marks the call timed
     * out; a completion thread (one more whenever none is free) runs the rest, so each call
     * waits only for its own on_invoked: how late an outcome comes after its deadline does
     * not grow with the number of calls. */
    long bound_ms = env_long("AF_TIMEOUT_BOUND_MS", 1000);
    app *a = app_bare();
    app_install_scope_hooks(a);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"never\",\"result\":\"string\"}", never_answers,
                                      app_reg(a, NULL), app_reg_free),
                 AF_OK);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoked = telemetry_blocks_100ms;
    v.free_user_data = app_reg_free;
    CHECK_STATUS(af_add_delegate(a->d, &v, app_reg(a, NULL)), AF_OK);
    lateness l;
    int inline10, inline50;
    long long ten = run_timeouts(a, 10, &l, &inline10);
    long long fifty = run_timeouts(a, 50, &l, &inline50);
    test_note("the latest outcome %lld ms after its deadline of 10 calls, %lld ms of 50 (bound %ld ms, AF_TIMEOUT_BOUND_MS); "
              "%d and %d timed out while their handler still ran on the calling thread",
              ten / 1000, fifty / 1000, bound_ms, inline10, inline50);
    CHECK_MSG(ten < bound_ms * 1000, "one of 10 timeouts ended %lld ms after its deadline", ten / 1000);
    CHECK_MSG(fifty < bound_ms * 1000, "one of 50 timeouts ended %lld ms after its deadline", fifty / 1000);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 60);
    app_close(a); /* every scope ended, every user_data freed */
}

/* ---- a token carrying several calls ------------------------------------------------------------ */

typedef struct token_calls {
    atomic_int outcomes, here;
    pthread_t canceller;
} token_calls;

static token_calls *the_token_calls;

static void on_invoked_waits_for_the_others(void *ud, af_call *call, const char *outcome_json) {
    (void)ud;
    (void)call;
    token_calls *t = the_token_calls;
    if (!json_has(outcome_json, "Cancelled") || !pthread_equal(pthread_self(), t->canceller)) return;
    /* the call ended on the cancelling thread waits for the other two: they must not wait
     * for it (they end on completion threads) */
    atomic_fetch_add(&t->here, 1);
    uint64_t give_up = now_us() + 10 * 1000000ull;
    while (atomic_load(&t->outcomes) < 2 && now_us() < give_up) sleep_us(1000);
}

static void on_outcome_count(void *ud, const char *json) {
    token_calls *t = ud;
    CHECK_CODE(json, "Cancelled");
    atomic_fetch_add(&t->outcomes, 1);
}

TEST(pipeline__a_token_ends_its_first_call_on_the_cancelling_thread_and_the_others_without_waiting) {
    app *a = app_bare();
    app_install_scope_hooks(a);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"never\",\"result\":\"string\"}", never_answers,
                                      app_reg(a, NULL), app_reg_free),
                 AF_OK);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoked = on_invoked_waits_for_the_others;
    v.free_user_data = app_reg_free;
    CHECK_STATUS(af_add_delegate(a->d, &v, app_reg(a, NULL)), AF_OK);
    token_calls t = {0};
    t.canceller = pthread_self();
    the_token_calls = &t;
    af_cancel_token *tok = af_cancel_token_new();
    af_invocation inv = inv_of("never", AF_PLATFORM_OTHER, 0, NULL);
    inv.cancel_token = tok;
    for (int i = 0; i < 3; i++) CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_count, &t), AF_OK);
    CHECK_STATUS(af_cancel_token_cancel(tok), AF_OK);
    /* the first call ended here, after the two others had ended elsewhere */
    CHECK_EQ_INT(atomic_load(&t.here), 1);
    CHECK_EQ_INT(atomic_load(&t.outcomes), 3);
    af_cancel_token_free(tok);
    app_close(a);
    the_token_calls = NULL;
}

/*
 * Threads and the call's life: many threads executing, completion from another thread,
 * re-entrancy, registration while calls run, second and late completions, the permission
 * hook, caller policy, cancellation, timeouts, scope end on every path, the log callback.
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
    /* af_execute blocks until the other thread completes */
    char *o = run(a->d, "list_notes_later", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "from another thread");
    outcome_free(o);
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

static void nested_handler(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    /* a handler calls af_execute on the same dispatcher (no library lock is held) */
    char *inner = run_on(r->a->d, "create_order", af_call_platform(call), 0,
                         "{\"customer\":\"inner\",\"quantity\":1}");
    CHECK_SUCCESS(inner);
    char id[32] = "";
    CHECK(json_str(inner, "id", id, sizeof id));
    outcome_free(inner);
    /* and registers a function from inside the handler */
    char desc[96];
    snprintf(desc, sizeof desc, "{\"id\":\"made_in_handler_%ld\",\"result\":{\"array\":{\"record\":\"Note\"}}}",
             atomic_load(&r->a->handler_runs));
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
    af_delegate v = {reentrant_invoking, NULL, app_reg_free};
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
            af_delegate v = {NULL, NULL, app_reg_free};
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


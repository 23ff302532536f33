/*
 * The stress test: AF_STRESS_THREADS (8) threads x AF_STRESS_CALLS (20,000) calls each with
 * random gates (allow / deny / open_app, answered inline or from another thread), random
 * platforms, synchronous and asynchronous execution, handlers completing inline or later
 * (or never, left to a cancellation or a timeout), cancellations before and during the
 * call, timeouts, and a thread registering and unregistering functions all along.
 *
 * Invariants, checked with atomic counters per call (the call is found through its
 * caller package, "rec:<n>", which every hook can read):
 * - every call gets exactly one outcome, and it is one the configuration allows;
 * - every scope begin has exactly one end (and end sees the scope its begin opened);
 * - every delegate's on_invoked sees each call exactly once;
 * - no handler runs for a refused or pre-cancelled call, and none runs twice;
 * - every answer from another thread is accepted or refused as already completed;
 * - every user_data is freed exactly once (after af_dispatcher_free).
 */
#include "app.h"

enum { G_ALLOW, G_DENY, G_OPEN_APP, G_ALLOW_LATER, G_DENY_LATER, G_OPEN_APP_LATER, G_COUNT };
enum { M_RETURN, M_FAIL, M_RETURN_LATER, M_NEVER, M_FAIL_LATER, M_COUNT };
enum { C_NONE, C_BEFORE, C_DURING };

typedef struct rec {
    atomic_int begins, ends, invoked, outcomes, handler_runs;
    int gate, mode, cancel, platform, fg, async;
    uint32_t timeout_ms;
} rec;

typedef struct stress {
    app *a;
    pool *pl;
    rec *recs;
    long n_recs;
    atomic_long answers_ok, answers_late, answers_bad;
    atomic_long bad_outcomes;
    atomic_long in_flight;
    log_sink log;
} stress;

static stress S;

static rec *rec_of(af_call *call) {
    const char *pkg = af_call_caller_package(call);
    if (!pkg || strncmp(pkg, "rec:", 4) != 0) {
        check_failed(__FILE__, __LINE__, "no record for caller package %s", pkg ? pkg : "(NULL)");
        return NULL;
    }
    long i = strtol(pkg + 4, NULL, 10);
    if (i < 0 || i >= S.n_recs) abort();
    return &S.recs[i];
}

/* ---- answers from another thread ------------------------------------------------------------ */

typedef struct later {
    af_call *call;
    af_gate *gate;
    int kind;
    long value;
} later;

static void later_run(void *arg) {
    later *l = arg;
    af_status s;
    char buf[32];
    switch (l->kind) {
    case DEFER_RETURN:
        snprintf(buf, sizeof buf, "%ld", l->value);
        s = af_call_return(l->call, buf);
        break;
    case DEFER_FAIL: s = af_call_fail(l->call, AF_CODE_HANDLER_FAILED, "failed later"); break;
    case DEFER_ALLOW: s = af_gate_allow(l->gate); break;
    case DEFER_DENY: s = af_gate_deny(l->gate, "denied later"); break;
    default: s = af_gate_open_app(l->gate, "open the app (later)"); break;
    }
    if (s == AF_OK) atomic_fetch_add(&S.answers_ok, 1);
    else if (s == AF_ERR_ALREADY_COMPLETED) atomic_fetch_add(&S.answers_late, 1);
    else {
        atomic_fetch_add(&S.answers_bad, 1);
        check_failed(__FILE__, __LINE__, "an answer from another thread got status %d (%s)", s, af_last_error());
    }
    free(l);
}

static void post_later(af_call *call, af_gate *gate, int kind, long value, unsigned delay_us) {
    later *l = malloc(sizeof *l);
    if (!l) abort();
    *l = (later){call, gate, kind, value};
    pool_post(S.pl, later_run, l, delay_us);
}

/* ---- the hooks ------------------------------------------------------------------------------ */

typedef struct sscope {
    long magic;
    rec *r;
} sscope;

/* The scope's release, right after its end. */
static void s_release(void *data) {
    sscope *sc = data;
    CHECK_MSG(sc && sc->magic == 0x5C0DED, "host data released after its scope end");
    atomic_fetch_add(&S.a->scope_releases, 1);
    free(sc);
}

static void s_begin(void *ud, af_call *call) {
    (void)ud;
    rec *r = rec_of(call);
    if (!r) return;
    atomic_fetch_add(&r->begins, 1);
    atomic_fetch_add(&S.a->begins, 1);
    sscope *sc = malloc(sizeof *sc);
    if (!sc) abort();
    *sc = (sscope){0x5C0BE, r};
    CHECK_STATUS(af_call_set_host_data(call, sc, s_release), AF_OK);
}

static void s_end(void *ud, af_call *call) {
    (void)ud;
    sscope *sc = af_call_host_data(call);
    rec *r = rec_of(call);
    if (!sc || sc->magic != 0x5C0BE || sc->r != r) {
        check_failed(__FILE__, __LINE__, "scope end without its scope");
        return;
    }
    sc->magic = 0x5C0DED; /* its release frees it, right after this */
    atomic_fetch_add(&r->ends, 1);
    atomic_fetch_add(&S.a->ends, 1);
}

static void s_gatekeeper(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    rec *r = rec_of(call);
    if (!r) return (void)af_gate_deny(gate, "no record");
    unsigned delay = (unsigned)(r->timeout_ms * 300 + (r->gate * 37) % 150);
    switch (r->gate) {
    case G_ALLOW: af_gate_allow(gate); break;
    case G_DENY: af_gate_deny(gate, "denied"); break;
    case G_OPEN_APP: af_gate_open_app(gate, "open the app"); break;
    case G_ALLOW_LATER: post_later(NULL, gate, DEFER_ALLOW, 0, delay); break;
    case G_DENY_LATER: post_later(NULL, gate, DEFER_DENY, 0, delay); break;
    default: post_later(NULL, gate, DEFER_OPEN_APP, 0, delay); break;
    }
}

static void s_telemetry(void *ud, af_call *call, const char *outcome) {
    (void)ud;
    (void)outcome;
    rec *r = rec_of(call);
    if (r) atomic_fetch_add(&r->invoked, 1);
}

static void s_handler(void *ud, af_call *call) {
    (void)ud;
    rec *r = rec_of(call);
    if (!r) return (void)af_call_fail(call, AF_CODE_INTERNAL_ERROR, "no record");
    atomic_fetch_add(&r->handler_runs, 1);
    long idx = r - S.recs;
    char buf[32];
    unsigned delay = (unsigned)(idx % 200);
    switch (r->mode) {
    case M_RETURN:
        snprintf(buf, sizeof buf, "%ld", idx % 1000);
        af_call_return(call, buf);
        break;
    case M_FAIL: af_call_fail(call, AF_CODE_HANDLER_FAILED, "failed"); break;
    case M_RETURN_LATER: post_later(call, NULL, DEFER_RETURN, idx % 1000, delay); break;
    case M_FAIL_LATER: post_later(call, NULL, DEFER_FAIL, 0, delay); break;
    default: break; /* M_NEVER: a cancellation or the timeout ends it */
    }
}

/* ---- checking an outcome ---------------------------------------------------------------------- */

static void check_outcome(rec *r, const char *o) {
    int n = atomic_fetch_add(&r->outcomes, 1) + 1;
    if (n != 1) {
        check_failed(__FILE__, __LINE__, "call %ld got %d outcomes", (long)(r - S.recs), n);
        return;
    }
    bool cancelled = json_has(o, "\"errorCode\":\"Cancelled\"");
    bool timed_out = json_has(o, "\"errorCode\":\"TimedOut\"");
    bool ok;
    if (r->cancel == C_BEFORE) {
        ok = cancelled;
    } else if ((cancelled && r->cancel == C_DURING) || (timed_out && r->timeout_ms)) {
        ok = true;
    } else {
        int g = r->gate % 3; /* allow, deny, open_app */
        bool apple_bg = r->platform == AF_PLATFORM_APPLE && !r->fg;
        if (g == 1) ok = json_has(o, "\"errorCode\":\"Denied\"") && json_has(o, "denied");
        else if (g == 2 && apple_bg) ok = json_has(o, "\"status\":\"openApp\"");
        else if (g == 2 && r->platform != AF_PLATFORM_APPLE && !r->fg) ok = json_has(o, "\"errorCode\":\"Denied\"") && json_has(o, "open the app");
        else if (r->mode == M_RETURN || r->mode == M_RETURN_LATER) ok = json_has(o, "\"status\":\"success\"");
        else if (r->mode == M_FAIL || r->mode == M_FAIL_LATER) ok = json_has(o, "\"errorCode\":\"HandlerFailed\"");
        else ok = false; /* M_NEVER needs a cancellation or a timeout */
    }
    if (!ok && atomic_fetch_add(&S.bad_outcomes, 1) < 10)
        check_failed(__FILE__, __LINE__, "call %ld (gate %d mode %d cancel %d timeout %u platform %d fg %d async %d): %s",
                     (long)(r - S.recs), r->gate, r->mode, r->cancel, r->timeout_ms, r->platform, r->fg, r->async, o);
}

static void s_on_outcome(void *ud, const char *o) {
    check_outcome(ud, o);
    atomic_fetch_sub(&S.in_flight, 1);
}

/* a token shared by the caller and the task that cancels it */
typedef struct shared_token {
    af_cancel_token *t;
    atomic_int refs;
} shared_token;
static void token_release(shared_token *st) {
    if (atomic_fetch_sub(&st->refs, 1) == 1) {
        af_cancel_token_free(st->t);
        free(st);
    }
}
static void cancel_later(void *arg) {
    shared_token *st = arg;
    af_cancel_token_cancel(st->t);
    token_release(st);
}

/* ---- the threads ------------------------------------------------------------------------------- */

typedef struct sworker {
    int index;
    long first, count;
} sworker;

static void *stress_worker(void *arg) {
    sworker *w = arg;
    uint32_t seed = 0x1234567u * (uint32_t)(w->index + 1);
    char pkg[32], args[64];
    for (long i = w->first; i < w->first + w->count; i++) {
        rec *r = &S.recs[i];
        uint32_t x = rnd_next(&seed);
        r->gate = (int)(x % G_COUNT);
        r->mode = (int)((x >> 4) % M_COUNT);
        r->platform = (int)((x >> 8) % 3);
        r->fg = (int)((x >> 10) & 1);
        r->async = (int)((x >> 11) & 1);
        int c = (int)((x >> 12) % 16);
        r->cancel = c == 0 ? C_BEFORE : c <= 2 ? C_DURING : C_NONE;
        r->timeout_ms = ((x >> 16) % 8 == 0) ? 1 + (x >> 20) % 3 : 0;
        if (r->mode == M_NEVER && r->cancel == C_NONE && r->timeout_ms == 0) r->timeout_ms = 2;
        snprintf(pkg, sizeof pkg, "rec:%ld", i);
        snprintf(args, sizeof args, "{\"n\":%ld}", i);
        af_invocation inv = inv_of("work", r->platform, (uint8_t)r->fg, pkg);
        inv.timeout_ms = r->timeout_ms;
        shared_token *st = NULL;
        if (r->cancel != C_NONE) {
            st = malloc(sizeof *st);
            if (!st) abort();
            st->t = af_cancel_token_new();
            atomic_store(&st->refs, 1);
            inv.cancel_token = st->t;
            if (r->cancel == C_BEFORE) {
                af_cancel_token_cancel(st->t);
            } else {
                atomic_fetch_add(&st->refs, 1);
                pool_post(S.pl, cancel_later, st, (x >> 24) % 300);
            }
        }
        if (r->async) {
            while (atomic_load(&S.in_flight) > 256) sleep_us(100);
            atomic_fetch_add(&S.in_flight, 1);
            af_status s = af_execute_async(S.a->d, &inv, args, s_on_outcome, r);
            if (s != AF_OK) {
                check_failed(__FILE__, __LINE__, "af_execute_async: %d %s", s, af_last_error());
                atomic_fetch_sub(&S.in_flight, 1);
            }
        } else {
            char *o = af_execute_json(S.a->d, &inv, args);
            check_outcome(r, o);
            af_string_free(o);
        }
        if (st) token_release(st);
    }
    return NULL;
}

typedef struct s_churn {
    atomic_bool stop;
    long cycles;
} s_churn;

static void temp_handler(void *ud, af_call *call) {
    (void)ud;
    af_call_return(call, NULL);
}

static void *stress_churn(void *arg) {
    s_churn *c = arg;
    while (!atomic_load(&c->stop)) {
        af_status s = af_register_function(S.a->d, "{\"id\":\"temp\"}", temp_handler, app_reg(S.a, NULL), app_reg_free);
        CHECK(s == AF_OK);
        CHECK_STATUS(af_unregister_function(S.a->d, "temp"), AF_OK);
        c->cycles++;
        sleep_us(50);
    }
    return NULL;
}

TEST(stress__random_gates_completions_cancellations_and_timeouts) {
    int threads = (int)env_long("AF_STRESS_THREADS", 8);
    long per = env_long("AF_STRESS_CALLS", 20000);
    test_note("%d threads x %ld calls (AF_STRESS_THREADS, AF_STRESS_CALLS)", threads, per);
    memset(&S, 0, sizeof S);
    S.a = app_bare();
    S.pl = pool_start(8);
    S.n_recs = threads * per;
    S.recs = calloc((size_t)S.n_recs, sizeof(rec));
    if (!S.recs) abort();
    log_sink_init(&S.log);
    app *a = S.a;
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &S.log, NULL), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"work\",\"parameters\":[{\"name\":\"n\",\"type\":\"int64\"}],\"result\":\"int32\"}",
                                      s_handler, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_set_scope_hooks(a->d, s_begin, s_end, app_reg(a, NULL), app_reg_free), AF_OK);
    af_delegate gk = AF_DELEGATE_INIT;
    gk.on_invoking = s_gatekeeper;
    gk.free_user_data = app_reg_free;
    CHECK_STATUS(af_add_delegate(a->d, &gk, app_reg(a, NULL)), AF_OK);
    af_delegate tel = AF_DELEGATE_INIT;
    tel.on_invoked = s_telemetry;
    tel.free_user_data = app_reg_free;
    CHECK_STATUS(af_add_delegate(a->d, &tel, app_reg(a, NULL)), AF_OK);

    s_churn ch = {0};
    pthread_t churn_thread;
    pthread_create(&churn_thread, NULL, stress_churn, &ch);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    sworker *w = calloc((size_t)threads, sizeof *w);
    uint64_t t0 = now_us();
    for (int i = 0; i < threads; i++) {
        w[i] = (sworker){i, i * per, per};
        pthread_create(&t[i], NULL, stress_worker, &w[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    /* asynchronous calls end on other threads: wait for the last outcomes */
    for (int i = 0; i < 30000 && atomic_load(&S.in_flight) > 0; i++) sleep_us(1000);
    CHECK_EQ_INT(atomic_load(&S.in_flight), 0);
    atomic_store(&ch.stop, true);
    pthread_join(churn_thread, NULL);
    pool_stop(S.pl); /* every late answer has been given */
    uint64_t ms = (now_us() - t0) / 1000;

    long counts[4] = {0}, handler_runs = 0;
    long bad = 0;
    for (long i = 0; i < S.n_recs; i++) {
        rec *r = &S.recs[i];
        int o = atomic_load(&r->outcomes), b = atomic_load(&r->begins), e = atomic_load(&r->ends);
        int inv = atomic_load(&r->invoked), h = atomic_load(&r->handler_runs);
        bool refused = r->gate % 3 == 1 || (r->gate % 3 == 2 && !r->fg); /* OpenApp passes in the foreground */
        bool wrong = o != 1 || b != 1 || e != 1 || inv != 1 || h > 1 || (h && (refused || r->cancel == C_BEFORE));
        if (wrong && bad++ < 10)
            check_failed(__FILE__, __LINE__, "call %ld: %d outcomes, %d begins, %d ends, %d on_invoked, %d handler runs (gate %d cancel %d)",
                         i, o, b, e, inv, h, r->gate, r->cancel);
        counts[r->cancel]++;
        if (r->timeout_ms) counts[3]++;
        handler_runs += h;
    }
    test_note("%ld calls in %llu ms: %ld cancelled before, %ld cancelled during, %ld with a timeout; %ld handler runs; "
              "%ld answers from other threads accepted, %ld refused as already completed; %ld late-completion warnings; %ld registration cycles",
              S.n_recs, (unsigned long long)ms, counts[C_BEFORE], counts[C_DURING], counts[3], handler_runs,
              atomic_load(&S.answers_ok), atomic_load(&S.answers_late), atomic_load(&S.log.warnings), ch.cycles);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(atomic_load(&S.bad_outcomes), 0);
    CHECK_EQ_INT(atomic_load(&S.answers_bad), 0);
    CHECK_EQ_INT(atomic_load(&a->begins), S.n_recs);
    CHECK_EQ_INT(atomic_load(&a->ends), S.n_recs);
    app_close(a); /* every user_data freed exactly once */
    free(S.recs);
    free(t);
    free(w);
}

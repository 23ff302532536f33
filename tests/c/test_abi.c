/*
 * The ABI v1 rules (docs/abi.md): structs that grow (a host with an older, smaller struct
 * is refused; one with a newer, larger struct is accepted), ownership in the names, the
 * last-error ring, releasable callbacks, error code names, the default timeout, a
 * shutdown that drains, views that take invocations. Each new function also gets NULL and
 * invalid UTF-8 in every pointer argument.
 */
#include "app.h"

#include <stddef.h>

/* The layout the header states (LP64 hosts: x86_64, arm64). */
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(af_invocation) == 48, "af_invocation is 48 bytes on 64-bit");
_Static_assert(offsetof(af_invocation, platform) == 4, "platform at 4");
_Static_assert(offsetof(af_invocation, function_id) == 8, "function_id at 8");
_Static_assert(offsetof(af_invocation, caller_package) == 16, "caller_package at 16");
_Static_assert(offsetof(af_invocation, cancel_token) == 24, "cancel_token at 24");
_Static_assert(offsetof(af_invocation, timeout_ms) == 32, "timeout_ms at 32");
_Static_assert(offsetof(af_invocation, is_foreground) == 36, "is_foreground at 36");
_Static_assert(offsetof(af_invocation, reserved) == 37, "reserved at 37");
_Static_assert(offsetof(af_invocation, host_context) == 40, "host_context at 40 (the first ABI 1 size)");
_Static_assert(sizeof(af_delegate) == 32, "af_delegate is 32 bytes on 64-bit");
_Static_assert(offsetof(af_delegate, on_invoking) == 8, "on_invoking at 8");
_Static_assert(offsetof(af_delegate, on_invoked) == 16, "on_invoked at 16");
_Static_assert(offsetof(af_delegate, free_user_data) == 24, "free_user_data at 24");
#endif
_Static_assert(AF_TIMEOUT_NONE == UINT32_MAX, "AF_TIMEOUT_NONE");
_Static_assert(AF_ERR_TIMED_OUT == 11, "the new status");

/* ---- helpers ------------------------------------------------------------------------------ */

/* A handler that parks its call for the test to complete (user_data: a parked*). */
typedef struct parked {
    reg r;
    atomic_uintptr_t call;
    atomic_int runs;
} parked;

static void parked_handler(void *ud, af_call *call) {
    parked *p = ud;
    atomic_fetch_add(&p->runs, 1);
    atomic_store(&p->call, (uintptr_t)call);
}

static void parked_free(void *ud) {
    parked *p = ud;
    atomic_fetch_add(&p->r.a->frees, 1);
    free(p);
}

static parked *reg_parked(app *a, const char *descriptor) {
    parked *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->r.a = a;
    atomic_fetch_add(&a->regs, 1);
    CHECK_STATUS(af_register_function(a->d, descriptor, parked_handler, p, parked_free), AF_OK);
    return p;
}

static af_call *wait_parked(parked *p) {
    for (int i = 0; i < 5000 && !atomic_load(&p->call); i++) sleep_us(1000);
    af_call *c = (af_call *)atomic_exchange(&p->call, (uintptr_t)0);
    CHECK_MSG(c != NULL, "the handler parked its call");
    return c;
}

/* After a call to a parked function timed out: forgets the call its handler parked. The
 * handler runs inline before af_execute_* returns, or never (on a loaded machine, or under
 * valgrind, the deadline can pass before the call reaches it: the call still never
 * answered and ends TimedOut), so there is nothing to wait for. */
static void forget_parked(parked *p) { (void)atomic_exchange(&p->call, (uintptr_t)0); }

typedef struct slot {
    atomic_int calls;
    pthread_t thread;
    char json[2048];
} slot;

static void on_outcome_slot(void *ud, const char *json) {
    slot *s = ud;
    snprintf(s->json, sizeof s->json, "%s", json ? json : "(NULL)");
    s->thread = pthread_self();
    atomic_fetch_add(&s->calls, 1);
}

static void wait_slot(slot *s) {
    for (int i = 0; i < 5000 && atomic_load(&s->calls) == 0; i++) sleep_us(1000);
    CHECK_MSG(atomic_load(&s->calls) == 1, "one outcome, got %d", atomic_load(&s->calls));
}

/* A host built against a newer header: one more field at the end. */
typedef struct newer_invocation {
    af_invocation v1;
    uint64_t added_later;
} newer_invocation;

typedef struct newer_delegate {
    af_delegate v1;
    void (*added_later)(void *user_data);
} newer_delegate;

/* A host built against an older, smaller layout (what a v0 host would pass). */
typedef struct older_invocation {
    uint32_t struct_size;
    int32_t platform;
    const char *function_id;
} older_invocation;

#define SLOW_JSON "{\"id\":\"slow\",\"result\":\"int32\"}"

/* ---- structs that grow --------------------------------------------------------------------- */

TEST(abi__invocation_smaller_struct_refused_larger_accepted) {
    app *a = app_new();
    /* older, smaller: refused, naming the field, and no handler runs */
    older_invocation old = {(uint32_t)sizeof(older_invocation), AF_PLATFORM_OTHER, "list_notes"};
    const af_invocation *oldp = (const af_invocation *)(const void *)&old;
    char *o = af_execute_json(a->d, oldp, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "af_invocation.struct_size is 16, smaller than the v1 layout (");
    outcome_free(o);
    slot s = {0};
    CHECK_STATUS(af_execute_async(a->d, oldp, NULL, on_outcome_slot, &s), AF_ERR_INVALID);
    CHECK_LAST_ERROR("af_invocation.struct_size is 16");
    af_view *v = af_view_new(a->d, NULL);
    o = af_view_execute_json(v, oldp, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "af_invocation.struct_size is 16");
    outcome_free(o);
    CHECK_STATUS(af_view_execute_async(v, oldp, NULL, on_outcome_slot, &s), AF_ERR_INVALID);
    CHECK_EQ_INT(atomic_load(&s.calls), 0);
    /* a zeroed struct (memset, no AF_INVOCATION_INIT) is refused the same way */
    af_invocation zero;
    memset(&zero, 0, sizeof zero);
    zero.function_id = "list_notes";
    o = af_execute_json(a->d, &zero, NULL);
    CHECK_HAS(o, "af_invocation.struct_size is 0");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    /* newer, larger: accepted, the v1 fields read */
    newer_invocation nw;
    memset(&nw, 0xA5, sizeof nw); /* the unknown tail is never read */
    af_invocation init = AF_INVOCATION_INIT;
    nw.v1 = init;
    nw.v1.struct_size = (uint32_t)sizeof nw;
    nw.v1.function_id = "create_order";
    nw.v1.platform = AF_PLATFORM_ANDROID;
    nw.v1.caller_package = "com.example.agent";
    const af_invocation *newp = &nw.v1;
    o = af_execute_json(a->d, newp, "{\"customer\":\"acme\",\"quantity\":2}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_STATUS(af_execute_async(a->d, newp, "{\"customer\":\"acme\",\"quantity\":2}", on_outcome_slot, &s), AF_OK);
    wait_slot(&s);
    CHECK_SUCCESS(s.json);
    nw.v1.function_id = "create_order";
    o = af_view_execute_json(v, newp, "{\"customer\":\"b\",\"quantity\":1}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    slot s2 = {0};
    CHECK_STATUS(af_view_execute_async(v, newp, "{\"customer\":\"b\",\"quantity\":1}", on_outcome_slot, &s2), AF_OK);
    wait_slot(&s2);
    CHECK_SUCCESS(s2.json);
    af_view_free(v);
    app_close(a);
}

static atomic_int newer_invoked;
static void newer_on_invoked(void *ud, af_call *call, const char *outcome_json) {
    (void)ud;
    (void)call;
    if (outcome_json) atomic_fetch_add(&newer_invoked, 1);
}

TEST(abi__delegate_smaller_struct_refused_larger_accepted) {
    app *a = app_new();
    atomic_long frees = 0;
    af_delegate small = AF_DELEGATE_INIT;
    small.struct_size = 16; /* on_invoking and on_invoked only */
    small.on_invoked = newer_on_invoked;
    small.free_user_data = counted_free;
    void *ud = counted_new(&frees);
    CHECK_STATUS(af_add_delegate(a->d, &small, ud), AF_ERR_INVALID);
    CHECK_LAST_ERROR("af_delegate.struct_size is 16, smaller than the v1 layout");
    CHECK_EQ_INT(frees, 0); /* its release is not trusted: nothing released */
    counted_free(ud);
    newer_delegate nw;
    memset(&nw, 0x5A, sizeof nw);
    af_delegate init = AF_DELEGATE_INIT;
    nw.v1 = init;
    nw.v1.struct_size = (uint32_t)sizeof nw;
    nw.v1.on_invoked = newer_on_invoked;
    nw.v1.free_user_data = counted_free;
    CHECK_STATUS(af_add_delegate(a->d, &nw.v1, counted_new(&frees)), AF_OK);
    atomic_store(&newer_invoked, 0);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&newer_invoked), 1);
    app_close(a);
    CHECK_EQ_INT(frees, 2);
}

/* ---- ownership and the last error ------------------------------------------------------------ */

TEST(abi__last_error_lives_through_the_next_failures_and_copies) {
    /* printf("%s %s", af_x(...), af_last_error()) reads text that is still there */
    CHECK_STATUS(af_define_types(NULL, "{}"), AF_ERR_NULL);
    const char *lent = af_last_error();
    char *copy = af_last_error_copy();
    CHECK_STREQ(lent, copy);
    CHECK_HAS(copy, "dispatcher is NULL");
    for (int i = 0; i < 7; i++) {
        CHECK_STATUS(af_gate_allow(NULL), AF_ERR_NULL); /* seven more failing calls */
    }
    CHECK_STREQ(lent, copy); /* still readable (ASan/valgrind would catch a freed read) */
    CHECK_HAS(af_last_error(), "gate");
    char *copy2 = af_last_error_copy();
    CHECK_STREQ(copy2, af_last_error());
    af_string_free(copy);
    af_string_free(copy2);
    /* the owned copy is the caller's even after many more failures */
    copy = af_last_error_copy();
    for (int i = 0; i < 40; i++) (void)af_error_code_from_name(NULL);
    CHECK_HAS(copy, "gate");
    af_string_free(copy);
}

TEST(abi__status_names_are_their_constants_and_not_error_codes) {
    static const struct { af_status s; const char *name; } statuses[] = {
        {AF_OK, "AF_OK"}, {AF_ERR_NULL, "AF_ERR_NULL"}, {AF_ERR_UTF8, "AF_ERR_UTF8"},
        {AF_ERR_INVALID, "AF_ERR_INVALID"}, {AF_ERR_DUPLICATE, "AF_ERR_DUPLICATE"},
        {AF_ERR_NOT_FOUND, "AF_ERR_NOT_FOUND"}, {AF_ERR_ALREADY_COMPLETED, "AF_ERR_ALREADY_COMPLETED"},
        {AF_ERR_NOT_WAITING, "AF_ERR_NOT_WAITING"}, {AF_ERR_INVALID_HANDLE, "AF_ERR_INVALID_HANDLE"},
        {AF_ERR_LIMIT, "AF_ERR_LIMIT"}, {AF_ERR_INTERNAL, "AF_ERR_INTERNAL"}, {AF_ERR_TIMED_OUT, "AF_ERR_TIMED_OUT"},
    };
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        const char *n = af_status_name(statuses[i].s);
        CHECK_STREQ(n, statuses[i].name);
        CHECK(af_status_name(statuses[i].s) == n); /* static: the same pointer every time */
    }
    /* the two ranges overlap: 4 is a duplicate as a status, EntityNotFound as an error code */
    CHECK_STREQ(af_status_name(AF_ERR_DUPLICATE), "AF_ERR_DUPLICATE");
    CHECK_STREQ(af_error_code_name(4), "EntityNotFound");
    CHECK(af_status_name(12) == NULL);
    CHECK_LAST_ERROR("12 is not an af_status");
    CHECK(af_status_name(-1) == NULL);
    /* what a duplicate registration returns is named as a duplicate */
    af_dispatcher *d = af_dispatcher_new();
    CHECK_STATUS(af_register_function(d, "{\"id\":\"twice\",\"kind\":\"output\"}", NULL, NULL, NULL), AF_OK);
    af_status st = af_register_function(d, "{\"id\":\"twice\",\"kind\":\"output\"}", NULL, NULL, NULL);
    CHECK_STREQ(af_status_name(st), "AF_ERR_DUPLICATE");
    af_dispatcher_free(d);
}

TEST(abi__error_code_names_both_ways) {
    static const char *names[] = {"FunctionNotFound", "Disabled",      "InvalidArgument", "EntityNotFound",
                                  "Denied",           "PermissionDenied", "Cancelled",    "TimedOut",
                                  "HandlerFailed",    "LimitExceeded", "NotSupported",    "InternalError"};
    for (int32_t code = AF_CODE_FUNCTION_NOT_FOUND; code <= AF_CODE_INTERNAL_ERROR; code++) {
        const char *n = af_error_code_name(code);
        CHECK_STREQ(n, names[code - 1]);
        CHECK_EQ_INT(af_error_code_from_name(n), code);
        CHECK(af_error_code_name(code) == n); /* static: the same pointer every time */
    }
    CHECK_EQ_INT(af_error_code_from_name("TimedOut"), AF_CODE_TIMED_OUT);
    CHECK(af_error_code_name(0) == NULL);
    CHECK_LAST_ERROR("0 is not an AF_CODE_");
    CHECK(af_error_code_name(13) == NULL);
    CHECK(af_error_code_name(-1) == NULL);
    CHECK_EQ_INT(af_error_code_from_name("timedOut"), 0); /* exact names only */
    CHECK_LAST_ERROR("not an error code name");
    CHECK_EQ_INT(af_error_code_from_name(""), 0);
    CHECK_EQ_INT(af_error_code_from_name(NULL), 0);
    CHECK_LAST_ERROR("name");
    CHECK_EQ_INT(af_error_code_from_name(BAD_UTF8), 0);
    CHECK_LAST_ERROR("UTF-8");
    /* the names are the outcome's errorCode */
    app *a = app_new();
    char *o = run(a->d, "nope", NULL);
    char code[32] = "";
    CHECK(json_str(o, "errorCode", code, sizeof code));
    CHECK_EQ_INT(af_error_code_from_name(code), AF_CODE_FUNCTION_NOT_FOUND);
    outcome_free(o);
    app_close(a);
}

/* ---- releasable cancel callbacks ------------------------------------------------------------- */

typedef struct cancel_probe {
    atomic_int ran;
    atomic_int released;
    atomic_int ran_before_release; /* 1 when cb had run when the release came */
    atomic_int block;              /* cb waits while set */
    atomic_int running;
} cancel_probe;

static void probe_cb(void *ud) {
    cancel_probe *p = ud;
    atomic_store(&p->running, 1);
    while (atomic_load(&p->block)) sleep_us(200);
    atomic_fetch_add(&p->ran, 1);
    atomic_store(&p->running, 0);
}

static void probe_release(void *ud) {
    cancel_probe *p = ud;
    atomic_store(&p->ran_before_release, atomic_load(&p->ran));
    atomic_fetch_add(&p->released, 1);
}

static void cancel_token_task(void *t) { CHECK_STATUS(af_cancel_token_cancel(t), AF_OK); }

TEST(abi__af_call_on_cancel_releases_exactly_once_on_every_path) {
    app *a = app_bare();
    parked *p = reg_parked(a, SLOW_JSON);
    af_cancel_token *t = af_cancel_token_new();
    af_invocation inv = inv_of("slow", AF_PLATFORM_OTHER, 0, NULL);
    inv.cancel_token = t;
    inv.timeout_ms = AF_TIMEOUT_NONE;
    slot s = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    af_call *call = wait_parked(p);
    cancel_probe removed = {0}, kept = {0}, bad = {0}, blocking = {0};
    uint64_t id_removed = 0, id_kept = 0, id_blocking = 0, id_bad = 99;
    /* NULL and bogus arguments: refused, the user_data released at once, *out_id 0 */
    CHECK_STATUS(af_call_on_cancel(NULL, probe_cb, &bad, probe_release, &id_bad), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK_EQ_INT(id_bad, 0);
    CHECK_STATUS(af_call_on_cancel(call, NULL, &bad, probe_release, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("cb");
    CHECK_EQ_INT(atomic_load(&bad.released), 2);
    CHECK_EQ_INT(atomic_load(&bad.ran), 0);
    /* three registrations; NULL free_user_data and NULL out_id are fine */
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &removed, probe_release, &id_removed), AF_OK);
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &kept, probe_release, &id_kept), AF_OK);
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &blocking, probe_release, &id_blocking), AF_OK);
    cancel_probe no_release = {0};
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &no_release, NULL, NULL), AF_OK);
    CHECK(id_removed != 0 && id_kept != 0 && id_blocking != 0);
    CHECK(id_removed != id_kept && id_kept != id_blocking);
    /* removed: released now, never runs */
    CHECK_STATUS(af_call_on_cancel_remove(call, id_removed), AF_OK);
    CHECK_EQ_INT(atomic_load(&removed.released), 1);
    CHECK_STATUS(af_call_on_cancel_remove(call, id_removed), AF_ERR_NOT_FOUND);
    CHECK_LAST_ERROR("no cancel callback");
    CHECK_STATUS(af_call_on_cancel_remove(call, 424242), AF_ERR_NOT_FOUND);
    CHECK_STATUS(af_call_on_cancel_remove(NULL, id_kept), AF_ERR_NULL);
    /* cancelled from another thread while `blocking` runs: removing it then answers OK and
     * its release follows right after it returns */
    atomic_store(&blocking.block, 1);
    pool *pl = pool_start(1);
    pool_post(pl, cancel_token_task, t, 0);
    for (int i = 0; i < 5000 && !atomic_load(&blocking.running); i++) sleep_us(500);
    CHECK_EQ_INT(atomic_load(&blocking.running), 1);
    CHECK_STATUS(af_call_on_cancel_remove(call, id_blocking), AF_OK);
    CHECK_EQ_INT(atomic_load(&blocking.released), 0);
    atomic_store(&blocking.block, 0);
    pool_stop(pl);
    wait_slot(&s);
    CHECK_CODE(s.json, "Cancelled");
    CHECK_EQ_INT(atomic_load(&blocking.ran), 1);
    CHECK_EQ_INT(atomic_load(&blocking.released), 1);
    CHECK_EQ_INT(atomic_load(&blocking.ran_before_release), 1);
    CHECK_EQ_INT(atomic_load(&kept.ran), 1);
    CHECK_EQ_INT(atomic_load(&kept.released), 1);
    CHECK_EQ_INT(atomic_load(&kept.ran_before_release), 1);
    CHECK_EQ_INT(atomic_load(&no_release.ran), 1);
    CHECK_EQ_INT(atomic_load(&removed.ran), 0);
    /* the call has ended: a dead handle, the registration released at once */
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &bad, probe_release, &id_bad), AF_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(atomic_load(&bad.released), 3);
    CHECK_STATUS(af_call_on_cancel_remove(call, id_kept), AF_ERR_INVALID_HANDLE);
    af_cancel_token_free(t);
    app_close(a);
}

static cancel_probe at_end_probe, already_probe;
static uint64_t already_id;
static void register_then_return(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &at_end_probe, probe_release, NULL), AF_OK);
    CHECK_STATUS(af_call_return(call, "1"), AF_OK);
    /* answered inline: the call ends when this returns, and the release comes then */
    CHECK_EQ_INT(atomic_load(&at_end_probe.released), 0);
}
static void register_when_cancelled(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    /* the token was cancelled while the gate waited: cb runs at once, here */
    CHECK_EQ_INT(af_call_is_cancelled(call), 1);
}
static void cancel_in_gate(void *ud, af_call *call, af_gate *gate) {
    af_cancel_token *t = ud;
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    CHECK_STATUS(af_call_on_cancel(call, probe_cb, &already_probe, probe_release, &already_id), AF_OK);
    CHECK_EQ_INT(atomic_load(&already_probe.ran), 1);
    CHECK_EQ_INT(atomic_load(&already_probe.released), 1);
    CHECK_STATUS(af_call_on_cancel_remove(call, already_id), AF_ERR_NOT_FOUND);
    CHECK_STATUS(af_gate_allow(gate), AF_ERR_ALREADY_COMPLETED);
}

TEST(abi__af_call_on_cancel_at_the_end_of_a_call_and_when_already_cancelled) {
    app *a = app_bare();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"quick\",\"result\":\"int32\"}", register_then_return,
                                      app_reg(a, NULL), app_reg_free),
                 AF_OK);
    char *o = run(a->d, "quick", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&at_end_probe.ran), 0);
    CHECK_EQ_INT(atomic_load(&at_end_probe.released), 1);
    /* already cancelled when registering */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"gated\",\"result\":\"int32\"}", register_when_cancelled,
                                      app_reg(a, NULL), app_reg_free),
                 AF_OK);
    af_cancel_token *t = af_cancel_token_new();
    af_delegate del = AF_DELEGATE_INIT;
    del.on_invoking = cancel_in_gate;
    CHECK_STATUS(af_add_delegate(a->d, &del, t), AF_OK);
    af_invocation inv = inv_of("gated", AF_PLATFORM_OTHER, 0, NULL);
    inv.cancel_token = t;
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_CODE(o, "Cancelled");
    outcome_free(o);
    CHECK(already_id != 0);
    af_cancel_token_free(t);
    app_close(a);
}

/* ---- host data with a release ---------------------------------------------------------------- */

typedef struct host_probe {
    atomic_int released;
    atomic_int ended; /* set by scope end */
    atomic_int released_after_end;
} host_probe;

static host_probe hp_first, hp_second, hp_bad;
static void host_release(void *ud) {
    host_probe *h = ud;
    if (atomic_load(&h->ended)) atomic_fetch_add(&h->released_after_end, 1);
    atomic_fetch_add(&h->released, 1);
}
static void hd_begin(void *ud, af_call *call) {
    (void)ud;
    CHECK_STATUS(af_call_set_host_data(call, &hp_first, host_release), AF_OK);
    /* replaced: the first is released at once */
    CHECK_STATUS(af_call_set_host_data(call, &hp_second, host_release), AF_OK);
    CHECK_EQ_INT(atomic_load(&hp_first.released), 1);
    CHECK(af_call_host_data(call) == &hp_second);
}
static void hd_end(void *ud, af_call *call) {
    (void)ud;
    CHECK(af_call_host_data(call) == &hp_second); /* still attached in scope end */
    CHECK_EQ_INT(atomic_load(&hp_second.released), 0);
    atomic_store(&hp_second.ended, 1);
}

TEST(abi__af_call_set_host_data_releases_once_after_scope_end) {
    app *a = app_new();
    CHECK_STATUS(af_set_scope_hooks(a->d, hd_begin, hd_end, NULL, NULL), AF_OK);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&hp_first.released), 1);
    CHECK_EQ_INT(atomic_load(&hp_second.released), 1);
    CHECK_EQ_INT(atomic_load(&hp_second.released_after_end), 1);
    /* refused: released before the call returns */
    CHECK_STATUS(af_call_set_host_data(NULL, &hp_bad, host_release), AF_ERR_NULL);
    CHECK_LAST_ERROR("call");
    CHECK_STATUS(af_call_set_host_data((af_call *)(uintptr_t)0x7fff00ff00ull, &hp_bad, host_release),
                 AF_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(atomic_load(&hp_bad.released), 2);
    app_close(a);
}

/* ---- the invocation's host context and the dialog so far --------------------------------------- */

/* What every callback of one call saw: af_call_invocation_context, and the dialog. */
typedef struct ctx_seen {
    atomic_int n;
    void *begin, *invoking, *invoked, *permission, *lookup, *handler;
    char dialog_in_handler[64];
    char dialog_in_lookup[64];
} ctx_seen;
static ctx_seen cs;

static void cs_begin(void *ud, af_call *call) {
    (void)ud;
    cs.begin = af_call_invocation_context(call);
}
static void cs_invoking(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    if (af_call_kind(call) == AF_CALL_FUNCTION) cs.invoking = af_call_invocation_context(call);
    af_gate_allow(gate);
}
static void cs_invoked(void *ud, af_call *call, const char *outcome_json) {
    (void)ud;
    (void)outcome_json;
    if (af_call_kind(call) == AF_CALL_FUNCTION) cs.invoked = af_call_invocation_context(call);
}
static void cs_permission(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    cs.permission = af_call_invocation_context(call);
    af_gate_allow(gate);
}
static void cs_lookup(void *ud, af_call *call) {
    (void)ud;
    cs.lookup = af_call_invocation_context(call);
    char *d = af_call_dialog_copy(call); /* nothing said yet */
    snprintf(cs.dialog_in_lookup, sizeof cs.dialog_in_lookup, "%s", d ? d : "(NULL)");
    af_string_free(d);
    CHECK_STATUS(af_call_say(call, "Looked up."), AF_OK); /* goes to the call it serves */
    af_call_return(call, "[{\"id\":\"b-1\"}]");
}
static void cs_handler(void *ud, af_call *call) {
    (void)ud;
    cs.handler = af_call_invocation_context(call);
    char *d = af_call_dialog_copy(call); /* the lookup's */
    snprintf(cs.dialog_in_handler, sizeof cs.dialog_in_handler, "%s", d ? d : "(NULL)");
    af_string_free(d);
    CHECK_STATUS(af_call_say(call, "Handled."), AF_OK);
    d = af_call_dialog_copy(call);
    CHECK_STREQ(d, "Handled.");
    af_string_free(d);
    atomic_fetch_add(&cs.n, 1);
    af_call_return(call, "\"ok\"");
}

static void cs_check(void *expected) {
    CHECK(cs.begin == expected);
    CHECK(cs.invoking == expected);
    CHECK(cs.invoked == expected);
    CHECK(cs.permission == expected);
    CHECK(cs.lookup == expected);
    CHECK(cs.handler == expected);
    CHECK_STREQ(cs.dialog_in_lookup, "(NULL)");
    CHECK_STREQ(cs.dialog_in_handler, "Looked up.");
    memset(&cs, 0, sizeof cs);
}

TEST(abi__host_context_reaches_every_callback_and_the_dialog_so_far) {
    app *a = app_bare();
    CHECK_STATUS(af_register_entity(a->d, "{\"name\":\"box\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}",
                                    cs_lookup, NULL, NULL), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"unpack\",\"requiresPermission\":true,"
                                      "\"parameters\":[{\"name\":\"box\",\"type\":{\"entity\":\"box\"}}],\"result\":\"string\"}",
                                      cs_handler, NULL, NULL), AF_OK);
    af_delegate dv = AF_DELEGATE_INIT;
    dv.on_invoking = cs_invoking;
    dv.on_invoked = cs_invoked;
    CHECK_STATUS(af_add_delegate(a->d, &dv, NULL), AF_OK);
    CHECK_STATUS(af_set_permission_hook(a->d, cs_permission, NULL, NULL), AF_OK);
    CHECK_STATUS(af_set_scope_hooks(a->d, cs_begin, NULL, NULL, NULL), AF_OK);
    static int host_value;
    af_invocation inv = AF_INVOCATION_INIT;
    CHECK(inv.host_context == NULL);
    inv.function_id = "unpack";
    inv.host_context = &host_value;
    /* blocking */
    char *o = af_execute_json(a->d, &inv, "{\"box\":\"b-1\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Handled.\"");
    outcome_free(o);
    CHECK_EQ_INT(atomic_load(&cs.n), 1);
    cs_check(&host_value);
    /* asynchronous, and through a view */
    slot s = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, "{\"box\":\"b-1\"}", on_outcome_slot, &s), AF_OK);
    wait_slot(&s);
    CHECK_SUCCESS(s.json);
    cs_check(&host_value);
    af_view *v = af_view_new(a->d, NULL);
    o = af_view_execute_json(v, &inv, "{\"box\":\"b-1\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    cs_check(&host_value);
    af_view_free(v);
    /* no host context: NULL everywhere */
    inv.host_context = NULL;
    o = af_execute_json(a->d, &inv, "{\"box\":\"b-1\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    cs_check(NULL);
    /* a host built against the first ABI 1 layout (40 bytes on 64-bit): accepted, no
     * context read, whatever lies beyond its struct */
    af_invocation older;
    memset(&older, 0xA5, sizeof older);
    af_invocation init = AF_INVOCATION_INIT;
    older = init;
    older.struct_size = (uint32_t)offsetof(af_invocation, host_context);
    older.function_id = "unpack";
    older.host_context = &host_value; /* beyond struct_size: never read */
    o = af_execute_json(a->d, &older, "{\"box\":\"b-1\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    cs_check(NULL);
    /* NULL and dead handles */
    CHECK(af_call_invocation_context(NULL) == NULL);
    CHECK_LAST_ERROR("call");
    CHECK(af_call_invocation_context((af_call *)(uintptr_t)0x7fff00ff00ull) == NULL);
    CHECK_LAST_ERROR("handle");
    CHECK(af_call_dialog_copy(NULL) == NULL);
    CHECK_LAST_ERROR("call");
    CHECK(af_call_dialog_copy((af_call *)(uintptr_t)0x7fff00ff00ull) == NULL);
    CHECK_LAST_ERROR("handle");
    app_close(a);
}

/* ---- the default timeout ------------------------------------------------------------------------ */

TEST(abi__default_timeout_ends_calls_that_never_answer_and_logs_it) {
    app *a = app_bare();
    parked *p = reg_parked(a, SLOW_JSON);
    log_sink ls;
    log_sink_init(&ls);
    CHECK_STATUS(af_set_log_callback(a->d, log_cb, &ls, NULL), AF_OK);
    CHECK_STATUS(af_dispatcher_set_default_timeout(NULL, 10), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_dispatcher_set_default_timeout(a->d, 20), AF_OK);
    uint64_t t0 = now_us();
    char *o = run(a->d, "slow", NULL); /* timeout_ms 0: the default */
    CHECK_CODE(o, "TimedOut");
    CHECK_HAS(o, "slow did not finish within 20 ms");
    outcome_free(o);
    CHECK(now_us() - t0 < 5u * 1000 * 1000);
    /* the warning is logged by the thread that ends the timed-out call, which is not always
     * the one this outcome came back on (the deadline can pass while the handler still runs
     * inline): wait for it */
    char last[512];
    CHECK_MSG(log_sink_wait_for(&ls, "slow timed out after 20 ms (the dispatcher's default timeout)", 10000, last, sizeof last),
              "the log's last line: %s", last);
    CHECK(atomic_load(&ls.warnings) >= 1);
    forget_parked(p);
    /* asynchronous calls too */
    slot s = {0};
    af_invocation inv = inv_of("slow", AF_PLATFORM_OTHER, 0, NULL);
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    wait_slot(&s);
    CHECK_CODE(s.json, "TimedOut");
    forget_parked(p);
    /* the invocation's own timeout wins, and is named so in the log */
    inv.timeout_ms = 5;
    o = af_execute_json(a->d, &inv, NULL);
    CHECK_HAS(o, "within 5 ms");
    outcome_free(o);
    CHECK_MSG(log_sink_wait_for(&ls, "(the invocation's timeout)", 10000, last, sizeof last), "the log's last line: %s", last);
    forget_parked(p);
    /* AF_TIMEOUT_NONE: no timeout at all; completed 100 ms later (5x the default) */
    inv.timeout_ms = AF_TIMEOUT_NONE;
    slot s2 = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s2), AF_OK);
    af_call *c = wait_parked(p);
    sleep_us(100 * 1000);
    CHECK_EQ_INT(atomic_load(&s2.calls), 0);
    CHECK_STATUS(af_call_return(c, "3"), AF_OK);
    wait_slot(&s2);
    CHECK_HAS(s2.json, "\"result\":3");
    /* 0 (and AF_TIMEOUT_NONE) as the default: none */
    CHECK_STATUS(af_dispatcher_set_default_timeout(a->d, 0), AF_OK);
    inv.timeout_ms = 0;
    slot s3 = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s3), AF_OK);
    c = wait_parked(p);
    sleep_us(60 * 1000);
    CHECK_EQ_INT(atomic_load(&s3.calls), 0);
    CHECK_STATUS(af_call_fail(c, AF_CODE_HANDLER_FAILED, "done"), AF_OK);
    wait_slot(&s3);
    CHECK_CODE(s3.json, "HandlerFailed");
    CHECK_STATUS(af_dispatcher_set_default_timeout(a->d, AF_TIMEOUT_NONE), AF_OK);
    app_close(a);
}

/* ---- shutdown and in-flight ---------------------------------------------------------------------- */

static void return_task(void *call) { CHECK_STATUS(af_call_return(call, "7"), AF_OK); }

TEST(abi__shutdown_refuses_new_calls_and_drains_those_in_flight) {
    app *a = app_new();
    parked *p = reg_parked(a, SLOW_JSON);
    CHECK_EQ_INT(af_dispatcher_in_flight(NULL), 0);
    CHECK_STATUS(af_dispatcher_shutdown(NULL, 0, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_EQ_INT(af_dispatcher_in_flight(a->d), 0);
    slot s = {0};
    af_invocation inv = inv_of("slow", AF_PLATFORM_OTHER, 0, NULL);
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &s), AF_OK);
    af_call *c = wait_parked(p);
    CHECK_EQ_INT(af_dispatcher_in_flight(a->d), 1);
    /* timeout 0: does not wait; says how many still run */
    uint32_t left = 12345;
    CHECK_STATUS(af_dispatcher_shutdown(a->d, 0, &left), AF_ERR_TIMED_OUT);
    CHECK_EQ_INT(left, 1);
    CHECK_LAST_ERROR("1 call(s) still in flight");
    CHECK_STATUS(af_dispatcher_shutdown(a->d, 10, NULL), AF_ERR_TIMED_OUT);
    /* new calls end at once with LimitExceeded and run no host code */
    long runs = atomic_load(&a->handler_runs);
    char *o = run(a->d, "list_notes", NULL);
    CHECK_CODE(o, "LimitExceeded");
    CHECK_HAS(o, "the dispatcher is shutting down");
    outcome_free(o);
    slot refused = {0};
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, on_outcome_slot, &refused), AF_OK);
    CHECK_EQ_INT(atomic_load(&refused.calls), 1); /* at once, on this thread */
    CHECK(pthread_equal(refused.thread, pthread_self()));
    CHECK_CODE(refused.json, "LimitExceeded");
    af_view *v = af_view_new(a->d, NULL);
    o = view_run(v, "list_notes", NULL);
    CHECK_CODE(o, "LimitExceeded");
    outcome_free(o);
    slot vs = {0};
    af_invocation vinv = inv_of("list_notes", AF_PLATFORM_OTHER, 0, NULL);
    CHECK_STATUS(af_view_execute_async(v, &vinv, NULL, on_outcome_slot, &vs), AF_OK);
    CHECK_CODE(vs.json, "LimitExceeded");
    af_view_free(v);
    o = af_mcp_handle_json(a->d, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                 "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    af_string_free(o);
    o = af_mcp_handle_json(a->d, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                                 "{\"name\":\"list_notes\",\"arguments\":{}}}");
    CHECK_HAS(o, "shutting down");
    af_string_free(o);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), runs);
    CHECK_EQ_INT(atomic_load(&p->runs), 1);
    CHECK_EQ_INT(af_dispatcher_in_flight(a->d), 1);
    /* the call in flight finishes 50 ms later on another thread; shutdown waits for it */
    pool *pl = pool_start(1);
    pool_post(pl, return_task, c, 50 * 1000);
    left = 12345;
    CHECK_STATUS(af_dispatcher_shutdown(a->d, 10 * 1000, &left), AF_OK);
    CHECK_EQ_INT(left, 0);
    CHECK_EQ_INT(atomic_load(&s.calls), 1); /* its outcome was delivered before */
    CHECK_HAS(s.json, "\"result\":7");
    CHECK_EQ_INT(af_dispatcher_in_flight(a->d), 0);
    pool_stop(pl);
    /* idempotent; AF_TIMEOUT_NONE waits as long as it takes (nothing left) */
    CHECK_STATUS(af_dispatcher_shutdown(a->d, AF_TIMEOUT_NONE, &left), AF_OK);
    app_close(a); /* af_dispatcher_free after shutdown */
}

/* ---- views take invocations ---------------------------------------------------------------------- */

TEST(abi__view_execute_with_invocation_options_async_and_generation) {
    app *a = app_new();
    parked *p = reg_parked(a, SLOW_JSON);
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"extras\",\"description\":\"More tools\"}", NULL, NULL, NULL),
                 AF_OK);
    CHECK_STATUS(af_register_function(a->d,
                                      "{\"id\":\"open_report\",\"toolkit\":\"extras\",\"opensApp\":true,"
                                      "\"result\":\"string\"}",
                                      h_list_notes, app_reg(a, NULL), app_reg_free),
                 AF_OK);
    af_view *v = af_view_new(a->d, NULL);
    CHECK_EQ_INT(af_view_generation(NULL), 0);
    uint64_t g0 = af_view_generation(v);
    CHECK(g0 != 0);
    char *tools = af_view_tools_json(v, "mcp");
    af_string_free(tools);
    CHECK(af_view_generation(v) == g0); /* reading changes nothing */
    /* async: a container expands inline */
    slot s = {0};
    af_invocation inv = inv_of("extras", AF_PLATFORM_OTHER, 0, NULL);
    CHECK_STATUS(af_view_execute_async(v, &inv, NULL, on_outcome_slot, &s), AF_OK);
    CHECK_EQ_INT(atomic_load(&s.calls), 1);
    CHECK_HAS(s.json, "now available");
    uint64_t g1 = af_view_generation(v);
    CHECK(g1 != g0);
    /* the invocation's platform applies: apple, not in the foreground, opensApp */
    inv = inv_of("open_report", AF_PLATFORM_APPLE, 0, NULL);
    char *o = af_view_execute_json(v, &inv, NULL);
    CHECK_OPEN_APP(o);
    outcome_free(o);
    /* the invocation's timeout and cancel token apply */
    inv = inv_of("slow", AF_PLATFORM_OTHER, 0, NULL);
    inv.timeout_ms = 10;
    o = af_view_execute_json(v, &inv, NULL);
    CHECK_CODE(o, "TimedOut");
    outcome_free(o);
    (void)wait_parked(p);
    af_cancel_token *t = af_cancel_token_new();
    inv.timeout_ms = 0;
    inv.cancel_token = t;
    slot s2 = {0};
    CHECK_STATUS(af_view_execute_async(v, &inv, NULL, on_outcome_slot, &s2), AF_OK);
    (void)wait_parked(p);
    CHECK_EQ_INT(atomic_load(&s2.calls), 0);
    CHECK_STATUS(af_cancel_token_cancel(t), AF_OK);
    CHECK_EQ_INT(atomic_load(&s2.calls), 1);
    CHECK_CODE(s2.json, "Cancelled");
    af_cancel_token_free(t);
    /* completed later on another thread: the outcome arrives there */
    slot s3 = {0};
    inv.cancel_token = NULL;
    CHECK_STATUS(af_view_execute_async(v, &inv, NULL, on_outcome_slot, &s3), AF_OK);
    af_call *c = wait_parked(p);
    pool *pl = pool_start(1);
    pool_post(pl, return_task, c, 1000);
    wait_slot(&s3);
    CHECK_HAS(s3.json, "\"result\":7");
    CHECK(!pthread_equal(s3.thread, pthread_self()));
    pool_stop(pl);
    /* NULL and invalid UTF-8 */
    o = af_view_execute_json(NULL, &inv, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "view is NULL");
    outcome_free(o);
    o = af_view_execute_json(v, &inv, BAD_UTF8);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "args_json");
    outcome_free(o);
    slot none = {0};
    CHECK_STATUS(af_view_execute_async(NULL, &inv, NULL, on_outcome_slot, &none), AF_ERR_NULL);
    CHECK_STATUS(af_view_execute_async(v, NULL, NULL, on_outcome_slot, &none), AF_ERR_NULL);
    CHECK_LAST_ERROR("af_invocation");
    CHECK_STATUS(af_view_execute_async(v, &inv, NULL, NULL, &none), AF_ERR_NULL);
    CHECK_LAST_ERROR("on_outcome");
    CHECK_STATUS(af_view_execute_async(v, &inv, BAD_UTF8, on_outcome_slot, &none), AF_ERR_UTF8);
    CHECK_LAST_ERROR("args_json");
    inv.function_id = NULL;
    CHECK_STATUS(af_view_execute_async(v, &inv, NULL, on_outcome_slot, &none), AF_ERR_NULL);
    CHECK_LAST_ERROR("function_id");
    inv.function_id = BAD_UTF8;
    CHECK_STATUS(af_view_execute_async(v, &inv, NULL, on_outcome_slot, &none), AF_ERR_UTF8);
    CHECK_LAST_ERROR("function_id");
    CHECK_EQ_INT(atomic_load(&none.calls), 0);
    /* generation: reset, metadata, registry changes */
    uint64_t g = af_view_generation(v);
    CHECK_STATUS(af_view_reset(v), AF_OK);
    CHECK(af_view_generation(v) != g);
    g = af_view_generation(v);
    CHECK_STATUS(af_view_set_metadata(v, "{\"plan\":\"pro\"}"), AF_OK);
    CHECK(af_view_generation(v) != g);
    g = af_view_generation(v);
    CHECK_STATUS(af_set_function_enabled(a->d, "list_notes", 0), AF_OK);
    CHECK(af_view_generation(v) != g);
    g = af_view_generation(v);
    CHECK_STATUS(af_unregister_function(a->d, "open_report"), AF_OK);
    CHECK(af_view_generation(v) != g);
    af_view_free(v);
    app_close(a);
}

/*
 * An adversarial host (issue 28): gates past the handle's sequence bits and stale gate
 * answers, a stdio MCP client that goes away mid-call, fork(), and one dispatcher's blocked
 * callbacks beside another's timeouts.
 */
#include "app.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- gates: many in one call, and answers to gates already answered ---------------- */

#define MANY_GATES 300
static af_gate *many_gates[MANY_GATES];
static atomic_int many_seen;
static atomic_int stale_refused, stale_other;

static void many_gates_invoking(void *ud, af_call *call, af_gate *gate) {
    (void)call;
    int k = (int)(intptr_t)ud;
    many_gates[k] = gate;
    atomic_fetch_add(&many_seen, 1);
    /* every earlier gate was answered: a second answer to any of them is refused as such,
     * also while the call waits at this later gate (the 256th would match the 1st if the
     * handle's sequence bits wrapped) */
    for (int j = 0; j < k; j++) {
        af_status s = af_gate_deny(many_gates[j], "a stale answer");
        if (s == AF_ERR_ALREADY_COMPLETED) {
            atomic_fetch_add(&stale_refused, 1);
        } else {
            atomic_fetch_add(&stale_other, 1);
        }
    }
    CHECK_STATUS(af_gate_allow(gate), AF_OK);
}

TEST(robust__a_call_waits_for_at_most_255_gates_and_a_stale_gate_answer_is_already_completed) {
    app *a = app_new();
    for (int k = 0; k < MANY_GATES; k++) {
        af_delegate v = AF_DELEGATE_INIT;
        v.on_invoking = many_gates_invoking;
        CHECK_STATUS(af_add_delegate(a->d, &v, (void *)(intptr_t)k), AF_OK);
    }
    atomic_store(&many_seen, 0);
    atomic_store(&stale_refused, 0);
    atomic_store(&stale_other, 0);
    char *o = run(a->d, "list_notes", NULL);
    int limit = sizeof(void *) == 8 ? 255 : 63;
    /* the gate past the limit is refused with a clear message; no stale answer decided it */
    CHECK_CODE(o, "LimitExceeded");
    CHECK_HAS(o, "the most one call may");
    CHECK_EQ_INT(atomic_load(&many_seen), limit);
    CHECK_EQ_INT(atomic_load(&stale_refused), (long long)limit * (limit - 1) / 2);
    CHECK_EQ_INT(atomic_load(&stale_other), 0);
    CHECK_EQ_INT(atomic_load(&a->handler_runs), 0);
    outcome_free(o);
    app_close(a);
}

static af_gate *first_gate, *second_gate;
static void first_gate_allows(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    (void)call;
    first_gate = gate;
    CHECK_STATUS(af_gate_allow(gate), AF_OK);
}
static void second_gate_defers(void *ud, af_call *call, af_gate *gate) {
    (void)ud;
    (void)call;
    second_gate = gate; /* answered later, from the test's thread */
}
static atomic_int async_done;
static char async_outcome[1024];
static void keep_outcome(void *ud, const char *json) {
    (void)ud;
    snprintf(async_outcome, sizeof async_outcome, "%s", json);
    atomic_store(&async_done, 1);
}

TEST(robust__a_second_answer_while_the_call_waits_at_a_later_gate_is_already_completed) {
    app *a = app_new();
    af_delegate v1 = AF_DELEGATE_INIT, v2 = AF_DELEGATE_INIT;
    v1.on_invoking = first_gate_allows;
    v2.on_invoking = second_gate_defers;
    CHECK_STATUS(af_add_delegate(a->d, &v1, NULL), AF_OK);
    CHECK_STATUS(af_add_delegate(a->d, &v2, NULL), AF_OK);
    atomic_store(&async_done, 0);
    af_invocation inv = inv_of("list_notes", AF_PLATFORM_OTHER, 0, NULL);
    CHECK_STATUS(af_execute_async(a->d, &inv, NULL, keep_outcome, NULL), AF_OK);
    /* the call is suspended at the second gate */
    CHECK(!atomic_load(&async_done));
    CHECK_STATUS(af_gate_deny(first_gate, "a second answer"), AF_ERR_ALREADY_COMPLETED);
    CHECK_STATUS(af_gate_allow(first_gate), AF_ERR_ALREADY_COMPLETED);
    CHECK(!atomic_load(&async_done));
    CHECK_STATUS(af_gate_allow(second_gate), AF_OK);
    CHECK(atomic_load(&async_done));
    CHECK_SUCCESS(async_outcome);
    /* and after the call: both ended */
    CHECK_STATUS(af_gate_allow(second_gate), AF_ERR_ALREADY_COMPLETED);
    app_close(a);
}

/* ---- stdio MCP: the client goes away mid-call -------------------------------------- */

static void read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    char c;
    while (n + 1 < cap && read(fd, &c, 1) == 1) {
        buf[n++] = c;
        if (c == '\n') break;
    }
    buf[n] = 0;
}

TEST(robust__a_c_host_serving_mcp_on_stdio_survives_a_client_that_goes_away_mid_call) {
    int in[2], out[2], err[2];
    CHECK(pipe(in) == 0 && pipe(out) == 0 && pipe(err) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) { /* a C host (this harness, server mode), SIGPIPE at its default action */
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]), close(err[0]), close(err[1]);
        setenv("AF_SERVE_SLOW_MS", "300", 1);
        execl(harness_self, harness_self, "--mcp-serve-stdio", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    char line[4096];
    snprintf(line, sizeof line, "%s\n", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                                        "\"clientInfo\":{\"name\":\"c-harness\",\"version\":\"1\"}}}");
    CHECK(write(in[1], line, strlen(line)) == (ssize_t)strlen(line));
    read_line(out[0], line, sizeof line);
    CHECK_HAS(line, "\"protocolVersion\"");
    snprintf(line, sizeof line, "%s\n%s\n", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow_call\",\"arguments\":{}}}");
    CHECK(write(in[1], line, strlen(line)) == (ssize_t)strlen(line));
    /* the client goes away while the call runs: its end of stdout first, then stdin */
    close(out[0]);
    sleep_us(50 * 1000);
    close(in[1]);
    static char errs[1 << 14];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof errs - 1 && (got = read(err[0], errs + n, sizeof errs - 1 - n)) > 0) n += (size_t)got;
    errs[n] = 0;
    close(err[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(!WIFSIGNALED(status), "the server died of signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server exited with status %d", status);
    /* the call in flight was drained before af_mcp_serve_stdio returned AF_OK */
    CHECK_HAS(errs, "served: status 0, slow calls finished 1");
}

/* ---- fork(): a child of a process that used the library refuses cleanly ------------ */

static void never_handler(void *ud, af_call *call) {
    (void)ud;
    (void)call; /* never completes: ended by its timeout */
}
static atomic_int child_outcomes;
static void count_outcome(void *ud, const char *json) {
    (void)ud;
    (void)json;
    atomic_fetch_add(&child_outcomes, 1);
}

/* In the child: what the library does there; exits 0 when it refused everything cleanly. */
static int forked_child_checks(af_dispatcher *d, af_cancel_token *t) {
    int bad = 0;
    af_invocation inv = inv_of("never", AF_PLATFORM_OTHER, 0, NULL);
    inv.timeout_ms = 20;
    inv.cancel_token = t;
    /* a timeout there would never fire (no timer thread): the call is refused instead */
    if (af_execute_async(d, &inv, NULL, count_outcome, NULL) != AF_ERR_INTERNAL) bad |= 1;
    if (!strstr(af_last_error(), "fork()")) bad |= 2;
    /* a cancel could deadlock on a lock held by a thread left in the parent: refused */
    if (af_cancel_token_cancel(t) == AF_OK) bad |= 4;
    char *o = af_execute_json(d, &inv, NULL);
    if (!o || !strstr(o, "InternalError") || !strstr(o, "fork()")) bad |= 8;
    af_string_free(o);
    if (af_dispatcher_new() != NULL) bad |= 16;
    if (!strstr(af_last_error(), "exec")) bad |= 32;
    sleep_us(100 * 1000);
    if (atomic_load(&child_outcomes) != 0) bad |= 64;
    return bad;
}

TEST(robust__a_child_forked_after_the_library_started_its_threads_refuses_every_call_cleanly) {
    af_dispatcher *d = af_dispatcher_new();
    CHECK_STATUS(af_register_function(d, "{\"id\":\"never\",\"result\":\"int32\"}", never_handler, NULL, NULL), AF_OK);
    af_cancel_token *t = af_cancel_token_new();
    /* the timer and a completion thread run now */
    af_invocation inv = inv_of("never", AF_PLATFORM_OTHER, 0, NULL);
    inv.timeout_ms = 20;
    atomic_store(&child_outcomes, 0);
    CHECK_STATUS(af_execute_async(d, &inv, NULL, count_outcome, NULL), AF_OK);
    sleep_us(5 * 1000);
    fflush(stdout);
    fflush(stderr);
    int report[2];
    CHECK(pipe(report) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        /* the bits through a pipe: under valgrind the child's exit status is valgrind's */
        close(report[0]);
        int bad = forked_child_checks(d, t);
        ssize_t w = write(report[1], &bad, sizeof bad);
        _exit(w == (ssize_t)sizeof bad ? 0 : 1);
    }
    close(report[1]);
    int status = 0;
    pid_t w = 0;
    for (int i = 0; i < 1000 && (w = waitpid(pid, &status, WNOHANG)) == 0; i++) sleep_us(10 * 1000);
    if (w == 0) { /* deadlocked */
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        CHECK_MSG(0, "the forked child hung");
    } else {
        int bad = -1;
        ssize_t got = read(report[0], &bad, sizeof bad);
        CHECK_MSG(got == (ssize_t)sizeof bad && bad == 0, "the forked child failed its checks: bits %d (status %d)", bad,
                  status);
    }
    close(report[0]);
    /* the parent goes on as before */
    for (int i = 0; i < 500 && atomic_load(&child_outcomes) == 0; i++) sleep_us(2000);
    CHECK_EQ_INT(atomic_load(&child_outcomes), 1);
    af_cancel_token_free(t);
    af_dispatcher_free(d);
}

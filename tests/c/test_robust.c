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

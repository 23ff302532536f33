/*
 * The C harness: a tiny test registry, checks that work from any thread, JSON substring
 * helpers, a pool of "other threads" that answer calls later, and the env knobs.
 * No external dependencies: C11, pthreads, the generated header.
 */
#ifndef AF_HARNESS_H
#define AF_HARNESS_H

#include "appfunctions.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- registry ---------------------------------------------------------------------- */

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);

/* TEST(name) { ... } defines and registers a test (in file order). */
#define TEST(name)                                                                      \
    static void name(void);                                                             \
    __attribute__((constructor)) static void register_##name(void) {                    \
        test_register(#name, name);                                                     \
    }                                                                                   \
    static void name(void)

/* `af_harness --mcp-serve-stdio` runs this instead of the tests (test_agent.c). */
int mcp_serve_stdio_main(void);
/* argv[0] of the harness (to run itself in a fresh process). */
extern const char *harness_self;

/* ---- checks (callable from any thread; a failing check does not stop the test) ------ */

void check_failed(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) check_failed(__FILE__, __LINE__, "%s", #cond);                     \
    } while (0)

#define CHECK_MSG(cond, ...)                                                            \
    do {                                                                                \
        if (!(cond)) check_failed(__FILE__, __LINE__, __VA_ARGS__);                     \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                              \
    do {                                                                                \
        long long a_ = (long long)(a), b_ = (long long)(b);                             \
        if (a_ != b_)                                                                   \
            check_failed(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, a_, b_); \
    } while (0)

/* A status check that also shows af_last_error() of this thread. */
#define CHECK_STATUS(expr, want)                                                        \
    do {                                                                                \
        af_status s_ = (expr);                                                          \
        if (s_ != (want))                                                               \
            check_failed(__FILE__, __LINE__, "%s: status %d, want %d (last error: %s)", \
                         #expr, (int)s_, (int)(want), af_last_error());                  \
    } while (0)

#define CHECK_HAS(text, needle)                                                         \
    do {                                                                                \
        const char *t_ = (text);                                                        \
        const char *n_ = (needle);                                                      \
        if (!t_ || !strstr(t_, n_))                                                     \
            check_failed(__FILE__, __LINE__, "%s does not contain %s\n      text: %s",  \
                         #text, n_, t_ ? t_ : "(NULL)");                                \
    } while (0)

#define CHECK_LACKS(text, needle)                                                       \
    do {                                                                                \
        const char *t_ = (text);                                                        \
        const char *n_ = (needle);                                                      \
        if (!t_ || strstr(t_, n_))                                                      \
            check_failed(__FILE__, __LINE__, "%s contains %s\n      text: %s", #text,   \
                         n_, t_ ? t_ : "(NULL)");                                       \
    } while (0)

#define CHECK_STREQ(a, b)                                                               \
    do {                                                                                \
        const char *a_ = (a), *b_ = (b);                                                \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                          \
            check_failed(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", #a, #b,      \
                         a_ ? a_ : "(NULL)", b_ ? b_ : "(NULL)");                       \
    } while (0)

/* The last error mentions `word` (e.g. the argument's name). */
#define CHECK_LAST_ERROR(word) CHECK_HAS(af_last_error(), word)

/* Outcome shape helpers: the outcome JSON is compact (DESIGN.md step 7). */
#define CHECK_SUCCESS(o) CHECK_HAS(o, "\"status\":\"success\"")
#define CHECK_CODE(o, code) CHECK_HAS(o, "\"errorCode\":\"" code "\"")
#define CHECK_OPEN_APP(o) CHECK_HAS(o, "\"status\":\"openApp\"")

/* ---- JSON substring helpers ---------------------------------------------------------- */

bool json_has(const char *json, const char *needle);
/* The string value of the first "key": "..." (no escapes decoded) into buf; false if absent. */
bool json_str(const char *json, const char *key, char *buf, size_t cap);
/* The integer value of the first "key": n; `dflt` if absent. */
long long json_int(const char *json, const char *key, long long dflt);
/* A heap copy of a string (abort on OOM); free with free(). */
char *xstrdup(const char *s);
/* Frees and forgets an outcome string returned by the library. */
void outcome_free(char *o);

/* ---- invocations --------------------------------------------------------------------- */

af_invocation inv_of(const char *fn, int32_t platform, uint8_t foreground, const char *caller);
/* af_execute_json with a fresh invocation (platform other, not foreground). Caller frees. */
char *run(af_dispatcher *d, const char *fn, const char *args);
char *run_on(af_dispatcher *d, const char *fn, int32_t platform, uint8_t fg, const char *args);

/* af_view_execute_json with a fresh invocation naming `name` (platform other, the
 * dispatcher's default timeout). Caller frees. */
char *view_run(af_view *v, const char *name, const char *args);

/* ---- the "other thread": a pool that runs tasks later ------------------------------ */

typedef struct pool pool;
pool *pool_start(int threads);
/* Runs fn(arg) on a pool thread, no sooner than delay_us from now. */
void pool_post(pool *p, void (*fn)(void *), void *arg, unsigned delay_us);
/* Waits until every posted task ran, then joins the threads and frees the pool. */
void pool_stop(pool *p);

/* Common tasks for the pool. */
typedef struct deferred {
    af_call *call;
    af_gate *gate;
    char *json;        /* owned, may be NULL */
    int32_t code;      /* for af_call_fail */
    int kind;          /* DEFER_* */
    af_status status;  /* what the library answered */
    atomic_int done;
} deferred;
enum { DEFER_RETURN, DEFER_FAIL, DEFER_ALLOW, DEFER_DENY, DEFER_OPEN_APP };
deferred *deferred_new(int kind, af_call *call, af_gate *gate, const char *json);
void deferred_run(void *d);            /* the task: answers, records status, sets done */
void deferred_wait(deferred *d);       /* spin-waits (with sleeps) until done */
void deferred_free(deferred *d);

/* ---- misc ------------------------------------------------------------------------ */

void sleep_us(unsigned us);
long env_long(const char *name, long dflt);
uint64_t now_us(void);
/* A thread-safe xorshift step. */
uint32_t rnd_next(uint32_t *state);

/* A thread-safe counter of free_user_data calls, for tests that only count. */
typedef struct counted {
    atomic_long *frees;
    long magic;
} counted;
void *counted_new(atomic_long *frees);
void counted_free(void *p);

/* Invalid UTF-8 (a lone continuation byte and an overlong encoding). */
extern const char BAD_UTF8[];

/* The log callback used by many tests: counts warnings, keeps the last message. */
typedef struct log_sink {
    atomic_long warnings;
    atomic_long total;
    pthread_mutex_t mu;
    char last[512];
    char recent[16][512]; /* the last 16 lines, for log_sink_wait_for */
    long n_recent;
} log_sink;
void log_sink_init(log_sink *s);
void log_cb(void *user_data, int32_t level, const char *message);
void log_sink_last(log_sink *s, char *buf, size_t cap);
/* Waits (up to timeout_ms) until one of the last 16 lines logged contains `needle`;
 * copies the last line into buf either way and returns whether one did. For a line logged
 * on another thread than the one that delivers the outcome (a timeout's warning, when the
 * deadline passed while the handler still ran inline): it may come just after, or after a
 * later call's line. */
bool log_sink_wait_for(log_sink *s, const char *needle, unsigned timeout_ms, char *buf, size_t cap);

#endif

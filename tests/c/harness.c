/* The harness runner and its helpers (see harness.h). */
#include "harness.h"

#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

const char BAD_UTF8[] = {(char)0x66, (char)0x80, (char)0xC0, (char)0xAF, 0};

/* ---- registry and runner ------------------------------------------------------------- */

#define MAX_TESTS 512
static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static int n_tests;
static atomic_int failures_in_test;
static pthread_mutex_t print_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *current_test = "";

void test_register(const char *name, test_fn fn) {
    if (n_tests == MAX_TESTS) {
        fprintf(stderr, "harness: too many tests\n");
        abort();
    }
    tests[n_tests].name = name;
    tests[n_tests].fn = fn;
    n_tests++;
}

void check_failed(const char *file, int line, const char *fmt, ...) {
    atomic_fetch_add(&failures_in_test, 1);
    pthread_mutex_lock(&print_mu);
    fprintf(stdout, "    check failed at %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&print_mu);
}

void test_note(const char *fmt, ...) {
    pthread_mutex_lock(&print_mu);
    fputs("    ", stdout);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&print_mu);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "\nFAIL (watchdog: the test did not finish in time; see AF_TEST_TIMEOUT)\n"
                              "c: harness aborted by the watchdog\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static bool selected(const char *name, int argc, char **argv) {
    const char *env = getenv("AF_TEST_FILTER");
    if (env && *env && !strstr(name, env)) return false;
    if (argc <= 1) return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return true;
    return false;
}

const char *harness_self = "af_harness";

int main(int argc, char **argv) {
    harness_self = argv[0];
    if (argc == 2 && strcmp(argv[1], "--mcp-serve-stdio") == 0) return mcp_serve_stdio_main();
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGALRM, on_alarm);
    unsigned watchdog = (unsigned)env_long("AF_TEST_TIMEOUT", 300);
    int passed = 0, failed = 0;
    for (int i = 0; i < n_tests; i++) {
        if (!selected(tests[i].name, argc, argv)) continue;
        current_test = tests[i].name;
        atomic_store(&failures_in_test, 0);
        alarm(watchdog);
        uint64_t t0 = now_us();
        tests[i].fn();
        alarm(0);
        uint64_t ms = (now_us() - t0) / 1000;
        if (atomic_load(&failures_in_test) == 0) {
            passed++;
            printf("ok   %s (%llu ms)\n", tests[i].name, (unsigned long long)ms);
        } else {
            failed++;
            printf("FAIL %s (%llu ms)\n", tests[i].name, (unsigned long long)ms);
        }
    }
    printf("c: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

/* ---- JSON substring helpers ------------------------------------------------------------ */

bool json_has(const char *json, const char *needle) {
    return json && needle && strstr(json, needle) != NULL;
}

static const char *json_value(const char *json, const char *key) {
    if (!json) return NULL;
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
}

bool json_str(const char *json, const char *key, char *buf, size_t cap) {
    const char *p = json_value(json, key);
    if (!p || *p != '"' || cap == 0) return false;
    p++;
    size_t n = 0;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) {
            if (n + 1 < cap) buf[n++] = *p;
            p++;
        }
        if (n + 1 < cap) buf[n++] = *p;
        p++;
    }
    buf[n] = 0;
    return true;
}

long long json_int(const char *json, const char *key, long long dflt) {
    const char *p = json_value(json, key);
    if (!p || (*p != '-' && (*p < '0' || *p > '9'))) return dflt;
    return strtoll(p, NULL, 10);
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (!c) abort();
    memcpy(c, s, n);
    return c;
}

void outcome_free(char *o) { af_string_free(o); }

/* ---- invocations ------------------------------------------------------------------------ */

af_invocation inv_of(const char *fn, int32_t platform, uint8_t foreground, const char *caller) {
    af_invocation inv = AF_INVOCATION_INIT;
    inv.function_id = fn;
    inv.platform = platform;
    inv.is_foreground = foreground;
    inv.caller_package = caller;
    return inv;
}

char *run(af_dispatcher *d, const char *fn, const char *args) {
    return run_on(d, fn, AF_PLATFORM_OTHER, 0, args);
}

char *run_on(af_dispatcher *d, const char *fn, int32_t platform, uint8_t fg, const char *args) {
    af_invocation inv = inv_of(fn, platform, fg, NULL);
    char *o = af_execute_json(d, &inv, args);
    CHECK(o != NULL);
    return o;
}

char *view_run(af_view *v, const char *name, const char *args) {
    af_invocation inv = AF_INVOCATION_INIT;
    inv.function_id = name;
    return af_view_execute_json(v, &inv, args);
}

/* ---- the pool ---------------------------------------------------------------------------- */

typedef struct task {
    void (*fn)(void *);
    void *arg;
    uint64_t due_us;
    struct task *next;
} task;

struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_cond_t idle;
    task *head, *tail;
    long pending;
    bool stopping;
    int n;
    pthread_t *threads;
};

static void *pool_main(void *arg) {
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->head && !p->stopping) pthread_cond_wait(&p->cv, &p->mu);
        if (!p->head) break;
        task *t = p->head;
        p->head = t->next;
        if (!p->head) p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        uint64_t now = now_us();
        if (t->due_us > now) sleep_us((unsigned)(t->due_us - now));
        t->fn(t->arg);
        free(t);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

pool *pool_start(int threads) {
    pool *p = calloc(1, sizeof *p);
    if (!p) abort();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->idle, NULL);
    p->n = threads;
    p->threads = calloc((size_t)threads, sizeof(pthread_t));
    if (!p->threads) abort();
    for (int i = 0; i < threads; i++)
        if (pthread_create(&p->threads[i], NULL, pool_main, p) != 0) abort();
    return p;
}

void pool_post(pool *p, void (*fn)(void *), void *arg, unsigned delay_us) {
    task *t = malloc(sizeof *t);
    if (!t) abort();
    t->fn = fn;
    t->arg = arg;
    t->due_us = now_us() + delay_us;
    t->next = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->tail) p->tail->next = t;
    else p->head = t;
    p->tail = t;
    p->pending++;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void pool_stop(pool *p) {
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->idle, &p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    pthread_cond_destroy(&p->idle);
    free(p->threads);
    free(p);
}

deferred *deferred_new(int kind, af_call *call, af_gate *gate, const char *json) {
    deferred *d = calloc(1, sizeof *d);
    if (!d) abort();
    d->kind = kind;
    d->call = call;
    d->gate = gate;
    d->json = json ? xstrdup(json) : NULL;
    d->status = -1;
    return d;
}

void deferred_run(void *arg) {
    deferred *d = arg;
    switch (d->kind) {
    case DEFER_RETURN: d->status = af_call_return(d->call, d->json); break;
    case DEFER_FAIL: d->status = af_call_fail(d->call, d->code, d->json); break;
    case DEFER_ALLOW: d->status = af_gate_allow(d->gate); break;
    case DEFER_DENY: d->status = af_gate_deny(d->gate, d->json); break;
    case DEFER_OPEN_APP: d->status = af_gate_open_app(d->gate, d->json); break;
    default: abort();
    }
    atomic_store(&d->done, 1);
}

void deferred_wait(deferred *d) {
    while (!atomic_load(&d->done)) sleep_us(200);
}

void deferred_free(deferred *d) {
    if (!d) return;
    free(d->json);
    free(d);
}

/* ---- misc -------------------------------------------------------------------------------- */

void sleep_us(unsigned us) {
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

long env_long(const char *name, long dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    long n = strtol(v, &end, 10);
    return (*end == 0 && n > 0) ? n : dflt;
}

uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint32_t rnd_next(uint32_t *s) {
    uint32_t x = *s ? *s : 0x9E3779B9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

#define COUNTED_MAGIC 0x5AFEC0DEL
void *counted_new(atomic_long *frees) {
    counted *c = malloc(sizeof *c);
    if (!c) abort();
    c->frees = frees;
    c->magic = COUNTED_MAGIC;
    return c;
}

void counted_free(void *p) {
    counted *c = p;
    if (c->magic != COUNTED_MAGIC) {
        check_failed(__FILE__, __LINE__, "free_user_data got a bad or already freed pointer");
        return;
    }
    c->magic = 0;
    atomic_fetch_add(c->frees, 1);
    free(c);
}

void log_sink_init(log_sink *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
}

void log_cb(void *user_data, int32_t level, const char *message) {
    log_sink *s = user_data;
    atomic_fetch_add(&s->total, 1);
    if (level >= 2) atomic_fetch_add(&s->warnings, 1);
    pthread_mutex_lock(&s->mu);
    snprintf(s->last, sizeof s->last, "%s", message ? message : "(NULL)");
    snprintf(s->recent[s->n_recent++ % 16], sizeof s->recent[0], "%s", s->last);
    pthread_mutex_unlock(&s->mu);
}

void log_sink_last(log_sink *s, char *buf, size_t cap) {
    pthread_mutex_lock(&s->mu);
    snprintf(buf, cap, "%s", s->last);
    pthread_mutex_unlock(&s->mu);
}

bool log_sink_wait_for(log_sink *s, const char *needle, unsigned timeout_ms, char *buf, size_t cap) {
    uint64_t give_up = now_us() + (uint64_t)timeout_ms * 1000;
    for (;;) {
        bool seen = false;
        pthread_mutex_lock(&s->mu);
        snprintf(buf, cap, "%s", s->last);
        for (long i = 0; i < 16 && i < s->n_recent && !seen; i++) seen = strstr(s->recent[i], needle) != NULL;
        pthread_mutex_unlock(&s->mu);
        if (seen) return true;
        if (now_us() >= give_up) return false;
        sleep_us(1000);
    }
}

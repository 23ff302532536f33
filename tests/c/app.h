/*
 * The shared scenario (the seeds' sample apps), the same one every binding's tests use:
 * - orders: create_order(customer: string, quantity: int32, priority: enum Priority
 *   {Low, Normal, High} = Normal) -> Order {id, customer, quantity, priority};
 *   cancel_order(order: entity order); entity order {id, customer, quantity} with its
 *   generated search_order(query, limit?).
 * - notes: list_notes() -> [Note]; create_note(title, content) -> Note;
 *   edit_note(noteId: string, title: string?, content: string) -> Note?;
 *   Note {id: int32, title, content}.
 * Every user_data handed to the library is counted, and app_close() checks that each one
 * was freed exactly once after af_dispatcher_free.
 */
#ifndef AF_APP_H
#define AF_APP_H

#include "harness.h"

typedef struct note {
    int id;
    char title[64];
    char content[128];
} note;

typedef struct app {
    af_dispatcher *d;
    atomic_long regs;  /* user_data handed to the library */
    atomic_long frees; /* free_user_data calls seen */
    atomic_long handler_runs;
    atomic_long lookup_runs;
    atomic_long begins, ends;
    atomic_long scope_releases; /* host data releases (af_call_set_host_data's free_data) */
    atomic_int next_order;
    pthread_mutex_t mu;
    note notes[64];
    int n_notes, next_note;
    char trace[4096]; /* "begin|invoking:x|handler:x|invoked:x|end" (guarded by mu) */
    void *last_host_data_seen_by_handler;
    void *last_host_data_seen_by_lookup;
    char last_args[1024];   /* af_call_args seen by the last handler */
    char last_lookup[256];  /* af_call_lookup_request seen by the last lookup */
} app;

/* A registration's user_data: knows its app and is counted. */
typedef struct reg {
    long magic;
    app *a;
    void *extra; /* test-specific */
} reg;

app *app_new(void);           /* a dispatcher with both sample apps registered */
app *app_bare(void);          /* a dispatcher with only the types defined */
void app_close(app *a);       /* frees the dispatcher; checks every user_data was freed once */
reg *app_reg(app *a, void *extra);
void app_reg_free(void *user_data);

void app_trace(app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_trace_get(app *a, char *buf, size_t cap);
void app_trace_reset(app *a);

/* Scope hooks that open a "DI scope" (a heap object) in begin, attached as host data with
 * a release; end closes it, the release (which runs after end) frees it. */
typedef struct scope {
    long magic;
    app *a;
    char function_id[64];
} scope;
void app_install_scope_hooks(app *a);

/* The handlers and the lookup of the sample apps (user_data is a reg*). */
void h_create_order(void *ud, af_call *call);
void h_cancel_order(void *ud, af_call *call);
void h_lookup_order(void *ud, af_call *call);
void h_list_notes(void *ud, af_call *call);
void h_create_note(void *ud, af_call *call);
void h_edit_note(void *ud, af_call *call);

extern const char *TYPES_JSON;
extern const char *CREATE_ORDER_JSON;
extern const char *CANCEL_ORDER_JSON;
extern const char *ORDER_ENTITY_JSON;
extern const char *LIST_NOTES_JSON;
extern const char *CREATE_NOTE_JSON;
extern const char *EDIT_NOTE_JSON;

/* A configurable delegate: answers `action` (inline or from `later` pool) with `msg`,
 * optionally only for one function id, and records what it saw. */
enum { GATE_ALLOW, GATE_DENY, GATE_OPEN_APP, GATE_NONE /* never answers */ };
typedef struct probe {
    reg r;
    const char *name;
    int action;
    const char *msg;
    const char *only_for; /* NULL: every call */
    pool *later;          /* answer from this pool instead of inline */
    unsigned later_us;
    atomic_int invoking, invoked;
    atomic_int lookups_seen; /* on_invoking calls with kind AF_CALL_ENTITY_LOOKUP */
    af_gate *pending;        /* for GATE_NONE */
    char last_outcome[1024];
    char last_args[512];     /* af_call_args in on_invoking ("(NULL)" for NULL) */
    char last_request[256];  /* af_call_lookup_request in on_invoking */
    char last_entity[64];
    void *host_data_seen;
    deferred *answers[16];   /* the pool's answers, when `later` */
    atomic_int n_answers;
} probe;
probe *probe_add(app *a, const char *name, int action, const char *msg);
/* Adds a probe with only the callbacks asked for (the others NULL in the vtable). */
probe *probe_add_partial(app *a, const char *name, int action, const char *msg,
                         bool with_invoking, bool with_invoked);

#endif

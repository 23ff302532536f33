/* The shared scenario: the orders and notes sample apps (see app.h). */
#include "app.h"

#include <stdarg.h>

#define REG_MAGIC 0x0DDBA11L
#define SCOPE_MAGIC 0x5C0BEL

const char *TYPES_JSON =
    "{\"enums\":[{\"name\":\"Priority\",\"description\":\"How urgent an order is\","
    "\"members\":[\"Low\",{\"name\":\"Normal\",\"description\":\"The default\"},\"High\"]}],"
    "\"records\":["
    "{\"name\":\"Order\",\"description\":\"An order.\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"customer\",\"type\":\"string\"},"
    "{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}]},"
    "{\"name\":\"Note\",\"description\":\"A note.\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"int32\",\"description\":\"The note's ID.\"},"
    "{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"content\",\"type\":\"string\"}]}]}";

const char *CREATE_ORDER_JSON =
    "{\"id\":\"create_order\",\"title\":\"Create order\","
    "\"description\":\"Creates an order for a customer.\",\"symbol\":\"CreateOrder\","
    "\"parameters\":[{\"name\":\"customer\",\"type\":\"string\",\"description\":\"Customer name\"},"
    "{\"name\":\"quantity\",\"type\":\"int32\"},"
    "{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"},\"optional\":true,\"default\":\"Normal\"}],"
    "\"result\":{\"record\":\"Order\"}}";

const char *CANCEL_ORDER_JSON =
    "{\"id\":\"cancel_order\",\"title\":\"Cancel order\",\"description\":\"Cancels an order.\","
    "\"parameters\":[{\"name\":\"order\",\"type\":{\"entity\":\"order\"}}]}";

const char *ORDER_ENTITY_JSON =
    "{\"name\":\"order\",\"title\":\"Order\",\"description\":\"An order of the shop\","
    "\"idField\":\"id\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
    "{\"name\":\"customer\",\"type\":\"string\"},{\"name\":\"quantity\",\"type\":\"int32\"}]}";

const char *LIST_NOTES_JSON =
    "{\"id\":\"list_notes\",\"description\":\"Lists all notes.\","
    "\"result\":{\"array\":{\"record\":\"Note\"}}}";

const char *CREATE_NOTE_JSON =
    "{\"id\":\"create_note\",\"description\":\"Creates a note.\",\"parameters\":["
    "{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"content\",\"type\":\"string\"}],"
    "\"result\":{\"record\":\"Note\"}}";

const char *EDIT_NOTE_JSON =
    "{\"id\":\"edit_note\",\"description\":\"Edits a note; null when there is none.\","
    "\"parameters\":[{\"name\":\"noteId\",\"type\":\"string\"},"
    "{\"name\":\"title\",\"type\":\"string\",\"nullable\":true},"
    "{\"name\":\"content\",\"type\":\"string\"}],"
    "\"result\":{\"nullable\":{\"record\":\"Note\"}}}";

static const struct {
    const char *id, *customer;
    int quantity;
} ORDERS[] = {{"o-1", "acme", 2}, {"o-2", "globex", 5}, {"o-3", "initech", 1}};

/* ---- bookkeeping --------------------------------------------------------------------- */

reg *app_reg(app *a, void *extra) {
    reg *r = malloc(sizeof *r);
    if (!r) abort();
    r->magic = REG_MAGIC;
    r->a = a;
    r->extra = extra;
    atomic_fetch_add(&a->regs, 1);
    return r;
}

void app_reg_free(void *user_data) {
    reg *r = user_data;
    if (!r || r->magic != REG_MAGIC) {
        check_failed(__FILE__, __LINE__, "free_user_data: bad or already freed user_data %p", user_data);
        return;
    }
    r->magic = 0;
    atomic_fetch_add(&r->a->frees, 1);
    free(r);
}

void app_trace(app *a, const char *fmt, ...) {
    pthread_mutex_lock(&a->mu);
    size_t n = strlen(a->trace);
    if (n && n + 1 < sizeof a->trace) a->trace[n++] = '|', a->trace[n] = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->trace + n, sizeof a->trace - n, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&a->mu);
}

void app_trace_get(app *a, char *buf, size_t cap) {
    pthread_mutex_lock(&a->mu);
    snprintf(buf, cap, "%s", a->trace);
    pthread_mutex_unlock(&a->mu);
}

void app_trace_reset(app *a) {
    pthread_mutex_lock(&a->mu);
    a->trace[0] = 0;
    pthread_mutex_unlock(&a->mu);
}

static app *app_alloc(void) {
    app *a = calloc(1, sizeof *a);
    if (!a) abort();
    pthread_mutex_init(&a->mu, NULL);
    a->d = af_dispatcher_new();
    CHECK(a->d != NULL);
    atomic_store(&a->next_order, 100);
    a->next_note = 3;
    a->n_notes = 2;
    a->notes[0] = (note){1, "Groceries", "milk, eggs"};
    a->notes[1] = (note){2, "Ideas", "a C harness"};
    return a;
}

app *app_bare(void) {
    app *a = app_alloc();
    CHECK_STATUS(af_define_types(a->d, TYPES_JSON), AF_OK);
    return a;
}

app *app_new(void) {
    app *a = app_bare();
    af_dispatcher *d = a->d;
    CHECK_STATUS(af_register_function(d, CREATE_ORDER_JSON, h_create_order, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_entity(d, ORDER_ENTITY_JSON, h_lookup_order, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(d, CANCEL_ORDER_JSON, h_cancel_order, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(d, LIST_NOTES_JSON, h_list_notes, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(d, CREATE_NOTE_JSON, h_create_note, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(d, EDIT_NOTE_JSON, h_edit_note, app_reg(a, NULL), app_reg_free), AF_OK);
    return a;
}

void app_close(app *a) {
    af_dispatcher_free(a->d); /* NULL when the test freed it already */
    /* free_user_data runs when the last call using a registration ends, which may be on
     * another thread a moment after that call's outcome was delivered: wait a little. */
    for (int i = 0; i < 2000 && atomic_load(&a->frees) < atomic_load(&a->regs); i++) sleep_us(1000);
    CHECK_MSG(atomic_load(&a->frees) == atomic_load(&a->regs),
              "every user_data freed exactly once: %ld registrations, %ld frees",
              atomic_load(&a->regs), atomic_load(&a->frees));
    CHECK_MSG(atomic_load(&a->begins) == atomic_load(&a->ends),
              "every scope begin has its end: %ld begins, %ld ends", atomic_load(&a->begins),
              atomic_load(&a->ends));
    CHECK_MSG(atomic_load(&a->scope_releases) == atomic_load(&a->ends),
              "every scope's host data released once: %ld ends, %ld releases",
              atomic_load(&a->ends), atomic_load(&a->scope_releases));
    pthread_mutex_destroy(&a->mu);
    free(a);
}

/* ---- scope hooks ------------------------------------------------------------------------- */

#define SCOPE_ENDED 0x5C0DEDL

/* The host data's release: after scope end, exactly once. */
static void scope_release(void *data) {
    scope *s = data;
    CHECK_MSG(s && s->magic == SCOPE_ENDED, "the host data is released after its scope end");
    if (!s) return;
    atomic_fetch_add(&s->a->scope_releases, 1);
    s->magic = 0;
    free(s);
}

static void scope_begin(void *ud, af_call *call) {
    reg *r = ud;
    scope *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->magic = SCOPE_MAGIC;
    s->a = r->a;
    const char *fn = af_call_function_id(call);
    snprintf(s->function_id, sizeof s->function_id, "%s", fn ? fn : "(NULL)");
    CHECK(af_call_host_data(call) == NULL);
    CHECK(af_call_args(call) == NULL); /* not bound yet */
    CHECK_STATUS(af_call_set_host_data(call, s, scope_release), AF_OK);
    atomic_fetch_add(&r->a->begins, 1);
    app_trace(r->a, "begin");
}

static void scope_end(void *ud, af_call *call) {
    reg *r = ud;
    scope *s = af_call_host_data(call);
    CHECK_MSG(s && s->magic == SCOPE_MAGIC, "scope end sees the scope its begin opened");
    if (!s || s->magic != SCOPE_MAGIC) return;
    const char *fn = af_call_function_id(call);
    CHECK_STREQ(s->function_id, fn);
    s->magic = SCOPE_ENDED; /* freed by its release, right after this */
    atomic_fetch_add(&r->a->ends, 1);
    app_trace(r->a, "end");
}

void app_install_scope_hooks(app *a) {
    CHECK_STATUS(af_set_scope_hooks(a->d, scope_begin, scope_end, app_reg(a, NULL), app_reg_free), AF_OK);
}

/* ---- handlers ------------------------------------------------------------------------------ */

static void seen_by_handler(app *a, af_call *call) {
    atomic_fetch_add(&a->handler_runs, 1);
    const char *fn = af_call_function_id(call);
    const char *args = af_call_args(call);
    pthread_mutex_lock(&a->mu);
    a->last_host_data_seen_by_handler = af_call_host_data(call);
    snprintf(a->last_args, sizeof a->last_args, "%s", args ? args : "(NULL)");
    pthread_mutex_unlock(&a->mu);
    app_trace(a, "handler:%s", fn ? fn : "(NULL)");
}

void h_create_order(void *ud, af_call *call) {
    reg *r = ud;
    seen_by_handler(r->a, call);
    const char *args = af_call_args(call);
    CHECK(args != NULL && args[0] == '{');
    if (!args) return (void)af_call_fail(call, AF_CODE_INTERNAL_ERROR, "no args");
    /* Order = {"id": ..., ...the bound arguments (customer, quantity, priority)} */
    char *result = malloc(strlen(args) + 64);
    if (!result) abort();
    sprintf(result, "{\"id\":\"o-%d\",%s", atomic_fetch_add(&r->a->next_order, 1), args + 1);
    CHECK_STATUS(af_call_say(call, "Order created."), AF_OK);
    CHECK_STATUS(af_call_return(call, result), AF_OK);
    free(result);
}

void h_cancel_order(void *ud, af_call *call) {
    reg *r = ud;
    seen_by_handler(r->a, call);
    const char *args = af_call_args(call);
    char id[32] = "", customer[64] = "";
    /* the entity arrives resolved: {"order":{"id":"o-1","customer":"acme","quantity":2}} */
    CHECK(json_str(args, "id", id, sizeof id));
    CHECK(json_str(args, "customer", customer, sizeof customer));
    char say[160];
    snprintf(say, sizeof say, "Cancelled order %s for %s.", id, customer);
    CHECK_STATUS(af_call_say(call, say), AF_OK);
    CHECK_STATUS(af_call_return(call, NULL), AF_OK);
}

void h_lookup_order(void *ud, af_call *call) {
    reg *r = ud;
    app *a = r->a;
    atomic_fetch_add(&a->lookup_runs, 1);
    CHECK_EQ_INT(af_call_kind(call), AF_CALL_ENTITY_LOOKUP);
    CHECK(af_call_args(call) == NULL);
    char *entity = af_call_entity_copy(call);
    CHECK_STREQ(entity, "order");
    af_string_free(entity);
    const char *req = af_call_lookup_request(call);
    CHECK(req != NULL);
    pthread_mutex_lock(&a->mu);
    a->last_host_data_seen_by_lookup = af_call_host_data(call);
    snprintf(a->last_lookup, sizeof a->last_lookup, "%s", req ? req : "(NULL)");
    pthread_mutex_unlock(&a->mu);
    app_trace(a, "lookup:%s", req ? req : "(NULL)");
    bool by_ids = json_has(req, "\"ids\"");
    char query[64] = "";
    if (!by_ids) json_str(req, "query", query, sizeof query);
    char out[1024] = "[";
    for (size_t i = 0; i < sizeof ORDERS / sizeof ORDERS[0]; i++) {
        char quoted[40];
        snprintf(quoted, sizeof quoted, "\"%s\"", ORDERS[i].id);
        bool match = by_ids ? json_has(req, quoted) : strstr(ORDERS[i].customer, query) != NULL;
        if (!match) continue;
        size_t n = strlen(out);
        snprintf(out + n, sizeof out - n, "%s{\"id\":\"%s\",\"customer\":\"%s\",\"quantity\":%d}",
                 n > 1 ? "," : "", ORDERS[i].id, ORDERS[i].customer, ORDERS[i].quantity);
    }
    strcat(out, "]");
    CHECK_STATUS(af_call_return(call, out), AF_OK);
}

static void note_json(const note *n, char *buf, size_t cap) {
    snprintf(buf, cap, "{\"id\":%d,\"title\":\"%s\",\"content\":\"%s\"}", n->id, n->title, n->content);
}

void h_list_notes(void *ud, af_call *call) {
    reg *r = ud;
    app *a = r->a;
    seen_by_handler(a, call);
    char out[8192] = "[";
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < a->n_notes; i++) {
        char one[256];
        note_json(&a->notes[i], one, sizeof one);
        if (i) strcat(out, ",");
        strncat(out, one, sizeof out - strlen(out) - 2);
    }
    pthread_mutex_unlock(&a->mu);
    strcat(out, "]");
    CHECK_STATUS(af_call_return(call, out), AF_OK);
}

void h_create_note(void *ud, af_call *call) {
    reg *r = ud;
    app *a = r->a;
    seen_by_handler(a, call);
    const char *args = af_call_args(call);
    note n = {0};
    CHECK(json_str(args, "title", n.title, sizeof n.title));
    CHECK(json_str(args, "content", n.content, sizeof n.content));
    pthread_mutex_lock(&a->mu);
    n.id = a->next_note++;
    if (a->n_notes < 64) a->notes[a->n_notes++] = n;
    pthread_mutex_unlock(&a->mu);
    char out[256];
    note_json(&n, out, sizeof out);
    CHECK_STATUS(af_call_return(call, out), AF_OK);
}

void h_edit_note(void *ud, af_call *call) {
    reg *r = ud;
    app *a = r->a;
    seen_by_handler(a, call);
    const char *args = af_call_args(call);
    char id[16] = "", title[64], content[128] = "";
    CHECK(json_str(args, "noteId", id, sizeof id));
    bool has_title = json_str(args, "title", title, sizeof title); /* false for null */
    CHECK(json_str(args, "content", content, sizeof content));
    char out[256] = "null";
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < a->n_notes; i++) {
        if (a->notes[i].id != atoi(id)) continue;
        if (has_title) snprintf(a->notes[i].title, sizeof a->notes[i].title, "%s", title);
        snprintf(a->notes[i].content, sizeof a->notes[i].content, "%s", content);
        note_json(&a->notes[i], out, sizeof out);
    }
    pthread_mutex_unlock(&a->mu);
    CHECK_STATUS(af_call_return(call, out), AF_OK);
}

/* ---- the probe delegate ------------------------------------------------------------------- */

static void probe_invoking(void *ud, af_call *call, af_gate *gate) {
    probe *p = ud;
    atomic_fetch_add(&p->invoking, 1);
    const char *fn = af_call_function_id(call);
    const char *args = af_call_args(call);
    const char *req = af_call_lookup_request(call);
    char *entity = af_call_entity_copy(call);
    if (af_call_kind(call) == AF_CALL_ENTITY_LOOKUP) atomic_fetch_add(&p->lookups_seen, 1);
    pthread_mutex_lock(&p->r.a->mu);
    snprintf(p->last_args, sizeof p->last_args, "%s", args ? args : "(NULL)");
    snprintf(p->last_request, sizeof p->last_request, "%s", req ? req : "(NULL)");
    snprintf(p->last_entity, sizeof p->last_entity, "%s", entity ? entity : "(NULL)");
    p->host_data_seen = af_call_host_data(call);
    pthread_mutex_unlock(&p->r.a->mu);
    af_string_free(entity);
    app_trace(p->r.a, "invoking:%s:%s", p->name, fn ? fn : "(NULL)");
    int action = p->action;
    if (p->only_for && (!fn || strcmp(fn, p->only_for) != 0)) action = GATE_ALLOW;
    if (action == GATE_NONE) {
        p->pending = gate;
        return;
    }
    if (p->later) {
        int kind = action == GATE_ALLOW ? DEFER_ALLOW : action == GATE_DENY ? DEFER_DENY : DEFER_OPEN_APP;
        deferred *d = deferred_new(kind, NULL, gate, p->msg);
        int i = atomic_fetch_add(&p->n_answers, 1);
        if (i >= 16) abort();
        p->answers[i] = d;
        pool_post(p->later, deferred_run, d, p->later_us);
        return;
    }
    switch (action) {
    case GATE_ALLOW: CHECK_STATUS(af_gate_allow(gate), AF_OK); break;
    case GATE_DENY: CHECK_STATUS(af_gate_deny(gate, p->msg), AF_OK); break;
    case GATE_OPEN_APP: CHECK_STATUS(af_gate_open_app(gate, p->msg), AF_OK); break;
    }
}

static void probe_invoked(void *ud, af_call *call, const char *outcome) {
    probe *p = ud;
    atomic_fetch_add(&p->invoked, 1);
    const char *fn = af_call_function_id(call);
    pthread_mutex_lock(&p->r.a->mu);
    snprintf(p->last_outcome, sizeof p->last_outcome, "%s", outcome ? outcome : "(NULL)");
    pthread_mutex_unlock(&p->r.a->mu);
    app_trace(p->r.a, "invoked:%s:%s", p->name, fn ? fn : "(NULL)");
}

static void probe_free(void *ud) {
    probe *p = ud;
    int n = atomic_load(&p->n_answers);
    for (int i = 0; i < n && i < 16; i++) {
        deferred_wait(p->answers[i]);
        deferred_free(p->answers[i]);
    }
    if (p->r.magic != REG_MAGIC) {
        check_failed(__FILE__, __LINE__, "probe freed twice");
        return;
    }
    p->r.magic = 0;
    atomic_fetch_add(&p->r.a->frees, 1);
    free(p);
}

probe *probe_add_partial(app *a, const char *name, int action, const char *msg, bool with_invoking,
                         bool with_invoked) {
    probe *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->r.magic = REG_MAGIC;
    p->r.a = a;
    p->name = name;
    p->action = action;
    p->msg = msg;
    atomic_fetch_add(&a->regs, 1);
    af_delegate v = AF_DELEGATE_INIT;
    v.on_invoking = with_invoking ? probe_invoking : NULL;
    v.on_invoked = with_invoked ? probe_invoked : NULL;
    v.free_user_data = probe_free;
    CHECK_STATUS(af_add_delegate(a->d, &v, p), AF_OK);
    return p;
}

probe *probe_add(app *a, const char *name, int action, const char *msg) {
    return probe_add_partial(a, name, action, msg, true, true);
}

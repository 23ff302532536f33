/*
 * The agent-facing exports of the header: af_export_copy, toolkits and metadata, agent views
 * (af_view_*), and the MCP server (af_mcp_*), each with NULL and invalid UTF-8 in every
 * pointer argument and one happy path over the shared orders/notes scenario.
 */
#include "app.h"

#include <sys/wait.h>
#include <unistd.h>

static const char *MCP_INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                              "\"capabilities\":{},\"clientInfo\":{\"name\":\"c-harness\",\"version\":\"1\"}}}";
static const char *MCP_INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
static const char *MCP_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
static const char *MCP_CALL = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"create_order\","
                              "\"arguments\":{\"customer\":\"acme\",\"quantity\":2}}}";

TEST(agent__af_export) {
    app *a = app_new();
    CHECK(af_export_copy(NULL, "mcp") == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_export_copy(a->d, NULL) == NULL);
    CHECK_LAST_ERROR("format");
    CHECK(af_export_copy(a->d, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("format");
    CHECK(af_export_copy(a->d, "yaml") == NULL);
    CHECK_LAST_ERROR("yaml");
    const char *formats[] = {"mcp", "openai", "openai-chat", "anthropic", "gemini", "android-xml"};
    for (int i = 0; i < 6; i++) {
        char *s = af_export_copy(a->d, formats[i]);
        CHECK_MSG(s != NULL, "af_export_copy(%s): %s", formats[i], af_last_error());
        CHECK_HAS(s, "create_order");
        CHECK_HAS(s, "search_order");
        af_string_free(s);
    }
    CHECK_STATUS(af_set_function_enabled(a->d, "create_order", 0), AF_OK);
    char *s = af_export_copy(a->d, "mcp"); /* every enabled function */
    CHECK_LACKS(s, "\"create_order\"");
    af_string_free(s);
    app_close(a);
}

typedef struct texts {
    reg r;
    atomic_int asked;
} texts;
static void toolkit_texts(void *ud, const char *toolkit, int32_t which, const char *metadata, af_text *out) {
    texts *t = ud;
    atomic_fetch_add(&t->asked, 1);
    CHECK_STREQ(toolkit, "notes");
    CHECK(metadata != NULL);
    CHECK_STATUS(af_text_set(out, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("text");
    CHECK_STATUS(af_text_set(out, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("text");
    if (which == AF_TOOLKIT_FUNCTION_RESULT) CHECK_STATUS(af_text_set(out, "The notes tools are ready (dynamic)."), AF_OK);
    /* AF_TOOLKIT_SYSTEM_PROMPT: not answered, the static text is used */
}

static void void_ok(void *ud, af_call *call) {
    (void)ud;
    af_call_return(call, NULL);
}

static app *agent_app(void) {
    app *a = app_bare();
    atomic_long frees = 0;
    const char *tk = "{\"name\":\"notes\",\"description\":\"The user's notes\",\"functionResult\":\"Notes tools are ready.\","
                     "\"systemPrompt\":\"Prefer editing notes over creating them.\"}";
    CHECK_STATUS(af_define_toolkit(NULL, tk, NULL, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK_STATUS(af_define_toolkit(a->d, NULL, NULL, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_define_toolkit(a->d, BAD_UTF8, NULL, counted_new(&frees), counted_free), AF_ERR_UTF8);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"Not Snake\"}", NULL, counted_new(&frees), counted_free), AF_ERR_INVALID);
    CHECK_EQ_INT(frees, 4); /* a refused definition frees its user_data once */
    texts *t = calloc(1, sizeof *t);
    t->r.magic = 0x0DDBA11L;
    t->r.a = a;
    atomic_fetch_add(&a->regs, 1);
    CHECK_STATUS(af_define_toolkit(a->d, tk, toolkit_texts, t, app_reg_free), AF_OK);
    CHECK_STATUS(af_set_metadata_schema(NULL, "[\"ReadOnly\"]"), AF_ERR_NULL);
    CHECK_STATUS(af_set_metadata_schema(a->d, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_set_metadata_schema(a->d, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("json");
    CHECK_STATUS(af_set_metadata_schema(a->d, "{\"properties\":"), AF_ERR_INVALID);
    CHECK_STATUS(af_set_metadata_schema(a->d, "{\"properties\":{\"ReadOnly\":{\"type\":\"boolean\"},\"UserName\":{\"type\":\"string\"}}}"), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"list_notes\",\"toolkit\":\"notes\",\"description\":\"Notes of {metadata.UserName}\","
                                            "\"result\":{\"array\":{\"record\":\"Note\"}}}",
                                      h_list_notes, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"create_order\",\"condition\":\"!ReadOnly\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},"
                                            "{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"},\"optional\":true,\"default\":\"Normal\"}],"
                                            "\"result\":{\"record\":\"Order\"}}",
                                      h_create_order, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"clear_cache\"}", void_ok, NULL, NULL), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"final_answer\",\"kind\":\"output\",\"parameters\":[{\"name\":\"text\",\"type\":\"string\"}]}",
                                      NULL, NULL, NULL), AF_OK);
    return a;
}

TEST(agent__af_define_toolkit_af_set_metadata_schema_and_af_text_set) {
    CHECK_STATUS(af_text_set(NULL, "x"), AF_ERR_NULL);
    CHECK_LAST_ERROR("out");
    app *a = agent_app();
    char *rj = af_registry_json(a->d);
    CHECK_HAS(rj, "\"toolkit\":\"notes\"");
    af_string_free(rj);
    /* a condition naming a property the metadata schema does not declare is refused */
    CHECK(af_register_function(a->d, "{\"id\":\"nope\",\"condition\":\"Unknown\"}", void_ok, NULL, NULL) != AF_OK);
    app_close(a);
}

TEST(agent__af_view_new_tools_execute_instructions_metadata_reset_confirmation_free) {
    app *a = agent_app();
    CHECK(af_view_new(NULL, "{}") == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_view_new(a->d, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("metadata_json");
    CHECK(af_view_new(a->d, "[1]") == NULL);
    af_view_free(NULL);
    af_view *v = af_view_new(a->d, "{\"ReadOnly\":false,\"UserName\":\"Ada\"}");
    CHECK(v != NULL);
    af_view *v0 = af_view_new(a->d, NULL); /* NULL is {} */
    CHECK(v0 != NULL);
    af_view_free(v0);

    CHECK(af_view_tools_json(NULL, "mcp") == NULL);
    CHECK_LAST_ERROR("view");
    CHECK(af_view_tools_json(v, NULL) == NULL);
    CHECK_LAST_ERROR("format");
    CHECK(af_view_tools_json(v, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("format");
    char *tools = af_view_tools_json(v, "openai");
    CHECK_HAS(tools, "\"notes\""); /* the collapsed toolkit's container */
    CHECK_LACKS(tools, "list_notes");
    CHECK_HAS(tools, "create_order");
    af_string_free(tools);

    char *o = view_run(NULL, "notes", NULL);
    CHECK_HAS(o, "\"status\":\"error\"");
    outcome_free(o);
    o = view_run(v, NULL, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "af_invocation.function_id is NULL");
    outcome_free(o);
    o = view_run(v, BAD_UTF8, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "af_invocation.function_id is not valid UTF-8");
    outcome_free(o);
    o = af_view_execute_json(v, NULL, NULL);
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "af_invocation is NULL");
    outcome_free(o);
    o = view_run(v, "create_order", BAD_UTF8);
    CHECK_CODE(o, "InvalidArgument");
    outcome_free(o);
    o = view_run(v, "list_notes", NULL); /* collapsed: says how to make it visible */
    CHECK_CODE(o, "FunctionNotFound");
    CHECK_HAS(o, "notes");
    outcome_free(o);
    CHECK(af_view_instructions_copy(NULL) == NULL);
    char *ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, "");
    af_string_free(ins);
    o = view_run(v, "notes", NULL); /* expands, answering the dynamic text */
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "The notes tools are ready (dynamic).");
    outcome_free(o);
    ins = af_view_instructions_copy(v);
    CHECK_HAS(ins, "Prefer editing notes over creating them.");
    af_string_free(ins);
    tools = af_view_tools_json(v, "mcp");
    CHECK_HAS(tools, "list_notes");
    CHECK_HAS(tools, "Notes of Ada"); /* {metadata.UserName} */
    af_string_free(tools);
    o = view_run(v, "list_notes", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "Groceries");
    outcome_free(o);
    o = view_run(v, "final_answer", "{\"text\":\"42\"}");
    CHECK_HAS(o, "\"final\":true");
    outcome_free(o);

    CHECK_STATUS(af_view_set_confirmation(NULL, "Done."), AF_ERR_NULL);
    CHECK_STATUS(af_view_set_confirmation(v, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("text");
    CHECK_STATUS(af_view_set_confirmation(v, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("text");
    CHECK_STATUS(af_view_set_confirmation(v, "Done."), AF_OK);
    o = view_run(v, "clear_cache", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":\"Done.\"");
    outcome_free(o);

    CHECK_STATUS(af_view_set_metadata(NULL, "{}"), AF_ERR_NULL);
    CHECK_STATUS(af_view_set_metadata(v, NULL), AF_OK); /* NULL is {} (undocumented; see the report) */
    CHECK_STATUS(af_view_set_metadata(v, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("metadata_json");
    CHECK_STATUS(af_view_set_metadata(v, "{\"ReadOnly\":true,\"UserName\":\"Ada\"}"), AF_OK);
    tools = af_view_tools_json(v, "anthropic");
    CHECK_LACKS(tools, "create_order"); /* condition !ReadOnly */
    af_string_free(tools);
    o = view_run(v, "create_order", "{\"customer\":\"acme\",\"quantity\":1}");
    CHECK_CODE(o, "FunctionNotFound");
    outcome_free(o);

    CHECK_STATUS(af_view_reset(NULL), AF_ERR_NULL);
    CHECK_STATUS(af_view_reset(v), AF_OK);
    tools = af_view_tools_json(v, "gemini");
    CHECK_LACKS(tools, "list_notes");
    af_string_free(tools);
    af_view_free(v);
    /* a view keeps the registry (and so the registrations' user_data) alive after the
     * dispatcher is freed; freeing the view releases them */
    af_view *late = af_view_new(a->d, "{}");
    CHECK(late != NULL);
    af_dispatcher_free(a->d);
    a->d = NULL;
    CHECK(atomic_load(&a->frees) < atomic_load(&a->regs));
    tools = af_view_tools_json(late, "mcp");
    CHECK_HAS(tools, "notes");
    af_string_free(tools);
    o = view_run(late, "create_order", "{\"customer\":\"acme\",\"quantity\":1}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    af_view_free(late);
    app_close(a);
}

typedef struct notes_seen {
    atomic_int count;
    char last[512];
} notes_seen;
static void notify_cb(void *ud, const char *msg) {
    notes_seen *n = ud;
    snprintf(n->last, sizeof n->last, "%s", msg ? msg : "(NULL)");
    atomic_fetch_add(&n->count, 1);
}

TEST(agent__af_mcp_configure_handle_set_notify) {
    app *a = app_new();
    atomic_long frees = 0;
    CHECK_STATUS(af_mcp_configure(NULL, "{}"), AF_ERR_NULL);
    CHECK_STATUS(af_mcp_configure(a->d, NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("config_json");
    CHECK_STATUS(af_mcp_configure(a->d, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("config_json");
    CHECK_STATUS(af_mcp_configure(a->d, "{\"serverNam\":1}"), AF_ERR_INVALID);
    CHECK_STATUS(af_mcp_configure(a->d, "{\"serverName\":\"orders-c\",\"pageSize\":0}"), AF_OK);
    CHECK(af_mcp_handle_json(NULL, MCP_INIT) == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_mcp_handle_json(a->d, NULL) == NULL);
    CHECK_LAST_ERROR("message_json");
    char *r = af_mcp_handle_json(a->d, BAD_UTF8); /* a JSON-RPC error (or NULL naming it) */
    if (r) CHECK_HAS(r, "\"error\"");
    else CHECK_LAST_ERROR("message_json");
    af_string_free(r);
    r = af_mcp_handle_json(a->d, "{");
    CHECK_HAS(r, "\"error\"");
    af_string_free(r);
    r = af_mcp_handle_json(a->d, MCP_INIT);
    CHECK_HAS(r, "\"protocolVersion\":\"2025-06-18\"");
    CHECK_HAS(r, "orders-c");
    af_string_free(r);
    CHECK(af_mcp_handle_json(a->d, MCP_INITIALIZED) == NULL); /* a notification: no response */
    r = af_mcp_handle_json(a->d, MCP_LIST);
    CHECK_HAS(r, "\"create_order\"");
    CHECK_HAS(r, "\"search_order\"");
    af_string_free(r);
    r = af_mcp_handle_json(a->d, MCP_CALL);
    CHECK_HAS(r, "o-100");
    CHECK_HAS(r, "\"id\":3");
    af_string_free(r);

    notes_seen n = {0};
    CHECK_STATUS(af_mcp_set_notify(NULL, notify_cb, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_mcp_set_notify(a->d, notify_cb, counted_new(&frees), counted_free), AF_OK);
    CHECK_STATUS(af_mcp_set_notify(a->d, notify_cb, &n, NULL), AF_OK); /* replaces */
    CHECK_EQ_INT(frees, 2);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"ping_me\"}", void_ok, NULL, NULL), AF_OK);
    for (int i = 0; i < 100 && atomic_load(&n.count) == 0; i++) sleep_us(1000);
    CHECK(atomic_load(&n.count) >= 1);
    CHECK_HAS(n.last, "notifications/tools/list_changed");
    CHECK_STATUS(af_mcp_set_notify(a->d, NULL, NULL, NULL), AF_OK);
    app_close(a);
}

TEST(agent__af_mcp_session_new_handle_set_notify_set_metadata_free) {
    app *a = agent_app();
    atomic_long frees = 0;
    CHECK(af_mcp_session_new(NULL, "{}") == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_mcp_session_new(a->d, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("metadata_json");
    af_mcp_session_free(NULL);
    af_mcp_session *s = af_mcp_session_new(a->d, "{\"ReadOnly\":false,\"UserName\":\"Ada\"}");
    CHECK(s != NULL);
    CHECK(af_mcp_session_handle_json(NULL, MCP_INIT) == NULL);
    CHECK_LAST_ERROR("session");
    CHECK(af_mcp_session_handle_json(s, NULL) == NULL);
    CHECK_LAST_ERROR("message_json");
    char *r = af_mcp_session_handle_json(s, MCP_INIT);
    CHECK_HAS(r, "\"result\"");
    af_string_free(r);
    CHECK(af_mcp_session_handle_json(s, MCP_INITIALIZED) == NULL);
    r = af_mcp_session_handle_json(s, MCP_LIST);
    CHECK_HAS(r, "\"create_order\"");
    CHECK_HAS(r, "\"notes\"");
    af_string_free(r);
    notes_seen n = {0};
    CHECK_STATUS(af_mcp_session_set_notify(NULL, notify_cb, counted_new(&frees), counted_free), AF_ERR_NULL);
    CHECK_EQ_INT(frees, 1);
    CHECK_STATUS(af_mcp_session_set_notify(s, notify_cb, &n, NULL), AF_OK);
    CHECK_STATUS(af_mcp_session_set_metadata(NULL, "{}"), AF_ERR_NULL);
    CHECK_STATUS(af_mcp_session_set_metadata(s, NULL), AF_OK); /* NULL is {} (undocumented; see the report) */
    CHECK_STATUS(af_mcp_session_set_metadata(s, BAD_UTF8), AF_ERR_UTF8);
    CHECK_LAST_ERROR("metadata_json");
    CHECK_STATUS(af_mcp_session_set_metadata(s, "{\"ReadOnly\":true,\"UserName\":\"Ada\"}"), AF_OK);
    CHECK(atomic_load(&n.count) >= 1);
    CHECK_HAS(n.last, "notifications/tools/list_changed");
    r = af_mcp_session_handle_json(s, MCP_LIST);
    CHECK_LACKS(r, "\"create_order\"");
    af_string_free(r);
    CHECK_STATUS(af_mcp_session_set_notify(s, NULL, NULL, NULL), AF_OK);
    af_mcp_session_free(s);
    app_close(a);
}

/* AF_SERVE_SLOW_MS: a tool `slow_call` whose handler sleeps that long (test_robust.c). */
static atomic_long slow_calls_finished;
static void slow_call_handler(void *ud, af_call *call) {
    sleep_us((unsigned)(intptr_t)ud * 1000u);
    CHECK_STATUS(af_call_return(call, "\"slept\""), AF_OK);
    atomic_fetch_add(&slow_calls_finished, 1);
}

int mcp_serve_stdio_main(void) {
    app *a = app_new();
    long slow_ms = env_long("AF_SERVE_SLOW_MS", 0);
    if (slow_ms > 0) {
        CHECK_STATUS(af_register_function(a->d, "{\"id\":\"slow_call\",\"result\":\"string\"}", slow_call_handler,
                                          (void *)(intptr_t)slow_ms, NULL),
                     AF_OK);
    }
    af_status s = af_mcp_serve_stdio(a->d);
    /* what the parent checks: the call in flight was drained before serve returned */
    fprintf(stderr, "served: status %d, slow calls finished %ld\n", (int)s, (long)atomic_load(&slow_calls_finished));
    app_close(a);
    return s == AF_OK ? 0 : 10 + s;
}

TEST(agent__af_mcp_serve_stdio) {
    CHECK_STATUS(af_mcp_serve_stdio(NULL), AF_ERR_NULL);
    CHECK_LAST_ERROR("dispatcher");
    int in[2], out[2];
    CHECK(pipe(in) == 0 && pipe(out) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { /* a fresh process (this harness, server mode): stdin/stdout are the pipes */
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(harness_self, harness_self, "--mcp-serve-stdio", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    char msgs[2048];
    snprintf(msgs, sizeof msgs, "%s\n%s\n%s\n%s\n", MCP_INIT, MCP_INITIALIZED, MCP_LIST, MCP_CALL);
    ssize_t w = write(in[1], msgs, strlen(msgs));
    CHECK(w == (ssize_t)strlen(msgs));
    close(in[1]); /* stdin ends: the server returns */
    static char buf[1 << 16];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf - 1 && (got = read(out[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)got;
    buf[n] = 0;
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server exited with %d", status);
    CHECK_HAS(buf, "\"protocolVersion\"");
    CHECK_HAS(buf, "\"search_order\"");
    CHECK_HAS(buf, "o-100");
    int lines = 0;
    for (char *p = buf; *p; p++) lines += *p == '\n';
    CHECK_EQ_INT(lines, 3); /* initialize, tools/list, tools/call; none for the notification */
}

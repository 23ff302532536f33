/*
 * Seed 004 (seeds/004_fe19203f53c4236c.txt), sentence by sentence, through the agent
 * views of the C header: one scenario per sentence of "The Collapse Attribute",
 * "Collapse with Instructions", "Dynamic Instructions with Expressions", "ToolKind —
 * Structured Output", "Conditional Functions" and "Return Types" (plus the generic
 * form's validation and custom names, which those sections rely on), named after it.
 * The Rust twin is tests/views.rs. Every user_data is an app_reg (counted, checked by
 * app_close).
 */
#include "app.h"

/* ---- handlers -------------------------------------------------------------------------- */

static void h_ok(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    CHECK_STATUS(af_call_return(call, "\"ok\""), AF_OK);
}

static void h_void(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    CHECK_STATUS(af_call_return(call, NULL), AF_OK);
}

/* A void function that says its own dialog. */
static void h_void_says(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    CHECK_STATUS(af_call_say(call, "Message written to the console."), AF_OK);
    CHECK_STATUS(af_call_return(call, NULL), AF_OK);
}

static void h_add(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    const char *args = af_call_args(call);
    char out[64];
    snprintf(out, sizeof out, "%lld", json_int(args, "a", 0) + json_int(args, "b", 0));
    CHECK_STATUS(af_call_return(call, out), AF_OK);
}

/* Returns r->extra (a string literal) as its result JSON. */
static void h_returns(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    af_status s = af_call_return(call, (const char *)r->extra);
    (void)s; /* a result that does not match the declared type is refused in the outcome */
}

/* Completes later, from another thread. */
typedef struct later {
    pool *p;
    deferred *d;
} later;
static void h_async(void *ud, af_call *call) {
    reg *r = ud;
    atomic_fetch_add(&r->a->handler_runs, 1);
    later *l = r->extra;
    l->d = deferred_new(DEFER_RETURN, call, NULL, "\"HPD-Agent\"");
    pool_post(l->p, deferred_run, l->d, 2000);
}

static af_status reg_fn(app *a, const char *json, af_handler_fn h) {
    return af_register_function(a->d, json, h, app_reg(a, NULL), app_reg_free);
}

/* The view's MCP tool list with the whitespace between tokens removed (the export is
 * pretty-printed), so checks can look for "name":"x". Free with af_string_free. */
static char *tools_of(af_view *v) {
    char *t = af_view_tools_json(v, "mcp");
    CHECK_MSG(t != NULL, "af_view_tools_json: %s", af_last_error());
    if (!t) return NULL;
    bool in_str = false, esc = false;
    char *w = t;
    for (const char *r = t; *r; r++) {
        char c = *r;
        if (in_str) {
            if (esc) esc = false;
            else if (c == '\\') esc = true;
            else if (c == '"') in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            continue;
        }
        *w++ = c;
    }
    *w = 0;
    return t;
}

/* ---- the seed's toolkits: FileSystemToolkit, DatabaseToolkit, one plain, one ungrouped -- */

static app *files_app(void) {
    app *a = app_bare();
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"file_system\",\"description\":\"File operations for reading, writing, and managing files\"}",
                                   NULL, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"database\",\"description\":\"Database operations\","
                                         "\"functionResult\":\"Available: Query, Insert, Update, Delete. Always use transactions for multiple operations.\","
                                         "\"systemPrompt\":\"CRITICAL: Never execute DELETE without a WHERE clause.\"}",
                                   NULL, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"plain\"}", NULL, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"read_file\",\"toolkit\":\"file_system\",\"parameters\":[{\"name\":\"path\",\"type\":\"string\"}],\"result\":\"string\"}", h_ok), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"write_file\",\"toolkit\":\"file_system\",\"parameters\":[{\"name\":\"path\",\"type\":\"string\"},"
                           "{\"name\":\"content\",\"type\":\"string\"}]}", h_void), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"delete_file\",\"toolkit\":\"file_system\",\"parameters\":[{\"name\":\"path\",\"type\":\"string\"}]}", h_void), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"query\",\"toolkit\":\"database\",\"result\":\"string\"}", h_ok), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"insert\",\"toolkit\":\"database\",\"result\":\"string\"}", h_ok), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"ungrouped_helper\",\"toolkit\":\"plain\",\"result\":\"string\"}", h_ok), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"add\",\"result\":\"int32\",\"parameters\":[{\"name\":\"a\",\"type\":\"int32\"},{\"name\":\"b\",\"type\":\"int32\"}]}", h_add), AF_OK);
    return a;
}

static const char *DB_RESULT = "Available: Query, Insert, Update, Delete. Always use transactions for multiple operations.";
static const char *DB_PROMPT = "CRITICAL: Never execute DELETE without a WHERE clause.";

/* ---- The Collapse Attribute ---------------------------------------------------------------- */

/* "When a toolkit has multiple functions, you can group them under a collapsible container
 * using [Collapse("description")]" */
TEST(collapse__a_toolkits_functions_are_grouped_under_one_container) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    CHECK(v != NULL);
    char *t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"file_system\"");
    CHECK_HAS(t, "File operations for reading, writing, and managing files");
    CHECK_HAS(t, "\"name\":\"database\"");
    CHECK_LACKS(t, "read_file");
    CHECK_LACKS(t, "write_file");
    CHECK_LACKS(t, "delete_file");
    CHECK_LACKS(t, "\"query\"");
    /* the container appears once, where its first function was */
    const char *first = t ? strstr(t, "\"name\":\"file_system\"") : NULL;
    CHECK(first != NULL && strstr(first + 1, "\"name\":\"file_system\"") == NULL);
    CHECK(first != NULL && strstr(t, "\"name\":\"database\"") > first);
    af_string_free(t);
    /* every format shows the container */
    const char *formats[] = {"openai", "openai-chat", "anthropic", "gemini"};
    for (int i = 0; i < 4; i++) {
        t = af_view_tools_json(v, formats[i]);
        CHECK_MSG(t != NULL, "af_view_tools_json(%s): %s", formats[i], af_last_error());
        CHECK_HAS(t, "file_system");
        CHECK_LACKS(t, "read_file");
        af_string_free(t);
    }
    /* the registry (af_export_copy) is not a view: it lists every function */
    t = af_export_copy(a->d, "mcp");
    CHECK_HAS(t, "read_file");
    af_string_free(t);
    af_view_free(v);
    app_close(a);
}

/* "Providing a description to [Collapse] enables collapsing." */
TEST(collapse__providing_a_description_enables_collapsing) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "read_file", "{\"path\":\"a.txt\"}");
    CHECK_CODE(o, "FunctionNotFound");
    CHECK_HAS(o, "call file_system first");
    outcome_free(o);
    CHECK_EQ_INT(a->handler_runs, 0);

    o = view_run(v, "file_system", NULL); /* the container: expands */
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "read_file, write_file, delete_file");
    outcome_free(o);
    char *t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"read_file\"");
    CHECK_HAS(t, "\"name\":\"write_file\"");
    CHECK_HAS(t, "\"name\":\"delete_file\"");
    CHECK_LACKS(t, "\"name\":\"file_system\"");
    CHECK_HAS(t, "\"name\":\"database\""); /* the other toolkit stays collapsed */
    af_string_free(t);
    o = view_run(v, "read_file", "{\"path\":\"a.txt\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":\"ok\"");
    outcome_free(o);
    CHECK_EQ_INT(a->handler_runs, 1);

    /* a second view of the same dispatcher starts collapsed: expansion is per view */
    af_view *other = af_view_new(a->d, "{}");
    t = tools_of(other);
    CHECK_LACKS(t, "read_file");
    af_string_free(t);
    af_view_free(other);

    CHECK_STATUS(af_view_reset(v), AF_OK);
    t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"file_system\"");
    CHECK_LACKS(t, "read_file");
    af_string_free(t);
    o = view_run(v, "read_file", "{\"path\":\"a.txt\"}");
    CHECK_CODE(o, "FunctionNotFound");
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* "Without [Collapse], the toolkit's functions are always visible." */
TEST(collapse__without_collapse_the_functions_are_always_visible) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    char *t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"ungrouped_helper\""); /* a toolkit without a description */
    CHECK_HAS(t, "\"name\":\"add\"");              /* no toolkit at all */
    CHECK_LACKS(t, "\"name\":\"plain\"");          /* no container for it */
    af_string_free(t);
    char *o = view_run(v, "ungrouped_helper", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":\"ok\"");
    outcome_free(o);
    o = view_run(v, "add", "{\"a\":2,\"b\":3}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":5");
    outcome_free(o);
    o = view_run(v, "plain", NULL); /* not a tool */
    CHECK_CODE(o, "FunctionNotFound");
    outcome_free(o);
    CHECK_STATUS(af_view_reset(v), AF_OK); /* nothing to collapse */
    t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"ungrouped_helper\"");
    af_string_free(t);
    af_view_free(v);
    app_close(a);
}

/* ---- Collapse with Instructions --------------------------------------------------------- */

/* "The [Collapse] attribute supports two instruction types that serve different purposes" */
TEST(collapse_with_instructions__two_instruction_types_serve_different_purposes) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "database", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, DB_RESULT);  /* FunctionResult: the tool call's result */
    CHECK_LACKS(o, DB_PROMPT); /* not the system prompt */
    outcome_free(o);
    char *ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, DB_PROMPT); /* SystemPrompt: the system instructions */
    CHECK_LACKS(ins, "transactions");
    af_string_free(ins);
    af_view_free(v);
    app_close(a);
}

/* "FunctionResult | Tool call result | Once on expansion | In message history"
 * "FunctionResult: One-time message returned when the container expands." */
TEST(collapse_with_instructions__function_result_once_on_expansion) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "database", NULL);
    CHECK_SUCCESS(o);
    char want[256];
    snprintf(want, sizeof want, "\"result\":\"%s\"", DB_RESULT);
    CHECK_HAS(o, want);
    outcome_free(o);
    o = view_run(v, "database", NULL); /* already expanded: not again */
    CHECK_SUCCESS(o);
    CHECK_LACKS(o, "transactions");
    CHECK_HAS(o, "already available");
    CHECK_HAS(o, "query, insert");
    outcome_free(o);
    CHECK_STATUS(af_view_reset(v), AF_OK); /* a new expansion: once more */
    o = view_run(v, "database", NULL);
    CHECK_HAS(o, want);
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* "Use for listing available functions or one-time guidance." — without a FunctionResult
 * the expansion lists the functions it made visible. */
TEST(collapse_with_instructions__without_function_result_the_expansion_lists_the_functions) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "file_system", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "The file_system tools are now available: read_file, write_file, delete_file.");
    outcome_free(o);
    char *ins = af_view_instructions_copy(v); /* no SystemPrompt: nothing */
    CHECK_STREQ(ins, "");
    af_string_free(ins);
    /* a disabled member is not listed */
    CHECK_STATUS(af_set_function_enabled(a->d, "insert", 0), AF_OK);
    o = view_run(v, "database", NULL);
    CHECK_HAS(o, DB_RESULT);
    outcome_free(o);
    o = view_run(v, "database", NULL);
    CHECK_HAS(o, "The database tools are already available: query.");
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* "SystemPrompt | System instructions | Every turn while expanded | Configurable"
 * "SystemPrompt: Injected into system instructions while functions are expanded." */
TEST(collapse_with_instructions__system_prompt_every_turn_while_expanded) {
    app *a = files_app();
    af_view *v = af_view_new(a->d, "{}");
    char *ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, ""); /* collapsed: not injected */
    af_string_free(ins);
    char *o = view_run(v, "database", NULL);
    outcome_free(o);
    for (int turn = 0; turn < 3; turn++) { /* every turn, also after other calls */
        ins = af_view_instructions_copy(v);
        CHECK_STREQ(ins, DB_PROMPT);
        af_string_free(ins);
        o = view_run(v, "query", NULL);
        CHECK_SUCCESS(o);
        outcome_free(o);
    }
    CHECK_STATUS(af_view_reset(v), AF_OK); /* collapsed again: gone */
    ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, "");
    af_string_free(ins);
    af_view_free(v);
    app_close(a);
}

/* "Use for critical rules that must be followed every turn." — the rules of every expanded
 * toolkit are injected, joined by blank lines. */
TEST(collapse_with_instructions__system_prompts_of_every_expanded_toolkit_are_joined) {
    app *a = files_app();
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"mail\",\"description\":\"Mail operations\",\"systemPrompt\":\"Never send mail without asking.\"}",
                                   NULL, app_reg(a, NULL), app_reg_free), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"send_mail\",\"toolkit\":\"mail\"}", h_void), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    outcome_free(view_run(v, "database", NULL));
    outcome_free(view_run(v, "mail", NULL));
    char *ins = af_view_instructions_copy(v);
    CHECK_HAS(ins, DB_PROMPT);
    CHECK_HAS(ins, "Never send mail without asking.");
    CHECK_HAS(ins, "\n\n");
    af_string_free(ins);
    af_view_free(v);
    app_close(a);
}

/* ---- Dynamic Instructions with Expressions ---------------------------------------------- */

/* SearchToolkit: GetAvailableSearchers() (from the metadata) and SearchGuidelines. */
typedef struct searchers {
    reg r;
    atomic_int asked_result, asked_prompt;
    bool answer_prompt;
} searchers;

static void searcher_texts(void *ud, const char *toolkit, int32_t which, const char *metadata, af_text *out) {
    searchers *s = ud;
    CHECK_STREQ(toolkit, "search");
    CHECK(metadata != NULL && metadata[0] == '{');
    if (which == AF_TOOLKIT_FUNCTION_RESULT) {
        atomic_fetch_add(&s->asked_result, 1);
        char list[128] = "none", text[192];
        json_str(metadata, "searchers", list, sizeof list);
        snprintf(text, sizeof text, "Available: %s", list);
        CHECK_STATUS(af_text_set(out, text), AF_OK);
    } else {
        CHECK_EQ_INT(which, AF_TOOLKIT_SYSTEM_PROMPT);
        atomic_fetch_add(&s->asked_prompt, 1);
        if (s->answer_prompt) CHECK_STATUS(af_text_set(out, "Always prefer exact matches over fuzzy matches."), AF_OK);
    }
}

static searchers *search_app(app *a, const char *toolkit_json, bool answer_prompt) {
    searchers *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->r.magic = 0x0DDBA11L; /* REG_MAGIC: freed by app_reg_free */
    s->r.a = a;
    s->answer_prompt = answer_prompt;
    atomic_fetch_add(&a->regs, 1);
    CHECK_STATUS(af_define_toolkit(a->d, toolkit_json, searcher_texts, s, app_reg_free), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"web_search\",\"toolkit\":\"search\",\"parameters\":[{\"name\":\"query\",\"type\":\"string\"}],\"result\":\"string\"}", h_ok), AF_OK);
    return s;
}

/* "Reference methods or properties for dynamic instructions" */
TEST(dynamic_instructions__function_result_and_system_prompt_from_the_host) {
    app *a = app_bare();
    searchers *s = search_app(a, "{\"name\":\"search\",\"description\":\"Search operations\"}", true);
    af_view *v = af_view_new(a->d, "{\"searchers\":\"web, news\"}");
    char *ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, ""); /* collapsed: the host is not asked */
    af_string_free(ins);
    CHECK_EQ_INT(s->asked_prompt, 0);
    char *o = view_run(v, "search", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":\"Available: web, news\"");
    outcome_free(o);
    CHECK_EQ_INT(s->asked_result, 1);
    ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, "Always prefer exact matches over fuzzy matches.");
    af_string_free(ins);
    int prompts = atomic_load(&s->asked_prompt);
    ins = af_view_instructions_copy(v); /* asked again every turn */
    CHECK_STREQ(ins, "Always prefer exact matches over fuzzy matches.");
    af_string_free(ins);
    CHECK(atomic_load(&s->asked_prompt) > prompts);

    /* the texts follow the view's metadata: a new expansion sees the new searchers */
    CHECK_STATUS(af_view_set_metadata(v, "{\"searchers\":\"web, news, images\"}"), AF_OK);
    CHECK_STATUS(af_view_reset(v), AF_OK);
    o = view_run(v, "search", NULL);
    CHECK_HAS(o, "\"result\":\"Available: web, news, images\"");
    outcome_free(o);
    af_view *empty = af_view_new(a->d, NULL);
    o = view_run(empty, "search", NULL);
    CHECK_HAS(o, "\"result\":\"Available: none\"");
    outcome_free(o);
    af_view_free(empty);
    af_view_free(v);
    app_close(a); /* the texts' user_data is freed once with the dispatcher */
}

/* A text the host does not answer is the toolkit's static one (or none). */
TEST(dynamic_instructions__an_unanswered_text_falls_back_to_the_static_one) {
    app *a = app_bare();
    searchers *s = search_app(a, "{\"name\":\"search\",\"description\":\"Search operations\","
                                 "\"functionResult\":\"static result\",\"systemPrompt\":\"Static guidelines.\"}", false);
    af_view *v = af_view_new(a->d, "{\"searchers\":\"web\"}");
    char *o = view_run(v, "search", NULL);
    CHECK_HAS(o, "\"result\":\"Available: web\""); /* answered: the host's text wins */
    CHECK_LACKS(o, "static result");
    outcome_free(o);
    char *ins = af_view_instructions_copy(v);
    CHECK_STREQ(ins, "Static guidelines."); /* not answered: the static text */
    af_string_free(ins);
    CHECK(atomic_load(&s->asked_prompt) >= 1);
    af_view_free(v);
    app_close(a);
}

/* ---- ToolKind — Structured Output ---------------------------------------------------------- */

static const char *WEATHER_TYPES =
    "{\"records\":[{\"name\":\"WeatherReport\",\"fields\":[{\"name\":\"city\",\"type\":\"string\"},"
    "{\"name\":\"tempCelsius\",\"type\":\"double\"},{\"name\":\"condition\",\"type\":\"string\"}]},"
    "{\"name\":\"WeatherResult\",\"fields\":[{\"name\":\"temperature\",\"type\":\"int32\"},{\"name\":\"condition\",\"type\":\"string\"}]}]}";

static const char *REPORT_JSON =
    "{\"id\":\"report\",\"kind\":\"output\",\"result\":{\"record\":\"WeatherReport\"},\"parameters\":["
    "{\"name\":\"city\",\"type\":\"string\",\"description\":\"City name\"},"
    "{\"name\":\"tempCelsius\",\"type\":\"double\",\"description\":\"Temperature in Celsius\"},"
    "{\"name\":\"condition\",\"type\":\"string\",\"description\":\"Weather condition (e.g., 'sunny', 'cloudy')\"}]}";

static app *weather_app(void) {
    app *a = app_bare();
    CHECK_STATUS(af_define_types(a->d, WEATHER_TYPES), AF_OK);
    return a;
}

/* "ToolKind controls how the framework treats the function when the agent calls it" —
 * Function (the default): "Normal tool — executed, result returned to the LLM". */
TEST(toolkind__function_is_executed_and_its_result_returned) {
    app *a = weather_app();
    CHECK_STATUS(reg_fn(a, "{\"id\":\"explicit\",\"kind\":\"function\",\"result\":\"string\"}", h_ok), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"implicit\",\"result\":\"string\"}", h_ok), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    const char *ids[] = {"explicit", "implicit"};
    for (int i = 0; i < 2; i++) {
        char *o = view_run(v, ids[i], NULL);
        CHECK_SUCCESS(o);
        CHECK_HAS(o, "\"result\":\"ok\"");
        CHECK_LACKS(o, "\"final\"");
        outcome_free(o);
    }
    CHECK_EQ_INT(a->handler_runs, 2);
    /* a normal function needs a handler; the refused registration frees its user_data */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"needs_handler\"}", NULL, app_reg(a, NULL), app_reg_free), AF_ERR_INVALID);
    CHECK_LAST_ERROR("handler");
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"bad_kind\",\"kind\":\"answer\"}", h_ok, app_reg(a, NULL), app_reg_free), AF_ERR_INVALID);
    CHECK_LAST_ERROR("kind");
    af_view_free(v);
    app_close(a);
}

/* "Output — calling this ends the agent run; arguments ARE the result" */
TEST(toolkind_output__calling_it_ends_the_run_arguments_are_the_result) {
    app *a = weather_app();
    CHECK_STATUS(af_register_function(a->d, REPORT_JSON, NULL, NULL, NULL), AF_OK); /* no handler */
    af_view *v = af_view_new(a->d, "{}");
    char *t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"report\""); /* the model sees it as a tool */
    CHECK_HAS(t, "City name");
    CHECK_HAS(t, "tempCelsius");
    af_string_free(t);
    char *o = view_run(v, "report", "{\"city\":\"Paris\",\"tempCelsius\":21.5,\"condition\":\"sunny\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"final\":true");
    CHECK_HAS(o, "\"city\":\"Paris\"");
    CHECK_HAS(o, "\"tempCelsius\":21.5");
    CHECK_HAS(o, "\"condition\":\"sunny\"");
    CHECK_HAS(o, "\"errorCode\":null");
    outcome_free(o);
    /* invalid arguments do not end the run: the model can try again */
    o = view_run(v, "report", "{\"city\":\"Paris\",\"tempCelsius\":\"warm\",\"condition\":\"sunny\"}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "tempCelsius");
    CHECK_LACKS(o, "\"final\"");
    outcome_free(o);
    /* through the dispatcher too (af_execute_json), the outcome is final */
    o = run(a->d, "report", "{\"city\":\"Oslo\",\"tempCelsius\":-3,\"condition\":\"snow\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"final\":true");
    CHECK_HAS(o, "Oslo");
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* "Use ToolKind.Output when you want the agent to produce a typed, validated response
 * instead of free-form text." */
TEST(toolkind_output__the_response_is_typed_and_validated) {
    app *a = weather_app();
    CHECK_STATUS(af_register_function(a->d, REPORT_JSON, NULL, NULL, NULL), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "report", "{\"city\":\"Paris\",\"tempCelsius\":21.5}"); /* missing */
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "condition");
    CHECK_LACKS(o, "\"final\"");
    outcome_free(o);
    o = view_run(v, "report", "\"sunny in Paris\""); /* free-form text */
    CHECK_CODE(o, "InvalidArgument");
    CHECK_LACKS(o, "\"final\"");
    outcome_free(o);
    o = view_run(v, "report", "{\"city\":7,\"tempCelsius\":1,\"condition\":\"x\"}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "city");
    outcome_free(o);
    char *schema = af_parameters_schema_json(a->d, "report");
    CHECK_HAS(schema, "\"tempCelsius\"");
    CHECK_HAS(schema, "\"required\"");
    af_string_free(schema);
    schema = af_result_schema_json(a->d, "report");
    CHECK_HAS(schema, "\"city\"");
    af_string_free(schema);
    af_view_free(v);
    app_close(a);
}

/* "The agent "calls" the output tool with its arguments — the framework captures those
 * arguments as the structured result and never executes the method." */
TEST(toolkind_output__the_method_is_never_executed) {
    app *a = weather_app();
    CHECK_STATUS(reg_fn(a, REPORT_JSON, h_ok), AF_OK); /* a handler, which must not run */
    af_view *v = af_view_new(a->d, "{}");
    for (int i = 0; i < 3; i++) {
        char *o = view_run(v, "report", "{\"city\":\"Rome\",\"tempCelsius\":30,\"condition\":\"sunny\"}");
        CHECK_SUCCESS(o);
        CHECK_HAS(o, "\"final\":true");
        CHECK_HAS(o, "Rome");
        CHECK_LACKS(o, "\"result\":\"ok\"");
        outcome_free(o);
    }
    CHECK_EQ_INT(a->handler_runs, 0);
    af_view_free(v);
    app_close(a);
}

/* "Retrieve the result with RunStructuredAsync<T>()" — "result is a WeatherReport with
 * values the agent filled in": the result is exactly the record, nothing else. */
TEST(toolkind_output__the_result_is_the_record_the_agent_filled_in) {
    app *a = weather_app();
    CHECK_STATUS(af_register_function(a->d, REPORT_JSON, NULL, NULL, NULL), AF_OK);
    /* an output tool without a declared record: its arguments object as given */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"final_answer\",\"kind\":\"output\",\"parameters\":[{\"name\":\"text\",\"type\":\"string\"}]}",
                                      NULL, app_reg(a, NULL), app_reg_free), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "report", "{\"condition\":\"cloudy\",\"city\":\"Lima\",\"tempCelsius\":18.25}");
    CHECK_SUCCESS(o);
    const char *res = o ? strstr(o, "\"result\":{") : NULL;
    CHECK(res != NULL);
    CHECK_HAS(res, "\"city\":\"Lima\"");
    CHECK_HAS(res, "\"tempCelsius\":18.25");
    CHECK_HAS(res, "\"condition\":\"cloudy\"");
    outcome_free(o);
    o = view_run(v, "final_answer", "{\"text\":\"42\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":{\"text\":\"42\"}");
    CHECK_HAS(o, "\"final\":true");
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* "ToolKind.Output is compatible with both [AIFunction] and [AIFunction<TMetadata>]." */
TEST(toolkind_output__compatible_with_the_generic_form) {
    app *a = weather_app();
    CHECK_STATUS(af_set_metadata_schema(a->d, "[\"StructuredReports\",\"UnitName\"]"), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"report\",\"kind\":\"output\",\"condition\":\"StructuredReports\","
                                            "\"description\":\"Report the weather in {metadata.UnitName}\",\"result\":{\"record\":\"WeatherReport\"},\"parameters\":["
                                            "{\"name\":\"city\",\"type\":\"string\"},{\"name\":\"tempCelsius\",\"type\":\"double\"},{\"name\":\"condition\",\"type\":\"string\"}]}",
                                      NULL, NULL, NULL), AF_OK);
    /* validated against the schema like any function */
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"other_report\",\"kind\":\"output\",\"condition\":\"Unknown\"}", NULL, app_reg(a, NULL), app_reg_free),
                 AF_ERR_INVALID);
    CHECK_LAST_ERROR("Unknown");
    af_view *v = af_view_new(a->d, "{\"StructuredReports\":true,\"UnitName\":\"Celsius\"}");
    char *t = tools_of(v);
    CHECK_HAS(t, "Report the weather in Celsius");
    af_string_free(t);
    char *o = view_run(v, "report", "{\"city\":\"Paris\",\"tempCelsius\":21.5,\"condition\":\"sunny\"}");
    CHECK_HAS(o, "\"final\":true");
    outcome_free(o);
    CHECK_STATUS(af_view_set_metadata(v, "{\"StructuredReports\":false}"), AF_OK);
    o = view_run(v, "report", "{\"city\":\"Paris\",\"tempCelsius\":21.5,\"condition\":\"sunny\"}");
    CHECK_CODE(o, "FunctionNotFound");
    CHECK_LACKS(o, "\"final\"");
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* ---- Generic Attribute Form (the validation the sections above rely on) ----------------- */

/* "Dynamic description tokens like {metadata.ProviderName} and conditional expressions like
 * "HasAdvancedFeatures" must resolve to valid members of TMetadata." */
TEST(generic_form__unknown_metadata_properties_are_refused_at_registration) {
    app *a = app_bare();
    CHECK_STATUS(af_set_metadata_schema(a->d, "{\"type\":\"object\",\"properties\":{\"FeatureEnabled\":{\"type\":\"boolean\"},"
                                              "\"ProviderName\":{\"type\":\"string\"}}}"), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"a\",\"condition\":\"FeatureEnabled && Missing\"}", h_void), AF_ERR_INVALID);
    CHECK_LAST_ERROR("\"Missing\" is not a property of the metadata schema");
    CHECK_STATUS(reg_fn(a, "{\"id\":\"b\",\"description\":\"Uses {metadata.Provider}\"}", h_void), AF_ERR_INVALID);
    CHECK_LAST_ERROR("{metadata.Provider}");
    CHECK_STATUS(af_define_toolkit(a->d, "{\"name\":\"t\",\"description\":\"for {metadata.Nope}\"}", NULL, app_reg(a, NULL), app_reg_free),
                 AF_ERR_INVALID);
    CHECK_LAST_ERROR("{metadata.Nope}");
    CHECK_STATUS(reg_fn(a, "{\"id\":\"c\",\"condition\":\"FeatureEnabled == true\"}", h_void), AF_ERR_INVALID);
    CHECK_LAST_ERROR("c.condition");
    /* the registry holds none of them */
    char *rj = af_registry_json(a->d);
    CHECK_LACKS(rj, "\"id\":\"a\"");
    CHECK_LACKS(rj, "\"id\":\"b\"");
    CHECK_LACKS(rj, "\"id\":\"c\"");
    af_string_free(rj);
    /* members of the schema are accepted */
    CHECK_STATUS(reg_fn(a, "{\"id\":\"feature_function\",\"condition\":\"FeatureEnabled\","
                           "\"description\":\"Only visible when FeatureEnabled is true, via {metadata.ProviderName}\"}", h_void), AF_OK);
    af_view *v = af_view_new(a->d, "{\"FeatureEnabled\":true,\"ProviderName\":\"Bing\"}");
    char *t = tools_of(v);
    CHECK_HAS(t, "Only visible when FeatureEnabled is true, via Bing");
    af_string_free(t);
    af_view_free(v);
    app_close(a);
}

/* "[AIDescription("Search using {metadata.ProviderName}")]" — the description renders with
 * the view's metadata and follows its updates. */
TEST(generic_form__dynamic_descriptions_render_with_the_metadata) {
    app *a = app_bare();
    CHECK_STATUS(af_set_metadata_schema(a->d, "[\"ProviderName\",\"HasAdvancedFeatures\"]"), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"search\",\"description\":\"Search using {metadata.ProviderName}\",\"result\":\"string\"}", h_ok), AF_OK);
    af_view *v = af_view_new(a->d, "{\"ProviderName\":\"Bing\"}");
    char *t = af_view_tools_json(v, "openai");
    CHECK_HAS(t, "Search using Bing");
    af_string_free(t);
    CHECK_STATUS(af_view_set_metadata(v, "{\"ProviderName\":\"Kagi\"}"), AF_OK);
    t = af_view_tools_json(v, "anthropic");
    CHECK_HAS(t, "Search using Kagi");
    CHECK_LACKS(t, "Bing");
    af_string_free(t);
    af_view_free(v);
    app_close(a);
}

/* ---- Conditional Functions ----------------------------------------------------------------- */

static app *advanced_app(void) {
    app *a = app_bare();
    CHECK_STATUS(reg_fn(a, "{\"id\":\"advanced_search\",\"condition\":\"HasAdvancedFeatures && !ReadOnly\","
                           "\"description\":\"Advanced search with filters\",\"parameters\":[{\"name\":\"query\",\"type\":\"string\"}],"
                           "\"result\":\"string\"}", h_ok), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"basic_search\",\"parameters\":[{\"name\":\"query\",\"type\":\"string\"}],\"result\":\"string\"}", h_ok), AF_OK);
    return a;
}

/* "Show or hide functions based on runtime conditions" */
TEST(conditional_functions__shown_only_when_the_condition_holds) {
    app *a = advanced_app();
    af_view *v = af_view_new(a->d, "{\"HasAdvancedFeatures\":false}");
    char *t = tools_of(v);
    CHECK_LACKS(t, "advanced_search");
    CHECK_HAS(t, "\"name\":\"basic_search\"");
    af_string_free(t);
    char *o = view_run(v, "advanced_search", "{\"query\":\"x\"}");
    CHECK_CODE(o, "FunctionNotFound");
    CHECK_HAS(o, "HasAdvancedFeatures && !ReadOnly");
    outcome_free(o);
    CHECK_EQ_INT(a->handler_runs, 0);

    CHECK_STATUS(af_view_set_metadata(v, "{\"HasAdvancedFeatures\":true}"), AF_OK); /* at once */
    t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"advanced_search\"");
    CHECK_HAS(t, "Advanced search with filters");
    af_string_free(t);
    o = view_run(v, "advanced_search", "{\"query\":\"x\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    CHECK_EQ_INT(a->handler_runs, 1);

    CHECK_STATUS(af_view_set_metadata(v, "{\"HasAdvancedFeatures\":true,\"ReadOnly\":true}"), AF_OK);
    t = tools_of(v);
    CHECK_LACKS(t, "advanced_search");
    af_string_free(t);
    o = view_run(v, "advanced_search", "{\"query\":\"x\"}");
    CHECK_CODE(o, "FunctionNotFound");
    outcome_free(o);
    CHECK_EQ_INT(a->handler_runs, 1);
    CHECK_STATUS(af_view_set_metadata(v, "[true]"), AF_ERR_INVALID); /* not an object */
    af_view_free(v);
    app_close(a);
}

/* "Only visible when metadata.HasAdvancedFeatures is true" — absent or not true is hidden,
 * and each view (conversation) decides with its own metadata. */
TEST(conditional_functions__only_visible_when_the_metadata_property_is_true) {
    app *a = advanced_app();
    const char *hidden[] = {NULL, "{}", "{\"HasAdvancedFeatures\":false}", "{\"Other\":true}"};
    for (int i = 0; i < 4; i++) {
        af_view *v = af_view_new(a->d, hidden[i]);
        CHECK(v != NULL);
        char *t = tools_of(v);
        CHECK_MSG(t && !strstr(t, "advanced_search"), "metadata %s shows advanced_search", hidden[i] ? hidden[i] : "NULL");
        af_string_free(t);
        af_view_free(v);
    }
    af_view *on = af_view_new(a->d, "{\"HasAdvancedFeatures\":true}");
    af_view *off = af_view_new(a->d, "{\"HasAdvancedFeatures\":false}");
    char *t = tools_of(on);
    CHECK_HAS(t, "advanced_search");
    af_string_free(t);
    t = tools_of(off);
    CHECK_LACKS(t, "advanced_search");
    af_string_free(t);
    af_view_free(on);
    af_view_free(off);
    app_close(a);
}

/* ---- Return Types --------------------------------------------------------------------------- */

/* "// Synchronous  public string GetName() => "HPD-Agent";" */
TEST(return_types__synchronous_results_are_returned) {
    app *a = app_bare();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"get_name\",\"result\":\"string\"}", h_returns,
                                      app_reg(a, (void *)"\"HPD-Agent\""), app_reg_free), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "get_name", NULL);
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":\"HPD-Agent\"");
    CHECK_HAS(o, "\"dialog\":null"); /* not void: no confirmation */
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

/* "// Async  public async Task<string> GetNameAsync()" — completed later, on another thread. */
TEST(return_types__asynchronous_results_are_awaited) {
    app *a = app_bare();
    later l = {pool_start(1), NULL};
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"get_name_async\",\"result\":\"string\"}", h_async, app_reg(a, &l), app_reg_free), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "get_name_async", NULL); /* blocks until the pool answers */
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":\"HPD-Agent\"");
    outcome_free(o);
    CHECK(l.d != NULL);
    if (l.d) {
        deferred_wait(l.d);
        CHECK_STATUS(l.d->status, AF_OK);
        deferred_free(l.d);
    }
    pool_stop(l.p);
    af_view_free(v);
    app_close(a);
}

/* "// Complex types (serialized to JSON)  public async Task<WeatherResult> GetWeather(...)" */
TEST(return_types__complex_types_are_serialized_to_json) {
    app *a = weather_app();
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"get_weather\",\"parameters\":[{\"name\":\"city\",\"type\":\"string\"}],"
                                            "\"result\":{\"record\":\"WeatherResult\"}}",
                                      h_returns, app_reg(a, (void *)"{\"temperature\":72,\"condition\":\"Sunny\"}"), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"find_files\",\"parameters\":[{\"name\":\"directory\",\"type\":\"string\"},"
                                            "{\"name\":\"pattern\",\"type\":\"string\"}],\"result\":{\"array\":\"string\"}}",
                                      h_returns, app_reg(a, (void *)"[\"a.txt\",\"b.txt\"]"), app_reg_free), AF_OK);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"bad_weather\",\"result\":{\"record\":\"WeatherResult\"}}",
                                      h_returns, app_reg(a, (void *)"{\"temperature\":\"hot\",\"condition\":\"Sunny\"}"), app_reg_free), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "get_weather", "{\"city\":\"Paris\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":{\"temperature\":72,\"condition\":\"Sunny\"}");
    CHECK_HAS(o, "\"dialog\":null");
    outcome_free(o);
    o = view_run(v, "find_files", "{\"directory\":\"/tmp\",\"pattern\":\"*.txt\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":[\"a.txt\",\"b.txt\"]");
    outcome_free(o);
    /* a result that is not the declared type is not passed on */
    o = view_run(v, "bad_weather", NULL);
    CHECK_CODE(o, "HandlerFailed");
    CHECK_LACKS(o, "\"hot\"");
    outcome_free(o);
    char *schema = af_result_schema_json(a->d, "get_weather");
    CHECK_HAS(schema, "\"temperature\"");
    af_string_free(schema);
    af_view_free(v);
    app_close(a);
}

/* "// Void (returns confirmation message)  public void LogMessage(string message)" */
TEST(return_types__void_returns_a_confirmation) {
    app *a = app_bare();
    CHECK_STATUS(reg_fn(a, "{\"id\":\"log_message\",\"parameters\":[{\"name\":\"message\",\"type\":\"string\"}]}", h_void), AF_OK);
    CHECK_STATUS(reg_fn(a, "{\"id\":\"log_loudly\",\"parameters\":[{\"name\":\"message\",\"type\":\"string\"}]}", h_void_says), AF_OK);
    af_view *v = af_view_new(a->d, "{}");
    char *o = view_run(v, "log_message", "{\"message\":\"hi\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"result\":null");
    CHECK_HAS(o, "\"dialog\":\"Done: the function completed successfully.\"");
    outcome_free(o);
    CHECK_STATUS(af_view_set_confirmation(v, "Logged."), AF_OK);
    o = view_run(v, "log_message", "{\"message\":\"hi\"}");
    CHECK_HAS(o, "\"dialog\":\"Logged.\"");
    outcome_free(o);
    o = view_run(v, "log_loudly", "{\"message\":\"hi\"}"); /* its own dialog wins */
    CHECK_HAS(o, "\"dialog\":\"Message written to the console.\"");
    outcome_free(o);
    /* the confirmation belongs to the view; a failed void call has none */
    af_view *other = af_view_new(a->d, "{}");
    o = view_run(other, "log_message", "{\"message\":\"hi\"}");
    CHECK_HAS(o, "\"dialog\":\"Done: the function completed successfully.\"");
    outcome_free(o);
    o = view_run(other, "log_message", "{\"message\":5}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_LACKS(o, "Done: the function");
    outcome_free(o);
    af_view_free(other);
    /* outside a view (af_execute_json) there is no confirmation */
    o = run(a->d, "log_message", "{\"message\":\"hi\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(o, "\"dialog\":null");
    outcome_free(o);
    CHECK_EQ_INT(a->handler_runs, 5);
    af_view_free(v);
    app_close(a);
}

/* ---- Custom Function Names (what the agent sees in the views above) --------------------- */

/* "The agent sees this as search_web, not PerformWebSearch." */
TEST(custom_names__the_agent_sees_the_custom_name) {
    app *a = app_bare();
    CHECK_STATUS(reg_fn(a, "{\"id\":\"search_web\",\"symbol\":\"PerformWebSearch\",\"parameters\":[{\"name\":\"query\",\"type\":\"string\"}],"
                           "\"result\":\"string\"}", h_ok), AF_OK);
    char *rj = af_registry_json(a->d);
    CHECK_HAS(rj, "\"symbol\":\"PerformWebSearch\""); /* kept for the host */
    af_string_free(rj);
    af_view *v = af_view_new(a->d, "{}");
    char *t = tools_of(v);
    CHECK_HAS(t, "\"name\":\"search_web\"");
    CHECK_LACKS(t, "PerformWebSearch");
    af_string_free(t);
    char *o = view_run(v, "search_web", "{\"query\":\"rust\"}");
    CHECK_SUCCESS(o);
    outcome_free(o);
    o = view_run(v, "PerformWebSearch", "{\"query\":\"rust\"}");
    CHECK_CODE(o, "FunctionNotFound");
    outcome_free(o);
    af_view_free(v);
    app_close(a);
}

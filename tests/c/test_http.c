/*
 * MCP over Streamable HTTP and the debug page through the header (af_http_*): NULL and
 * invalid UTF-8 in every pointer argument, a too-small struct_size, and one happy path of
 * each era over the shared orders/notes scenario, with the security refusals.
 */
#include "app.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>

static const char *ACCEPT_BOTH = "Accept: application/json, text/event-stream\nContent-Type: application/json\n";
static const char *INIT_BODY = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                               "\"capabilities\":{},\"clientInfo\":{\"name\":\"c-harness\",\"version\":\"1\"}}}";

typedef struct reply {
    int status;
    char *headers; /* owned (af_string_free) */
    char body[8192];
    af_http_stream *stream; /* owned, or NULL */
} reply;

static reply http(af_http_server *s, const char *method, const char *path, const char *headers, const char *body) {
    af_http_request rq = AF_HTTP_REQUEST_INIT;
    rq.method = method;
    rq.path = path;
    rq.headers = headers;
    rq.body = (const uint8_t *)body;
    rq.body_len = body ? strlen(body) : 0;
    reply r = {0};
    af_http_response *resp = af_http_handle(s, &rq);
    CHECK_MSG(resp != NULL, "af_http_handle: %s", af_last_error());
    if (!resp) return r;
    r.status = af_http_response_status(resp);
    r.headers = af_http_response_headers_copy(resp);
    uint64_t n = 0;
    const uint8_t *b = af_http_response_body(resp, &n);
    if (b && n) snprintf(r.body, sizeof r.body, "%.*s", (int)n, (const char *)b);
    r.stream = af_http_response_take_stream(resp);
    CHECK(af_http_response_take_stream(resp) == NULL); /* taken once */
    af_http_response_free(resp);
    return r;
}

static void reply_free(reply *r) {
    af_string_free(r->headers);
    af_http_stream_free(r->stream);
    r->headers = NULL;
    r->stream = NULL;
}

/* The header's value into buf ("" if absent). */
static void header_of(const char *headers, const char *name, char *buf, size_t cap) {
    buf[0] = 0;
    const char *p = headers ? strstr(headers, name) : NULL;
    if (!p) return;
    p += strlen(name) + 2;
    size_t i = 0;
    while (p[i] && p[i] != '\n' && i + 1 < cap) {
        buf[i] = p[i];
        i++;
    }
    buf[i] = 0;
}

/* The next frame (owned) within timeout_ms, or NULL at the end; *st_out the status. */
/* Initializes a handshake-era session; its id (32 characters) into sid. */
static void open_session(af_http_server *s, char *sid, size_t cap) {
    reply r = http(s, "POST", "/mcp", ACCEPT_BOTH, INIT_BODY);
    CHECK_EQ_INT(r.status, 200);
    header_of(r.headers, "Mcp-Session-Id", sid, cap);
    CHECK(strlen(sid) == 32);
    reply_free(&r);
}

static char *next_frame(af_http_stream *st, uint32_t timeout_ms, af_status *st_out) {
    char *f = NULL;
    *st_out = af_http_stream_next_copy(st, timeout_ms, &f);
    return f;
}

TEST(http__af_http_request_layout_has_no_hidden_padding) {
    CHECK_EQ_INT(offsetof(af_http_request, reserved), 4);
    CHECK_EQ_INT(offsetof(af_http_request, body_len), 8);
    CHECK_EQ_INT(offsetof(af_http_request, method), 16);
    CHECK_EQ_INT(offsetof(af_http_request, body), 16 + 4 * sizeof(void *));
    CHECK_EQ_INT(sizeof(af_http_request), 16 + 5 * sizeof(void *));
}

TEST(http__af_http_server_new_free_and_bad_arguments) {
    app *a = app_new();
    CHECK(af_http_server_new(NULL, "{}") == NULL);
    CHECK_LAST_ERROR("dispatcher");
    CHECK(af_http_server_new(a->d, BAD_UTF8) == NULL);
    CHECK_LAST_ERROR("config_json");
    CHECK(af_http_server_new(a->d, "{\"maxSessions\":0}") == NULL);
    CHECK_LAST_ERROR("maxSessions");
    CHECK(af_http_server_new(a->d, "{\"mcpPath\":\"mcp\"}") == NULL);
    CHECK_LAST_ERROR("mcpPath");
    CHECK(af_http_server_new(a->d, "{\"nope\":1}") == NULL);
    CHECK_LAST_ERROR("nope");
    CHECK(af_http_server_new(a->d, "{\"mcp\":{\"pageSiz\":1}}") == NULL);
    CHECK_LAST_ERROR("mcp");
    af_http_server_free(NULL);
    CHECK_EQ_INT(af_http_server_max_body_bytes(NULL), 0);
    af_http_server *s = af_http_server_new(a->d, NULL);
    CHECK(s != NULL);
    CHECK_EQ_INT(af_http_server_max_body_bytes(s), 8 << 20);

    af_http_request rq = AF_HTTP_REQUEST_INIT;
    CHECK(af_http_handle(NULL, &rq) == NULL);
    CHECK(af_http_handle(s, NULL) == NULL);
    CHECK_LAST_ERROR("request");
    CHECK(af_http_handle(s, &rq) == NULL); /* no method */
    CHECK_LAST_ERROR("request.method");
    rq.method = "GET";
    rq.path = BAD_UTF8;
    CHECK(af_http_handle(s, &rq) == NULL);
    CHECK_LAST_ERROR("request.path");
    rq.path = "/mcp";
    rq.struct_size = 8;
    CHECK(af_http_handle(s, &rq) == NULL);
    CHECK_LAST_ERROR("struct_size");

    CHECK_EQ_INT(af_http_response_status(NULL), 0);
    CHECK(af_http_response_headers_copy(NULL) == NULL);
    uint64_t n = 7;
    CHECK(af_http_response_body(NULL, &n) == NULL);
    CHECK_EQ_INT(n, 0);
    CHECK(af_http_response_take_stream(NULL) == NULL);
    af_http_response_free(NULL);
    char *f = (char *)1;
    CHECK_STATUS(af_http_stream_next_copy(NULL, 0, &f), AF_ERR_NULL);
    af_http_stream_free(NULL);
    CHECK_STATUS(af_http_server_set_authorize(NULL, NULL, NULL, NULL), AF_ERR_NULL);
    af_http_server_free(s);
    app_close(a);
}

TEST(http__a_handshake_session_over_af_http_handle) {
    app *a = app_new();
    af_http_server *s = af_http_server_new(a->d, "{\"mcp\":{\"serverName\":\"orders-http\"}}");
    CHECK(s != NULL);
    reply r = http(s, "POST", "/mcp", ACCEPT_BOTH, INIT_BODY);
    CHECK_EQ_INT(r.status, 200);
    CHECK_HAS(r.body, "orders-http");
    CHECK_HAS(r.body, "\"listChanged\":true");
    char sid[128], hdrs[512];
    header_of(r.headers, "Mcp-Session-Id", sid, sizeof sid);
    CHECK(strlen(sid) == 32);
    reply_free(&r);
    snprintf(hdrs, sizeof hdrs, "%sMcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n", ACCEPT_BOTH, sid);

    r = http(s, "POST", "/mcp", hdrs, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    CHECK_EQ_INT(r.status, 202);
    reply_free(&r);
    r = http(s, "POST", "/mcp", hdrs, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    CHECK_EQ_INT(r.status, 200);
    CHECK_HAS(r.body, "\"create_order\"");
    reply_free(&r);

    /* the server stream: list_changed when a function is registered */
    char get_hdrs[512];
    snprintf(get_hdrs, sizeof get_hdrs, "Accept: text/event-stream\nMcp-Session-Id: %s\n", sid);
    reply g = http(s, "GET", "/mcp", get_hdrs, NULL);
    CHECK_EQ_INT(g.status, 200);
    CHECK_HAS(g.headers, "Content-Type: text/event-stream");
    CHECK(g.stream != NULL);
    af_status st;
    char *f = next_frame(g.stream, 10, &st);
    CHECK_STATUS(st, AF_ERR_TIMED_OUT);
    CHECK(f == NULL);
    CHECK_STATUS(af_register_function(a->d, "{\"id\":\"http_ping\",\"kind\":\"output\"}", NULL, NULL, NULL), AF_OK);
    f = next_frame(g.stream, 10000, &st);
    CHECK_STATUS(st, AF_OK);
    CHECK_HAS(f, "event: message\ndata: ");
    CHECK_HAS(f, "notifications/tools/list_changed");
    af_string_free(f);

    /* a call answers a stream whose one frame is the response, then the end */
    r = http(s, "POST", "/mcp", hdrs,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"create_order\",\"arguments\":{\"customer\":\"acme\",\"quantity\":2}}}");
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.stream != NULL);
    f = next_frame(r.stream, 10000, &st);
    CHECK_STATUS(st, AF_OK);
    CHECK_HAS(f, "\"id\":3");
    CHECK_HAS(f, "\"isError\":false");
    af_string_free(f);
    f = next_frame(r.stream, 10000, &st);
    CHECK_STATUS(st, AF_OK);
    CHECK(f == NULL); /* the end */
    reply_free(&r);

    r = http(s, "DELETE", "/mcp", hdrs, NULL);
    CHECK_EQ_INT(r.status, 204);
    reply_free(&r);
    f = next_frame(g.stream, 10000, &st);
    CHECK_STATUS(st, AF_OK);
    CHECK(f == NULL); /* the session's stream ended with it */
    reply_free(&g);
    r = http(s, "POST", "/mcp", hdrs, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
    CHECK_EQ_INT(r.status, 404);
    reply_free(&r);
    af_http_server_free(s);
    app_close(a);
}

TEST(http__the_stateless_revision_and_its_header_checks) {
    app *a = app_new();
    af_http_server *s = af_http_server_new(a->d, "{}");
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{\"_meta\":{"
                       "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    char hdrs[512];
    snprintf(hdrs, sizeof hdrs, "%sMCP-Protocol-Version: 2026-07-28\nMcp-Method: server/discover\n", ACCEPT_BOTH);
    reply r = http(s, "POST", "/mcp", hdrs, body);
    CHECK_EQ_INT(r.status, 200);
    CHECK_HAS(r.body, "\"supportedVersions\":[\"2026-07-28\"]");
    CHECK_LACKS(r.headers, "Mcp-Session-Id");
    reply_free(&r);
    r = http(s, "POST", "/mcp", ACCEPT_BOTH, body); /* no MCP-Protocol-Version */
    CHECK_EQ_INT(r.status, 400);
    CHECK_HAS(r.body, "-32020");
    reply_free(&r);
    r = http(s, "GET", "/mcp", "Accept: text/event-stream\nMCP-Protocol-Version: 2026-07-28\n", NULL);
    CHECK_EQ_INT(r.status, 405);
    reply_free(&r);
    af_http_server_free(s);
    app_close(a);
}

static int32_t only_alice(void *ud, const af_http_request *rq) {
    atomic_fetch_add((atomic_long *)ud, 1);
    return rq->headers && strstr(rq->headers, "X-User: alice") ? 0 : 403;
}

static int32_t refuse_all(void *ud, const af_http_request *rq) {
    (void)ud;
    return rq->struct_size >= sizeof(af_http_request) ? 403 : 500;
}

static void count_free(void *ud) {
    (void)ud;
}

TEST(http__origin_token_hook_and_body_limit_refuse_requests) {
    app *a = app_new();
    af_http_server *s = af_http_server_new(a->d, "{\"bearerToken\":\"t0k\",\"maxBodyBytes\":2048}");
    reply r = http(s, "POST", "/mcp", "Origin: http://evil.example\nAuthorization: Bearer t0k\n", INIT_BODY);
    CHECK_EQ_INT(r.status, 403);
    reply_free(&r);
    r = http(s, "POST", "/mcp", ACCEPT_BOTH, INIT_BODY);
    CHECK_EQ_INT(r.status, 401);
    CHECK_HAS(r.headers, "WWW-Authenticate: Bearer");
    reply_free(&r);
    char big[4096];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    r = http(s, "POST", "/mcp", "Authorization: Bearer t0k\n", big);
    CHECK_EQ_INT(r.status, 413);
    reply_free(&r);

    atomic_long seen = 0;
    atomic_long frees = 0;
    CHECK_STATUS(af_http_server_set_authorize(s, refuse_all, counted_new(&frees), counted_free), AF_OK);
    r = http(s, "POST", "/mcp", "Authorization: Bearer t0k\n", INIT_BODY);
    CHECK_EQ_INT(r.status, 403);
    reply_free(&r);
    CHECK_STATUS(af_http_server_set_authorize(s, only_alice, &seen, count_free), AF_OK); /* replaces */
    CHECK_EQ_INT(frees, 1);
    char hdrs[256];
    snprintf(hdrs, sizeof hdrs, "%sAuthorization: Bearer t0k\nX-User: alice\nOrigin: http://127.0.0.1:5000\n", ACCEPT_BOTH);
    r = http(s, "POST", "/mcp", hdrs, INIT_BODY);
    CHECK_EQ_INT(r.status, 200);
    reply_free(&r);
    CHECK_EQ_INT(seen, 1);
    af_http_server_free(s);
    app_close(a);
}

TEST(http__the_debug_page_and_its_api) {
    app *a = app_new();
    af_http_server *s = af_http_server_new(a->d, "{}");
    reply r = http(s, "GET", "/appfunctions", NULL, NULL);
    CHECK_EQ_INT(r.status, 404); /* off unless configured */
    reply_free(&r);
    af_http_server_free(s);
    s = af_http_server_new(a->d, "{\"debugPath\":\"/appfunctions\"}");
    r = http(s, "GET", "/appfunctions", NULL, NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK_HAS(r.body, "<code>create_order</code>");
    reply_free(&r);
    r = http(s, "POST", "/appfunctions/api/execute", "Content-Type: application/json\n",
             "{\"function\":\"create_order\",\"arguments\":{\"customer\":\"c\",\"quantity\":1},\"platform\":\"android\"}");
    CHECK_EQ_INT(r.status, 200);
    CHECK_HAS(r.body, "\"status\":\"success\"");
    reply_free(&r);
    af_http_server_free(s);
    app_close(a);
}

TEST(http__freeing_the_server_with_sessions_pending_ends_them_and_leaks_nothing) {
    /* two sessions (one with its server stream open), their sweep due in an hour on the
     * core's timer: the free ends both, takes the sweep off, and ASan / valgrind see
     * nothing of them left */
    app *a = app_new();
    af_http_server *s = af_http_server_new(a->d, "{\"sessionIdleSeconds\":3600}");
    CHECK(s != NULL);
    char sid[128], other[128], get_hdrs[512];
    open_session(s, sid, sizeof sid);
    open_session(s, other, sizeof other);
    snprintf(get_hdrs, sizeof get_hdrs, "Accept: text/event-stream\nMcp-Session-Id: %s\n", sid);
    reply g = http(s, "GET", "/mcp", get_hdrs, NULL);
    CHECK_EQ_INT(g.status, 200);
    CHECK(g.stream != NULL);
    af_http_server_free(s);
    af_status st;
    char *f = next_frame(g.stream, 10000, &st);
    CHECK_STATUS(st, AF_OK);
    CHECK(f == NULL); /* the session's stream ended with the server */
    reply_free(&g);
    app_close(a);
}

/* The exchange's worker threads in this process now ("appfunctions-http-N", which the
 * kernel keeps as its first 15 bytes); -1 where /proc cannot tell. */
static int http_workers_now(void) {
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], name[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(name, sizeof name, f) && strncmp(name, "appfunctions-ht", 15) == 0) n++;
        fclose(f);
    }
    closedir(dir);
    return n;
}

TEST(http__freeing_the_server_lets_its_worker_threads_go_at_once) {
    /* a tools/call answered as a stream runs on a worker of the exchange; once the host
     * frees the exchange, its idle workers leave then, not a second later */
    app *a = app_new();
    af_http_server *s = af_http_server_new(a->d, "{}");
    CHECK(s != NULL);
    char sid[128], hdrs[512];
    open_session(s, sid, sizeof sid);
    snprintf(hdrs, sizeof hdrs, "%sMcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n", ACCEPT_BOTH, sid);
    reply r = http(s, "POST", "/mcp", hdrs,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"create_order\",\"arguments\":{\"customer\":\"acme\",\"quantity\":2}}}");
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.stream != NULL);
    af_status st;
    char *f = next_frame(r.stream, 10000, &st);
    CHECK_STATUS(st, AF_OK);
    CHECK_HAS(f, "\"isError\":false");
    af_string_free(f);
    f = next_frame(r.stream, 10000, &st);
    CHECK(f == NULL); /* the end: the worker is done with the call */
    reply_free(&r);
    int before = http_workers_now();
    if (before >= 0) CHECK(before >= 1);
    uint64_t freed = now_us();
    af_http_server_free(s);
    /* a worker leaves on its own a second after its last job; freed, at once */
    while (http_workers_now() > 0 && now_us() - freed < 10 * 1000000ull) sleep_us(2000);
    if (before >= 0) {
        CHECK_EQ_INT(http_workers_now(), 0);
        CHECK(now_us() - freed < 500000);
    }
    app_close(a);
}

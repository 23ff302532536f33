//! MCP over Streamable HTTP and the debug page: the exchange a host's web server plugs in
//! (`af_http_handle`), its responses and event streams.

use super::mcp::config_from;
use super::*;
use crate::http::{Body, EventStream, HttpConfig, HttpServer, Next, Request, Response};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// An HTTP exchange over one dispatcher: an MCP endpoint and, when configured, the debug
/// page. Thread-safe: `af_http_handle` may run on many threads at once. Caller owns it
/// and must call `af_http_server_free`.
pub struct af_http_server {
    _private: [u8; 0],
}

impl Handle for af_http_server {
    type Target = HttpServer;
    type Kind = Boxed;
    const WHAT: &'static str = "the HTTP server";
}

/// One response: status, headers, and a body or an event stream. Caller owns it and must
/// call `af_http_response_free`.
pub struct af_http_response {
    _private: [u8; 0],
}

impl Handle for af_http_response {
    type Target = FfiResponse;
    type Kind = Boxed;
    const WHAT: &'static str = "the response";
}

/// A Server-Sent Events stream taken from a response. Caller owns it and must call
/// `af_http_stream_free` when the client goes away or the stream ends.
pub struct af_http_stream {
    _private: [u8; 0],
}

impl Handle for af_http_stream {
    type Target = EventStream;
    type Kind = Boxed;
    const WHAT: &'static str = "the stream";
}

/// One HTTP request, borrowed for the call to `af_http_handle`. Fill it in from
/// `AF_HTTP_REQUEST_INIT` (which sets `struct_size`).
///
/// Layout (offsets on 64-bit targets, 32-bit in parentheses; no hidden padding):
/// `struct_size` 0 (0), `reserved` 4 (4), `body_len` 8 (8), `method` 16 (16), `path` 24
/// (20), `query` 32 (24), `headers` 40 (28), `body` 48 (32); size 56 (36). Later versions
/// add fields only at the end.
#[repr(C)]
pub struct af_http_request {
    /// `sizeof(af_http_request)` of the header the host was built with.
    pub struct_size: u32,
    /// Zero.
    pub reserved: u32,
    /// The body's length in bytes.
    pub body_len: u64,
    /// `GET`, `POST`, `DELETE`, … Required.
    pub method: *const c_char,
    /// The path without the query (`/mcp`). Required.
    pub path: *const c_char,
    /// The query string without `?`, or NULL.
    pub query: *const c_char,
    /// The headers as `Name: value` lines separated by `\n` (`\r\n` accepted), or NULL.
    /// Repeated names are kept in order; the first counts.
    pub headers: *const c_char,
    /// The body (`body_len` bytes, need not be NUL-terminated), or NULL when empty. Stop
    /// reading a longer body at `af_http_server_max_body_bytes` + 1 bytes: it is refused
    /// (413) either way.
    pub body: *const u8,
}

/// Decides whether a request may proceed (after the Origin and bearer token checks):
/// return 0 to allow it, or the HTTP status to refuse it with (401, 403). `request` is
/// borrowed for the callback. Called on the thread that calls `af_http_handle`.
pub type af_http_authorize_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, request: *const af_http_request) -> i32>;

/// The C layer's response: the core's, with its header block made once.
pub(crate) struct FfiResponse {
    status: u16,
    headers: String,
    body: Vec<u8>,
    stream: parking_lot::Mutex<Option<EventStream>>,
}

/// The error of `af_http_server_new` in a build without the `http` feature (Cargo.toml).
#[cfg(feature = "http")]
fn left_out() -> Option<*mut af_http_server> {
    None
}

#[cfg(not(feature = "http"))]
fn left_out() -> Option<*mut af_http_server> {
    set_last_error(&crate::http::left_out());
    Some(std::ptr::null_mut())
}

fn http_config_from(json: &str, base: &crate::mcp::McpConfig) -> Result<HttpConfig, af_status> {
    let v: Value = serde_json::from_str(json)
        .map_err(|e| fail(AF_ERR_INVALID, &format!("config_json: invalid JSON: {e}")))?;
    let o = v
        .as_object()
        .ok_or_else(|| fail(AF_ERR_INVALID, "config_json: expected an object"))?;
    let mut c = HttpConfig {
        mcp: base.clone(),
        ..Default::default()
    };
    for (k, val) in o {
        let bad = || fail(AF_ERR_INVALID, &format!("config_json.{k}: wrong type"));
        let count = || {
            val.as_u64()
                .filter(|n| *n > 0)
                .map(|n| n as usize)
                .ok_or_else(bad)
        };
        match k.as_str() {
            "mcpPath" => c.mcp_path = if val.is_null() { None } else { Some(val.as_str().ok_or_else(bad)?.to_owned()) },
            "debugPath" => c.debug_path = if val.is_null() { None } else { Some(val.as_str().ok_or_else(bad)?.to_owned()) },
            "allowedOrigins" => {
                c.allowed_origins = val
                    .as_array()
                    .ok_or_else(bad)?
                    .iter()
                    .map(|o| o.as_str().map(str::to_owned).ok_or_else(bad))
                    .collect::<Result<_, _>>()?
            }
            "bearerToken" => c.bearer_token = if val.is_null() { None } else { Some(val.as_str().filter(|t| !t.is_empty()).ok_or_else(bad)?.to_owned()) },
            "maxBodyBytes" => c.max_body_bytes = count()?,
            "maxSessions" => c.max_sessions = count()?,
            "maxStreams" => c.max_streams = count()?,
            "maxCalls" => c.max_calls = count()?,
            "sessionIdleSeconds" => c.session_idle = Duration::from_secs(count()? as u64),
            "metadata" => c.metadata = val.clone(),
            "mcp" => {
                c.mcp = config_from(&val.to_string(), base).map_err(|_| {
                    fail(AF_ERR_INVALID, &format!("config_json.mcp: {}", last_error_text().trim_start_matches("config_json")))
                })?
            }
            other => {
                return Err(fail(
                    AF_ERR_INVALID,
                    &format!("config_json.{other}: unknown key; allowed: mcpPath, debugPath, allowedOrigins, bearerToken, maxBodyBytes, maxSessions, maxStreams, maxCalls, sessionIdleSeconds, metadata, mcp"),
                ))
            }
        }
    }
    Ok(c)
}

/// Creates an HTTP exchange over `d` from `config_json` (borrowed; NULL is `{}`):
/// `{"mcpPath"` (default `"/mcp"`; null: no MCP endpoint), `"debugPath"` (the debug page's path; absent or null:
/// off), `"allowedOrigins"` (origins allowed besides loopback ones; `"*"` all),
/// `"bearerToken"` (required on every request when set), `"maxBodyBytes"` (8 MiB),
/// `"maxSessions"` (100), `"maxStreams"` (32), `"maxCalls"` (64), `"sessionIdleSeconds"`
/// (1800), `"metadata"` (the agent view's metadata, `{}`), `"mcp"` (an
/// `af_mcp_configure` object; defaults: the dispatcher's MCP configuration)}`.
/// docs/http.md describes each. NULL on error (`af_last_error` names the key).
#[no_mangle]
pub unsafe extern "C" fn af_http_server_new(
    d: *mut af_dispatcher,
    config_json: *const c_char,
) -> *mut af_http_server {
    boundary(|| {
        if let Some(none) = left_out() {
            return none;
        }
        // SAFETY: checked by the helpers.
        let Ok(d) = (unsafe { af_dispatcher::get(d) }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: as above.
        let json = match unsafe { opt_str_arg(config_json, "config_json") } {
            Ok(j) => j.unwrap_or("{}"),
            Err(_) => return std::ptr::null_mut(),
        };
        let base = d.mcp_config.lock().clone();
        let Ok(c) = http_config_from(json, &base) else {
            return std::ptr::null_mut();
        };
        match HttpServer::new(&d.d, c) {
            Ok(s) => af_http_server::new(s),
            Err(e) => {
                set_last_error(&format!("config_json.{e}"));
                std::ptr::null_mut()
            }
        }
    })
}

/// Frees the exchange: its sessions end (a session's `GET` stream answers its end), its
/// sweep of idle sessions leaves the core's timer and its idle worker threads exit (one
/// running a tool call exits when the call ends; the free does not wait for it); streams
/// already handed out are still the host's to free. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_http_server_free(s: *mut af_http_server) {
    boundary(|| {
        // SAFETY: made by af_http_server_new, freed once (the header's contract).
        unsafe { af_http_server::free(s) }
    })
}

/// The largest body the exchange accepts: read at most one byte more.
#[no_mangle]
pub unsafe extern "C" fn af_http_server_max_body_bytes(s: *const af_http_server) -> u64 {
    boundary(|| {
        // SAFETY: checked by the helper.
        match unsafe { af_http_server::get(s) } {
            Ok(s) => s.config().max_body_bytes as u64,
            Err(_) => 0,
        }
    })
}

/// Sets the host's authorization hook, run for every request after the Origin and
/// bearer token checks; NULL `cb` removes it. `free_user_data` runs when it is replaced
/// or the server is freed.
#[no_mangle]
pub unsafe extern "C" fn af_http_server_set_authorize(
    s: *mut af_http_server,
    cb: af_http_authorize_fn,
    user_data: *mut c_void,
    free_user_data: af_free_fn,
) -> af_status {
    boundary(|| {
        let data = ForeignData {
            ptr: user_data,
            free: free_user_data,
        };
        // SAFETY: checked by the helper.
        let s = try_status!(unsafe { af_http_server::get(s) });
        let hook = cb.map(|f| {
            let h: crate::http::Authorize = Arc::new(move |req: &Request<'_>| {
                let data = &data;
                let method = to_cstring(req.method);
                let path = to_cstring(req.path);
                let query = to_cstring(req.query);
                let mut block = String::new();
                for (n, v) in &req.headers {
                    block.push_str(n);
                    block.push_str(": ");
                    block.push_str(v);
                    block.push('\n');
                }
                let headers = to_cstring(&block);
                let r = af_http_request {
                    struct_size: std::mem::size_of::<af_http_request>() as u32,
                    reserved: 0,
                    method: method.as_ptr(),
                    path: path.as_ptr(),
                    query: query.as_ptr(),
                    headers: headers.as_ptr(),
                    body: req.body.as_ptr(),
                    body_len: req.body.len() as u64,
                };
                // SAFETY: the host's callback with its own data; the request is borrowed
                // for the call.
                match unsafe { f(data.ptr, &r) } {
                    0 => Ok(()),
                    st => Err(u16::try_from(st).unwrap_or(403)),
                }
            });
            h
        });
        s.set_authorize(hook);
        AF_OK
    })
}

/// Handles one request and returns its response (owned; `af_http_response_free`). NULL
/// only for a NULL or malformed argument (`af_last_error` says which). The request is
/// borrowed for the call. A response with a stream returns at once (a `tools/call` runs
/// on a worker): send its status and headers, then take the stream.
#[no_mangle]
pub unsafe extern "C" fn af_http_handle(
    s: *mut af_http_server,
    request: *const af_http_request,
) -> *mut af_http_response {
    boundary(|| {
        // SAFETY: checked by the helper.
        let Ok(s) = (unsafe { af_http_server::get(s) }) else {
            return std::ptr::null_mut();
        };
        if request.is_null() {
            set_last_error("request is NULL");
            return std::ptr::null_mut();
        }
        // SAFETY: the host passes a valid request for this call; struct_size first.
        let size = unsafe { (*request).struct_size } as usize;
        if size < std::mem::size_of::<af_http_request>() {
            set_last_error(&format!(
                "request.struct_size is {size}, smaller than af_http_request ({}): initialise it with AF_HTTP_REQUEST_INIT",
                std::mem::size_of::<af_http_request>()
            ));
            return std::ptr::null_mut();
        }
        // SAFETY: as above.
        let r = unsafe { &*request };
        // SAFETY: strings borrowed for this call (checked by the helpers), one at a time so
        // the last error names the first bad one.
        let Ok(method) = (unsafe { str_arg(r.method, "request.method") }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: as above.
        let Ok(path) = (unsafe { str_arg(r.path, "request.path") }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: as above.
        let Ok(query) = (unsafe { opt_str_arg(r.query, "request.query") }) else {
            return std::ptr::null_mut();
        };
        // SAFETY: as above.
        let Ok(headers) = (unsafe { opt_str_arg(r.headers, "request.headers") }) else {
            return std::ptr::null_mut();
        };
        let Ok(len) = usize::try_from(r.body_len) else {
            set_last_error("request.body_len does not fit this platform's address space");
            return std::ptr::null_mut();
        };
        let body: &[u8] = if r.body.is_null() || len == 0 {
            &[]
        } else {
            // SAFETY: the host lends body_len bytes at body for this call.
            unsafe { std::slice::from_raw_parts(r.body, len) }
        };
        let req = Request {
            method,
            path,
            query: query.unwrap_or(""),
            headers: Request::parse_headers(headers.unwrap_or("")),
            body,
        };
        let resp: Response = s.handle(&req);
        let mut block = String::new();
        for (n, v) in &resp.headers {
            block.push_str(n);
            block.push_str(": ");
            block.push_str(v);
            block.push('\n');
        }
        let (body, stream) = match resp.body {
            Body::Empty => (Vec::new(), None),
            Body::Bytes(b) => (b, None),
            Body::Stream(st) => (Vec::new(), Some(st)),
        };
        af_http_response::new(FfiResponse {
            status: resp.status,
            headers: block,
            body,
            stream: parking_lot::Mutex::new(stream),
        })
    })
}

/// The response; NULL is `AF_ERR_NULL` (and `None`).
///
/// # Safety
/// `r` is NULL or a live response (the header's contract).
unsafe fn response<'a>(r: *const af_http_response) -> Option<&'a FfiResponse> {
    // SAFETY: the caller's contract.
    unsafe { af_http_response::get(r) }.ok()
}

/// The response's HTTP status (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn af_http_response_status(r: *const af_http_response) -> i32 {
    boundary_or(0, || {
        // SAFETY: checked by the helper.
        unsafe { response(r) }.map_or(0, |r| i32::from(r.status))
    })
}

/// The response's headers as `Name: value` lines, each ended by `\n` (owned; "" when
/// none). NULL for NULL.
#[no_mangle]
pub unsafe extern "C" fn af_http_response_headers_copy(r: *const af_http_response) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helper.
        unsafe { response(r) }.map_or(std::ptr::null_mut(), |r| out_string(&r.headers))
    })
}

/// The response's body, lent until `af_http_response_free`; its length in `*out_len`
/// (0 for a stream or an empty body; `out_len` required). NULL when empty.
#[no_mangle]
pub unsafe extern "C" fn af_http_response_body(
    r: *const af_http_response,
    out_len: *mut u64,
) -> *const u8 {
    boundary(|| {
        if out_len.is_null() {
            set_last_error("out_len is NULL");
            return std::ptr::null();
        }
        // SAFETY: checked by the helper; out_len checked above.
        match unsafe { response(r) } {
            Some(r) if !r.body.is_empty() => {
                unsafe { *out_len = r.body.len() as u64 };
                r.body.as_ptr()
            }
            _ => {
                // SAFETY: checked above.
                unsafe { *out_len = 0 };
                std::ptr::null()
            }
        }
    })
}

/// Takes the response's event stream (owned; `af_http_stream_free`), or NULL when the
/// response has none (or it was taken). Send the status and headers first.
#[no_mangle]
pub unsafe extern "C" fn af_http_response_take_stream(
    r: *mut af_http_response,
) -> *mut af_http_stream {
    boundary(|| {
        // SAFETY: checked by the helper.
        match unsafe { response(r) }.and_then(|r| r.stream.lock().take()) {
            Some(st) => af_http_stream::new(st),
            None => std::ptr::null_mut(),
        }
    })
}

/// Frees a response; a stream not taken is closed. Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_http_response_free(r: *mut af_http_response) {
    boundary(|| {
        // SAFETY: made by af_http_handle, freed once (the header's contract).
        unsafe { af_http_response::free(r) }
    })
}

/// Waits up to `timeout_ms` for the stream's next frame. `AF_OK` with `*out_frame` set:
/// one complete SSE frame (owned, `af_string_free`) to write and flush. `AF_OK` with
/// `*out_frame` NULL: the stream is over; finish the response. `AF_ERR_TIMED_OUT`:
/// nothing yet, the stream is open (a host may write `:\n\n` as a keep-alive, which also
/// finds a client that went away). Blocks the calling thread meanwhile.
#[no_mangle]
pub unsafe extern "C" fn af_http_stream_next_copy(
    st: *mut af_http_stream,
    timeout_ms: u32,
    out_frame: *mut *mut c_char,
) -> af_status {
    boundary(|| {
        if st.is_null() || out_frame.is_null() {
            return fail(
                AF_ERR_NULL,
                if st.is_null() {
                    "the stream is NULL"
                } else {
                    "out_frame is NULL"
                },
            );
        }
        // SAFETY: made by af_http_response_take_stream and not freed; out_frame checked.
        let stream = unsafe { &*(st as *const EventStream) };
        unsafe { *out_frame = std::ptr::null_mut() };
        match stream.next(Duration::from_millis(u64::from(timeout_ms))) {
            Next::Event(f) => {
                // SAFETY: checked above.
                unsafe { *out_frame = out_string(&f) };
                AF_OK
            }
            Next::End => AF_OK,
            Next::Idle => fail(
                AF_ERR_TIMED_OUT,
                &format!("no frame within {timeout_ms} ms; the stream is open"),
            ),
        }
    })
}

/// Frees a stream: for the core, the client went away (a 2026-07-28 call it carries is
/// cancelled; a subscription ends; its slot frees). Calling with NULL is fine.
#[no_mangle]
pub unsafe extern "C" fn af_http_stream_free(st: *mut af_http_stream) {
    boundary(|| {
        // SAFETY: made by af_http_response_take_stream, freed once.
        unsafe { af_http_stream::free(st) }
    })
}

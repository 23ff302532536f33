//! MCP Streamable HTTP and the debug page in a build without the `http` cargo feature: what
//! the C ABI's `af_http_*` functions reach. No [`HttpServer`] can be made:
//! [`HttpServer::new`] answers that the exchange is not in this build, so no response or
//! stream ever exists either.

use super::types::{Authorize, HttpConfig, Request, Response};
use crate::engine::dispatcher::Dispatcher;
use std::time::Duration;

/// What the HTTP functions answer in this build.
pub(crate) fn left_out() -> String {
    crate::model::error::left_out(
        "the HTTP exchange (MCP Streamable HTTP, the debug page API)",
        "http",
    )
}

/// What [`EventStream::next`] found (as in a build with the exchange).
#[allow(dead_code)] // no stream exists to find anything
pub enum Next {
    /// One complete SSE frame.
    Event(String),
    /// Nothing within the timeout.
    Idle,
    /// The stream is over.
    End,
}

/// No stream exists in this build (an empty enum has no value).
pub enum EventStream {}

impl EventStream {
    /// Unreachable: no stream exists.
    pub fn next(&self, _timeout: Duration) -> Next {
        match *self {}
    }
}

/// No exchange exists in this build.
pub enum HttpServer {}

impl HttpServer {
    /// Refuses: the exchange is not in this build.
    pub fn new(_dispatcher: &Dispatcher, _config: HttpConfig) -> Result<HttpServer, String> {
        Err(left_out())
    }

    /// Unreachable: no exchange exists.
    pub fn config(&self) -> &HttpConfig {
        match *self {}
    }

    /// Unreachable: no exchange exists.
    pub fn set_authorize(&self, _hook: Option<Authorize>) {
        match *self {}
    }

    /// Unreachable: no exchange exists.
    pub fn handle(&self, _req: &Request<'_>) -> Response {
        match *self {}
    }
}

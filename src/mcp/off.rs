//! The MCP server in a build without the `mcp` cargo feature: what the C ABI's `af_mcp_*`
//! functions reach. No [`Session`] can be made: [`Session::new`] answers that the server
//! is not in this build, so nothing else here ever runs.

use crate::engine::dispatcher::Dispatcher;
use crate::view::View;
use serde_json::Value;
use std::sync::Arc;

pub use super::config::{McpConfig, Notify};

/// What the MCP functions answer in this build.
pub(crate) fn left_out() -> String {
    crate::model::error::left_out("the MCP server", "mcp")
}

/// No session exists in this build (an empty enum has no value).
pub enum Session {}

impl Session {
    /// Refuses: the MCP server is not in this build.
    pub fn new(
        _dispatcher: &Dispatcher,
        _config: McpConfig,
        _metadata: Value,
    ) -> Result<Arc<Session>, String> {
        Err(left_out())
    }

    /// Unreachable: no session exists.
    pub fn handle_bytes(&self, _message: &[u8]) -> Option<String> {
        match *self {}
    }

    /// Unreachable: no session exists.
    pub fn set_notify(&self, _notify: Option<Notify>) {
        match *self {}
    }

    /// Unreachable: no session exists.
    pub fn view(&self) -> &Arc<View> {
        match *self {}
    }
}

/// The stdio transport: unreachable, it needs a session.
pub mod stdio {
    use super::Session;
    use std::io::{BufRead, Write};
    use std::sync::Arc;

    /// Unreachable: no session exists.
    pub fn serve<R: BufRead, W: Write + Send + 'static>(
        session: Arc<Session>,
        _input: R,
        _output: W,
    ) -> std::io::Result<()> {
        match *session {}
    }
}

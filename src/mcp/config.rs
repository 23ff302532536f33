//! The MCP server's settings and where its notifications go: what the C ABI keeps for a
//! dispatcher (`af_mcp_configure`, `af_mcp_set_notify`) in every build, the `mcp` cargo
//! feature's or not.

use std::sync::Arc;

/// Server settings.
#[derive(Clone, Debug)]
pub struct McpConfig {
    /// `serverInfo.name`.
    pub server_name: String,
    /// `serverInfo.version`.
    pub server_version: String,
    /// `serverInfo.title`.
    pub server_title: Option<String>,
    /// Instructions returned by `initialize` and `server/discover` (in the handshake era
    /// the view's expanded toolkits' prompts are appended).
    pub instructions: Option<String>,
    /// Tools per `tools/list` page; 0 is everything in one page.
    pub page_size: usize,
    /// Largest accepted message, in bytes (default 8 MiB). A transport stops reading a
    /// longer one at this size and skips the rest.
    pub max_message_bytes: usize,
    /// Most `subscriptions/listen` streams open at once on a session (default 16).
    pub max_subscriptions: usize,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            server_name: "appfunctions".into(),
            server_version: env!("CARGO_PKG_VERSION").into(),
            server_title: None,
            instructions: None,
            page_size: 0,
            max_message_bytes: 8 << 20,
            max_subscriptions: 16,
        }
    }
}

/// Sends a server-initiated message (a notification) to the transport.
pub type Notify = Arc<dyn Fn(&str) + Send + Sync>;

//! HTTP: the MCP Streamable HTTP exchange and the debug page's API, above [`mcp`](crate::mcp).

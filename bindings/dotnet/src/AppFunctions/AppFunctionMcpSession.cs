using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// One MCP connection served by the core: its negotiation state, its own agent view (collapsed
/// toolkits expand per session) and its calls in flight. Feed it the client's JSON-RPC messages
/// with <see cref="Handle"/> and send what <see cref="SetNotify"/> receives (list_changed) on the
/// same transport. Thread-safe; dispose it when the connection closes.
/// </summary>
public sealed class AppFunctionMcpSession : IDisposable
{
    private readonly McpSessionHandle _handle;

    internal AppFunctionMcpSession(AppFunctionDispatcher dispatcher, string? metadataJson)
    {
        _handle = NativeCalls.NewMcpSession(dispatcher.Handle, metadataJson);
    }

    /// <summary>Answers one JSON-RPC message (null for a notification). A <c>tools/call</c> blocks
    /// until its outcome: call it from a thread per message to keep reading meanwhile.</summary>
    public string? Handle(string message) => NativeCalls.McpSessionHandle(_handle, message);

    /// <summary>Where the session sends server-initiated messages (<c>notifications/tools/list_changed</c>);
    /// null removes the sink. Called from any thread.</summary>
    public void SetNotify(Action<string>? notify) => NativeCalls.McpSessionSetNotify(_handle, notify);

    /// <summary>Replaces the metadata of the session's view; the client gets list_changed.</summary>
    public void SetMetadata(string metadataJson) => NativeCalls.McpSessionSetMetadata(_handle, metadataJson);

    /// <inheritdoc/>
    public void Dispose() => _handle.Dispose();
}

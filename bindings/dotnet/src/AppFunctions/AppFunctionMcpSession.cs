using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// One MCP connection served by the core: its negotiation state, its own agent view (collapsed
/// toolkits expand per session) and its calls in flight. Feed it the client's JSON-RPC messages
/// with <see cref="Handle"/> and send what <see cref="SetNotify"/> receives (list_changed) on the
/// same transport. Thread-safe; dispose it when the connection closes.
/// </summary>
public sealed unsafe class AppFunctionMcpSession : IDisposable
{
    private readonly McpSessionHandle _handle;

    internal AppFunctionMcpSession(AppFunctionDispatcher dispatcher, string? metadataJson)
    {
        using var m = new Utf8.Text(metadataJson, default);
        var raw = Native.af_mcp_session_new(dispatcher.Handle, m.Pointer);
        if (raw == 0)
        {
            throw AppFunctionDispatcher.Error("creating an MCP session");
        }
        _handle = McpSessionHandle.FromRaw(raw);
    }

    /// <summary>Answers one JSON-RPC message (null for a notification). A <c>tools/call</c> blocks
    /// until its outcome: call it from a thread per message to keep reading meanwhile.</summary>
    public string? Handle(string message)
    {
        using var m = new Utf8.Text(message, default);
        return Utf8.Take(Native.af_mcp_session_handle_json(_handle, m.Pointer));
    }

    /// <summary>Where the session sends server-initiated messages (<c>notifications/tools/list_changed</c>);
    /// null removes the sink. Called from any thread.</summary>
    public void SetNotify(Action<string>? notify)
    {
        int st = notify is null
            ? Native.af_mcp_session_set_notify(_handle, null, null, null)
            : Native.af_mcp_session_set_notify(_handle, &Trampolines.McpNotify, UserData.Alloc(notify), &Trampolines.Release);
        AppFunctionDispatcher.Check(st, "SetNotify");
    }

    /// <summary>Replaces the metadata of the session's view; the client gets list_changed.</summary>
    public void SetMetadata(string metadataJson)
    {
        using var m = new Utf8.Text(metadataJson, default);
        AppFunctionDispatcher.Check(Native.af_mcp_session_set_metadata(_handle, m.Pointer), "SetMetadata");
    }

    /// <inheritdoc/>
    public void Dispose() => _handle.Dispose();
}

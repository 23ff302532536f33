using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// What one conversation's model sees of a dispatcher (seed 004): collapsed toolkits (one
/// container tool until called; its FunctionResult once, its SystemPrompt in
/// <see cref="Instructions"/> while expanded), conditional functions, <c>{metadata.X}</c>
/// templates, output tools. Thread-safe; dispose it when the conversation ends.
/// </summary>
public sealed unsafe class AppFunctionView : IDisposable
{
    private readonly ViewHandle _handle;

    internal AppFunctionView(AppFunctionDispatcher dispatcher, string? metadataJson)
    {
        Dispatcher = dispatcher;
        using var m = new Utf8.Text(metadataJson, default);
        var raw = Native.af_view_new(dispatcher.Handle, m.Pointer);
        if (raw == 0)
        {
            throw AppFunctionDispatcher.Error("creating a view");
        }
        _handle = ViewHandle.FromRaw(raw);
    }

    /// <summary>The dispatcher the view shows.</summary>
    public AppFunctionDispatcher Dispatcher { get; }

    internal ViewHandle Handle => _handle;

    /// <summary>Changes whenever what the view shows (tools or instructions) may have changed.</summary>
    public ulong Generation => Native.af_view_generation(_handle);

    /// <summary>The tools the model sees now, in an export format (<c>mcp</c>, <c>openai</c>, <c>openai-chat</c>, <c>anthropic</c>, <c>gemini</c>).</summary>
    public string GetTools(string format = "mcp")
    {
        Span<byte> buf = stackalloc byte[64];
        using var f = new Utf8.Text(format, buf);
        return Utf8.Take(Native.af_view_tools_json(_handle, f.Pointer)) ?? throw AppFunctionDispatcher.Error($"the view's tools ({format})");
    }

    /// <summary>The system prompts of the toolkits expanded now, joined by blank lines ("" when none).</summary>
    public string Instructions => Utf8.Take(Native.af_view_instructions_copy(_handle)) ?? "";

    /// <summary>Runs what the model called (<see cref="AppFunctionInvocation.FunctionId"/> is the tool name):
    /// a container expands and answers its FunctionResult; an output function answers its arguments
    /// with <see cref="AppFunctionOutcome.IsFinal"/>. Never throws.</summary>
    public Task<AppFunctionOutcome> Execute(AppFunctionInvocation invocation, string? argumentsJson, CancellationToken cancellationToken = default) =>
        AppFunctionDispatcher.Run(this, invocation, argumentsJson, cancellationToken, null);

    /// <summary>Replaces the metadata (a JSON object); visibility and descriptions follow at once.</summary>
    public void SetMetadata(string metadataJson)
    {
        using var m = new Utf8.Text(metadataJson, default);
        AppFunctionDispatcher.Check(Native.af_view_set_metadata(_handle, m.Pointer), "SetMetadata");
    }

    /// <summary>Collapses every toolkit again.</summary>
    public void Reset() => AppFunctionDispatcher.Check(Native.af_view_reset(_handle), "Reset");

    /// <summary>The text tools show when a void function succeeds.</summary>
    public void SetConfirmation(string text)
    {
        using var t = new Utf8.Text(text, default);
        AppFunctionDispatcher.Check(Native.af_view_set_confirmation(_handle, t.Pointer), "SetConfirmation");
    }

    /// <inheritdoc/>
    public void Dispose() => _handle.Dispose();
}

using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// What one conversation's model sees of a dispatcher (seed 004): collapsed toolkits (one
/// container tool until called; its FunctionResult once, its SystemPrompt in
/// <see cref="Instructions"/> while expanded), conditional functions, <c>{metadata.X}</c>
/// templates, output tools. Thread-safe; dispose it when the conversation ends.
/// </summary>
public sealed class AppFunctionView : IDisposable
{
    private readonly ViewHandle _handle;

    internal AppFunctionView(AppFunctionDispatcher dispatcher, string? metadataJson)
    {
        Dispatcher = dispatcher;
        _handle = NativeCalls.NewView(dispatcher.Handle, metadataJson);
    }

    /// <summary>The dispatcher the view shows.</summary>
    public AppFunctionDispatcher Dispatcher { get; }

    internal ViewHandle Handle => _handle;

    /// <summary>Whether <see cref="Dispose"/> was called.</summary>
    internal bool IsDisposed => _handle.IsDisposed;

    /// <summary>Changes whenever what the view shows (tools or instructions) may have changed.</summary>
    public ulong Generation => NativeCalls.ViewGeneration(_handle);

    /// <summary>The tools the model sees now, in an export format (<c>mcp</c>, <c>openai</c>, <c>openai-chat</c>, <c>anthropic</c>, <c>gemini</c>).</summary>
    public string GetTools(string format = "mcp") => NativeCalls.ViewTools(_handle, format);

    /// <summary>The system prompts of the toolkits expanded now, joined by blank lines ("" when none).</summary>
    public string Instructions => NativeCalls.ViewInstructions(_handle);

    /// <summary>Runs what the model called (<see cref="AppFunctionInvocation.FunctionId"/> is the tool name):
    /// a container expands and answers its FunctionResult; an output function answers its arguments
    /// with <see cref="AppFunctionOutcome.IsFinal"/>. Never throws.</summary>
    public Task<AppFunctionOutcome> Execute(AppFunctionInvocation invocation, string? argumentsJson, CancellationToken cancellationToken = default) =>
        AppFunctionDispatcher.Run(this, invocation, argumentsJson, cancellationToken, null);

    /// <summary>Runs the tool <paramref name="toolName"/> (platform <c>Other</c>) as
    /// <see cref="Execute(AppFunctionInvocation, string?, CancellationToken)"/> does, in the
    /// foreground by default: a view is the app's own assistant and the user is in the app, so an
    /// <see cref="AppFunctionGate.OpenApp"/> gate passes. Pass <c>isForeground: false</c> for a
    /// caller outside the app.</summary>
    public Task<AppFunctionOutcome> Execute(string toolName, string? argumentsJson, bool isForeground = true, CancellationToken cancellationToken = default) =>
        Execute(new AppFunctionInvocation(toolName) { IsForeground = isForeground }, argumentsJson, cancellationToken);

    /// <summary>Replaces the metadata (a JSON object); visibility and descriptions follow at once.</summary>
    public void SetMetadata(string metadataJson) => NativeCalls.ViewSetMetadata(_handle, metadataJson);

    /// <summary>Collapses every toolkit again.</summary>
    public void Reset() => NativeCalls.ViewReset(_handle);

    /// <summary>The text tools show when a void function succeeds.</summary>
    public void SetConfirmation(string text) => NativeCalls.ViewSetConfirmation(_handle, text);

    /// <inheritdoc/>
    public void Dispose() => _handle.Dispose();
}

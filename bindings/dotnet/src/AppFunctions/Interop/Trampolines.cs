using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>
/// The C callbacks: static <c>[UnmanagedCallersOnly]</c> functions whose address the core
/// keeps. Each recovers its state from the <c>user_data</c> GCHandle and never lets an
/// exception cross into C.
/// </summary>
internal static unsafe partial class Trampolines
{
    /// <summary>The release path of every registration: frees its GCHandle (exactly once, any thread).</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Release(void* userData)
    {
        try
        {
            UserData.Free(userData);
        }
        catch
        {
            // never unwind into C
        }
    }

    /// <summary>A function's handler: <c>user_data</c> is its <see cref="FunctionRegistration"/>.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Handler(void* userData, nint call)
    {
        FunctionRegistration? reg = null;
        try
        {
            reg = UserData.Get<FunctionRegistration>(userData);
            var c = new Generated.AppFunctionCall(reg.Core, reg, call);
            if (reg.Core.HasDelegates || reg.RequiresPermission)
            {
                // delegates or the permission handler may have bound the request already, and
                // OnInvoked reads the result: share the context with them
                c.ResolveContext();
            }
            reg.Handler!(c);
        }
        catch (Exception e)
        {
            Fail(call, e, reg?.Core);
        }
    }

    /// <summary>An entity lookup: <c>user_data</c> is its <see cref="EntityRegistration"/>.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Lookup(void* userData, nint call)
    {
        EntityRegistration? reg = null;
        try
        {
            reg = UserData.Get<EntityRegistration>(userData);
            reg.Lookup(new Generated.AppFunctionCall(reg.Core, null, call));
        }
        catch (Exception e)
        {
            Fail(call, e, reg?.Core);
        }
    }

    /// <summary>Fails the call with what can be said of <paramref name="e"/> (an
    /// <see cref="AppFunctionException"/> keeps its code; a cancellation is <c>Cancelled</c>;
    /// anything else <c>HandlerFailed</c>). Completes the call on every path, even when the
    /// exception's <c>Message</c> throws.</summary>
    internal static void Fail(nint call, Exception e, DispatcherCore? core)
    {
        var code = e is AppFunctionException ae ? ae.Code
            : e is OperationCanceledException ? AppFunctionErrorCode.Cancelled
            : AppFunctionErrorCode.HandlerFailed;
        try
        {
            NativeCalls.CallFail(call, code, MessageOf(e));
        }
        catch (Exception inner)
        {
            try
            {
                core?.LogError(inner, "failing a call failed");
            }
            catch
            {
                // the logger threw too
            }
            NativeCalls.CallFail(call, AppFunctionErrorCode.HandlerFailed, "the handler failed (" + e.GetType().FullName + ")");
        }
    }

    /// <summary>An exception's message, or, when its <c>Message</c> getter throws, what can be
    /// said without it: its type and the type of what the getter threw.</summary>
    internal static string MessageOf(Exception e)
    {
        try
        {
            return e.Message ?? "";
        }
        catch (Exception inner)
        {
            return $"{e.GetType().FullName} (its Message threw {inner.GetType().FullName})";
        }
    }

    /// <summary>The scope-begin hook, installed once the dispatcher serves MCP: a call the core
    /// starts itself gets its context now, released with the call. A call the binding started
    /// carries its <see cref="PendingExecute"/> as the invocation's host context instead.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void ScopeBegin(void* userData, nint call)
    {
        try
        {
            if (NativeCalls.CallInvocationContext(call) is not null)
            {
                return;
            }
            var core = UserData.Get<DispatcherCore>(userData);
            NativeCalls.CallSetContext(call, new AppFunctionContext(core, call, null));
        }
        catch
        {
            // the context is created on demand later
        }
    }

    /// <summary>The release of a call's context (its host data): the core runs it once, after the
    /// call's scope ended, on every path. The call's DI scope is disposed here.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void EndContext(void* userData)
    {
        try
        {
            var context = UserData.Get<AppFunctionContext>(userData);
            UserData.Free(userData);
            context.End();
        }
        catch
        {
            // End logs what fails itself; nothing may unwind into C
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void OnInvoking(void* userData, nint call, nint gate)
    {
        DelegateRegistration? reg = null;
        try
        {
            reg = UserData.Get<DelegateRegistration>(userData);
            reg.Invoking(call, gate);
        }
        catch (Exception e)
        {
            reg?.Core.LogError(e, "a delegate's OnInvoking failed");
            NativeCalls.Answer(gate, AppFunctionGate.Deny(MessageOf(e)));
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void OnInvoked(void* userData, nint call, byte* outcomeJson)
    {
        DelegateRegistration? reg = null;
        try
        {
            reg = UserData.Get<DelegateRegistration>(userData);
            reg.Invoked(call, Utf8.Span(outcomeJson));
        }
        catch (Exception e)
        {
            reg?.Core.LogInvokedFailure(call, e);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Permission(void* userData, nint call, nint gate)
    {
        DispatcherCore? core = null;
        try
        {
            core = UserData.Get<DispatcherCore>(userData);
            core.AskPermission(call, gate);
        }
        catch (Exception e)
        {
            core?.LogError(e, "the permission handler failed");
            NativeCalls.Answer(gate, AppFunctionGate.Deny("the permission handler failed: " + MessageOf(e)));
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Log(void* userData, int level, byte* message)
    {
        try
        {
            UserData.Get<DispatcherCore>(userData).CoreLog(level, Utf8.Read(message) ?? "");
        }
        catch
        {
            // logging must never fail the core
        }
    }

    /// <summary>The outcome of <c>af_execute_async</c>/<c>af_view_execute_async</c>: its own release.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Outcome(void* userData, byte* outcomeJson)
    {
        PendingExecute? pending = null;
        try
        {
            pending = UserData.Get<PendingExecute>(userData);
            UserData.Free(userData);
            pending.Complete(AppFunctionOutcome.Parse(Utf8.Span(outcomeJson)));
        }
        catch (Exception e)
        {
            pending?.Complete(AppFunctionOutcome.Failure(AppFunctionErrorCode.InternalError, "AppFunctions: " + MessageOf(e)));
        }
    }

    /// <summary><c>af_call_on_cancel</c>: user_data is the call's CancellationTokenSource.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void Cancel(void* userData)
    {
        try
        {
            UserData.Get<CancellationTokenSource>(userData).Cancel();
        }
        catch
        {
            // a handler's cancellation callback threw: nothing to report it to here
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void ToolkitText(void* userData, byte* toolkit, int which, byte* metadataJson, nint output)
    {
        try
        {
            var texts = UserData.Get<ToolkitTexts>(userData);
            var text = texts.Text(which, Utf8.Read(metadataJson) ?? "{}");
            if (text is not null)
            {
                NativeCalls.SetText(output, text);
            }
        }
        catch
        {
            // not answering uses the static text
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void McpNotify(void* userData, byte* message)
    {
        try
        {
            UserData.Get<Action<string>>(userData)(Utf8.Read(message) ?? "");
        }
        catch
        {
            // the host's sink threw
        }
    }
}

/// <summary>Options of one <c>Execute</c> that the core cannot carry.</summary>
internal sealed class PendingOptions
{
    /// <summary>The caller already approved a RequiresPermission function (an approved AI tool call).</summary>
    internal bool PreApproved { get; init; }
}

/// <summary>
/// One call started by the binding (<c>Execute</c>, a view's <c>Execute</c>, <c>ExecuteJson</c>):
/// its GCHandle is the outcome callback's <c>user_data</c> and the invocation's
/// <c>host_context</c>, so every callback of the call and of its entity lookups finds it
/// (<c>af_call_invocation_context</c>) without a hook of its own. It owns the call's
/// <see cref="AppFunctionContext"/>, made only when a delegate, a hook, a provider or the
/// handler asks for it, and ended (its DI scope disposed) when the outcome arrives: after the
/// core has run <c>on_invoked</c> and ended the call. Completed inline (no Task machinery beyond
/// the result) or later through a TaskCompletionSource.
/// </summary>
internal sealed class PendingExecute(DispatcherCore core, string functionId, PendingOptions? options)
{
    private const int Running = 0, Done = 1, Waiting = 2;

    private int _state;
    private AppFunctionOutcome? _outcome;
    private TaskCompletionSource<AppFunctionOutcome>? _tcs;
    private AppFunctionContext? _context;

    internal DispatcherCore Core { get; } = core;

    internal PendingOptions? Options { get; } = options;

    internal CancelTokenHandle? Token { get; set; }

    internal CancellationTokenRegistration Registration { get; set; }

    /// <summary>The call's context for <paramref name="call"/>: this call's own, or a lookup's
    /// that shares its items and DI scope. The first callback may be a lookup's (lookups run
    /// before the delegates), so the call's handle is learnt when the call itself shows up.</summary>
    internal AppFunctionContext ContextFor(nint call)
    {
        var context = _context;
        if (context is null)
        {
            var made = new AppFunctionContext(Core, 0, Options);
            context = Interlocked.CompareExchange(ref _context, made, null) ?? made;
        }
        if (context.Call == call)
        {
            return context;
        }
        if (context.Call == 0 && IsThisCall(call) && context.AdoptCall(call))
        {
            return context;
        }
        return context.For(call);
    }

    /// <summary>The call itself, not one of its lookups: a function call (lookups are entity
    /// lookups), or the entity search the invocation named (which has no lookups).</summary>
    private bool IsThisCall(nint call) =>
        NativeCalls.CallIsFunction(call)
        || NativeCalls.CallFunctionIdUtf8(call).SequenceEqual(System.Text.Encoding.UTF8.GetBytes(functionId));

    /// <summary>The call ended: its context (and DI scope) too.</summary>
    internal void EndContext()
    {
        if (Volatile.Read(ref _context) is null)
        {
            return; // the common call: nothing asked for a context
        }
        Interlocked.Exchange(ref _context, null)?.End();
    }

    internal void Complete(AppFunctionOutcome outcome)
    {
        Registration.Unregister();
        Token?.Dispose();
        try
        {
            EndContext();
        }
        catch (Exception e)
        {
            Core.LogError(e, "ending the call's context failed");
        }
        _outcome = outcome;
        if (Interlocked.Exchange(ref _state, Done) == Waiting)
        {
            _tcs!.TrySetResult(outcome);
        }
    }

    internal Task<AppFunctionOutcome> Task
    {
        get
        {
            if (Volatile.Read(ref _state) == Done)
            {
                return System.Threading.Tasks.Task.FromResult(_outcome!);
            }
            _tcs = new TaskCompletionSource<AppFunctionOutcome>(TaskCreationOptions.RunContinuationsAsynchronously);
            return Interlocked.CompareExchange(ref _state, Waiting, Running) == Done
                ? System.Threading.Tasks.Task.FromResult(_outcome!)
                : _tcs.Task;
        }
    }
}

/// <summary>Dynamic toolkit texts (the seed's <c>FunctionResult: nameof(...)</c>).</summary>
internal sealed class ToolkitTexts(Func<int, string, string?> text)
{
    internal string? Text(int which, string metadataJson) => text(which, metadataJson);
}

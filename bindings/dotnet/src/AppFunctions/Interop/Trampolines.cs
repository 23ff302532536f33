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
            reg.Invoked(call, outcomeJson);
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
            pending = UserData.Get<PendingExecute>(userData); // its handle: freed by Complete when no longer used
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

    /// <summary><c>af_call_on_cancel</c> of a pending call's context: user_data is its
    /// <see cref="CancelSlot"/>'s number and the call's generation (no release).</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    internal static void CancelSlotted(void* userData)
    {
        try
        {
            CancelSlot.Cancel((nuint)userData);
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
/// <para>A call that completes inline (the common one) gives its pending call back to its
/// thread, GCHandle and all, for the thread's next call: no GCHandle is allocated or freed per
/// call. While it waits there, its handle points at nothing (<see cref="GCHandle.Target"/> is
/// null), so a thread that ends lets it go, and its finalizer frees the handle. A call that
/// completes later belongs to its outcome callback, which frees the handle.</para>
/// </summary>
internal sealed unsafe class PendingExecute
{
    private const int Running = 0, Done = 1, Waiting = 2;

    [ThreadStatic]
    private static PendingExecute? t_free;

    [ThreadStatic]
    private static PendingExecute? t_running;

    private static long s_handles;

    private GCHandle _handle;
    private CancelSlot? _slot; // taken when a context is first made for one of its calls
    private string _functionId = "";
    private AppFunctionPlatform _platform;
    private int _state;
    private AppFunctionOutcome? _outcome;
    private TaskCompletionSource<AppFunctionOutcome>? _tcs;
    private AppFunctionContext? _context;

    private PendingExecute()
    {
        _handle = GCHandle.Alloc(this);
        Interlocked.Increment(ref s_handles);
    }

    /// <summary>The GCHandles of pending calls that exist now (in use or kept by a thread for
    /// its next call): a leak would grow it with the calls made.</summary>
    internal static long Handles => Interlocked.Read(ref s_handles);

    /// <summary>A pending call for this thread's next call: the one its last call gave back, or a new one.</summary>
    internal static PendingExecute Rent(DispatcherCore core, string functionId, AppFunctionPlatform platform, PendingOptions? options)
    {
        var p = t_free;
        if (p is null)
        {
            p = new PendingExecute();
        }
        else
        {
            t_free = null;
            p._handle.Target = p;
        }
        p.Core = core;
        p._functionId = functionId;
        p._platform = platform;
        p.Options = options;
        return p;
    }

    /// <summary>The pending call whose start (<c>af_execute_async</c> and the like) runs on this
    /// thread now: the callbacks it makes inline find their context without asking the core.</summary>
    internal static PendingExecute? Current => t_running;

    /// <summary>This pending call's start begins on this thread; the one running before (a call
    /// this call's handler makes nests) is given back to <see cref="Leave"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal PendingExecute? Enter()
    {
        var outer = t_running;
        t_running = this;
        return outer;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void Leave(PendingExecute? outer) => t_running = outer;

    /// <summary>This call's own context when it serves <paramref name="call"/> (it has learnt
    /// the call's handle), else null: the caller asks the core.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal AppFunctionContext? OwnContext(nint call)
    {
        var context = Volatile.Read(ref _context);
        return context is not null && context.Call == call ? context : null;
    }

    /// <summary>The slot through which the core cancels this call's context's token, taken when
    /// the first context is made (null: none left). Calls that make no context never take one.</summary>
    internal CancelSlot? Slot
    {
        get
        {
            var slot = Volatile.Read(ref _slot);
            if (slot is null && CancelSlot.Take() is { } taken)
            {
                // two callbacks of the call on two threads may both make its context
                slot = Interlocked.CompareExchange(ref _slot, taken, null) ?? taken;
                if (!ReferenceEquals(slot, taken))
                {
                    taken.Give();
                }
            }
            return slot;
        }
    }

    /// <summary>The <c>user_data</c> and <c>host_context</c> the core is given (the GCHandle).</summary>
    internal void* UserData => (void*)GCHandle.ToIntPtr(_handle);

    internal DispatcherCore Core { get; private set; } = null!;

    internal PendingOptions? Options { get; private set; }

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
            var made = new AppFunctionContext(Core, 0, Options, this, _platform, _functionId);
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
        || NativeCalls.CallFunctionIdUtf8(call).SequenceEqual(System.Text.Encoding.UTF8.GetBytes(_functionId));

    /// <summary>The call ended: its context (and DI scope) too.</summary>
    internal void EndContext()
    {
        if (Volatile.Read(ref _context) is null)
        {
            return; // the common call: nothing asked for a context
        }
        Interlocked.Exchange(ref _context, null)?.End();
    }

    /// <summary>The outcome (once; a second one is ignored). When <see cref="TakeTask"/> has
    /// already handed out the waiting Task, this is the pending call's last use: its handle is freed.</summary>
    internal void Complete(AppFunctionOutcome outcome)
    {
        if (Volatile.Read(ref _state) == Done)
        {
            return;
        }
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
            // the caller went on with the Task (set before it said Waiting, read after): nothing
            // else uses this pending call
            var tcs = _tcs!;
            Discard();
            tcs.TrySetResult(outcome);
        }
        // otherwise the calling thread reads the outcome in TakeTask and recycles the pending call
    }

    /// <summary>The call's Task. Inline completion: a completed Task, and this pending call goes
    /// back to the thread; otherwise the outcome callback completes the Task later and owns this.</summary>
    internal Task<AppFunctionOutcome> TakeTask()
    {
        if (Volatile.Read(ref _state) != Done)
        {
            var tcs = new TaskCompletionSource<AppFunctionOutcome>(TaskCreationOptions.RunContinuationsAsynchronously);
            _tcs = tcs;
            if (Interlocked.CompareExchange(ref _state, Waiting, Running) != Done)
            {
                return tcs.Task; // from here on the outcome callback owns this pending call
            }
        }
        var task = System.Threading.Tasks.Task.FromResult(_outcome!);
        Recycle();
        return task;
    }

    /// <summary>A call that has ended (its outcome read, or <c>af_execute_json</c> returned, or
    /// the core never took it): back to the thread for its next call.</summary>
    internal void Recycle()
    {
        _outcome = null;
        _tcs = null;
        _context = null;
        Token = null;
        Registration = default;
        Options = null;
        Core = null!;
        _functionId = "";
        _platform = default;
        _state = Running;
        _handle.Target = null;
        if (t_free is null)
        {
            t_free = this;
        }
        else
        {
            Discard(); // a nested call's pending call is kept already
        }
    }

    private void Discard()
    {
        if (_handle.IsAllocated)
        {
            _handle.Free();
            Interlocked.Decrement(ref s_handles);
        }
        Volatile.Read(ref _slot)?.Give();
        GC.SuppressFinalize(this);
    }

    /// <summary>Kept by a thread that ended: only its handle is left to free.</summary>
    ~PendingExecute()
    {
        if (_handle.IsAllocated)
        {
            _handle.Free();
            Interlocked.Decrement(ref s_handles);
        }
        Volatile.Read(ref _slot)?.Give();
    }
}

/// <summary>Dynamic toolkit texts (the seed's <c>FunctionResult: nameof(...)</c>).</summary>
internal sealed class ToolkitTexts(Func<int, string, string?> text)
{
    internal string? Text(int which, string metadataJson) => text(which, metadataJson);
}

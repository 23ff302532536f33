using System.Runtime.InteropServices;
using AppFunctions.Interop;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions;

/// <summary>
/// One call, as delegates, handlers and entity providers see it. Created when the core opens the
/// call's scope (with the call's DI scope) and ended when the core closes it.
/// </summary>
public sealed class AppFunctionContext
{
    private readonly DispatcherCore _core;
    private readonly AppFunctionContext? _parent; // an entity lookup's context shares its call's scope and items
    private AsyncServiceScope _scope;
    private bool _hasScope;
    private string? _functionId;
    private AppFunctionDescriptor? _descriptor;
    private Dictionary<object, object?>? _items;
    private string? _dialog;
    private CancellationTokenSource? _cts;
    private List<Task>? _pendingInvoked;
    private int _ended;
    private readonly CancelSlot? _slot; // the call's own context of a call the binding started: its pending call's
    private readonly AppFunctionPlatform? _platform; // its invocation's, known without asking the core

    internal AppFunctionContext(DispatcherCore core, nint call, PendingOptions? options)
    {
        _core = core;
        _call = call;
        Options = options;
    }

    internal AppFunctionContext(DispatcherCore core, nint call, PendingOptions? options, PendingExecute pending, AppFunctionPlatform platform, string functionId)
        : this(core, call, options)
    {
        _platform = platform;
        // the invocation's id is the call's (a delegate asking for it before the handler ran
        // costs no P/Invoke and no string)
        _functionId = functionId.Length == 0 ? null : functionId;
        _slot = pending.Slot;
        SlotGeneration = _slot?.Issue() ?? 0;
    }

    /// <summary>This context's generation of its pending call's <see cref="CancelSlot"/> (0: no slot).</summary>
    internal long SlotGeneration { get; }

    /// <summary>The token's source, once the token was asked for.</summary>
    internal CancellationTokenSource? CancelSource => Volatile.Read(ref _cts);

    private AppFunctionContext(AppFunctionContext parent, nint call)
    {
        _core = parent._core;
        _parent = parent;
        _call = call;
        Options = parent.Options;
    }

    private nint _call;

    /// <summary>The call's handle (0 until the call's own first callback, when its context was
    /// made for one of its lookups).</summary>
    internal nint Call => Volatile.Read(ref _call);

    /// <summary>Takes the call's handle, once.</summary>
    internal bool AdoptCall(nint call) => Interlocked.CompareExchange(ref _call, call, 0) == 0;

    internal PendingOptions? Options { get; }

    internal DispatcherCore Core => _core;

    internal object? Result { get; set; }

    internal Exception? HandlerException { get; set; }

    internal FunctionRegistration? Registration { get; set; }

    /// <summary>The context of a call that <paramref name="call"/> serves (an entity lookup) or this one.</summary>
    internal AppFunctionContext For(nint call) => call == Call ? this : new AppFunctionContext(this, call);

    /// <summary>The function's id (for an entity lookup, the generated <c>search_{entity}</c>).</summary>
    public string FunctionId => _functionId ??= Registration?.Id ?? NativeCalls.CallFunctionId(Call) ?? "";

    /// <summary>The function's descriptor (as in <see cref="AppFunctionRegistry.Functions"/>).</summary>
    public AppFunctionDescriptor? Function
    {
        get
        {
            if (_descriptor is null)
            {
                var json = NativeCalls.CallDescriptorJson(Call);
                _descriptor = json is null ? null : AppFunctionDescriptor.Parse(json);
            }
            return _descriptor;
        }
    }

    /// <summary>Apple, Android or Other (an in-process call).</summary>
    public AppFunctionPlatform Platform => _platform ?? (AppFunctionPlatform)Math.Max(0, NativeCalls.CallPlatform(Call));

    /// <summary>iOS: the app is in the foreground for this run.</summary>
    public bool IsForeground => NativeCalls.CallIsForeground(Call);

    /// <summary>Android: the calling agent's package name (empty from the shell or in-process).</summary>
    public string CallerPackage => NativeCalls.CallCallerPackage(Call) ?? "";

    /// <summary>True for an entity lookup (a <c>search_{entity}</c> call or an id being resolved).</summary>
    public bool IsEntityLookup => NativeCalls.CallIsEntityLookup(Call);

    /// <summary>The bound arguments as JSON (entity ids replaced by the entities); null for entity lookups.</summary>
    public string? ArgumentsJson => NativeCalls.CallArgs(Call);

    /// <summary>The bound request record (null for entity lookups): the generated
    /// <c>AppFunctionRequests.{Function}</c> type of a declared function.</summary>
    public object? Request
    {
        get
        {
            if (RequestValue is null && !IsEntityLookup)
            {
                var reg = Registration ?? _core.Function(FunctionId);
                if (reg?.Bind is { } bind && NativeCalls.TryCallArgs(Call, out var args))
                {
                    RequestValue = bind(args);
                }
            }
            return RequestValue;
        }
    }

    internal object? RequestValue { get; set; }

    /// <summary>The call's DI scope.</summary>
    public IServiceProvider Services
    {
        get
        {
            if (_parent is not null)
            {
                return _parent.Services;
            }
            if (!_hasScope)
            {
                _scope = _core.ScopeFactory.CreateAsyncScope();
                _hasScope = true;
            }
            return _scope.ServiceProvider;
        }
    }

    /// <summary>State shared between delegates and the handler for this call.</summary>
    public IDictionary<object, object?> Items => _parent?.Items ?? (_items ??= []);

    /// <summary>The text for Siri, or returned with the Android result (the last one wins).</summary>
    public void Say(string text)
    {
        NativeCalls.CallSay(Call, text);
        if (_parent is not null)
        {
            _parent._dialog = text;
        }
        _dialog = text;
    }

    /// <summary>The text said so far for this call, by <see cref="Say"/> or by any other layer
    /// (the core's dialog while the call runs; afterwards, the last <see cref="Say"/>).</summary>
    public string? Dialog
    {
        get
        {
            var call = Call;
            return (call == 0 ? null : NativeCalls.CallDialog(call)) ?? _parent?._dialog ?? _dialog;
        }
    }

    /// <summary>Cancelled when the core cancels the call (a cancelled token, a timeout, shutdown).</summary>
    public CancellationToken CancellationToken
    {
        get
        {
            if (_cts is null)
            {
                var cts = new CancellationTokenSource();
                if (Interlocked.CompareExchange(ref _cts, cts, null) != null)
                {
                    cts.Dispose();
                    return _cts.Token;
                }
                // the call's own context of a call the binding started: no GCHandle nor release per call
                if (_slot is null || !_slot.TryArm(this, Call, cts))
                {
                    NativeCalls.CallOnCancel(Call, cts);
                }
            }
            return _cts.Token;
        }
    }

    internal void TrackInvoked(Task task)
    {
        lock (this)
        {
            (_pendingInvoked ??= []).Add(task);
        }
    }

    /// <summary>The call ended (its host data was released): dispose the DI scope (after any OnInvoked still running).</summary>
    internal void End()
    {
        if (Interlocked.Exchange(ref _ended, 1) != 0)
        {
            return;
        }
        _slot?.Disarm(this);
        Task[]? pending = null;
        // OnInvoked (which tracks) has returned before the call's end: the common call, which
        // tracked nothing, takes no lock
        if (Volatile.Read(ref _pendingInvoked) is not null)
        {
            lock (this)
            {
                pending = _pendingInvoked?.ToArray();
            }
        }
        if (pending is { Length: > 0 })
        {
            _ = Task.WhenAll(pending).ContinueWith(static (_, s) => ((AppFunctionContext)s!).DisposeScope(), this,
                CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
        else
        {
            DisposeScope();
        }
    }

    private void DisposeScope()
    {
        if (!_hasScope)
        {
            return;
        }
        _hasScope = false;
        try
        {
            var t = _scope.DisposeAsync();
            if (!t.IsCompletedSuccessfully)
            {
                _ = Observe(t.AsTask(), _core);
            }
        }
        catch (Exception e)
        {
            _core.LogError(e, "disposing the call's DI scope failed");
        }

        static async Task Observe(Task t, DispatcherCore core)
        {
            try
            {
                await t.ConfigureAwait(false);
            }
            catch (Exception e)
            {
                core.LogError(e, "disposing the call's DI scope failed");
            }
        }
    }
}

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

    internal AppFunctionContext(DispatcherCore core, nint call, PendingOptions? options)
    {
        _core = core;
        _call = call;
        Options = options;
    }

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
    public unsafe string FunctionId => _functionId ??= Registration?.Id ?? Utf8.Read(Native.af_call_function_id(Call)) ?? "";

    /// <summary>The function's descriptor (as in <see cref="AppFunctionRegistry.Functions"/>).</summary>
    public unsafe AppFunctionDescriptor? Function
    {
        get
        {
            if (_descriptor is null)
            {
                var json = Utf8.Take(Native.af_call_descriptor_json(Call));
                _descriptor = json is null ? null : AppFunctionDescriptor.Parse(json);
            }
            return _descriptor;
        }
    }

    /// <summary>Apple, Android or Other (an in-process call).</summary>
    public unsafe AppFunctionPlatform Platform => (AppFunctionPlatform)Math.Max(0, Native.af_call_platform(Call));

    /// <summary>iOS: the app is in the foreground for this run.</summary>
    public unsafe bool IsForeground => Native.af_call_is_foreground(Call) != 0;

    /// <summary>Android: the calling agent's package name (empty from the shell or in-process).</summary>
    public unsafe string CallerPackage => Utf8.Read(Native.af_call_caller_package(Call)) ?? "";

    /// <summary>True for an entity lookup (a <c>search_{entity}</c> call or an id being resolved).</summary>
    public unsafe bool IsEntityLookup => Native.af_call_kind(Call) == Native.AF_CALL_ENTITY_LOOKUP;

    /// <summary>The bound arguments as JSON (entity ids replaced by the entities); null for entity lookups.</summary>
    public unsafe string? ArgumentsJson => Utf8.Read(Native.af_call_args(Call));

    /// <summary>The bound request record (null for entity lookups): the generated
    /// <c>AppFunctionRequests.{Function}</c> type of a declared function.</summary>
    public unsafe object? Request
    {
        get
        {
            if (RequestValue is null && !IsEntityLookup)
            {
                var reg = Registration ?? _core.Function(FunctionId);
                byte* args = Native.af_call_args(Call);
                if (reg?.Bind is { } bind && args is not null)
                {
                    RequestValue = bind(Utf8.Span(args));
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
    public unsafe void Say(string text)
    {
        Span<byte> buf = stackalloc byte[256];
        using var t = new Utf8.Text(text, buf);
        Native.af_call_say(Call, t.Pointer);
        if (_parent is not null)
        {
            _parent._dialog = text;
        }
        _dialog = text;
    }

    /// <summary>The text said so far for this call, by <see cref="Say"/> or by any other layer
    /// (the core's dialog while the call runs; afterwards, the last <see cref="Say"/>).</summary>
    public unsafe string? Dialog
    {
        get
        {
            var call = Call;
            return (call == 0 ? null : Utf8.Take(Native.af_call_dialog_copy(call))) ?? _parent?._dialog ?? _dialog;
        }
    }

    /// <summary>Cancelled when the core cancels the call (a cancelled token, a timeout, shutdown).</summary>
    public unsafe CancellationToken CancellationToken
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
                // cb runs at most once; the release frees the handle exactly once afterwards
                var ud = UserData.Alloc(cts);
                int st = Native.af_call_on_cancel(Call, &Trampolines.Cancel, ud, &Trampolines.Release, null);
                if (st != Native.AF_OK && Native.af_call_is_cancelled(Call) != 0)
                {
                    cts.Cancel();
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
        Task[]? pending;
        lock (this)
        {
            pending = _pendingInvoked?.ToArray();
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

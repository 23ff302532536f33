using System.Runtime.CompilerServices;
using System.Text;
using AppFunctions.Generated;
using AppFunctions.Interop;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace AppFunctions;

/// <summary>
/// Every call — from Siri, from Gemini or from your own code — goes through the dispatcher: a new
/// DI scope, binding, delegates, the handler and the JSON result. Thread-safe. Made by
/// <c>services.AddAppFunctions()</c> (a singleton) or by hand with a service provider.
/// </summary>
public sealed unsafe class AppFunctionDispatcher : IDisposable
{
    private readonly DispatcherHandle _handle;
    private readonly DispatcherCore _core;
    private readonly HashSet<string> _definedTypes = new(StringComparer.Ordinal);
    private readonly object _registrationLock = new();
    private readonly SortedSet<string> _metadataProperties = new(StringComparer.Ordinal);
    private AppFunctionRegistry? _registry;
    private int _registryVersion;
    private bool _scopeHook;

    /// <summary>A dispatcher with every unit the AppFunctions generator found (filtered by
    /// <see cref="AppFunctionsOptions.Include"/>), resolving handlers, delegates and providers
    /// from <paramref name="services"/> (one scope per call).</summary>
    public AppFunctionDispatcher(IServiceProvider services, AppFunctionsOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        options ??= services.GetService<AppFunctionsOptions>() ?? new AppFunctionsOptions();
        var logger = (ILogger?)services.GetService<ILoggerFactory>()?.CreateLogger("AppFunctions") ?? NullLogger.Instance;
        _handle = DispatcherHandle.Create();
        _core = new DispatcherCore(services.GetRequiredService<IServiceScopeFactory>(), logger);
        try
        {
            Setup(options);
        }
        catch
        {
            _handle.Dispose(); // what was registered is released now, not by the finalizer
            throw;
        }
    }

    private void Setup(AppFunctionsOptions options)
    {
        Check(Native.af_set_permission_hook(_handle, &Trampolines.Permission, UserData.Alloc(_core), &Trampolines.Release), "af_set_permission_hook");
        Check(Native.af_set_log_callback(_handle, &Trampolines.Log, UserData.Alloc(_core), &Trampolines.Release), "af_set_log_callback");
        if (options.DefaultTimeout is { } timeout)
        {
            Check(Native.af_dispatcher_set_default_timeout(_handle, timeout == System.Threading.Timeout.InfiniteTimeSpan ? 0 : TimeoutMs(timeout)), "af_dispatcher_set_default_timeout");
        }
        Register(AppFunctionCatalog.All.Where(u => options.Include?.Invoke(u.DeclaringType) ?? true));
    }

    /// <summary>The core's version (the crate version).</summary>
    public static string NativeVersion
    {
        get
        {
            NativeLibraryLoader.EnsureLoaded();
            return Utf8.Read(Native.af_version()) ?? "";
        }
    }

    /// <summary>Every function: the declared ones, then the generated <c>search_{entity}</c> ones.</summary>
    public AppFunctionRegistry Registry
    {
        get
        {
            var r = _registry;
            if (r is null || r.Version != Volatile.Read(ref _registryVersion))
            {
                int version = Volatile.Read(ref _registryVersion);
                var json = Utf8.Take(Native.af_registry_json(_handle)) ?? "{}";
                _registry = r = AppFunctionRegistry.Parse(json, this, version);
            }
            return r;
        }
    }

    internal DispatcherHandle Handle => _handle;

    internal DispatcherCore Core => _core;

    /// <summary>
    /// Runs a function. Never throws: every failure comes back as an <see cref="AppFunctionOutcome"/>.
    /// Arguments are a JSON object keyed by the parameter names in camelCase; enums are their member
    /// names, entities their ids, DateTimeOffset values ISO 8601 strings. Cancelling
    /// <paramref name="cancellationToken"/> ends the call <c>Cancelled</c>.
    /// </summary>
    public Task<AppFunctionOutcome> Execute(AppFunctionInvocation invocation, string argumentsJson, CancellationToken cancellationToken = default) =>
        Run(this, invocation, argumentsJson, cancellationToken, null);

    /// <summary>Shared by <see cref="Execute"/> and <see cref="AppFunctionView.Execute"/>.</summary>
    [SkipLocalsInit] // the stack buffers below are written before they are read
    internal static Task<AppFunctionOutcome> Run(object target, AppFunctionInvocation invocation, string? argumentsJson, CancellationToken cancellationToken, PendingOptions? options)
    {
        try
        {
            if (invocation is null)
            {
                return Task.FromResult(AppFunctionOutcome.Failure(AppFunctionErrorCode.InvalidArgument, "the invocation is null"));
            }
            var view = target as AppFunctionView;
            var dispatcher = view?.Dispatcher ?? (AppFunctionDispatcher)target;
            var pending = new PendingExecute(dispatcher._core, invocation.FunctionId, options);
            if (cancellationToken.CanBeCanceled)
            {
                var token = CancelTokenHandle.Create();
                pending.Token = token;
                if (cancellationToken.IsCancellationRequested)
                {
                    Native.af_cancel_token_cancel(token);
                }
                else
                {
                    pending.Registration = cancellationToken.UnsafeRegister(static s =>
                    {
                        var t = (CancelTokenHandle)s!;
                        bool added = false;
                        try
                        {
                            t.DangerousAddRef(ref added);
                            Native.af_cancel_token_cancel(t);
                        }
                        catch (ObjectDisposedException)
                        {
                            // the call ended meanwhile
                        }
                        finally
                        {
                            if (added)
                            {
                                t.DangerousRelease();
                            }
                        }
                    }, token);
                }
            }
            Span<byte> idBuf = stackalloc byte[128];
            Span<byte> callerBuf = stackalloc byte[128];
            Span<byte> argsBuf = stackalloc byte[1024];
            using var id = new Utf8.Text(invocation.FunctionId, idBuf);
            using var caller = new Utf8.Text(invocation.CallerPackage, callerBuf);
            using var args = new Utf8.Text(argumentsJson ?? "{}", argsBuf);
            bool tokenRef = false;
            var ud = UserData.Alloc(pending);
            int status = -1;
            try
            {
                pending.Token?.DangerousAddRef(ref tokenRef);
                var inv = new AfInvocation
                {
                    struct_size = (uint)sizeof(AfInvocation),
                    platform = (int)invocation.Platform,
                    function_id = id.Pointer,
                    caller_package = caller.Pointer,
                    cancel_token = pending.Token?.DangerousGetHandle() ?? 0,
                    timeout_ms = invocation.Timeout is { } t ? TimeoutMs(t) : 0,
                    is_foreground = invocation.IsForeground ? (byte)1 : (byte)0,
                    host_context = ud, // every callback of the call finds the pending call (and its context) through it
                };
                status = view is not null
                    ? Native.af_view_execute_async(view.Handle, &inv, args.Pointer, &Trampolines.Outcome, ud)
                    : Native.af_execute_async(dispatcher._handle, &inv, args.Pointer, &Trampolines.Outcome, ud);
            }
            catch
            {
                UserData.Free(ud); // the core never saw it (a disposed dispatcher or view)
                pending.Token?.Dispose();
                throw;
            }
            finally
            {
                if (tokenRef)
                {
                    pending.Token!.DangerousRelease();
                }
            }
            if (status != Native.AF_OK)
            {
                UserData.Free(ud);
                var message = Utf8.LastError();
                pending.Complete(AppFunctionOutcome.Failure(AppFunctionErrorCode.InternalError, $"AppFunctions: the call could not start: {message}"));
            }
            return pending.Task;
        }
        catch (ObjectDisposedException)
        {
            return Task.FromResult(AppFunctionOutcome.Failure(AppFunctionErrorCode.InternalError, "the AppFunctionDispatcher is disposed"));
        }
        catch (Exception e)
        {
            return Task.FromResult(AppFunctionOutcome.Failure(AppFunctionErrorCode.InternalError, "AppFunctions: " + e.Message));
        }
    }

    /// <summary>Runs a function and blocks for its outcome JSON (as the core writes it). For hosts that
    /// want the raw JSON on the calling thread; handlers that complete later complete it from theirs.</summary>
    [SkipLocalsInit] // the stack buffers below are written before they are read
    public string ExecuteJson(AppFunctionInvocation invocation, string argumentsJson)
    {
        ArgumentNullException.ThrowIfNull(invocation);
        Span<byte> idBuf = stackalloc byte[128];
        Span<byte> callerBuf = stackalloc byte[128];
        Span<byte> argsBuf = stackalloc byte[1024];
        using var id = new Utf8.Text(invocation.FunctionId, idBuf);
        using var caller = new Utf8.Text(invocation.CallerPackage, callerBuf);
        using var args = new Utf8.Text(argumentsJson ?? "{}", argsBuf);
        var inv = new AfInvocation
        {
            struct_size = (uint)sizeof(AfInvocation),
            platform = (int)invocation.Platform,
            function_id = id.Pointer,
            caller_package = caller.Pointer,
            timeout_ms = invocation.Timeout is { } t ? TimeoutMs(t) : 0,
            is_foreground = invocation.IsForeground ? (byte)1 : (byte)0,
        };
        // the invocation's host context until af_execute_json returns: by then the call has ended
        var pending = new PendingExecute(_core, invocation.FunctionId, null);
        var ud = UserData.Alloc(pending);
        inv.host_context = ud;
        try
        {
            return Utf8.Take(Native.af_execute_json(_handle, &inv, args.Pointer)) ?? "";
        }
        finally
        {
            UserData.Free(ud);
            pending.EndContext();
        }
    }

    /// <summary>A tool list (<c>mcp</c>, <c>openai</c>, <c>openai-chat</c>, <c>anthropic</c>, <c>gemini</c>) or Android's schema XML (<c>android-xml</c>).</summary>
    public string Export(string format)
    {
        Span<byte> buf = stackalloc byte[64];
        using var f = new Utf8.Text(format, buf);
        return Utf8.Take(Native.af_export_copy(_handle, f.Pointer)) ?? throw Error("export");
    }

    /// <summary>An agent's view of this dispatcher with its metadata (a JSON object; null is <c>{}</c>).</summary>
    public AppFunctionView CreateView(string? metadataJson = null) => new(this, metadataJson);

    /// <summary>Calls the core starts itself (MCP <c>tools/call</c>) carry no host context: from the
    /// first MCP use on, the scope-begin hook gives each its context, so that its entity lookups
    /// share it. Until then no call pays for the hook.</summary>
    internal void EnsureScopeHook()
    {
        if (Volatile.Read(ref _scopeHook))
        {
            return;
        }
        lock (_registrationLock)
        {
            if (!_scopeHook)
            {
                Check(Native.af_set_scope_hooks(_handle, &Trampolines.ScopeBegin, null, UserData.Alloc(_core), &Trampolines.Release), "af_set_scope_hooks");
                Volatile.Write(ref _scopeHook, true);
            }
        }
    }

    /// <summary>Handles one MCP JSON-RPC message on the dispatcher's own session; null for a notification.</summary>
    public string? McpHandle(string message)
    {
        EnsureScopeHook();
        Span<byte> buf = stackalloc byte[1024];
        using var m = new Utf8.Text(message, buf);
        return Utf8.Take(Native.af_mcp_handle_json(_handle, m.Pointer));
    }

    /// <summary>Where the dispatcher's own MCP session (<see cref="McpHandle"/>) sends server-initiated
    /// messages (<c>notifications/tools/list_changed</c>); null removes the sink.</summary>
    public void SetMcpNotify(Action<string>? notify) => Check(notify is null
        ? Native.af_mcp_set_notify(_handle, null, null, null)
        : Native.af_mcp_set_notify(_handle, &Trampolines.McpNotify, UserData.Alloc(notify), &Trampolines.Release), "SetMcpNotify");

    /// <summary>An MCP session for one connection, with its own agent view of <paramref name="metadataJson"/>.</summary>
    public AppFunctionMcpSession CreateMcpSession(string? metadataJson = null)
    {
        EnsureScopeHook();
        return new(this, metadataJson);
    }

    /// <summary>Configures the MCP server (<c>{"serverName", "serverVersion", "instructions", "pageSize", ...}</c>).</summary>
    public void ConfigureMcp(string configJson) => Call(configJson, static (h, p) => Native.af_mcp_configure(h, p), "af_mcp_configure");

    /// <summary>Enables or disables a function at run time (a disabled one answers <c>Disabled</c>).</summary>
    public void SetEnabled(string functionId, bool enabled)
    {
        Span<byte> buf = stackalloc byte[128];
        using var id = new Utf8.Text(functionId, buf);
        Check(Native.af_set_function_enabled(_handle, id.Pointer, enabled ? (byte)1 : (byte)0), $"SetEnabled({functionId})");
        Interlocked.Increment(ref _registryVersion);
    }

    /// <summary>Removes a declared function (calls in flight finish with it).</summary>
    public void Unregister(string functionId)
    {
        Span<byte> buf = stackalloc byte[128];
        using var id = new Utf8.Text(functionId, buf);
        Check(Native.af_unregister_function(_handle, id.Pointer), $"Unregister({functionId})");
        _core.Remove(functionId);
        Interlocked.Increment(ref _registryVersion);
    }

    /// <summary>Which calling packages may call any function: <c>{"allow": [...], "deny": [...]}</c>.</summary>
    public void SetCallerPolicy(string policyJson) => Call(policyJson, static (h, p) => Native.af_set_caller_policy(h, p), "SetCallerPolicy");

    /// <summary>Calls running now.</summary>
    public int InFlight => (int)Native.af_dispatcher_in_flight(_handle);

    /// <summary>New calls end at once with <c>LimitExceeded</c>; waits up to <paramref name="timeout"/>
    /// for calls in flight and returns how many still run.</summary>
    public int Shutdown(TimeSpan timeout)
    {
        uint left = 0;
        int st = Native.af_dispatcher_shutdown(_handle, TimeoutMs(timeout), &left);
        if (st != Native.AF_OK && st != Native.AF_ERR_TIMED_OUT)
        {
            throw Error("af_dispatcher_shutdown");
        }
        return (int)left;
    }

    /// <summary>Registers a function from a descriptor you wrote (docs/descriptors.md) with a JSON handler:
    /// it receives the bound arguments as JSON and returns the result as JSON (null for void).</summary>
    public void RegisterFunction(string descriptorJson, Func<AppFunctionContext, string, ValueTask<string?>> handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        var id = DescriptorId(descriptorJson);
        var registrar = new AppFunctionRegistrar();
        registrar.RegisterFunction(id, descriptorJson, call =>
        {
            var args = Encoding.UTF8.GetString(call.Arguments);
            var task = handler(call.Context, args);
            call.Complete(task, static (w, json) =>
            {
                if (json is null)
                {
                    w.WriteNullValue();
                }
                else
                {
                    w.WriteRawValue(json, skipInputValidation: false);
                }
            });
        }, null);
        Apply(registrar);
    }

    /// <summary>Defines named enums and records (<c>{"enums": [...], "records": [...]}</c>).</summary>
    public void DefineTypes(string json) => Call(json, static (h, p) => Native.af_define_types(h, p), "DefineTypes");

    /// <summary>Registers generated units (what <c>AddAppFunctions()</c> found).</summary>
    internal void Register(IEnumerable<AppFunctionUnit> units)
    {
        var registrar = new AppFunctionRegistrar();
        foreach (var unit in units)
        {
            unit.Register(registrar);
        }
        Apply(registrar);
    }

    private void Apply(AppFunctionRegistrar r)
    {
        lock (_registrationLock)
        {
            try
            {
                var newTypes = r.Types.Where(t => _definedTypes.Add(t.Name)).ToList();
                if (newTypes.Count > 0)
                {
                    var json = "{\"enums\":[" + string.Join(",", newTypes.Where(t => t.IsEnum).Select(t => t.Json)) +
                               "],\"records\":[" + string.Join(",", newTypes.Where(t => !t.IsEnum).Select(t => t.Json)) + "]}";
                    Call(json, static (h, p) => Native.af_define_types(h, p), "defining the named types");
                }
                if (r.MetadataProperties.Count > 0)
                {
                    _metadataProperties.UnionWith(r.MetadataProperties);
                    var schema = "[" + string.Join(",", _metadataProperties.Select(p => "\"" + p + "\"")) + "]";
                    Call(schema, static (h, p) => Native.af_set_metadata_schema(h, p), "the metadata schema");
                }
                foreach (var (json, texts) in r.Toolkits)
                {
                    using var t = new Utf8.Text(json, default);
                    int st = texts is null
                        ? Native.af_define_toolkit(_handle, t.Pointer, null, null, null)
                        : Native.af_define_toolkit(_handle, t.Pointer, &Trampolines.ToolkitText, UserData.Alloc(new ToolkitTexts(texts)), &Trampolines.Release);
                    if (st != Native.AF_OK && st != Native.AF_ERR_DUPLICATE)
                    {
                        throw Error($"defining the toolkit {json}");
                    }
                }
                foreach (var (name, json, lookup) in r.Entities)
                {
                    using var t = new Utf8.Text(json, default);
                    Check(Native.af_register_entity(_handle, t.Pointer, &Trampolines.Lookup, UserData.Alloc(new EntityRegistration(_core, name, lookup)), &Trampolines.Release),
                        $"registering the entity {name}");
                }
                foreach (var (id, json, handler, bind) in r.Functions)
                {
                    var reg = new FunctionRegistration(_core, id, handler, bind, RequiresPermission(json));
                    using var t = new Utf8.Text(json, default);
                    int st = handler is null
                        ? Native.af_register_function(_handle, t.Pointer, null, UserData.Alloc(reg), &Trampolines.Release)
                        : Native.af_register_function(_handle, t.Pointer, &Trampolines.Handler, UserData.Alloc(reg), &Trampolines.Release);
                    Check(st, $"registering {id}");
                    _core.Add(reg);
                }
                for (int i = 0; i < r.Delegates.Count; i++)
                {
                    var (invoking, invoked) = r.DelegateCallbacks[i];
                    var vtable = new AfDelegate
                    {
                        struct_size = (uint)sizeof(AfDelegate),
                        on_invoking = invoking ? &Trampolines.OnInvoking : null,
                        on_invoked = invoked ? &Trampolines.OnInvoked : null,
                        free_user_data = &Trampolines.Release,
                    };
                    Check(Native.af_add_delegate(_handle, &vtable, UserData.Alloc(new DelegateRegistration(_core, r.Delegates[i]))), "adding a delegate");
                    _core.HasDelegates = true;
                }
            }
            finally
            {
                Interlocked.Increment(ref _registryVersion);
            }
        }
    }

    /// <summary>Disposes the core dispatcher: new calls are refused, calls in flight finish with what
    /// they hold, and every GCHandle the core holds is released when its last user lets go.</summary>
    public void Dispose() => _handle.Dispose();

    internal static uint TimeoutMs(TimeSpan t) =>
        t == System.Threading.Timeout.InfiniteTimeSpan ? Native.AF_TIMEOUT_NONE
        : t <= TimeSpan.Zero ? 1u
        : (uint)Math.Min(Native.AF_TIMEOUT_NONE - 1, Math.Ceiling(t.TotalMilliseconds));

    private delegate int NativeCall(DispatcherHandle handle, byte* text);

    private void Call(string text, NativeCall call, string what)
    {
        using var t = new Utf8.Text(text, default);
        Check(call(_handle, t.Pointer), what);
    }

    internal static void Check(int status, string what)
    {
        if (status != Native.AF_OK)
        {
            throw Error(what, status);
        }
    }

    internal static AppFunctionRegistrationException Error(string what, int status = -1) =>
        new($"AppFunctions: {what} failed{(status > 0 ? $" ({StatusName(status)})" : "")}: {Utf8.LastError()}");

    private static string StatusName(int status) => status switch
    {
        Native.AF_ERR_NULL => "AF_ERR_NULL",
        Native.AF_ERR_UTF8 => "AF_ERR_UTF8",
        Native.AF_ERR_INVALID => "AF_ERR_INVALID",
        Native.AF_ERR_DUPLICATE => "AF_ERR_DUPLICATE",
        Native.AF_ERR_NOT_FOUND => "AF_ERR_NOT_FOUND",
        Native.AF_ERR_INVALID_HANDLE => "AF_ERR_INVALID_HANDLE",
        Native.AF_ERR_LIMIT => "AF_ERR_LIMIT",
        _ => "status " + status,
    };

    private static bool RequiresPermission(string descriptorJson)
    {
        try
        {
            using var doc = System.Text.Json.JsonDocument.Parse(descriptorJson);
            return doc.RootElement.TryGetProperty("requiresPermission", out var v) && v.ValueKind == System.Text.Json.JsonValueKind.True;
        }
        catch (System.Text.Json.JsonException)
        {
            return false; // the core names what is wrong with it
        }
    }

    private static string DescriptorId(string descriptorJson)
    {
        try
        {
            using var doc = System.Text.Json.JsonDocument.Parse(descriptorJson);
            return doc.RootElement.GetProperty("id").GetString() ?? "";
        }
        catch (Exception e) when (e is System.Text.Json.JsonException or KeyNotFoundException or InvalidOperationException)
        {
            throw new AppFunctionRegistrationException("AppFunctions: the descriptor needs an \"id\": " + e.Message);
        }
    }
}

/// <summary>The core refused a registration or a setting; the message names what and why.</summary>
public sealed class AppFunctionRegistrationException(string message) : Exception(message);

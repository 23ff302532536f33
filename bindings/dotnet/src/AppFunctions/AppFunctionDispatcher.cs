using System.Runtime.CompilerServices;
using System.Text;
using AppFunctions.Generated;
using AppFunctions.Interop;
using Microsoft.Extensions.DependencyInjection;

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
    private readonly List<string> _metadataProperties = []; // in ordinal order (OrdinalNames.Add)
    private AppFunctionRegistry? _registry;
    private int _registryVersion;
    private bool _scopeHook;
    private readonly IServiceProviderIsService? _isService;

    /// <summary>A dispatcher with every unit the AppFunctions generator found (filtered by
    /// <see cref="AppFunctionsOptions.Include"/>), resolving handlers, delegates and providers
    /// from <paramref name="services"/> (one scope per call).</summary>
    public AppFunctionDispatcher(IServiceProvider services, AppFunctionsOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        options ??= services.GetService<AppFunctionsOptions>() ?? new AppFunctionsOptions();
        _handle = NativeCalls.NewDispatcher();
        _core = new DispatcherCore(services.GetRequiredService<IServiceScopeFactory>(), services);
        _isService = services.GetService<IServiceProviderIsService>();
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
        NativeCalls.SetPermissionHook(_handle, _core);
        NativeCalls.SetLogCallback(_handle, _core);
        if (options.DefaultTimeout is { } timeout)
        {
            NativeCalls.SetDefaultTimeout(_handle, timeout);
        }
        var units = new List<AppFunctionUnit>();
        foreach (var u in AppFunctionCatalog.All)
        {
            if (options.Include?.Invoke(u.DeclaringType) ?? true)
            {
                units.Add(u);
            }
        }
        Register(units);
    }

    /// <summary>The core's version (the crate version).</summary>
    public static string NativeVersion => NativeCalls.Version();

    /// <summary>Every function: the declared ones, then the generated <c>search_{entity}</c> ones.</summary>
    public AppFunctionRegistry Registry
    {
        get
        {
            var r = _registry;
            if (r is null || r.Version != Volatile.Read(ref _registryVersion))
            {
                int version = Volatile.Read(ref _registryVersion);
                var json = NativeCalls.RegistryJson(_handle);
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

    /// <summary>
    /// The entities of <paramref name="entity"/> with these ids, through the entity's registered
    /// lookup (its <see cref="IAppFunctionEntityProvider{TEntity}"/>), as the delegates and the DI
    /// scope of a call see it: what an entity query by id asks (App Intents'
    /// <c>entities(for:)</c>). Never throws. On success <see cref="AppFunctionOutcome.ResultJson"/> is
    /// the JSON array of the entities <b>in the order of <paramref name="ids"/></b>: an id the
    /// lookup does not return is left out, an id given twice gives its entity once. Errors are
    /// outcomes naming what is wrong: an unknown entity (<c>InvalidArgument</c>), a failing
    /// provider (its code, "looking up order failed: …"), a delegate's refusal, <c>TimedOut</c>,
    /// <c>Cancelled</c> (cancelling <paramref name="cancellationToken"/>), and <c>LimitExceeded</c>
    /// after <see cref="Shutdown"/> or <see cref="Dispose"/> ("the dispatcher was disposed").
    /// <paramref name="invocation"/> gives the platform, foreground, caller and timeout (default:
    /// in-process, the dispatcher's default timeout); its <c>FunctionId</c> is not used.
    /// </summary>
    public Task<AppFunctionOutcome> LookupEntities(string entity, IEnumerable<string> ids, AppFunctionInvocation? invocation = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(entity);
        ArgumentNullException.ThrowIfNull(ids);
        var inv = invocation ?? new AppFunctionInvocation("search_" + entity);
        return Run(this, inv with { FunctionId = "search_" + entity }, IdsJson(ids), cancellationToken, null, entity);
    }

    /// <summary>The ids as a JSON array of strings.</summary>
    private static string IdsJson(IEnumerable<string> ids)
    {
        var buffer = new ByteBuffer(256);
        using (var w = new System.Text.Json.Utf8JsonWriter(buffer))
        {
            w.WriteStartArray();
            foreach (var id in ids)
            {
                w.WriteStringValue(id);
            }
            w.WriteEndArray();
        }
        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>Shared by <see cref="Execute"/>, <see cref="AppFunctionView.Execute(AppFunctionInvocation, string?, CancellationToken)"/>
    /// and <see cref="LookupEntities"/> (<paramref name="entity"/> set: <paramref name="argumentsJson"/> is the ids).</summary>
    [SkipLocalsInit] // the stack buffers below are written before they are read
    internal static Task<AppFunctionOutcome> Run(object target, AppFunctionInvocation invocation, string? argumentsJson, CancellationToken cancellationToken, PendingOptions? options, string? entity = null)
    {
        try
        {
            if (invocation is null)
            {
                return Task.FromResult(AppFunctionOutcome.Failure(AppFunctionErrorCode.InvalidArgument, "the invocation is null"));
            }
            var view = target as AppFunctionView;
            var dispatcher = view?.Dispatcher ?? (AppFunctionDispatcher)target;
            if (dispatcher.IsDisposed)
            {
                return Task.FromResult(Disposed(invocation.FunctionId));
            }
            if (view is not null && view.IsDisposed)
            {
                return Task.FromResult(AppFunctionOutcome.Failure(AppFunctionErrorCode.LimitExceeded, $"{JsonQuoted(invocation.FunctionId)}: the view was disposed"));
            }
            var pending = PendingExecute.Rent(dispatcher._core, invocation.FunctionId, invocation.Platform, options);
            if (cancellationToken.CanBeCanceled)
            {
                var token = NativeCalls.NewCancelToken();
                pending.Token = token;
                if (cancellationToken.IsCancellationRequested)
                {
                    NativeCalls.Cancel(token);
                }
                else
                {
                    pending.Registration = cancellationToken.UnsafeRegister(static s => NativeCalls.Cancel((CancelTokenHandle)s!), token);
                }
            }
            Span<byte> idBuf = stackalloc byte[128];
            Span<byte> callerBuf = stackalloc byte[128];
            Span<byte> argsBuf = stackalloc byte[1024];
            using var id = new Utf8.Text(invocation.FunctionId, idBuf);
            using var caller = new Utf8.Text(invocation.CallerPackage, callerBuf);
            using var args = new Utf8.Text(argumentsJson ?? "{}", argsBuf);
            using var entityName = new Utf8.Text(entity, default);
            bool tokenRef = false;
            var ud = pending.UserData;
            int status = -1;
            var outer = pending.Enter();
            try
            {
                pending.Token?.DangerousAddRef(ref tokenRef);
                var inv = NativeCalls.Invocation(invocation, id.Pointer, caller.Pointer);
                inv.cancel_token = pending.Token?.DangerousGetHandle() ?? 0;
                inv.host_context = ud; // every callback of the call finds the pending call (and its context) through it
                status = entity is not null ? NativeCalls.EntitiesAsync(dispatcher._handle, &inv, entityName.Pointer, args.Pointer, ud)
                    : view is not null ? NativeCalls.ExecuteAsync(view.Handle, &inv, args.Pointer, ud)
                    : NativeCalls.ExecuteAsync(dispatcher._handle, &inv, args.Pointer, ud);
            }
            catch
            {
                pending.Token?.Dispose(); // the core never saw the call (a disposed dispatcher or view)
                pending.Recycle();
                throw;
            }
            finally
            {
                PendingExecute.Leave(outer);
                if (tokenRef)
                {
                    pending.Token!.DangerousRelease();
                }
            }
            if (status != 0)
            {
                var message = NativeCalls.LastError(); // the core never took the call
                pending.Complete(AppFunctionOutcome.Failure(AppFunctionErrorCode.InternalError, $"AppFunctions: the call could not start: {message}"));
            }
            return pending.TakeTask();
        }
        catch (ObjectDisposedException)
        {
            return Task.FromResult(Disposed(invocation.FunctionId));
        }
        catch (Exception e)
        {
            return Task.FromResult(AppFunctionOutcome.Failure(AppFunctionErrorCode.InternalError, "AppFunctions: " + e.Message));
        }
    }

    /// <summary>The outcome of a call on a disposed dispatcher (or view): <c>LimitExceeded</c>, as
    /// after <see cref="Shutdown"/>, saying so (the same code and words in every binding).</summary>
    internal static AppFunctionOutcome Disposed(string functionId) =>
        AppFunctionOutcome.Failure(AppFunctionErrorCode.LimitExceeded, $"{JsonQuoted(functionId)}: {NativeCalls.DisposedMessage}");

    private static string JsonQuoted(string s)
    {
        var cut = s.Length > 40 ? s[..40] + "…" : s;
        return "\"" + System.Text.Json.JsonEncodedText.Encode(cut, System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping) + "\"";
    }

    /// <summary>Whether <see cref="Dispose"/> was called (new calls are refused from that moment).</summary>
    internal bool IsDisposed => _handle.IsDisposed;

    /// <summary>Runs a function and blocks for its outcome JSON (as the core writes it). For hosts that
    /// want the raw JSON on the calling thread; handlers that complete later complete it from theirs.
    /// After <see cref="Dispose"/> the outcome is <c>LimitExceeded</c> ("the dispatcher was disposed").</summary>
    [SkipLocalsInit] // the stack buffers below are written before they are read
    public string ExecuteJson(AppFunctionInvocation invocation, string argumentsJson)
    {
        ArgumentNullException.ThrowIfNull(invocation);
        if (IsDisposed)
        {
            return Disposed(invocation.FunctionId).ToJson();
        }
        Span<byte> idBuf = stackalloc byte[128];
        Span<byte> callerBuf = stackalloc byte[128];
        Span<byte> argsBuf = stackalloc byte[1024];
        using var id = new Utf8.Text(invocation.FunctionId, idBuf);
        using var caller = new Utf8.Text(invocation.CallerPackage, callerBuf);
        using var args = new Utf8.Text(argumentsJson ?? "{}", argsBuf);
        var inv = NativeCalls.Invocation(invocation, id.Pointer, caller.Pointer);
        // the invocation's host context until af_execute_json returns: by then the call has ended
        var pending = PendingExecute.Rent(_core, invocation.FunctionId, invocation.Platform, null);
        inv.host_context = pending.UserData;
        var outer = pending.Enter();
        try
        {
            return NativeCalls.ExecuteJson(_handle, &inv, args.Pointer);
        }
        catch (ObjectDisposedException)
        {
            return Disposed(invocation.FunctionId).ToJson();
        }
        finally
        {
            PendingExecute.Leave(outer);
            try
            {
                pending.EndContext();
            }
            finally
            {
                pending.Recycle();
            }
        }
    }

    /// <summary><see cref="LookupEntities"/> that blocks for the outcome JSON as the core writes it
    /// (<c>af_entities_json</c>): the entities in the order of <paramref name="ids"/>.</summary>
    [SkipLocalsInit] // the stack buffers below are written before they are read
    public string LookupEntitiesJson(string entity, IEnumerable<string> ids, AppFunctionInvocation? invocation = null)
    {
        ArgumentNullException.ThrowIfNull(entity);
        ArgumentNullException.ThrowIfNull(ids);
        var search = "search_" + entity;
        if (IsDisposed)
        {
            return Disposed(search).ToJson();
        }
        var given = (invocation ?? new AppFunctionInvocation(search)) with { FunctionId = search };
        Span<byte> idBuf = stackalloc byte[128];
        Span<byte> callerBuf = stackalloc byte[128];
        Span<byte> entityBuf = stackalloc byte[128];
        using var id = new Utf8.Text(search, idBuf);
        using var caller = new Utf8.Text(given.CallerPackage, callerBuf);
        using var name = new Utf8.Text(entity, entityBuf);
        using var idsJson = new Utf8.Text(IdsJson(ids), default);
        var inv = NativeCalls.Invocation(given, id.Pointer, caller.Pointer);
        // the lookup's callbacks find their context through it until af_entities_json returns
        var pending = PendingExecute.Rent(_core, search, given.Platform, null);
        inv.host_context = pending.UserData;
        var outer = pending.Enter();
        try
        {
            return NativeCalls.EntitiesJson(_handle, &inv, name.Pointer, idsJson.Pointer);
        }
        catch (ObjectDisposedException)
        {
            return Disposed(search).ToJson();
        }
        finally
        {
            PendingExecute.Leave(outer);
            try
            {
                pending.EndContext();
            }
            finally
            {
                pending.Recycle();
            }
        }
    }

    /// <summary>A tool list (<c>mcp</c>, <c>openai</c>, <c>openai-chat</c>, <c>anthropic</c>, <c>gemini</c>) or Android's schema XML (<c>android-xml</c>).</summary>
    /// <exception cref="ObjectDisposedException">after <see cref="Dispose"/> ("the dispatcher was disposed").</exception>
    public string Export(string format) => NativeCalls.ExportCopy(_handle, format);

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
                NativeCalls.SetScopeHook(_handle, _core);
                Volatile.Write(ref _scopeHook, true);
            }
        }
    }

    /// <summary>Handles one MCP JSON-RPC message on the dispatcher's own session; null for a notification.</summary>
    public string? McpHandle(string message)
    {
        EnsureScopeHook();
        return NativeCalls.McpHandle(_handle, message);
    }

    /// <summary>Where the dispatcher's own MCP session (<see cref="McpHandle"/>) sends server-initiated
    /// messages (<c>notifications/tools/list_changed</c>); null removes the sink.</summary>
    public void SetMcpNotify(Action<string>? notify) => NativeCalls.SetMcpNotify(_handle, notify);

    /// <summary>An MCP session for one connection, with its own agent view of <paramref name="metadataJson"/>.</summary>
    public AppFunctionMcpSession CreateMcpSession(string? metadataJson = null)
    {
        EnsureScopeHook();
        return new(this, metadataJson);
    }

    /// <summary>Configures the MCP server (<c>{"serverName", "serverVersion", "instructions", "pageSize", ...}</c>).</summary>
    public void ConfigureMcp(string configJson) => NativeCalls.ConfigureMcp(_handle, configJson);

    /// <summary>Enables or disables a function at run time (a disabled one answers <c>Disabled</c>).</summary>
    public void SetEnabled(string functionId, bool enabled)
    {
        NativeCalls.SetEnabled(_handle, functionId, enabled);
        Interlocked.Increment(ref _registryVersion);
    }

    /// <summary>Removes a declared function (calls in flight finish with it).</summary>
    public void Unregister(string functionId)
    {
        NativeCalls.Unregister(_handle, functionId);
        _core.Remove(functionId);
        Interlocked.Increment(ref _registryVersion);
    }

    /// <summary>Which calling packages may call any function: <c>{"allow": [...], "deny": [...]}</c>.</summary>
    public void SetCallerPolicy(string policyJson) => NativeCalls.SetCallerPolicy(_handle, policyJson);

    /// <summary>Which calling packages may call this function (<c>{"allow": [...], "deny": [...]}</c>),
    /// replacing its declared <c>callers</c>; an unknown function throws.</summary>
    public void SetCallerPolicy(string functionId, string policyJson) => NativeCalls.SetFunctionCallerPolicy(_handle, functionId, policyJson);

    /// <summary>The limits applied to arguments: the largest input in bytes (default 1 MiB) and the
    /// deepest nesting (default 64); past either a call answers <c>InvalidArgument</c>. Both must be
    /// greater than zero.</summary>
    public void SetLimits(long maxInputBytes, int maxDepth)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxInputBytes);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxDepth);
        NativeCalls.SetLimits(_handle, (ulong)maxInputBytes, (uint)maxDepth);
    }

    /// <summary>Calls running now.</summary>
    public int InFlight => NativeCalls.InFlight(_handle);

    /// <summary>New calls end at once with <c>LimitExceeded</c>; waits up to <paramref name="timeout"/>
    /// for calls in flight and returns how many still run.</summary>
    public int Shutdown(TimeSpan timeout) => NativeCalls.Shutdown(_handle, timeout);

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
    public void DefineTypes(string json) => NativeCalls.DefineTypes(_handle, json, "DefineTypes");

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
                // plain loops, no LINQ: a NativeAOT cold start pays for each generic virtual
                // method LINQ looks up the first time (about 80 µs in all here)
                var enums = new StringBuilder("{\"enums\":[");
                var records = new StringBuilder("],\"records\":[");
                int enumCount = 0, recordCount = 0;
                foreach (var t in r.Types)
                {
                    if (_definedTypes.Add(t.Name))
                    {
                        var sb = t.IsEnum ? enums : records;
                        if ((t.IsEnum ? enumCount++ : recordCount++) > 0)
                        {
                            sb.Append(',');
                        }
                        sb.Append(t.Json);
                    }
                }
                if (enumCount + recordCount > 0)
                {
                    NativeCalls.DefineTypes(_handle, enums.Append(records).Append("]}").ToString(), "defining the named types");
                }
                if (r.MetadataProperties.Count > 0)
                {
                    foreach (var p in r.MetadataProperties)
                    {
                        OrdinalNames.Add(_metadataProperties, p);
                    }
                    var schema = new StringBuilder("[");
                    foreach (var p in _metadataProperties)
                    {
                        schema.Append(schema.Length > 1 ? ",\"" : "\"").Append(p).Append('"');
                    }
                    NativeCalls.SetMetadataSchema(_handle, schema.Append(']').ToString());
                }
                foreach (var t in r.Toolkits)
                {
                    NativeCalls.DefineToolkit(_handle, t.Json, t.Texts is null ? null : new ToolkitTexts(t.Texts));
                }
                foreach (var e in r.Entities)
                {
                    NativeCalls.RegisterEntity(_handle, e.Json, new EntityRegistration(_core, e.Name, e.Lookup));
                }
                foreach (var f in r.Functions)
                {
                    var reg = new FunctionRegistration(_core, f.Id, f.Handler, f.Bind, RequiresPermission(f.Json));
                    NativeCalls.RegisterFunction(_handle, f.Json, reg);
                    _core.Add(reg);
                }
                foreach (var d in r.Delegates)
                {
                    CheckDependencies(d.Type, d.Dependencies);
                }
                foreach (var d in r.Delegates)
                {
                    NativeCalls.AddDelegate(_handle, new DelegateRegistration(_core, d.Type, d.Resolve), d.Invoking, d.Invoked);
                    _core.HasDelegates = true;
                }
            }
            finally
            {
                Interlocked.Increment(ref _registryVersion);
            }
        }
    }

    /// <summary>Disposes the core dispatcher: from this moment new calls are refused (their outcome is
    /// <c>LimitExceeded</c>, "the dispatcher was disposed"; other members throw
    /// <see cref="ObjectDisposedException"/>), even while a call in flight still holds the native
    /// dispatcher; calls in flight finish with what they hold, and every GCHandle the core holds is
    /// released when its last user lets go.</summary>
    public void Dispose()
    {
        if (_handle.MarkDisposed())
        {
            NativeCalls.RefuseNewCalls(_handle);
        }
        _handle.Dispose();
    }

    /// <summary>Publishes this dispatcher for the whole process under <paramref name="name"/>
    /// (<see cref="PublishedDispatcher.DefaultName"/> unless told otherwise), so platform calls that
    /// arrive during a cold start — the Android service, App Intents in Swift — wait for it instead of
    /// failing (<see cref="PublishedDispatcher.Wait"/>). Replaces an earlier publication of that name;
    /// <see cref="Dispose"/> withdraws it.</summary>
    public void Publish(string name = PublishedDispatcher.DefaultName)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        NativeCalls.Publish(_handle, name);
    }

    /// <summary>This dispatcher's registrations as a descriptor bundle (JSON): what build steps make
    /// the Android assets and the App Intents source from (<see cref="AppFunctionBundle.Export"/>).</summary>
    public string BundleJson() => NativeCalls.BundleJson(_handle);

    /// <summary>A delegate is resolved at each call, where a missing service would fail out of
    /// sight (an <c>OnInvoked</c>-only delegate has no outcome to fail): check its constructor's
    /// services now, naming the delegate and the first missing one. Without the container's
    /// <see cref="IServiceProviderIsService"/>, resolve it once in a throwaway scope instead.</summary>
    private void CheckDependencies(Type type, Type[]? dependencies)
    {
        if (_isService is not null && dependencies is not null)
        {
            foreach (var d in dependencies)
            {
                if (!_isService.IsService(d))
                {
                    throw new AppFunctionRegistrationException(
                        $"AppFunctions: the delegate {TypeName(type)} needs {TypeName(d)}, which is not registered in the container: register it before building the service provider" +
                        (d.IsGenericType && d.GetGenericTypeDefinition().FullName == "Microsoft.Extensions.Logging.ILogger`1" ? " (services.AddLogging() registers ILogger<T>)" : ""));
                }
            }
            return;
        }
        using var scope = _core.ScopeFactory.CreateScope();
        try
        {
            _ = scope.ServiceProvider.GetRequiredService(type);
        }
        catch (InvalidOperationException e)
        {
            throw new AppFunctionRegistrationException($"AppFunctions: the delegate {TypeName(type)} cannot be made from the container: {e.Message}");
        }
    }

    private static string TypeName(Type t)
    {
        if (!t.IsGenericType)
        {
            return t.FullName ?? t.Name;
        }
        int tick = t.Name.IndexOf('`', StringComparison.Ordinal);
        return $"{t.Namespace}.{(tick < 0 ? t.Name : t.Name[..tick])}<{string.Join(", ", t.GetGenericArguments().Select(TypeName))}>";
    }

    internal static void Check(int status, string what) => NativeCalls.Check(status, what);

    internal static AppFunctionRegistrationException Error(string what, int status = -1) => NativeCalls.Error(what, status);

    private static bool RequiresPermission(string descriptorJson) =>
        // the common descriptor, not parsed again (a cold start registers many)
        descriptorJson.Contains("\"requiresPermission\"", StringComparison.Ordinal) && ParsedRequiresPermission(descriptorJson);

    /// <summary>Its own method, never inlined: ReadyToRun code loads the types a method names
    /// when the method first runs, so a registration without <c>requiresPermission</c> does not
    /// load System.Text.Json (about 0.7 ms of a ReadyToRun cold start's registration, measured
    /// 2026-12-07).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool ParsedRequiresPermission(string descriptorJson)
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
public sealed class AppFunctionRegistrationException(string message, string? status = null) : Exception(message)
{
    /// <summary>The core's status, as its constant is spelled (<c>AF_ERR_DUPLICATE</c> for an id
    /// registered twice, <c>AF_ERR_INVALID</c> for a malformed descriptor...); null when the
    /// failure did not come from a status.</summary>
    public string? Status { get; } = status;
}

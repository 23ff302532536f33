using System.Runtime.CompilerServices;

namespace AppFunctions.Interop;

/// <summary>
/// The one layer between the binding and the C ABI: every native call of the public API, the
/// callbacks and the runtime of the generated code goes through here (only the imports in
/// <c>Native*.cs</c>, the handle kinds' frees and the loader's ABI check call <see cref="Native"/>
/// directly; <c>ci/interop_abi.py</c> checks that). Here a status becomes an exception
/// (<see cref="AppFunctionRegistrationException"/> naming what failed, with <c>af_last_error</c>)
/// or is handed back for the caller to turn into an outcome; strings cross as UTF-8; a handle
/// whose owner was disposed is refused before the core sees it.
/// </summary>
internal static unsafe partial class NativeCalls
{
    // ---- status → exception ------------------------------------------------------------

    /// <summary>Throws when <paramref name="status"/> is not <c>AF_OK</c>, naming what failed.</summary>
    internal static void Check(int status, string what)
    {
        if (status != Native.AF_OK)
        {
            throw Error(what, status);
        }
    }

    /// <summary>What failed, with the status name (<see cref="AppFunctionRegistrationException.Status"/>)
    /// and <c>af_last_error</c>.</summary>
    internal static AppFunctionRegistrationException Error(string what, int status = -1)
    {
        var message = LastError(); // before af_status_name, which sets its own for an unknown value
        var name = status > 0 ? StatusName(status) : null;
        return new($"AppFunctions: {what} failed{(name is null ? "" : $" ({name})")}: {message}", name);
    }

    /// <summary>The status's constant name, from the core (<c>af_status_name</c>).</summary>
    internal static string StatusName(int status) => Utf8.Read(Native.af_status_name(status)) ?? "status " + status;

    /// <summary>The message of the last failure on this thread.</summary>
    internal static string LastError() => Utf8.Take(Native.af_last_error_copy()) ?? "";

    /// <summary>What a disposed owner answers: the message every binding uses (the .NET README, "Interop").</summary>
    internal const string DisposedMessage = "the dispatcher was disposed";

    /// <summary>The message for a use of <typeparamref name="TKind"/>'s owner after <c>Dispose</c>.</summary>
    internal static string Disposed<TKind>() where TKind : INativeKind =>
        typeof(TKind) == typeof(DispatcherKind) ? DisposedMessage : $"the {TKind.Owner} was disposed";

    /// <summary>Refuses a handle whose owner's <c>Dispose</c> was called (even while a call still holds it).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static NativeHandle<TKind> Live<TKind>(NativeHandle<TKind> handle) where TKind : INativeKind
    {
        if (handle.IsDisposed)
        {
            ThrowDisposed<TKind>();
        }
        return handle;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowDisposed<TKind>() where TKind : INativeKind =>
        throw new ObjectDisposedException(TKind.Owner, $"AppFunctions: {Disposed<TKind>()}");

    /// <summary>The v1 <c>af_invocation</c> of <paramref name="invocation"/>, its id and caller as the
    /// UTF-8 text the caller keeps alive until the native call returns (no token, no host context:
    /// the caller sets those it uses).</summary>
    internal static AfInvocation Invocation(AppFunctionInvocation invocation, byte* functionId, byte* callerPackage) => new()
    {
        struct_size = (uint)sizeof(AfInvocation),
        platform = (int)invocation.Platform,
        function_id = functionId,
        caller_package = callerPackage,
        timeout_ms = invocation.Timeout is { } t ? TimeoutMs(t) : 0,
        is_foreground = invocation.IsForeground ? (byte)1 : (byte)0,
    };

    /// <summary><c>AF_TIMEOUT_NONE</c> for an infinite span, at least 1 ms otherwise.</summary>
    internal static uint TimeoutMs(TimeSpan t) =>
        t == System.Threading.Timeout.InfiniteTimeSpan ? Native.AF_TIMEOUT_NONE
        : t <= TimeSpan.Zero ? 1u
        : (uint)Math.Min(Native.AF_TIMEOUT_NONE - 1, Math.Ceiling(t.TotalMilliseconds));

    /// <summary>Runs <paramref name="call"/> with <paramref name="text"/> as UTF-8 and checks its status.</summary>
    private static void WithText<TKind>(NativeHandle<TKind> handle, string? text, delegate*<NativeHandle<TKind>, byte*, int> call, string what)
        where TKind : INativeKind
    {
        using var t = new Utf8.Text(text, default);
        Check(call(Live(handle), t.Pointer), what);
    }

    // ---- library ---------------------------------------------------------------------------

    internal static string Version()
    {
        NativeLibraryLoader.EnsureLoaded();
        return Utf8.Read(Native.af_version()) ?? "";
    }

    // ---- dispatcher ----------------------------------------------------------------------------

    internal static DispatcherHandle NewDispatcher()
    {
        NativeLibraryLoader.EnsureLoaded();
        return new DispatcherHandle(Native.af_dispatcher_new());
    }

    internal static void SetPermissionHook(DispatcherHandle d, DispatcherCore core) =>
        Check(Native.af_set_permission_hook(Live(d), &Trampolines.Permission, UserData.Alloc(core), &Trampolines.Release), "af_set_permission_hook");

    internal static void SetLogCallback(DispatcherHandle d, DispatcherCore core) =>
        Check(Native.af_set_log_callback(Live(d), &Trampolines.Log, UserData.Alloc(core), &Trampolines.Release), "af_set_log_callback");

    internal static void SetScopeHook(DispatcherHandle d, DispatcherCore core) =>
        Check(Native.af_set_scope_hooks(Live(d), &Trampolines.ScopeBegin, null, UserData.Alloc(core), &Trampolines.Release), "af_set_scope_hooks");

    internal static void SetDefaultTimeout(DispatcherHandle d, TimeSpan timeout) =>
        Check(Native.af_dispatcher_set_default_timeout(Live(d), timeout == System.Threading.Timeout.InfiniteTimeSpan ? 0 : TimeoutMs(timeout)), "af_dispatcher_set_default_timeout");

    internal static string RegistryJson(DispatcherHandle d) => Utf8.Take(Native.af_registry_json(Live(d))) ?? "{}";

    internal static void DefineTypes(DispatcherHandle d, string json, string what) =>
        WithText(d, json, &DefineTypesRaw, what);

    private static int DefineTypesRaw(DispatcherHandle d, byte* p) => Native.af_define_types(d, p);

    internal static void SetMetadataSchema(DispatcherHandle d, string json) =>
        WithText(d, json, &MetadataSchemaRaw, "the metadata schema");

    private static int MetadataSchemaRaw(DispatcherHandle d, byte* p) => Native.af_set_metadata_schema(d, p);

    internal static void ConfigureMcp(DispatcherHandle d, string json) => WithText(d, json, &ConfigureMcpRaw, "af_mcp_configure");

    private static int ConfigureMcpRaw(DispatcherHandle d, byte* p) => Native.af_mcp_configure(d, p);

    internal static void SetCallerPolicy(DispatcherHandle d, string json) => WithText(d, json, &CallerPolicyRaw, "SetCallerPolicy");

    private static int CallerPolicyRaw(DispatcherHandle d, byte* p) => Native.af_set_caller_policy(d, p);

    internal static void SetFunctionCallerPolicy(DispatcherHandle d, string functionId, string json)
    {
        using var id = new Utf8.Text(functionId, default);
        using var policy = new Utf8.Text(json, default);
        Check(Native.af_set_function_caller_policy(Live(d), id.Pointer, policy.Pointer), $"SetCallerPolicy({functionId})");
    }

    internal static void SetLimits(DispatcherHandle d, ulong maxInputBytes, uint maxDepth) =>
        Check(Native.af_set_limits(Live(d), maxInputBytes, maxDepth), "SetLimits");

    /// <summary>A toolkit; a second definition of the same toolkit (another unit declared it) is no error.</summary>
    internal static void DefineToolkit(DispatcherHandle d, string json, ToolkitTexts? texts)
    {
        using var t = new Utf8.Text(json, default);
        int st = texts is null
            ? Native.af_define_toolkit(Live(d), t.Pointer, null, null, null)
            : Native.af_define_toolkit(Live(d), t.Pointer, &Trampolines.ToolkitText, UserData.Alloc(texts), &Trampolines.Release);
        if (st != Native.AF_OK && st != Native.AF_ERR_DUPLICATE)
        {
            throw Error($"defining the toolkit {json}", st);
        }
    }

    internal static void RegisterEntity(DispatcherHandle d, string json, EntityRegistration reg)
    {
        using var t = new Utf8.Text(json, default);
        Check(Native.af_register_entity(Live(d), t.Pointer, &Trampolines.Lookup, UserData.Alloc(reg), &Trampolines.Release),
            $"registering the entity {reg.Name}");
    }

    internal static void RegisterFunction(DispatcherHandle d, string json, FunctionRegistration reg)
    {
        using var t = new Utf8.Text(json, default);
        int st = reg.Handler is null
            ? Native.af_register_function(Live(d), t.Pointer, null, UserData.Alloc(reg), &Trampolines.Release)
            : Native.af_register_function(Live(d), t.Pointer, &Trampolines.Handler, UserData.Alloc(reg), &Trampolines.Release);
        Check(st, $"registering {reg.Id}");
    }

    internal static void AddDelegate(DispatcherHandle d, DelegateRegistration reg, bool invoking, bool invoked)
    {
        var vtable = new AfDelegate
        {
            struct_size = (uint)sizeof(AfDelegate),
            on_invoking = invoking ? &Trampolines.OnInvoking : null,
            on_invoked = invoked ? &Trampolines.OnInvoked : null,
            free_user_data = &Trampolines.Release,
        };
        Check(Native.af_add_delegate(Live(d), &vtable, UserData.Alloc(reg)), $"adding the delegate {reg.Name}");
    }

    [SkipLocalsInit]
    internal static void SetEnabled(DispatcherHandle d, string functionId, bool enabled)
    {
        Span<byte> buf = stackalloc byte[128];
        using var id = new Utf8.Text(functionId, buf);
        Check(Native.af_set_function_enabled(Live(d), id.Pointer, enabled ? (byte)1 : (byte)0), $"SetEnabled({functionId})");
    }

    [SkipLocalsInit]
    internal static void Unregister(DispatcherHandle d, string functionId)
    {
        Span<byte> buf = stackalloc byte[128];
        using var id = new Utf8.Text(functionId, buf);
        Check(Native.af_unregister_function(Live(d), id.Pointer), $"Unregister({functionId})");
    }

    internal static int InFlight(DispatcherHandle d) => (int)Native.af_dispatcher_in_flight(Live(d));

    /// <summary>Shuts down and returns how many calls still run.</summary>
    internal static int Shutdown(DispatcherHandle d, TimeSpan timeout)
    {
        uint left = 0;
        int st = Native.af_dispatcher_shutdown(Live(d), TimeoutMs(timeout), &left);
        if (st != Native.AF_OK && st != Native.AF_ERR_TIMED_OUT)
        {
            throw Error("af_dispatcher_shutdown", st);
        }
        return (int)left;
    }

    /// <summary>The first step of <c>Dispose</c>: new calls are refused by the core from now on,
    /// even while a call in flight keeps the handle (and so the dispatcher) alive.</summary>
    internal static void RefuseNewCalls(DispatcherHandle d)
    {
        bool added = false;
        try
        {
            d.DangerousAddRef(ref added);
            Native.af_dispatcher_shutdown(d.DangerousGetHandle(), 0, null);
        }
        catch (ObjectDisposedException)
        {
            // already released
        }
        finally
        {
            if (added)
            {
                d.DangerousRelease();
            }
        }
    }

    [SkipLocalsInit]
    internal static string ExportCopy(DispatcherHandle d, string format)
    {
        Span<byte> buf = stackalloc byte[64];
        using var f = new Utf8.Text(format, buf);
        return Utf8.Take(Native.af_export_copy(Live(d), f.Pointer)) ?? throw Error($"export ({format})");
    }

    [SkipLocalsInit]
    internal static string SchemaJson(DispatcherHandle d, string functionId, bool parameters)
    {
        Span<byte> buf = stackalloc byte[128];
        using var id = new Utf8.Text(functionId, buf);
        var p = parameters ? Native.af_parameters_schema_json(Live(d), id.Pointer) : Native.af_result_schema_json(Live(d), id.Pointer);
        return Utf8.Take(p) ?? throw Error($"the schema of {functionId}");
    }

    /// <summary>Starts a call; the status comes back for the caller to make an outcome of.
    /// <paramref name="inv"/> and <paramref name="args"/> are read before this returns.</summary>
    internal static int ExecuteAsync(DispatcherHandle d, AfInvocation* inv, byte* args, void* userData)
    {
        using var h = new Hold<DispatcherKind>(d);
        return Held.ExecuteAsync(h.Raw, inv, args, userData);
    }

    internal static int ExecuteAsync(ViewHandle v, AfInvocation* inv, byte* args, void* userData)
    {
        using var h = new Hold<ViewKind>(v);
        return Held.ViewExecuteAsync(h.Raw, inv, args, userData);
    }

    /// <summary>A handle held for one native call made with its raw value: <c>DangerousAddRef</c>
    /// when made (after <see cref="Live{TKind}"/>'s check), <c>DangerousRelease</c> when disposed.
    /// For the calls of <see cref="Held"/>.</summary>
    private ref struct Hold<TKind> where TKind : INativeKind
    {
        private readonly NativeHandle<TKind> _handle;
        private bool _held;

        internal Hold(NativeHandle<TKind> handle)
        {
            _handle = Live(handle);
            _handle.DangerousAddRef(ref _held);
        }

        internal readonly nint Raw => _handle.DangerousGetHandle();

        public void Dispose()
        {
            if (_held)
            {
                _held = false;
                _handle.DangerousRelease();
            }
        }
    }

    /// <summary>The hot calls, each on a raw handle its caller holds (<see cref="Hold{TKind}"/>) and
    /// alone in a method of its own outside any try region: the 64-bit JIT inlines a P/Invoke's
    /// transition only there and makes any other one an IL stub, as it did of the SafeHandle
    /// wrapper <c>[LibraryImport]</c> generates (its call sits in a try). On
    /// <c>ExecuteSameCallAsC</c> that stub cost about 250 of the call's 1,060 ns (alternating loops). NativeAOT
    /// inlines either way.</summary>
    private static class Held
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static int ExecuteAsync(nint d, AfInvocation* inv, byte* args, void* userData) =>
            Native.af_execute_async(d, inv, args, &Trampolines.Outcome, userData);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static int ViewExecuteAsync(nint v, AfInvocation* inv, byte* args, void* userData) =>
            Native.af_view_execute_async(v, inv, args, &Trampolines.Outcome, userData);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static byte* ExecuteJson(nint d, AfInvocation* inv, byte* args) => Native.af_execute_json(d, inv, args);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static int EntitiesAsync(nint d, AfInvocation* inv, byte* entity, byte* idsJson, void* userData) =>
            Native.af_entities_async(d, inv, entity, idsJson, &Trampolines.Outcome, userData);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static int AndroidExecuteAsync(nint d, AfInvocation* inv, byte* document, void* userData) =>
            Native.af_android_execute_async(d, inv, document, &Trampolines.AndroidResponse, userData);

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static byte* McpHandle(nint d, byte* message) => Native.af_mcp_handle_json(d, message);
    }

    /// <summary>Runs a call to its end on this thread; the outcome JSON.</summary>
    internal static string ExecuteJson(DispatcherHandle d, AfInvocation* inv, byte* args)
    {
        using var h = new Hold<DispatcherKind>(d);
        return Utf8.Take(Held.ExecuteJson(h.Raw, inv, args)) ?? "";
    }

    [SkipLocalsInit]
    internal static string? McpHandle(DispatcherHandle d, string message)
    {
        Span<byte> buf = stackalloc byte[1024];
        using var m = new Utf8.Text(message, buf);
        using var h = new Hold<DispatcherKind>(d);
        return Utf8.Take(Held.McpHandle(h.Raw, m.Pointer));
    }

    internal static void SetMcpNotify(DispatcherHandle d, Action<string>? notify) => Check(notify is null
        ? Native.af_mcp_set_notify(Live(d), null, null, null)
        : Native.af_mcp_set_notify(Live(d), &Trampolines.McpNotify, UserData.Alloc(notify), &Trampolines.Release), "SetMcpNotify");

    // ---- cancellation ------------------------------------------------------------------------

    internal static CancelTokenHandle NewCancelToken() => new(Native.af_cancel_token_new());

    /// <summary>Cancels a token unless it was freed meanwhile (the call ended).</summary>
    internal static void Cancel(CancelTokenHandle t)
    {
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
    }

    // ---- views -------------------------------------------------------------------------------

    internal static ViewHandle NewView(DispatcherHandle d, string? metadataJson)
    {
        using var m = new Utf8.Text(metadataJson, default);
        var raw = Native.af_view_new(Live(d), m.Pointer);
        return raw == 0 ? throw Error("creating a view") : new ViewHandle(raw);
    }

    internal static ulong ViewGeneration(ViewHandle v) => Native.af_view_generation(Live(v));

    [SkipLocalsInit]
    internal static string ViewTools(ViewHandle v, string format)
    {
        Span<byte> buf = stackalloc byte[64];
        using var f = new Utf8.Text(format, buf);
        return Utf8.Take(Native.af_view_tools_json(Live(v), f.Pointer)) ?? throw Error($"the view's tools ({format})");
    }

    internal static string ViewInstructions(ViewHandle v) => Utf8.Take(Native.af_view_instructions_copy(Live(v))) ?? "";

    internal static void ViewSetMetadata(ViewHandle v, string json) => WithText(v, json, &ViewMetadataRaw, "SetMetadata");

    private static int ViewMetadataRaw(ViewHandle v, byte* p) => Native.af_view_set_metadata(v, p);

    internal static void ViewReset(ViewHandle v) => Check(Native.af_view_reset(Live(v)), "Reset");

    internal static void ViewSetConfirmation(ViewHandle v, string text) => WithText(v, text, &ViewConfirmationRaw, "SetConfirmation");

    private static int ViewConfirmationRaw(ViewHandle v, byte* p) => Native.af_view_set_confirmation(v, p);

    // ---- MCP sessions ------------------------------------------------------------------------

    internal static McpSessionHandle NewMcpSession(DispatcherHandle d, string? metadataJson)
    {
        using var m = new Utf8.Text(metadataJson, default);
        var raw = Native.af_mcp_session_new(Live(d), m.Pointer);
        return raw == 0 ? throw Error("creating an MCP session") : new McpSessionHandle(raw);
    }

    internal static string? McpSessionHandle(McpSessionHandle s, string message)
    {
        using var m = new Utf8.Text(message, default);
        return Utf8.Take(Native.af_mcp_session_handle_json(Live(s), m.Pointer));
    }

    internal static void McpSessionSetNotify(McpSessionHandle s, Action<string>? notify) => Check(notify is null
        ? Native.af_mcp_session_set_notify(Live(s), null, null, null)
        : Native.af_mcp_session_set_notify(Live(s), &Trampolines.McpNotify, UserData.Alloc(notify), &Trampolines.Release), "SetNotify");

    internal static void McpSessionSetMetadata(McpSessionHandle s, string json) => WithText(s, json, &McpMetadataRaw, "SetMetadata");

    private static int McpMetadataRaw(McpSessionHandle s, byte* p) => Native.af_mcp_session_set_metadata(s, p);

    // ---- a call, from its callbacks (af_call is a generation-checked handle) ---------------

    internal static string? CallFunctionId(nint call) => Utf8.Read(Native.af_call_function_id(call));

    internal static ReadOnlySpan<byte> CallFunctionIdUtf8(nint call) => Utf8.Span(Native.af_call_function_id(call));

    /// <summary>The bound arguments (lent for the callback). Not inlined: a generated handler
    /// reads them inside its try, where the 64-bit JIT does not inline a P/Invoke's transition
    /// and makes an IL stub instead (see <see cref="Held"/>).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static ReadOnlySpan<byte> CallArgsUtf8(nint call) => Utf8.Span(Native.af_call_args(call));

    /// <summary>The bound arguments, or null (an entity lookup).</summary>
    internal static bool TryCallArgs(nint call, out ReadOnlySpan<byte> args)
    {
        byte* p = Native.af_call_args(call);
        args = Utf8.Span(p);
        return p is not null;
    }

    internal static string? CallArgs(nint call) => Utf8.Read(Native.af_call_args(call));

    internal static ReadOnlySpan<byte> CallLookupRequestUtf8(nint call) => Utf8.Span(Native.af_call_lookup_request(call));

    internal static string? CallDescriptorJson(nint call) => Utf8.Take(Native.af_call_descriptor_json(call));

    internal static bool CallIsFunction(nint call) => Native.af_call_kind(call) == Native.AF_CALL_FUNCTION;

    internal static bool CallIsEntityLookup(nint call) => Native.af_call_kind(call) == Native.AF_CALL_ENTITY_LOOKUP;

    internal static int CallPlatform(nint call) => Native.af_call_platform(call);

    internal static bool CallIsForeground(nint call) => Native.af_call_is_foreground(call) != 0;

    internal static string? CallCallerPackage(nint call) => Utf8.Read(Native.af_call_caller_package(call));

    internal static string? CallDialog(nint call) => Utf8.Take(Native.af_call_dialog_copy(call));

    /// <summary>The invocation's host context (the binding's <see cref="PendingExecute"/>), if any.</summary>
    internal static object? CallInvocationContext(nint call)
    {
        var p = Native.af_call_invocation_context(call);
        return p is null ? null : UserData.Target(p);
    }

    /// <summary>The context a hook attached to a call the core started itself, if any.</summary>
    internal static object? CallHostData(nint call)
    {
        var p = Native.af_call_host_data(call);
        return p is null ? null : UserData.Target(p);
    }

    /// <summary>Attaches a context to the call, released (its DI scope disposed) with the call.
    /// On an error status the core runs the release itself.</summary>
    internal static void CallSetContext(nint call, AppFunctionContext context) =>
        Native.af_call_set_host_data(call, UserData.Alloc(context), &Trampolines.EndContext);

    [SkipLocalsInit]
    internal static void CallSay(nint call, string text)
    {
        Span<byte> buf = stackalloc byte[256];
        using var t = new Utf8.Text(text, buf);
        Native.af_call_say(call, t.Pointer);
    }

    [SkipLocalsInit]
    internal static void CallLog(nint call, int level, string message)
    {
        Span<byte> buf = stackalloc byte[512];
        using var t = new Utf8.Text(message, buf);
        Native.af_call_log(call, level, t.Pointer);
    }

    /// <summary>Cancels <paramref name="cts"/> when the core cancels the call (at once if it already has).</summary>
    internal static void CallOnCancel(nint call, CancellationTokenSource cts)
    {
        // cb runs at most once; the release frees the handle exactly once afterwards
        CancelAtOnceIfRefused(call, cts,
            Native.af_call_on_cancel(call, &Trampolines.Cancel, UserData.Alloc(cts), &Trampolines.Release, null));
    }

    /// <summary>Cancels <paramref name="cts"/> when the core cancels the call, through a pending
    /// call's <see cref="CancelSlot"/>: <paramref name="userData"/> is the slot's number and the
    /// call's generation, and there is no release.</summary>
    internal static void CallOnCancelSlotted(nint call, nuint userData, CancellationTokenSource cts)
    {
        CancelAtOnceIfRefused(call, cts, Native.af_call_on_cancel(call, &Trampolines.CancelSlotted, (void*)userData, null, null));
    }

    /// <summary>A registration the core refused (the call has ended, or it was cancelled as it
    /// ended): the token is cancelled at once when the core says the call was cancelled.</summary>
    private static void CancelAtOnceIfRefused(nint call, CancellationTokenSource cts, int status)
    {
        if (status != Native.AF_OK && Native.af_call_is_cancelled(call) != 0)
        {
            cts.Cancel();
        }
    }

    /// <summary>Completes the call with its result (UTF-8 JSON, NUL-terminated; null for void).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int CallReturn(nint call, byte* resultJson) => Native.af_call_return(call, resultJson);

    /// <summary>Fails the call with an error code and message.</summary>
    [SkipLocalsInit]
    internal static int CallFail(nint call, AppFunctionErrorCode code, string message)
    {
        Span<byte> buf = stackalloc byte[512];
        using var m = new Utf8.Text(message, buf);
        return Native.af_call_fail(call, (int)code, m.Pointer);
    }

    // ---- gates and toolkit texts -------------------------------------------------------------

    [SkipLocalsInit]
    internal static void Answer(nint gate, AppFunctionGate answer)
    {
        if (answer.Kind == AppFunctionGate.GateKind.Allow)
        {
            Native.af_gate_allow(gate);
            return;
        }
        Span<byte> buf = stackalloc byte[256];
        using var m = new Utf8.Text(answer.Message ?? "", buf);
        if (answer.Kind == AppFunctionGate.GateKind.Deny)
        {
            Native.af_gate_deny(gate, m.Pointer);
        }
        else
        {
            Native.af_gate_open_app(gate, m.Pointer);
        }
    }

    [SkipLocalsInit]
    internal static void SetText(nint output, string text)
    {
        Span<byte> buf = stackalloc byte[512];
        using var t = new Utf8.Text(text, buf);
        Native.af_text_set(output, t.Pointer);
    }
}

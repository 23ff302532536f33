using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

[assembly: DisableRuntimeMarshalling]

namespace AppFunctions.Interop;

/// <summary>
/// The C ABI v1 (<c>include/appfunctions.h</c>), bound with <c>[LibraryImport]</c>: blittable
/// parameters only (pointers, fixed-width integers, <see cref="SafeHandle"/>s), strings as
/// NUL-terminated UTF-8 <c>byte*</c>. Functions whose name ends in <c>_json</c> or
/// <c>_copy</c> return text the caller frees with <see cref="af_string_free"/>; every other
/// <c>byte*</c> result is lent.
/// </summary>
internal static unsafe partial class Native
{
    internal const string Library = "appfunctions";

    // The resolver is installed before the first call into the library, whichever it is.
    static Native() => NativeLibraryLoader.InstallResolver();

    /// <summary>The ABI this binding was written for (<c>AF_ABI_VERSION</c>).</summary>
    internal const uint AbiVersion = 1;

    internal const int AF_OK = 0;
    internal const int AF_ERR_NULL = 1;
    internal const int AF_ERR_UTF8 = 2;
    internal const int AF_ERR_INVALID = 3;
    internal const int AF_ERR_DUPLICATE = 4;
    internal const int AF_ERR_NOT_FOUND = 5;
    internal const int AF_ERR_ALREADY_COMPLETED = 6;
    internal const int AF_ERR_NOT_WAITING = 7;
    internal const int AF_ERR_INVALID_HANDLE = 8;
    internal const int AF_ERR_LIMIT = 9;
    internal const int AF_ERR_INTERNAL = 10;
    internal const int AF_ERR_TIMED_OUT = 11;

    internal const int AF_CALL_FUNCTION = 0;
    internal const int AF_CALL_ENTITY_LOOKUP = 1;
    internal const int AF_TOOLKIT_FUNCTION_RESULT = 0;
    internal const int AF_TOOLKIT_SYSTEM_PROMPT = 1;
    internal const uint AF_TIMEOUT_NONE = uint.MaxValue;

    // ---- versions, errors, strings ---------------------------------------------------
    [LibraryImport(Library)] internal static partial byte* af_last_error();
    [LibraryImport(Library)] internal static partial byte* af_last_error_copy();
    [LibraryImport(Library)] internal static partial void af_string_free(byte* s);
    [LibraryImport(Library)] internal static partial byte* af_version();
    [LibraryImport(Library)] internal static partial uint af_abi_version();
    [LibraryImport(Library)] internal static partial byte* af_error_code_name(int code);
    [LibraryImport(Library)] internal static partial byte* af_status_name(int status);
    [LibraryImport(Library)] internal static partial int af_error_code_from_name(byte* name);

    // ---- dispatcher ----------------------------------------------------------------------
    [LibraryImport(Library)] internal static partial nint af_dispatcher_new();
    [LibraryImport(Library)] internal static partial void af_dispatcher_free(nint d);
    [LibraryImport(Library)] internal static partial int af_dispatcher_shutdown(nint d, uint timeoutMs, uint* outInFlight);
    [LibraryImport(Library)] internal static partial int af_dispatcher_shutdown(DispatcherHandle d, uint timeoutMs, uint* outInFlight);
    [LibraryImport(Library)] internal static partial uint af_dispatcher_in_flight(DispatcherHandle d);
    [LibraryImport(Library)] internal static partial int af_dispatcher_set_default_timeout(DispatcherHandle d, uint timeoutMs);
    [LibraryImport(Library)] internal static partial int af_define_types(DispatcherHandle d, byte* json);
    [LibraryImport(Library)]
    internal static partial int af_register_function(DispatcherHandle d, byte* descriptor,
        delegate* unmanaged[Cdecl]<void*, nint, void> handler, void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)]
    internal static partial int af_register_entity(DispatcherHandle d, byte* descriptor,
        delegate* unmanaged[Cdecl]<void*, nint, void> lookup, void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)] internal static partial int af_unregister_function(DispatcherHandle d, byte* id);
    [LibraryImport(Library)] internal static partial int af_set_function_enabled(DispatcherHandle d, byte* id, byte enabled);
    [LibraryImport(Library)] internal static partial int af_set_limits(DispatcherHandle d, ulong maxInputBytes, uint maxDepth);
    [LibraryImport(Library)] internal static partial int af_set_caller_policy(DispatcherHandle d, byte* policy);
    [LibraryImport(Library)] internal static partial int af_set_function_caller_policy(DispatcherHandle d, byte* id, byte* policy);
    [LibraryImport(Library)]
    internal static partial int af_set_log_callback(DispatcherHandle d, delegate* unmanaged[Cdecl]<void*, int, byte*, void> cb,
        void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    // the hot calls take the raw handle, held by their callers (NativeCalls.Hold): with a
    // SafeHandle the generated wrapper puts the call in a try region, where the 64-bit JIT makes
    // it an IL stub (NativeCalls.Held says what that cost)
    [LibraryImport(Library)] internal static partial byte* af_execute_json(nint d, AfInvocation* inv, byte* args);
    [LibraryImport(Library)]
    internal static partial int af_execute_async(nint d, AfInvocation* inv, byte* args,
        delegate* unmanaged[Cdecl]<void*, byte*, void> onOutcome, void* userData);
    [LibraryImport(Library)] internal static partial byte* af_registry_json(DispatcherHandle d);
    [LibraryImport(Library)] internal static partial byte* af_parameters_schema_json(DispatcherHandle d, byte* id);
    [LibraryImport(Library)] internal static partial byte* af_result_schema_json(DispatcherHandle d, byte* id);
    [LibraryImport(Library)] internal static partial byte* af_export_copy(DispatcherHandle d, byte* format);
    [LibraryImport(Library)] internal static partial int af_add_delegate(DispatcherHandle d, AfDelegate* vtable, void* userData);
    [LibraryImport(Library)]
    internal static partial int af_set_scope_hooks(DispatcherHandle d, delegate* unmanaged[Cdecl]<void*, nint, void> begin,
        delegate* unmanaged[Cdecl]<void*, nint, void> end, void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)]
    internal static partial int af_set_permission_hook(DispatcherHandle d, delegate* unmanaged[Cdecl]<void*, nint, nint, void> hook,
        void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)]
    internal static partial int af_define_toolkit(DispatcherHandle d, byte* json,
        delegate* unmanaged[Cdecl]<void*, byte*, int, byte*, nint, void> texts, void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)] internal static partial int af_set_metadata_schema(DispatcherHandle d, byte* json);
    [LibraryImport(Library)] internal static partial int af_text_set(nint output, byte* text);

    // ---- cancellation ----------------------------------------------------------------------
    [LibraryImport(Library)] internal static partial nint af_cancel_token_new();
    [LibraryImport(Library)] internal static partial int af_cancel_token_cancel(CancelTokenHandle t);
    [LibraryImport(Library)] internal static partial byte af_cancel_token_is_cancelled(CancelTokenHandle t);
    [LibraryImport(Library)] internal static partial void af_cancel_token_free(nint t);

    // ---- gates --------------------------------------------------------------------------------
    [LibraryImport(Library)] internal static partial int af_gate_allow(nint gate);
    [LibraryImport(Library)] internal static partial int af_gate_deny(nint gate, byte* message);
    [LibraryImport(Library)] internal static partial int af_gate_open_app(nint gate, byte* message);

    // ---- the call context (af_call is a generation-checked handle) ----------------------
    // [SuppressGCTransition]: reads of the call that return at once, run no host code, never
    // block on anything but the call table's own short lock and never fail by unwinding: they
    // skip the GC transition that every other import pays (the handler and delegates call them
    // in every call).
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial byte* af_call_function_id(nint call);
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial byte* af_call_args(nint call);
    [LibraryImport(Library)] internal static partial byte* af_call_lookup_request(nint call);
    [LibraryImport(Library)] internal static partial byte* af_call_descriptor_json(nint call);
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial int af_call_kind(nint call);
    [LibraryImport(Library)] internal static partial byte* af_call_entity_copy(nint call);
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial int af_call_platform(nint call);
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial byte af_call_is_foreground(nint call);
    [LibraryImport(Library)] internal static partial byte* af_call_caller_package(nint call);
    [LibraryImport(Library)] internal static partial byte af_call_is_cancelled(nint call);
    [LibraryImport(Library)]
    internal static partial int af_call_on_cancel(nint call, delegate* unmanaged[Cdecl]<void*, void> cb, void* userData,
        delegate* unmanaged[Cdecl]<void*, void> freeUserData, ulong* outId);
    [LibraryImport(Library)] internal static partial int af_call_on_cancel_remove(nint call, ulong id);
    [LibraryImport(Library)] internal static partial int af_call_item_set(nint call, byte* key, byte* json);
    [LibraryImport(Library)] internal static partial byte* af_call_item_get_json(nint call, byte* key);
    [LibraryImport(Library)] internal static partial int af_call_log(nint call, int level, byte* message);
    [LibraryImport(Library)] internal static partial int af_call_say(nint call, byte* text);
    [LibraryImport(Library)]
    internal static partial int af_call_set_host_data(nint call, void* data, delegate* unmanaged[Cdecl]<void*, void> freeData);
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial void* af_call_host_data(nint call);
    [SuppressGCTransition]
    [LibraryImport(Library)] internal static partial void* af_call_invocation_context(nint call);
    [LibraryImport(Library)] internal static partial byte* af_call_dialog_copy(nint call);
    [LibraryImport(Library)] internal static partial int af_call_return(nint call, byte* result);
    [LibraryImport(Library)] internal static partial int af_call_fail(nint call, int code, byte* message);

    // ---- agent views ------------------------------------------------------------------------
    [LibraryImport(Library)] internal static partial nint af_view_new(DispatcherHandle d, byte* metadata);
    [LibraryImport(Library)] internal static partial void af_view_free(nint v);
    [LibraryImport(Library)] internal static partial byte* af_view_tools_json(ViewHandle v, byte* format);
    [LibraryImport(Library)] internal static partial byte* af_view_execute_json(ViewHandle v, AfInvocation* inv, byte* args);
    [LibraryImport(Library)] // the raw handle, as af_execute_async's (NativeCalls.Held)
    internal static partial int af_view_execute_async(nint v, AfInvocation* inv, byte* args,
        delegate* unmanaged[Cdecl]<void*, byte*, void> onOutcome, void* userData);
    [LibraryImport(Library)] internal static partial byte* af_view_instructions_copy(ViewHandle v);
    [LibraryImport(Library)] internal static partial int af_view_set_metadata(ViewHandle v, byte* metadata);
    [LibraryImport(Library)] internal static partial int af_view_reset(ViewHandle v);
    [LibraryImport(Library)] internal static partial int af_view_set_confirmation(ViewHandle v, byte* text);
    [LibraryImport(Library)] internal static partial ulong af_view_generation(ViewHandle v);

    // ---- MCP ---------------------------------------------------------------------------------
    [LibraryImport(Library)] internal static partial int af_mcp_configure(DispatcherHandle d, byte* config);
    [LibraryImport(Library)] internal static partial byte* af_mcp_handle_json(nint d, byte* message); // NativeCalls.Held
    [LibraryImport(Library)]
    internal static partial int af_mcp_set_notify(DispatcherHandle d, delegate* unmanaged[Cdecl]<void*, byte*, void> cb,
        void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)] internal static partial nint af_mcp_session_new(DispatcherHandle d, byte* metadata);
    [LibraryImport(Library)] internal static partial byte* af_mcp_session_handle_json(McpSessionHandle s, byte* message);
    [LibraryImport(Library)]
    internal static partial int af_mcp_session_set_notify(McpSessionHandle s, delegate* unmanaged[Cdecl]<void*, byte*, void> cb,
        void* userData, delegate* unmanaged[Cdecl]<void*, void> freeUserData);
    [LibraryImport(Library)] internal static partial int af_mcp_session_set_metadata(McpSessionHandle s, byte* metadata);
    [LibraryImport(Library)] internal static partial void af_mcp_session_free(nint s);
}

/// <summary><c>af_invocation</c> (ABI 1): size first, natural alignment, 48 bytes on 64-bit, 32 on
/// 32-bit; <c>host_context</c> last (the first ABI 1 layout, 40 [28] bytes, ended before it).</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct AfInvocation
{
    public uint struct_size;
    public int platform;
    public byte* function_id;
    public byte* caller_package;
    public nint cancel_token;
    public uint timeout_ms;
    public byte is_foreground;
    public byte reserved0, reserved1, reserved2;
    public void* host_context;
}

/// <summary><c>af_delegate</c> (ABI v1): 32 bytes on 64-bit, 20 on 32-bit.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct AfDelegate
{
    public uint struct_size;
    public uint reserved;
    public delegate* unmanaged[Cdecl]<void*, nint, nint, void> on_invoking;
    public delegate* unmanaged[Cdecl]<void*, nint, byte*, void> on_invoked;
    public delegate* unmanaged[Cdecl]<void*, void> free_user_data;
}

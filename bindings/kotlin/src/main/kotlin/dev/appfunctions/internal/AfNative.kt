// The raw C ABI v1 (include/appfunctions.h), JNA direct mapping. Names are the C names;
// an owned string comes from a function ending in _json or _copy (read, then freed with
// af_string_free: takeUtf8), every other one is lent (utf8).
// The hot callbacks (handlers, outcomes, hooks, releases) are taken as function pointers
// (`Pointer`): the JNI shim's trampolines, or JNA's (JniShim.kt, Callbacks); the rest as JNA
// Callback interfaces.
// Strings in are NUL-terminated UTF-8 ByteArrays (never `String`: JNA would encode those
// with the locale's charset); strings out are `Pointer`s read as UTF-8 (owned ones are then
// freed with af_string_free). Opaque handles and user data are `Pointer`s.
// Every function of the ABI is declared here, called or not (ci/interop_abi.py holds this
// file to abi/v1.txt, as it holds the .NET binding's Native.cs); those the binding does not
// call are in its NOT_WRAPPED list with the reason, and in the binding's README.
// [AfNative] holds what loading, registering and the first call need, bound at load; the cold
// groups after it (AfNativeViews, AfNativeMcp, AfNativeHttp, ...) are each bound on first use
// ([AfNative.bind]): `Native.register` costs per function, on the JVM and on Android alike.
@file:Suppress("FunctionName", "LocalVariableName")

package dev.appfunctions.internal

import com.sun.jna.Callback
import com.sun.jna.Library
import com.sun.jna.Native
import com.sun.jna.NativeLibrary
import com.sun.jna.Pointer
import com.sun.jna.ptr.PointerByReference

/** void (*)(void *user_data, af_call *call): af_handler_fn, af_scope_fn */
internal interface CallFn : Callback {
    fun invoke(userData: Pointer?, call: Pointer?)
}

/** void (*)(void *user_data, af_call *call, af_gate *gate): on_invoking, af_permission_fn */
internal interface GateFn : Callback {
    fun invoke(userData: Pointer?, call: Pointer?, gate: Pointer?)
}

/** void (*)(void *user_data, af_call *call, const char *outcome_json): on_invoked */
internal interface InvokedFn : Callback {
    fun invoke(userData: Pointer?, call: Pointer?, outcomeJson: Pointer?)
}

/** void (*)(void *user_data): af_free_fn, af_cancel_fn */
internal interface UserDataFn : Callback {
    fun invoke(userData: Pointer?)
}

/** void (*)(void *user_data, const char *outcome_json): af_outcome_fn */
internal interface OutcomeFn : Callback {
    fun invoke(userData: Pointer?, outcomeJson: Pointer?)
}

/** void (*)(void *user_data, const char *message_json): af_mcp_notify_fn */
internal interface MessageFn : Callback {
    fun invoke(userData: Pointer?, messageJson: Pointer?)
}

/** void (*)(void *user_data, const char *toolkit, int32_t which, const char *metadata_json, af_text *out): af_toolkit_text_fn */
/** int32_t (*)(void *user_data, const af_http_request *request): af_http_authorize_fn */
internal interface HttpAuthorizeFn : Callback {
    fun invoke(userData: Pointer?, request: Pointer?): Int
}

internal interface ToolkitTextFn : Callback {
    fun invoke(userData: Pointer?, toolkit: Pointer?, which: Int, metadataJson: Pointer?, out: Pointer?)
}

/** void (*)(void *user_data, int32_t level, const char *message): af_log_fn */
internal interface LogFn : Callback {
    fun invoke(userData: Pointer?, level: Int, message: Pointer?)
}

internal object AfNative {
    const val LIBRARY = "appfunctions"

    /**
     * The library, held for the life of the process: the JNI shim calls a few of its functions
     * by the addresses this instance resolves (NativeCalls.functionAddress). Another
     * `NativeLibrary.getInstance` could load a second copy (from the jar, unpacked again) and
     * close it when collected.
     */
    val library: NativeLibrary = NativeLibrary.getInstance(LIBRARY, mapOf(Library.OPTION_CLASSLOADER to AfNative::class.java.classLoader))

    /** How many times each group of functions was bound (`Native.register`): once, or not yet. */
    val bound: java.util.concurrent.ConcurrentHashMap<String, Int> = java.util.concurrent.ConcurrentHashMap()

    /**
     * Binds [group]'s `external fun`s to [library] (`Native.register`): this object's at load,
     * each cold group's in its initializer, on first use (the JVM runs an object's initializer
     * once, whichever threads reach it together).
     */
    fun bind(group: Class<*>) {
        Native.register(group, library)
        // one initializer per group runs this, so no two threads count the same key at once
        bound[group.simpleName] = (bound[group.simpleName] ?: 0) + 1
    }

    init {
        bind(AfNative::class.java)
    }

    external fun af_last_error(): Pointer?
    external fun af_last_error_copy(): Pointer?
    external fun af_string_free(s: Pointer?)
    external fun af_version(): Pointer?
    external fun af_abi_version(): Int
    external fun af_error_code_name(code: Int): Pointer?
    external fun af_status_name(status: Int): Pointer?

    // the call context
    external fun af_call_function_id(call: Pointer?): Pointer?
    external fun af_call_args(call: Pointer?): Pointer?
    external fun af_call_kind(call: Pointer?): Int
    external fun af_call_is_cancelled(call: Pointer?): Byte
    external fun af_call_on_cancel(call: Pointer?, cb: Pointer?, userData: Pointer?, free: Pointer?, outId: LongArray?): Int
    external fun af_call_set_host_data(call: Pointer?, data: Pointer?, free: Pointer?): Int
    external fun af_call_host_data(call: Pointer?): Pointer?
    external fun af_call_return(call: Pointer?, resultJson: ByteArray?): Int
    external fun af_call_fail(call: Pointer?, code: Int, message: ByteArray?): Int

    // the dispatcher
    external fun af_dispatcher_new(): Pointer?
    external fun af_dispatcher_free(d: Pointer?)
    external fun af_define_types(d: Pointer?, json: ByteArray?): Int
    external fun af_register_function(d: Pointer?, descriptor: ByteArray?, handler: Pointer?, userData: Pointer?, free: Pointer?): Int
    external fun af_register_entity(d: Pointer?, descriptor: ByteArray?, lookup: Pointer?, userData: Pointer?, free: Pointer?): Int
    external fun af_set_log_callback(d: Pointer?, cb: LogFn?, userData: Pointer?, free: UserDataFn?): Int
    external fun af_execute_json(d: Pointer?, inv: Pointer?, args: ByteArray?): Pointer?
    external fun af_execute_async(d: Pointer?, inv: Pointer?, args: ByteArray?, onOutcome: Pointer?, userData: Pointer?): Int

    // toolkits
    external fun af_define_toolkit(d: Pointer?, json: ByteArray?, texts: ToolkitTextFn?, userData: Pointer?, free: UserDataFn?): Int
    external fun af_text_set(out: Pointer?, text: ByteArray?): Int
    external fun af_set_metadata_schema(d: Pointer?, json: ByteArray?): Int

    // cancellation
    external fun af_cancel_token_new(): Pointer?
    external fun af_cancel_token_cancel(t: Pointer?): Int
    external fun af_cancel_token_is_cancelled(t: Pointer?): Byte
    external fun af_cancel_token_free(t: Pointer?)

    // gates
    external fun af_gate_allow(gate: Pointer?): Int
    external fun af_gate_deny(gate: Pointer?, message: ByteArray?): Int
    external fun af_gate_open_app(gate: Pointer?, message: ByteArray?): Int

    const val AF_OK = 0
    const val AF_ERR_NOT_FOUND = 5
    const val AF_ERR_ALREADY_COMPLETED = 6
    const val AF_ERR_TIMED_OUT = 11
    /** af_invocation.timeout_ms: no timeout at all (UINT32_MAX). */
    const val AF_TIMEOUT_NONE = -1
    const val AF_CALL_ENTITY_LOOKUP = 1
    const val AF_TOOLKIT_FUNCTION_RESULT = 0
    const val AF_TOOLKIT_SYSTEM_PROMPT = 1
}

/** The call context's other functions (a handler reading its invocation, items, its dialog, saying or logging; an entity lookup's request): bound on first use ([AfNative.bind]). */
internal object AfNativeCall {
    init {
        AfNative.bind(AfNativeCall::class.java)
    }

    external fun af_call_lookup_request(call: Pointer?): Pointer?
    external fun af_call_descriptor_json(call: Pointer?): Pointer?
    // not called, as in .NET and Swift: an entity lookup reads af_call_lookup_request
    external fun af_call_entity_copy(call: Pointer?): Pointer?
    external fun af_call_platform(call: Pointer?): Int
    external fun af_call_is_foreground(call: Pointer?): Byte
    external fun af_call_caller_package(call: Pointer?): Pointer?
    // not called, as in .NET and Swift: the one cancel handler a call gets (Runtime.kt, the
    // coroutine's cancellation) lives as long as the call
    external fun af_call_on_cancel_remove(call: Pointer?, id: Long): Int
    external fun af_call_item_set(call: Pointer?, key: ByteArray?, json: ByteArray?): Int
    external fun af_call_item_get_json(call: Pointer?, key: ByteArray?): Pointer?
    external fun af_call_say(call: Pointer?, text: ByteArray?): Int
    external fun af_call_log(call: Pointer?, level: Int, message: ByteArray?): Int
    external fun af_call_invocation_context(call: Pointer?): Pointer?
    external fun af_call_dialog_copy(call: Pointer?): Pointer?
}

/** The dispatcher's settings and reads (limits, caller policies, enabling and unregistering, timeouts, shutdown, the registry and schemas, exports, entity calls, delegates and hooks): bound on first use ([AfNative.bind]). */
internal object AfNativeAdmin {
    init {
        AfNative.bind(AfNativeAdmin::class.java)
    }

    external fun af_error_code_from_name(name: ByteArray?): Int
    external fun af_unregister_function(d: Pointer?, functionId: ByteArray?): Int
    external fun af_set_function_enabled(d: Pointer?, functionId: ByteArray?, enabled: Byte): Int
    external fun af_set_limits(d: Pointer?, maxInputBytes: Long, maxDepth: Int): Int
    external fun af_set_caller_policy(d: Pointer?, policy: ByteArray?): Int
    external fun af_set_function_caller_policy(d: Pointer?, functionId: ByteArray?, policy: ByteArray?): Int
    external fun af_entities_json(d: Pointer?, inv: Pointer?, entity: ByteArray?, idsJson: ByteArray?): Pointer?
    external fun af_entities_async(d: Pointer?, inv: Pointer?, entity: ByteArray?, idsJson: ByteArray?, onOutcome: Pointer?, userData: Pointer?): Int
    external fun af_dispatcher_set_default_timeout(d: Pointer?, timeoutMs: Int): Int
    external fun af_dispatcher_shutdown(d: Pointer?, timeoutMs: Int, outInFlight: IntArray?): Int
    external fun af_dispatcher_in_flight(d: Pointer?): Int
    external fun af_registry_json(d: Pointer?): Pointer?
    external fun af_parameters_schema_json(d: Pointer?, functionId: ByteArray?): Pointer?
    external fun af_result_schema_json(d: Pointer?, functionId: ByteArray?): Pointer?
    external fun af_export_copy(d: Pointer?, format: ByteArray?): Pointer?
    external fun af_add_delegate(d: Pointer?, vtable: Pointer?, userData: Pointer?): Int
    external fun af_set_scope_hooks(d: Pointer?, begin: Pointer?, end: Pointer?, userData: Pointer?, free: Pointer?): Int
    external fun af_set_permission_hook(d: Pointer?, hook: Pointer?, userData: Pointer?, free: Pointer?): Int
}

/** Agent views (af_view_*): bound on first use ([AfNative.bind]). */
internal object AfNativeViews {
    init {
        AfNative.bind(AfNativeViews::class.java)
    }

    external fun af_view_new(d: Pointer?, metadata: ByteArray?): Pointer?
    external fun af_view_free(v: Pointer?)
    external fun af_view_tools_json(v: Pointer?, format: ByteArray?): Pointer?
    external fun af_view_execute_json(v: Pointer?, inv: Pointer?, args: ByteArray?): Pointer?
    external fun af_view_execute_async(v: Pointer?, inv: Pointer?, args: ByteArray?, onOutcome: Pointer?, userData: Pointer?): Int
    external fun af_view_generation(v: Pointer?): Long
    external fun af_view_instructions_copy(v: Pointer?): Pointer?
    external fun af_view_set_metadata(v: Pointer?, metadata: ByteArray?): Int
    external fun af_view_reset(v: Pointer?): Int
    external fun af_view_set_confirmation(v: Pointer?, text: ByteArray?): Int
}

/** MCP: the dispatcher's endpoint and sessions (af_mcp_*): bound on first use ([AfNative.bind]). */
internal object AfNativeMcp {
    init {
        AfNative.bind(AfNativeMcp::class.java)
    }

    external fun af_mcp_configure(d: Pointer?, config: ByteArray?): Int
    external fun af_mcp_handle_json(d: Pointer?, message: ByteArray?): Pointer?
    external fun af_mcp_set_notify(d: Pointer?, cb: MessageFn?, userData: Pointer?, free: UserDataFn?): Int
    external fun af_mcp_session_new(d: Pointer?, metadata: ByteArray?): Pointer?
    external fun af_mcp_session_handle_json(s: Pointer?, message: ByteArray?): Pointer?
    external fun af_mcp_session_set_notify(s: Pointer?, cb: MessageFn?, userData: Pointer?, free: UserDataFn?): Int
    external fun af_mcp_session_set_metadata(s: Pointer?, metadata: ByteArray?): Int
    external fun af_mcp_session_free(s: Pointer?)
    external fun af_mcp_serve_stdio(d: Pointer?): Int
}

/** Published dispatchers and descriptor bundles: bound on first use ([AfNative.bind]). */
internal object AfNativePublication {
    init {
        AfNative.bind(AfNativePublication::class.java)
    }

    external fun af_dispatcher_publish(d: Pointer?, name: ByteArray?): Int
    external fun af_dispatcher_unpublish(name: ByteArray?): Int
    external fun af_dispatcher_published_new(name: ByteArray?, timeoutMs: Int, outDispatcher: PointerByReference?): Int
    external fun af_dispatcher_bundle_json(d: Pointer?): Pointer?
    external fun af_bundle_export_copy(bundleJson: ByteArray?, format: ByteArray?): Pointer?
}

/** Android's AppFunctions service call (af_android_*): bound on first use ([AfNative.bind]). */
internal object AfNativeAndroid {
    init {
        AfNative.bind(AfNativeAndroid::class.java)
    }

    external fun af_android_execute_json(d: Pointer?, inv: Pointer?, parametersDocument: ByteArray?): Pointer?
    external fun af_android_execute_async(d: Pointer?, inv: Pointer?, parametersDocument: ByteArray?, onResponse: OutcomeFn?, userData: Pointer?): Int
}

/** MCP over Streamable HTTP and the debug page (af_http_*); `request` is an af_http_request in native memory (struct_size, reserved, body_len, then 5 pointers): bound on first use ([AfNative.bind]). */
internal object AfNativeHttp {
    init {
        AfNative.bind(AfNativeHttp::class.java)
    }

    external fun af_http_server_new(d: Pointer?, config: ByteArray?): Pointer?
    external fun af_http_server_free(s: Pointer?)
    external fun af_http_server_max_body_bytes(s: Pointer?): Long
    external fun af_http_server_set_authorize(s: Pointer?, cb: HttpAuthorizeFn?, userData: Pointer?, free: UserDataFn?): Int
    external fun af_http_handle(s: Pointer?, request: Pointer?): Pointer?
    external fun af_http_response_status(r: Pointer?): Int
    external fun af_http_response_headers_copy(r: Pointer?): Pointer?
    external fun af_http_response_body(r: Pointer?, outLen: LongArray?): Pointer?
    external fun af_http_response_take_stream(r: Pointer?): Pointer?
    external fun af_http_response_free(r: Pointer?)
    external fun af_http_stream_next_copy(st: Pointer?, timeoutMs: Int, outFrame: PointerByReference?): Int
    external fun af_http_stream_free(st: Pointer?)
}

/** UTF-8 bytes with the trailing NUL the C side expects. */
internal fun String.cstr(): ByteArray {
    val bytes = toByteArray(Charsets.UTF_8)
    return bytes.copyOf(bytes.size + 1)
}

/** A borrowed C string as a Kotlin String (UTF-8), or null. */
internal fun Pointer?.utf8(): String? = this?.getString(0, "UTF-8")

/** An owned C string: read (UTF-8), then freed with af_string_free. */
internal fun Pointer?.takeUtf8(): String? {
    if (this == null) return null
    try {
        return getString(0, "UTF-8")
    } finally {
        AfNative.af_string_free(this)
    }
}

internal fun lastError(): String = AfNative.af_last_error().utf8().orEmpty()

/** A status's constant name (`AF_ERR_DUPLICATE`, ...), from the core. */
internal fun statusName(status: Int): String = AfNative.af_status_name(status).utf8() ?: "status $status"

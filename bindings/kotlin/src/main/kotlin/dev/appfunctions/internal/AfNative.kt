// The raw C ABI v1 (include/appfunctions.h) as JNI natives of the binding's own library,
// libappfunctions_jni (src/main/c/appfunctions_jni.c: each one is j_<name> there, registered
// with RegisterNatives at load, so a signature that does not match fails the load naming it).
// Names are the C names; pointers and handles cross as `Long` (0 is NULL), C strings in as
// UTF-8 `ByteArray`s (copied and NUL-terminated in C; never `String`, whose JNI form is modified
// UTF-8), C strings out as `ByteArray`s (an owned one, from the functions whose names end in
// _json or _copy, read and freed in C), out parameters as one-element arrays, callbacks as the
// addresses of the shim's C trampolines (JniShim.kt, Callbacks).
// ci/interop_abi.py (the header lane) holds this file to abi/v1.txt and to the shim's table:
// every ABI function is declared here, called by the shim itself (af_string_free, the execute
// round trips, af_call_args, af_text_set), or in its NOT_WRAPPED list with the reason (and in
// the binding's README).
@file:Suppress("FunctionName")

package dev.appfunctions.internal

internal object AfNative {
    init {
        // the natives below are registered by the shim's load; any use of this object loads it first
        JniShim.ensureLoaded()
    }

    const val LIBRARY = "appfunctions"

    external fun af_last_error(): ByteArray?
    external fun af_version(): ByteArray?
    external fun af_abi_version(): Int
    external fun af_error_code_name(code: Int): ByteArray?
    external fun af_status_name(status: Int): ByteArray?

    // the call context
    external fun af_call_function_id(call: Long): ByteArray?
    external fun af_call_kind(call: Long): Int
    external fun af_call_is_cancelled(call: Long): Byte
    external fun af_call_on_cancel(call: Long, cb: Long, userData: Long, free: Long, outId: LongArray?): Int
    external fun af_call_set_host_data(call: Long, data: Long, free: Long): Int
    external fun af_call_host_data(call: Long): Long
    external fun af_call_return(call: Long, resultJson: ByteArray?): Int
    external fun af_call_fail(call: Long, code: Int, message: ByteArray?): Int
    external fun af_call_lookup_request(call: Long): ByteArray?
    external fun af_call_descriptor_json(call: Long): ByteArray?
    external fun af_call_platform(call: Long): Int
    external fun af_call_is_foreground(call: Long): Byte
    external fun af_call_caller_package(call: Long): ByteArray?
    external fun af_call_item_set(call: Long, key: ByteArray?, json: ByteArray?): Int
    external fun af_call_item_get_json(call: Long, key: ByteArray?): ByteArray?
    external fun af_call_say(call: Long, text: ByteArray?): Int
    external fun af_call_log(call: Long, level: Int, message: ByteArray?): Int
    external fun af_call_invocation_context(call: Long): Long
    external fun af_call_dialog_copy(call: Long): ByteArray?

    // the dispatcher
    external fun af_dispatcher_new(): Long
    external fun af_dispatcher_free(d: Long)
    external fun af_define_types(d: Long, json: ByteArray?): Int
    external fun af_register_function(d: Long, descriptor: ByteArray?, handler: Long, userData: Long, free: Long): Int
    external fun af_register_entity(d: Long, descriptor: ByteArray?, lookup: Long, userData: Long, free: Long): Int
    external fun af_set_log_callback(d: Long, cb: Long, userData: Long, free: Long): Int
    external fun af_define_toolkit(d: Long, json: ByteArray?, texts: Long, userData: Long, free: Long): Int
    external fun af_set_metadata_schema(d: Long, json: ByteArray?): Int

    // cancellation
    external fun af_cancel_token_new(): Long
    external fun af_cancel_token_cancel(t: Long): Int
    external fun af_cancel_token_is_cancelled(t: Long): Byte
    external fun af_cancel_token_free(t: Long)

    // gates
    external fun af_gate_allow(gate: Long): Int
    external fun af_gate_deny(gate: Long, message: ByteArray?): Int
    external fun af_gate_open_app(gate: Long, message: ByteArray?): Int

    // the dispatcher's settings and reads (limits, caller policies, enabling and unregistering,
    // timeouts, shutdown, the registry and schemas, exports, entity calls, delegates and hooks)
    external fun af_unregister_function(d: Long, functionId: ByteArray?): Int
    external fun af_set_function_enabled(d: Long, functionId: ByteArray?, enabled: Byte): Int
    external fun af_set_limits(d: Long, maxInputBytes: Long, maxDepth: Int): Int
    external fun af_set_caller_policy(d: Long, policy: ByteArray?): Int
    external fun af_set_function_caller_policy(d: Long, functionId: ByteArray?, policy: ByteArray?): Int
    external fun af_entities_json(d: Long, inv: Long, entity: ByteArray?, idsJson: ByteArray?): ByteArray?
    external fun af_entities_async(d: Long, inv: Long, entity: ByteArray?, idsJson: ByteArray?, onOutcome: Long, userData: Long): Int
    external fun af_dispatcher_set_default_timeout(d: Long, timeoutMs: Int): Int
    external fun af_dispatcher_shutdown(d: Long, timeoutMs: Int, outInFlight: IntArray?): Int
    external fun af_dispatcher_in_flight(d: Long): Int
    external fun af_registry_json(d: Long): ByteArray?
    external fun af_parameters_schema_json(d: Long, functionId: ByteArray?): ByteArray?
    external fun af_result_schema_json(d: Long, functionId: ByteArray?): ByteArray?
    external fun af_export_copy(d: Long, format: ByteArray?): ByteArray?
    external fun af_add_delegate(d: Long, vtable: Long, userData: Long): Int
    external fun af_set_scope_hooks(d: Long, begin: Long, end: Long, userData: Long, free: Long): Int
    external fun af_set_permission_hook(d: Long, hook: Long, userData: Long, free: Long): Int

    // agent views (their round trips: JniShim.nativeExecuteJson / nativeExecuteAsync)
    external fun af_view_new(d: Long, metadata: ByteArray?): Long
    external fun af_view_free(v: Long)
    external fun af_view_tools_json(v: Long, format: ByteArray?): ByteArray?
    external fun af_view_generation(v: Long): Long
    external fun af_view_instructions_copy(v: Long): ByteArray?
    external fun af_view_set_metadata(v: Long, metadata: ByteArray?): Int
    external fun af_view_reset(v: Long): Int
    external fun af_view_set_confirmation(v: Long, text: ByteArray?): Int

    // MCP: the dispatcher's endpoint and sessions
    external fun af_mcp_configure(d: Long, config: ByteArray?): Int
    external fun af_mcp_handle_json(d: Long, message: ByteArray?): ByteArray?
    external fun af_mcp_set_notify(d: Long, cb: Long, userData: Long, free: Long): Int
    external fun af_mcp_session_new(d: Long, metadata: ByteArray?): Long
    external fun af_mcp_session_handle_json(s: Long, message: ByteArray?): ByteArray?
    external fun af_mcp_session_set_notify(s: Long, cb: Long, userData: Long, free: Long): Int
    external fun af_mcp_session_set_metadata(s: Long, metadata: ByteArray?): Int
    external fun af_mcp_session_free(s: Long)
    external fun af_mcp_serve_stdio(d: Long): Int

    // published dispatchers and descriptor bundles
    external fun af_dispatcher_publish(d: Long, name: ByteArray?): Int
    external fun af_dispatcher_unpublish(name: ByteArray?): Int
    external fun af_dispatcher_published_new(name: ByteArray?, timeoutMs: Int, outDispatcher: LongArray?): Int
    external fun af_dispatcher_bundle_json(d: Long): ByteArray?
    external fun af_bundle_export_copy(bundleJson: ByteArray?, format: ByteArray?): ByteArray?

    // Android's AppFunctions service call
    external fun af_android_execute_async(d: Long, inv: Long, parametersDocument: ByteArray?, onResponse: Long, userData: Long): Int

    // MCP over Streamable HTTP and the debug page; `request` is an af_http_request in native
    // memory (Layout: struct_size, reserved, body_len, then 5 pointers)
    external fun af_http_server_new(d: Long, config: ByteArray?): Long
    external fun af_http_server_free(s: Long)
    external fun af_http_server_max_body_bytes(s: Long): Long
    external fun af_http_handle(s: Long, request: Long): Long
    external fun af_http_response_status(r: Long): Int
    external fun af_http_response_headers_copy(r: Long): ByteArray?
    /** The body's bytes, copied (the core's stay the response's); [outLen] gets their length too. */
    external fun af_http_response_body(r: Long, outLen: LongArray?): ByteArray?
    external fun af_http_response_take_stream(r: Long): Long
    external fun af_http_response_free(r: Long)
    /** The next frame's bytes into `outFrame[0]` (read and freed in C; null for none). */
    external fun af_http_stream_next_copy(st: Long, timeoutMs: Int, outFrame: Array<ByteArray?>?): Int
    external fun af_http_stream_free(st: Long)

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

/** UTF-8 bytes for a C string argument (the shim copies them and adds the NUL). */
internal fun String.cstr(): ByteArray = toByteArray(Charsets.UTF_8)

/** A C string the shim read, as a Kotlin String (UTF-8), or null. */
internal fun ByteArray?.utf8(): String? = this?.toString(Charsets.UTF_8)

internal fun lastError(): String = AfNative.af_last_error().utf8().orEmpty()

/** A status's constant name (`AF_ERR_DUPLICATE`, ...), from the core. */
internal fun statusName(status: Int): String = AfNative.af_status_name(status).utf8() ?: "status $status"

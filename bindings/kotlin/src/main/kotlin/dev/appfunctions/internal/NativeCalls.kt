package dev.appfunctions.internal

import com.sun.jna.Pointer

/**
 * The one layer between the public API and the raw C ABI ([AfNative]): strings cross here
 * (NUL-terminated UTF-8 in, owned text read and freed out), statuses come back for the
 * caller to turn into an exception or an outcome, or are turned into one here
 * ([checkStatus]). No other file calls [AfNative] or its cold groups, neither the public API nor the runtime
 * under internal/ (the trampolines, the invocation block, the dispatcher's handle);
 * ci/interop_abi.py (the header lane) checks that, and the imports against abi/v1.txt.
 */
internal object NativeCalls {
    /** Throws [make] with `af_last_error` unless [status] is `AF_OK`. */
    inline fun checkStatus(status: Int, make: (String) -> Throwable) {
        if (status != AfNative.AF_OK) throw make(lastError())
    }

    // --- the library ---------------------------------------------------------------------------
    fun abiVersion(): Int = AfNative.af_abi_version()
    fun errorCodeName(code: Int): String? = AfNative.af_error_code_name(code).utf8()
    fun version(): String = AfNative.af_version().utf8().orEmpty()

    /** The address of the loaded library's function [name] (for the JNI shim, which calls a few itself): the registered instance's. */
    fun functionAddress(name: String): Long = Pointer.nativeValue(AfNative.library.getFunction(name))

    // --- the call context ------------------------------------------------------------------------
    fun callFunctionId(call: Pointer): String = AfNative.af_call_function_id(call).utf8().orEmpty()
    fun callPlatform(call: Pointer): Int = AfNativeCall.af_call_platform(call)
    fun callIsForeground(call: Pointer): Boolean = AfNativeCall.af_call_is_foreground(call).toInt() != 0
    fun callCallerPackage(call: Pointer): String = AfNativeCall.af_call_caller_package(call).utf8().orEmpty()
    /** Through the JNI shim when it is loaded (one crossing), else JNA (the call, then the read). */
    fun callArgs(call: Pointer): String? =
        if (Callbacks.jni) JniShim.nativeCallArgs(Pointer.nativeValue(call))?.toString(Charsets.UTF_8)
        else AfNative.af_call_args(call).utf8()
    /**
     * af_call_args' UTF-8: through the shim, copied in C to this thread's scratch memory and read
     * out of it with its direct ByteBuffer (no JNI function, no array made in C: together half
     * the cost of the crossing that made one); a longer text in an array made in C.
     */
    fun callArgsUtf8(call: Pointer): ByteArray? {
        if (!Callbacks.jni) return AfNative.af_call_args(call).utf8()?.toByteArray(Charsets.UTF_8)
        val c = Pointer.nativeValue(call)
        val scratch = ARGS_SCRATCH.get()
        return when (val n = JniShim.nativeCallArgsTo(c, scratch.address, ArgsScratch.SIZE)) {
            -1 -> null
            -2 -> JniShim.nativeCallArgs(c)
            else -> ByteArray(n).also { scratch.read(it) }
        }
    }

    private val ARGS_SCRATCH: ThreadLocal<ArgsScratch> = ThreadLocal.withInitial { ArgsScratch() }
    fun callDescriptorJson(call: Pointer): String? = AfNativeCall.af_call_descriptor_json(call).takeUtf8()
    fun callIsEntityLookup(call: Pointer): Boolean = AfNative.af_call_kind(call) == AfNative.AF_CALL_ENTITY_LOOKUP
    fun callIsCancelled(call: Pointer): Boolean = AfNative.af_call_is_cancelled(call).toInt() != 0
    fun callSay(call: Pointer, text: String): Int = AfNativeCall.af_call_say(call, text.cstr())
    fun callHostData(call: Pointer?): Pointer? = AfNative.af_call_host_data(call)
    fun callInvocationContext(call: Pointer): Pointer? = AfNativeCall.af_call_invocation_context(call)
    fun callDialog(call: Pointer): String? = AfNativeCall.af_call_dialog_copy(call).takeUtf8()
    fun callItemGetJson(call: Pointer, key: String): String? = AfNativeCall.af_call_item_get_json(call, key.cstr()).takeUtf8()
    fun callItemSet(call: Pointer, key: String, json: String): Int = AfNativeCall.af_call_item_set(call, key.cstr(), json.cstr())
    fun callLookupRequest(call: Pointer): String? = AfNativeCall.af_call_lookup_request(call).utf8()

    // --- the call, answered by the runtime (the trampolines behind handlers, gates and hooks) ------
    // Their `call`/`gate` are what the core passed to a callback: nullable as JNA hands them over.
    fun callReturn(call: Pointer, resultJson: ByteArray?): Int = AfNative.af_call_return(call, resultJson)
    fun callFail(call: Pointer?, code: Int, message: String): Int = AfNative.af_call_fail(call, code, message.cstr())
    /** A suspended handler's coroutine, cancelled by the cancel trampoline, released by the release one. */
    fun callOnCancel(call: Pointer, userData: Pointer): Int =
        AfNative.af_call_on_cancel(call, Callbacks.fns.cancel, userData, Callbacks.fns.release, null)
    fun callLog(call: Pointer?, level: Int, message: String): Int = AfNativeCall.af_call_log(call, level, message.cstr())
    /** A scope hook's host scope, forgotten by the release trampoline. */
    fun callSetHostData(call: Pointer?, data: Pointer): Int = AfNative.af_call_set_host_data(call, data, Callbacks.fns.release)
    fun textSet(out: Pointer?, text: String): Int = AfNative.af_text_set(out, text.cstr())
    fun gateAllow(gate: Pointer?): Int = AfNative.af_gate_allow(gate)
    fun gateDeny(gate: Pointer?, message: String): Int = AfNative.af_gate_deny(gate, message.cstr())
    fun gateOpenApp(gate: Pointer?, message: String): Int = AfNative.af_gate_open_app(gate, message.cstr())

    // --- the dispatcher --------------------------------------------------------------------------
    fun dispatcherNew(): Pointer? = AfNative.af_dispatcher_new()
    fun dispatcherFree(d: Pointer) = AfNative.af_dispatcher_free(d)
    fun setLogCallback(d: Pointer, userData: Pointer): Int = AfNative.af_set_log_callback(d, Trampolines.Log, userData, Trampolines.Free)
    fun defineTypes(d: Pointer, json: String): Int = AfNative.af_define_types(d, json.cstr())
    fun registerFunction(d: Pointer, descriptor: String, userData: Pointer?): Int =
        if (userData == null) AfNative.af_register_function(d, descriptor.cstr(), null, null, null)
        else AfNative.af_register_function(d, descriptor.cstr(), Callbacks.fns.handler, userData, Callbacks.fns.free)
    fun registerEntity(d: Pointer, descriptor: String, userData: Pointer): Int =
        AfNative.af_register_entity(d, descriptor.cstr(), Callbacks.fns.handler, userData, Callbacks.fns.free)
    fun unregisterFunction(d: Pointer, functionId: String): Int = AfNativeAdmin.af_unregister_function(d, functionId.cstr())
    fun defineToolkit(d: Pointer, json: String, userData: Pointer?): Int =
        if (userData == null) AfNative.af_define_toolkit(d, json.cstr(), null, null, null)
        else AfNative.af_define_toolkit(d, json.cstr(), Trampolines.ToolkitText, userData, Trampolines.Free)
    fun setMetadataSchema(d: Pointer, json: String): Int = AfNative.af_set_metadata_schema(d, json.cstr())
    fun addDelegate(d: Pointer, vtable: Pointer, userData: Pointer): Int = AfNativeAdmin.af_add_delegate(d, vtable, userData)
    fun setScopeHooks(d: Pointer, userData: Pointer): Int =
        AfNativeAdmin.af_set_scope_hooks(d, Callbacks.fns.scopeBegin, Callbacks.fns.scopeEnd, userData, Callbacks.fns.free)
    fun setPermissionHook(d: Pointer, userData: Pointer): Int = AfNativeAdmin.af_set_permission_hook(d, Callbacks.fns.permission, userData, Callbacks.fns.free)
    fun setFunctionEnabled(d: Pointer, functionId: String, enabled: Boolean): Int =
        AfNativeAdmin.af_set_function_enabled(d, functionId.cstr(), if (enabled) 1 else 0)
    fun setCallerPolicy(d: Pointer, json: String): Int = AfNativeAdmin.af_set_caller_policy(d, json.cstr())
    fun setFunctionCallerPolicy(d: Pointer, functionId: String, json: String): Int =
        AfNativeAdmin.af_set_function_caller_policy(d, functionId.cstr(), json.cstr())
    fun setLimits(d: Pointer, maxInputBytes: Long, maxDepth: Int): Int = AfNativeAdmin.af_set_limits(d, maxInputBytes, maxDepth)
    /**
     * af_execute_async delivering its outcome to [p]: through the JNI shim when it is loaded (one
     * crossing; an inline outcome comes back as the call's answer, no callback), else JNA's.
     */
    fun executeAsync(d: Pointer, inv: Pointer, args: String, p: PendingExecute): Int =
        if (Callbacks.jni) shimStart(p) { JniShim.nativeExecuteAsync(0, Pointer.nativeValue(d), Pointer.nativeValue(inv), args.toByteArray(Charsets.UTF_8), p) }
        else startWithKey(p) { AfNative.af_execute_async(d, inv, args.cstr(), Callbacks.fns.outcome, it) }
    /** The outcome JSON of af_execute_json: through the JNI shim when it is loaded (one crossing), else JNA. */
    fun executeJson(d: Pointer, inv: Pointer, args: String): String? =
        if (Callbacks.jni) JniShim.nativeExecuteJson(0, Pointer.nativeValue(d), Pointer.nativeValue(inv), args.toByteArray(Charsets.UTF_8))?.toString(Charsets.UTF_8)
        else AfNative.af_execute_json(d, inv, args.cstr()).takeUtf8()
    fun entitiesAsync(d: Pointer, inv: Pointer, entity: ByteArray, idsJson: ByteArray, p: PendingExecute): Int =
        startWithKey(p) { AfNativeAdmin.af_entities_async(d, inv, entity, idsJson, Callbacks.fns.outcome, it) }
    fun entitiesJson(d: Pointer, inv: Pointer, entity: String, idsJson: String): String? =
        AfNativeAdmin.af_entities_json(d, inv, entity.cstr(), idsJson.cstr()).takeUtf8()
    fun androidExecuteAsync(d: Pointer, inv: Pointer, parametersDocument: String, userData: Pointer): Int =
        AfNativeAndroid.af_android_execute_async(d, inv, parametersDocument.cstr(), AndroidResponse, userData)
    fun setDefaultTimeout(d: Pointer, timeoutMs: Int): Int = AfNativeAdmin.af_dispatcher_set_default_timeout(d, timeoutMs)
    fun inFlight(d: Pointer): Int = AfNativeAdmin.af_dispatcher_in_flight(d)
    fun shutdown(d: Pointer, timeoutMs: Int, left: IntArray): Int = AfNativeAdmin.af_dispatcher_shutdown(d, timeoutMs, left)
    fun registryJson(d: Pointer): String? = AfNativeAdmin.af_registry_json(d).takeUtf8()
    fun parametersSchemaJson(d: Pointer, functionId: String): String? = AfNativeAdmin.af_parameters_schema_json(d, functionId.cstr()).takeUtf8()
    fun resultSchemaJson(d: Pointer, functionId: String): String? = AfNativeAdmin.af_result_schema_json(d, functionId.cstr()).takeUtf8()
    fun exportCopy(d: Pointer, format: String): String? = AfNativeAdmin.af_export_copy(d, format.cstr()).takeUtf8()
    fun viewNew(d: Pointer, metadataJson: String): Pointer? = AfNativeViews.af_view_new(d, metadataJson.cstr())
    fun mcpSessionNew(d: Pointer, metadataJson: String): Pointer? = AfNativeMcp.af_mcp_session_new(d, metadataJson.cstr())
    fun mcpSetNotify(d: Pointer, userData: Pointer?): Int =
        if (userData == null) AfNativeMcp.af_mcp_set_notify(d, null, null, null)
        else AfNativeMcp.af_mcp_set_notify(d, Trampolines.Notify, userData, Trampolines.Free)
    fun mcpHandleJson(d: Pointer, message: String): String? = AfNativeMcp.af_mcp_handle_json(d, message.cstr()).takeUtf8()
    fun mcpConfigure(d: Pointer, configJson: String): Int = AfNativeMcp.af_mcp_configure(d, configJson.cstr())
    fun mcpServeStdio(d: Pointer): Int = AfNativeMcp.af_mcp_serve_stdio(d)

    // --- publication and bundles ---------------------------------------------------------------
    fun publish(d: Pointer, name: String): Int = AfNativePublication.af_dispatcher_publish(d, name.cstr())
    fun unpublish(name: String): Int = AfNativePublication.af_dispatcher_unpublish(name.cstr())
    fun publishedNew(name: String, timeoutMs: Int, out: com.sun.jna.ptr.PointerByReference): Int =
        AfNativePublication.af_dispatcher_published_new(name.cstr(), timeoutMs, out)
    fun bundleJson(d: Pointer): String? = AfNativePublication.af_dispatcher_bundle_json(d).takeUtf8()
    fun bundleExportCopy(bundleJson: String, format: String): String? = AfNativePublication.af_bundle_export_copy(bundleJson.cstr(), format.cstr()).takeUtf8()

    // --- cancel tokens ----------------------------------------------------------------------------
    fun cancelTokenNew(): Pointer = AfNative.af_cancel_token_new() ?: throw IllegalStateException("af_cancel_token_new returned NULL")
    /** A per-call token (the suspend execute's): NULL leaves the call without one, as before. */
    fun cancelTokenNewOrNull(): Pointer? = AfNative.af_cancel_token_new()
    fun cancelTokenFree(t: Pointer) = AfNative.af_cancel_token_free(t)
    fun cancelTokenCancel(t: Pointer): Int = AfNative.af_cancel_token_cancel(t)
    fun cancelTokenIsCancelled(t: Pointer): Boolean = AfNative.af_cancel_token_is_cancelled(t).toInt() != 0

    // --- views ------------------------------------------------------------------------------------
    fun viewFree(v: Pointer) = AfNativeViews.af_view_free(v)
    fun viewToolsJson(v: Pointer, format: String): String? = AfNativeViews.af_view_tools_json(v, format.cstr()).takeUtf8()
    fun viewInstructions(v: Pointer): String? = AfNativeViews.af_view_instructions_copy(v).takeUtf8()
    /** af_view_execute_async delivering its outcome to [p], as [executeAsync]. */
    fun viewExecuteAsync(v: Pointer, inv: Pointer, args: String, p: PendingExecute): Int =
        if (Callbacks.jni) shimStart(p) { JniShim.nativeExecuteAsync(1, Pointer.nativeValue(v), Pointer.nativeValue(inv), args.toByteArray(Charsets.UTF_8), p) }
        else startWithKey(p) { AfNativeViews.af_view_execute_async(v, inv, args.cstr(), Callbacks.fns.outcome, it) }
    /** The outcome JSON of af_view_execute_json, as [executeJson]. */
    fun viewExecuteJson(v: Pointer, inv: Pointer, args: String): String? =
        if (Callbacks.jni) JniShim.nativeExecuteJson(1, Pointer.nativeValue(v), Pointer.nativeValue(inv), args.toByteArray(Charsets.UTF_8))?.toString(Charsets.UTF_8)
        else AfNativeViews.af_view_execute_json(v, inv, args.cstr()).takeUtf8()
    fun viewSetMetadata(v: Pointer, metadataJson: String): Int = AfNativeViews.af_view_set_metadata(v, metadataJson.cstr())
    fun viewReset(v: Pointer): Int = AfNativeViews.af_view_reset(v)
    fun viewSetConfirmation(v: Pointer, text: String): Int = AfNativeViews.af_view_set_confirmation(v, text.cstr())
    fun viewGeneration(v: Pointer): Long = AfNativeViews.af_view_generation(v)

    // --- MCP sessions ---------------------------------------------------------------------------
    fun mcpSessionFree(s: Pointer) = AfNativeMcp.af_mcp_session_free(s)
    fun mcpSessionSetNotify(s: Pointer, userData: Pointer): Int = AfNativeMcp.af_mcp_session_set_notify(s, Trampolines.Notify, userData, Trampolines.Free)
    fun mcpSessionHandleJson(s: Pointer, message: String): String? = AfNativeMcp.af_mcp_session_handle_json(s, message.cstr()).takeUtf8()
    fun mcpSessionSetMetadata(s: Pointer, metadataJson: String): Int = AfNativeMcp.af_mcp_session_set_metadata(s, metadataJson.cstr())

    // --- MCP over Streamable HTTP (af_http_*) -----------------------------------------------------
    fun httpServerNew(d: Pointer, configJson: String?): Pointer? = AfNativeHttp.af_http_server_new(d, configJson?.cstr())
    fun httpServerFree(s: Pointer) = AfNativeHttp.af_http_server_free(s)
    fun httpServerMaxBodyBytes(s: Pointer): Long = AfNativeHttp.af_http_server_max_body_bytes(s)

    /** [request]: an af_http_request in native memory, borrowed for the call. The response is owned: [httpResponseFree]. */
    fun httpHandle(s: Pointer, request: Pointer): Pointer? = AfNativeHttp.af_http_handle(s, request)
    fun httpResponseStatus(r: Pointer): Int = AfNativeHttp.af_http_response_status(r)
    fun httpResponseHeaders(r: Pointer): String = AfNativeHttp.af_http_response_headers_copy(r).takeUtf8().orEmpty()

    /** The body's bytes, copied (the core's stay the response's). */
    fun httpResponseBody(r: Pointer): ByteArray {
        val len = LongArray(1)
        val p = AfNativeHttp.af_http_response_body(r, len) ?: return ByteArray(0)
        return p.getByteArray(0, len[0].toInt())
    }

    /** The response's stream, now the caller's ([httpStreamFree]), or null. */
    fun httpResponseTakeStream(r: Pointer): Pointer? = AfNativeHttp.af_http_response_take_stream(r)
    fun httpResponseFree(r: Pointer) = AfNativeHttp.af_http_response_free(r)

    /** The status and the frame's bytes (null: none, or the end), the frame freed. */
    fun httpStreamNext(st: Pointer, timeoutMs: Int): Pair<Int, ByteArray?> {
        val out = com.sun.jna.ptr.PointerByReference()
        val status = AfNativeHttp.af_http_stream_next_copy(st, timeoutMs, out)
        val frame = out.value ?: return status to null
        try {
            return status to frame.getByteArray(0, frame.indexOf(0, 0.toByte()).toInt())
        } finally {
            AfNative.af_string_free(frame)
        }
    }
    fun httpStreamFree(st: Pointer) = AfNativeHttp.af_http_stream_free(st)
}

/** Per thread: where the shim copies af_call_args' text (up to [SIZE] bytes), and a direct ByteBuffer to read it. */
internal class ArgsScratch : com.sun.jna.Memory(SIZE.toLong()) {
    val address: Long = Pointer.nativeValue(this)
    private val buf: java.nio.ByteBuffer = getByteBuffer(0, SIZE.toLong())

    /** The first `into.size` bytes, into [into]. */
    fun read(into: ByteArray) {
        (buf as java.nio.Buffer).clear()
        buf.get(into, 0, into.size)
    }

    companion object {
        const val SIZE = 1024
    }
}

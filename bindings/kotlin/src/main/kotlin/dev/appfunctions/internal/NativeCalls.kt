package dev.appfunctions.internal

/**
 * The one layer between the public API and the raw C ABI ([AfNative]): strings cross here
 * (UTF-8 in, owned text read and freed by the shim out), statuses come back for the caller to
 * turn into an exception or an outcome, or are turned into one here ([checkStatus]). No other
 * file calls [AfNative], neither the public API nor the runtime under internal/ (the
 * trampolines, the invocation block, the dispatcher's handle); ci/interop_abi.py (the header
 * lane) checks that, and the natives against abi/v1.txt.
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

    // --- the call context ------------------------------------------------------------------------
    fun callFunctionId(call: Long): String = callText(0, call) { AfNative.af_call_function_id(it).utf8() }.orEmpty()
    fun callPlatform(call: Long): Int = AfNative.af_call_platform(call)
    fun callIsForeground(call: Long): Boolean = AfNative.af_call_is_foreground(call).toInt() != 0
    fun callCallerPackage(call: Long): String = callText(1, call) { AfNative.af_call_caller_package(it).utf8() }.orEmpty()

    /**
     * A borrowed string of the call ([JniShim.nativeCallTextTo]'s [which]) read through this
     * thread's [Scratch] (no JNI function called, where an array made in C costs two); one
     * longer than the scratch through [long].
     */
    private inline fun callText(which: Int, call: Long, long: (Long) -> String?): String? {
        val scratch = Scratch.get()
        return when (val n = JniShim.nativeCallTextTo(which, call, scratch.address, Scratch.SIZE)) {
            -1 -> null
            -2 -> long(call)
            else -> scratch.string(n)
        }
    }
    /** af_call_args through the shim (one crossing), as [callArgsUtf8] reads it. */
    fun callArgs(call: Long): String? = callArgsUtf8(call)?.toString(Charsets.UTF_8)
    /**
     * af_call_args' UTF-8, copied in C to this thread's scratch memory and read out of it with its
     * direct ByteBuffer (no JNI function, no array made in C: together half the cost of the
     * crossing that made one); a longer text in an array made in C.
     */
    fun callArgsUtf8(call: Long): ByteArray? {
        val scratch = Scratch.get()
        return when (val n = JniShim.nativeCallArgsTo(call, scratch.address, Scratch.SIZE)) {
            -1 -> null
            -2 -> JniShim.nativeCallArgs(call)
            else -> scratch.bytes(0, n)
        }
    }
    fun callDescriptorJson(call: Long): String? = AfNative.af_call_descriptor_json(call).utf8()
    fun callIsEntityLookup(call: Long): Boolean = AfNative.af_call_kind(call) == AfNative.AF_CALL_ENTITY_LOOKUP
    fun callIsCancelled(call: Long): Boolean = AfNative.af_call_is_cancelled(call).toInt() != 0
    fun callSay(call: Long, text: String): Int = AfNative.af_call_say(call, text.cstr())
    /** The call's host data: a [Handles] key, 0 for none. */
    fun callHostData(call: Long): Long = Handles.fromC(AfNative.af_call_host_data(call))
    /** The invocation's host context: a [Handles] key, 0 for none. */
    fun callInvocationContext(call: Long): Long = Handles.fromC(AfNative.af_call_invocation_context(call))
    fun callDialog(call: Long): String? = AfNative.af_call_dialog_copy(call).utf8()
    fun callItemGetJson(call: Long, key: String): String? = AfNative.af_call_item_get_json(call, key.cstr()).utf8()
    fun callItemSet(call: Long, key: String, json: String): Int = AfNative.af_call_item_set(call, key.cstr(), json.cstr())
    fun callLookupRequest(call: Long): String? = AfNative.af_call_lookup_request(call).utf8()

    // --- the call, answered by the runtime (the trampolines behind handlers, gates and hooks) ------
    /** [resultJson]: the result's UTF-8 (an empty array is the text "", null is NULL). */
    fun callReturn(call: Long, resultJson: ByteArray?): Int = AfNative.af_call_return(call, resultJson)
    fun callFail(call: Long, code: Int, message: String): Int = AfNative.af_call_fail(call, code, message.cstr())
    /** A suspended handler's coroutine, cancelled by the cancel trampoline, released by the release one. */
    fun callOnCancel(call: Long, userData: Long): Int =
        AfNative.af_call_on_cancel(call, Callbacks.cancel, userData, Callbacks.release, null)
    fun callLog(call: Long, level: Int, message: String): Int = AfNative.af_call_log(call, level, message.cstr())
    fun gateAllow(gate: Long): Int = AfNative.af_gate_allow(gate)
    fun gateDeny(gate: Long, message: String): Int = AfNative.af_gate_deny(gate, message.cstr())
    fun gateOpenApp(gate: Long, message: String): Int = AfNative.af_gate_open_app(gate, message.cstr())

    // --- the dispatcher --------------------------------------------------------------------------
    fun dispatcherNew(): Long = AfNative.af_dispatcher_new()
    fun dispatcherFree(d: Long) = AfNative.af_dispatcher_free(d)
    fun setLogCallback(d: Long, userData: Long): Int = AfNative.af_set_log_callback(d, Callbacks.log, userData, Callbacks.free)
    fun defineTypes(d: Long, json: String): Int = AfNative.af_define_types(d, json.cstr())
    /** [userData] 0: an output function, no handler. */
    fun registerFunction(d: Long, descriptor: String, userData: Long): Int =
        if (userData == 0L) AfNative.af_register_function(d, descriptor.cstr(), 0, 0, 0)
        else AfNative.af_register_function(d, descriptor.cstr(), Callbacks.handler, userData, Callbacks.free)
    fun registerEntity(d: Long, descriptor: String, userData: Long): Int =
        AfNative.af_register_entity(d, descriptor.cstr(), Callbacks.handler, userData, Callbacks.free)
    fun unregisterFunction(d: Long, functionId: String): Int = AfNative.af_unregister_function(d, functionId.cstr())
    /** [userData] 0: static texts only. */
    fun defineToolkit(d: Long, json: String, userData: Long): Int =
        if (userData == 0L) AfNative.af_define_toolkit(d, json.cstr(), 0, 0, 0)
        else AfNative.af_define_toolkit(d, json.cstr(), Callbacks.toolkitText, userData, Callbacks.free)
    fun setMetadataSchema(d: Long, json: String): Int = AfNative.af_set_metadata_schema(d, json.cstr())
    fun addDelegate(d: Long, onInvoking: Boolean, onInvoked: Boolean, userData: Long): Int =
        AfNative.af_add_delegate(d, Callbacks.delegate(onInvoking, onInvoked), userData)
    fun setScopeHooks(d: Long, userData: Long): Int =
        AfNative.af_set_scope_hooks(d, Callbacks.scopeBegin, Callbacks.scopeEnd, userData, Callbacks.free)
    fun setPermissionHook(d: Long, userData: Long): Int = AfNative.af_set_permission_hook(d, Callbacks.permission, userData, Callbacks.free)
    fun setFunctionEnabled(d: Long, functionId: String, enabled: Boolean): Int =
        AfNative.af_set_function_enabled(d, functionId.cstr(), if (enabled) 1 else 0)
    fun setCallerPolicy(d: Long, json: String): Int = AfNative.af_set_caller_policy(d, json.cstr())
    fun setFunctionCallerPolicy(d: Long, functionId: String, json: String): Int =
        AfNative.af_set_function_caller_policy(d, functionId.cstr(), json.cstr())
    fun setLimits(d: Long, maxInputBytes: Long, maxDepth: Int): Int = AfNative.af_set_limits(d, maxInputBytes, maxDepth)
    /**
     * af_execute_async delivering its outcome to [p], through the shim (one crossing; an inline
     * outcome comes back as the call's answer, no callback).
     */
    fun executeAsync(d: Long, inv: Long, args: String, p: PendingExecute): Int =
        executeAsyncThrough(0, d, inv, args, p)
    /** The outcome JSON of af_execute_json, through the shim (one crossing: the call, the read, the free). */
    fun executeJson(d: Long, inv: Long, args: String): String? = executeJsonThrough(0, d, inv, args)

    /**
     * `nativeExecuteJson` ([view] 0: a dispatcher, 1: a view), the arguments and the outcome
     * through this thread's [Scratch] when they fit (no JNI function called for either), else
     * as arrays.
     */
    private fun executeJsonThrough(view: Int, target: Long, inv: Long, args: String): String? {
        val bytes = args.cstr()
        val scratch = Scratch.get()
        if (!scratch.put(bytes)) return JniShim.nativeExecuteJson(view, target, inv, bytes).utf8()
        val r = JniShim.nativeExecuteJsonAt(view, target, inv, scratch.address, bytes.size, Scratch.CAPACITY, Scratch.MARKER)
        return if (r === Scratch.MARKER) scratch.text() else r.utf8()
    }

    /** `nativeExecuteAsync` the same way: an inline outcome comes back through the [Scratch]. */
    private fun executeAsyncThrough(view: Int, target: Long, inv: Long, args: String, p: PendingExecute): Int {
        val bytes = args.cstr()
        val scratch = Scratch.get()
        if (!scratch.put(bytes)) return shimStart(p, null) { JniShim.nativeExecuteAsync(view, target, inv, bytes, p) }
        return shimStart(p, scratch) {
            JniShim.nativeExecuteAsyncAt(view, target, inv, scratch.address, bytes.size, Scratch.CAPACITY, p, Scratch.MARKER)
        }
    }
    fun entitiesAsync(d: Long, inv: Long, entity: ByteArray, idsJson: ByteArray, p: PendingExecute): Int =
        startWithKey(p) { AfNative.af_entities_async(d, inv, entity, idsJson, Callbacks.outcome, it) }
    fun entitiesJson(d: Long, inv: Long, entity: String, idsJson: String): String? =
        AfNative.af_entities_json(d, inv, entity.cstr(), idsJson.cstr()).utf8()
    fun androidExecuteAsync(d: Long, inv: Long, parametersDocument: String, userData: Long): Int =
        AfNative.af_android_execute_async(d, inv, parametersDocument.cstr(), Callbacks.outcome, userData)
    fun setDefaultTimeout(d: Long, timeoutMs: Int): Int = AfNative.af_dispatcher_set_default_timeout(d, timeoutMs)
    fun inFlight(d: Long): Int = AfNative.af_dispatcher_in_flight(d)
    fun shutdown(d: Long, timeoutMs: Int, left: IntArray): Int = AfNative.af_dispatcher_shutdown(d, timeoutMs, left)
    fun registryJson(d: Long): String? = AfNative.af_registry_json(d).utf8()
    fun parametersSchemaJson(d: Long, functionId: String): String? = AfNative.af_parameters_schema_json(d, functionId.cstr()).utf8()
    fun resultSchemaJson(d: Long, functionId: String): String? = AfNative.af_result_schema_json(d, functionId.cstr()).utf8()
    fun exportCopy(d: Long, format: String): String? = AfNative.af_export_copy(d, format.cstr()).utf8()
    fun viewNew(d: Long, metadataJson: String): Long = AfNative.af_view_new(d, metadataJson.cstr())
    fun mcpSessionNew(d: Long, metadataJson: String): Long = AfNative.af_mcp_session_new(d, metadataJson.cstr())
    /** [userData] 0: no sink. */
    fun mcpSetNotify(d: Long, userData: Long): Int =
        if (userData == 0L) AfNative.af_mcp_set_notify(d, 0, 0, 0)
        else AfNative.af_mcp_set_notify(d, Callbacks.notify, userData, Callbacks.free)
    fun mcpHandleJson(d: Long, message: String): String? = AfNative.af_mcp_handle_json(d, message.cstr()).utf8()
    fun mcpConfigure(d: Long, configJson: String): Int = AfNative.af_mcp_configure(d, configJson.cstr())
    fun mcpServeStdio(d: Long): Int = AfNative.af_mcp_serve_stdio(d)

    // --- publication and bundles ---------------------------------------------------------------
    fun publish(d: Long, name: String): Int = AfNative.af_dispatcher_publish(d, name.cstr())
    fun unpublish(name: String): Int = AfNative.af_dispatcher_unpublish(name.cstr())
    fun publishedNew(name: String, timeoutMs: Int, out: LongArray): Int = AfNative.af_dispatcher_published_new(name.cstr(), timeoutMs, out)
    fun bundleJson(d: Long): String? = AfNative.af_dispatcher_bundle_json(d).utf8()
    fun bundleExportCopy(bundleJson: String, format: String): String? = AfNative.af_bundle_export_copy(bundleJson.cstr(), format.cstr()).utf8()

    // --- cancel tokens ----------------------------------------------------------------------------
    fun cancelTokenNew(): Long = AfNative.af_cancel_token_new().also { check(it != 0L) { "af_cancel_token_new returned NULL" } }
    /** A per-call token (the suspend execute's): 0 leaves the call without one. */
    fun cancelTokenNewOrNull(): Long = AfNative.af_cancel_token_new()
    fun cancelTokenFree(t: Long) = AfNative.af_cancel_token_free(t)
    fun cancelTokenCancel(t: Long): Int = AfNative.af_cancel_token_cancel(t)
    fun cancelTokenIsCancelled(t: Long): Boolean = AfNative.af_cancel_token_is_cancelled(t).toInt() != 0

    // --- views ------------------------------------------------------------------------------------
    fun viewFree(v: Long) = AfNative.af_view_free(v)
    fun viewToolsJson(v: Long, format: String): String? = AfNative.af_view_tools_json(v, format.cstr()).utf8()
    fun viewInstructions(v: Long): String? = AfNative.af_view_instructions_copy(v).utf8()
    /** af_view_execute_async delivering its outcome to [p], as [executeAsync]. */
    fun viewExecuteAsync(v: Long, inv: Long, args: String, p: PendingExecute): Int =
        executeAsyncThrough(1, v, inv, args, p)
    /** The outcome JSON of af_view_execute_json, as [executeJson]. */
    fun viewExecuteJson(v: Long, inv: Long, args: String): String? = executeJsonThrough(1, v, inv, args)
    fun viewSetMetadata(v: Long, metadataJson: String): Int = AfNative.af_view_set_metadata(v, metadataJson.cstr())
    fun viewReset(v: Long): Int = AfNative.af_view_reset(v)
    fun viewSetConfirmation(v: Long, text: String): Int = AfNative.af_view_set_confirmation(v, text.cstr())
    fun viewGeneration(v: Long): Long = AfNative.af_view_generation(v)

    // --- MCP sessions ---------------------------------------------------------------------------
    fun mcpSessionFree(s: Long) = AfNative.af_mcp_session_free(s)
    fun mcpSessionSetNotify(s: Long, userData: Long): Int = AfNative.af_mcp_session_set_notify(s, Callbacks.notify, userData, Callbacks.free)
    fun mcpSessionHandleJson(s: Long, message: String): String? = AfNative.af_mcp_session_handle_json(s, message.cstr()).utf8()
    fun mcpSessionSetMetadata(s: Long, metadataJson: String): Int = AfNative.af_mcp_session_set_metadata(s, metadataJson.cstr())

    // --- MCP over Streamable HTTP (af_http_*) -----------------------------------------------------
    fun httpServerNew(d: Long, configJson: String?): Long = AfNative.af_http_server_new(d, configJson?.cstr())
    fun httpServerFree(s: Long) = AfNative.af_http_server_free(s)
    fun httpServerMaxBodyBytes(s: Long): Long = AfNative.af_http_server_max_body_bytes(s)

    /** [request]: an af_http_request in native memory, borrowed for the call. The response is owned (0: refused): [httpResponseFree]. */
    fun httpHandle(s: Long, request: Long): Long = AfNative.af_http_handle(s, request)
    fun httpResponseStatus(r: Long): Int = AfNative.af_http_response_status(r)
    fun httpResponseHeaders(r: Long): String = AfNative.af_http_response_headers_copy(r).utf8().orEmpty()

    /** The body's bytes, copied (the core's stay the response's). */
    fun httpResponseBody(r: Long): ByteArray = AfNative.af_http_response_body(r, null) ?: ByteArray(0)

    /** The response's stream, now the caller's ([httpStreamFree]), or 0. */
    fun httpResponseTakeStream(r: Long): Long = AfNative.af_http_response_take_stream(r)
    fun httpResponseFree(r: Long) = AfNative.af_http_response_free(r)

    /** The status and the frame's bytes (null: none, or the end), the frame freed. */
    fun httpStreamNext(st: Long, timeoutMs: Int): Pair<Int, ByteArray?> {
        val out = arrayOfNulls<ByteArray>(1)
        val status = AfNative.af_http_stream_next_copy(st, timeoutMs, out)
        return status to out[0]
    }
    fun httpStreamFree(st: Long) = AfNative.af_http_stream_free(st)
}

/**
 * Per thread: native memory where text crosses to and from the shim with no JNI function called
 * (a Java array made or read in C costs a JNI function each, more than the copy). At offset 0
 * the shim copies a borrowed string of the call (af_call_args, the function id, the caller
 * package: up to [SIZE] bytes, its length returned); for execute's
 * arguments, its outcome and a handler's result, an int32 length at [LENGTH] and that many
 * bytes from [BYTES] (up to [CAPACITY]), as the shim's AFJ_SCRATCH_* say. Each side reads what
 * the other wrote before any other code runs on the thread, so a call nested in a handler
 * reuses it safely.
 */
internal class Scratch : NativeBlock(SIZE) {
    /** [n] bytes from offset [at]. */
    fun bytes(at: Int, n: Int): ByteArray {
        val out = ByteArray(n)
        (buf as java.nio.Buffer).position(at)
        buf.get(out, 0, n)
        return out
    }

    /** The first [n] bytes as text (UTF-8): what the shim copied to the scratch's start. */
    fun string(n: Int): String = String(bytes(0, n), Charsets.UTF_8)

    /** Writes [bytes] with their length: false (nothing written) when they do not fit. */
    fun put(bytes: ByteArray): Boolean {
        if (bytes.size > CAPACITY) return false
        buf.putInt(LENGTH, bytes.size)
        (buf as java.nio.Buffer).position(BYTES)
        buf.put(bytes)
        return true
    }

    /** The text the shim wrote with its length (UTF-8). */
    fun text(): String = String(bytes(BYTES, buf.getInt(LENGTH)), Charsets.UTF_8)

    companion object {
        const val SIZE = 4096
        const val LENGTH = 0
        const val BYTES = 8
        const val CAPACITY = SIZE - BYTES

        /** What the shim answers when the outcome is in the scratch (compared by identity). */
        val MARKER = ByteArray(1)

        private val perThread: ThreadLocal<Scratch> = ThreadLocal.withInitial { Scratch() }

        fun get(): Scratch = perThread.get()
    }
}

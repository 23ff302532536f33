package dev.appfunctions

import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.DispatcherState
import dev.appfunctions.internal.NativeObject
import dev.appfunctions.internal.NotifyData
import dev.appfunctions.internal.lastError
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.channels.BufferOverflow
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.MutableSharedFlow
import kotlinx.coroutines.flow.SharedFlow
import kotlinx.coroutines.flow.asSharedFlow
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import java.lang.ref.Cleaner
import java.lang.ref.Reference

/**
 * One MCP connection served from the app (`af_mcp_session_*`): its own negotiation state, its
 * own agent view (collapsed toolkits, conditions over this session's metadata), its calls in
 * flight. Made by [AppFunctionDispatcher.mcpSession]; thread-safe: handle each message as it
 * arrives, several at once (a `tools/call` keeps its caller until the outcome). Close it when
 * the connection ends (a `Cleaner` frees a forgotten one; calls in flight finish).
 *
 * Server-initiated messages (`notifications/tools/list_changed` when the registry or the
 * session's view changes, and in the 2026-07-28 revision a `subscriptions/listen` stream's
 * messages) go to the transport through [notifications] and the `onNotification` callback
 * given at creation; the session has its sink from the start, so it advertises `listChanged`.
 */
class AppFunctionMcpSession internal constructor(
    state: DispatcherState,
    ptr: Long,
    onNotification: ((String) -> Unit)?,
) : AutoCloseable {
    private val native = NativeObject(ptr) { NativeCalls.mcpSessionFree(it) }
    private val cleanable = CLEANER.register(this, native)
    private val notificationFlow = MutableSharedFlow<String>(extraBufferCapacity = 256, onBufferOverflow = BufferOverflow.DROP_OLDEST)

    /**
     * Server-initiated messages to send on the transport, as they happen (hot: collect before
     * the first message; a collector that falls 256 behind loses the oldest). The callback
     * given to [AppFunctionDispatcher.mcpSession] receives the same messages, on the thread
     * that caused them, before this flow does.
     */
    val notifications: SharedFlow<String> = notificationFlow.asSharedFlow()

    init {
        val flow = notificationFlow // the sink must not hold the session (the Cleaner could never run)
        val sink = NotifyData(state) { message ->
            onNotification?.invoke(message)
            flow.tryEmit(message)
        }
        val s = NativeCalls.mcpSessionSetNotify(native.ptr, sink.handOver())
        if (s != AfNative.AF_OK) {
            close()
            throw IllegalStateException("af_mcp_session_set_notify: ${lastError()}")
        }
    }

    /**
     * Handles one JSON-RPC message and returns the response, or null when there is none (a
     * notification, or a cancelled call). Blocks during a `tools/call` until its outcome:
     * call it from an I/O thread, one message per call, to keep reading while calls run.
     */
    fun handleBlocking(message: String): String? {
        check(native.enter()) { "the AppFunctionMcpSession is closed" }
        try {
            return NativeCalls.mcpSessionHandleJson(native.ptr, message)
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    /**
     * [handleBlocking] on [Dispatchers.IO]. Cancelling the calling coroutine while a
     * `tools/call` runs sends the session `notifications/cancelled` for its id (as the client
     * would), so the call ends `Cancelled` and its handler's coroutine is cancelled; this
     * function then throws the `CancellationException` once the core has let go of the call.
     */
    suspend fun handle(message: String): String? = coroutineScope {
        val call = async(Dispatchers.IO) { handleBlocking(message) }
        try {
            call.await()
        } catch (e: CancellationException) {
            cancellationOf(message)?.let { runCatching { handleBlocking(it) } }
            throw e
        }
    }

    /** Replaces the metadata of the session's view; the client gets `notifications/tools/list_changed`. */
    fun setMetadata(metadata: JsonObject) = setMetadataJson(metadata.toString())

    /** [setMetadata] from JSON text (an object). */
    fun setMetadataJson(metadataJson: String) {
        check(native.enter()) { "the AppFunctionMcpSession is closed" }
        try {
            val s = NativeCalls.mcpSessionSetMetadata(native.ptr, metadataJson)
            if (s != AfNative.AF_OK) throw IllegalArgumentException("setting the session's metadata: ${lastError()}")
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    /** Frees the session (its notification sink is released; calls in flight finish). Idempotent. */
    override fun close() {
        cleanable.clean()
    }

    val isClosed: Boolean get() = native.closed

    private companion object {
        val CLEANER: Cleaner = Cleaner.create()

        /** `notifications/cancelled` for a request (with its `_meta` envelope, for the 2026-07-28 revision), or null. */
        fun cancellationOf(message: String): String? {
            val request = runCatching { AppJson.parseToJsonElement(message) as? JsonObject }.getOrNull() ?: return null
            val id = request["id"] ?: return null
            val meta = (request["params"] as? JsonObject)?.get("_meta")
            return buildJsonObject {
                put("jsonrpc", "2.0")
                put("method", "notifications/cancelled")
                put(
                    "params",
                    buildJsonObject {
                        put("requestId", id)
                        put("reason", JsonPrimitive("the host cancelled the call"))
                        if (meta != null) put("_meta", meta)
                    },
                )
            }.toString()
        }
    }
}

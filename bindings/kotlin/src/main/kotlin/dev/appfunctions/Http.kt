package dev.appfunctions

import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.Layout
import dev.appfunctions.internal.NativeBlock
import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.NativeObject
import dev.appfunctions.internal.cstr
import dev.appfunctions.internal.lastError
import dev.appfunctions.internal.statusName
import java.lang.ref.Cleaner
import java.lang.ref.Reference

/**
 * MCP over Streamable HTTP (both protocol eras) and the debug page, as the core serves them
 * (`af_http_*`, docs/http.md): hand each HTTP request to [handle] and send back what it
 * answers. Every rule of the transport (sessions, protocol versions, Origin checks, bearer
 * token, bounds) lives in the core; the web server (Ktor, NanoHTTPD, a servlet) only carries
 * bytes. Thread-safe: handle requests on as many threads as the server has. Close it when the
 * server stops (its sessions end: their `GET` streams end; a `Cleaner` frees a forgotten one).
 *
 * @param configJson `af_http_server_new`'s keys (`mcpPath`, `debugPath`, `allowedOrigins`,
 *   `bearerToken`, `maxBodyBytes`, `maxSessions`, `maxStreams`, `maxCalls`,
 *   `sessionIdleSeconds`, `metadata`, `mcp`; docs/http.md); null is the defaults.
 * @throws IllegalArgumentException naming the configuration key that is wrong.
 */
class AppFunctionHttpServer(dispatcher: AppFunctionDispatcher, configJson: String? = null) : AutoCloseable {
    private val native: NativeObject = NativeObject(
        dispatcher.withNativeHandle { NativeCalls.httpServerNew(it, configJson) }.takeIf { it != 0L }
            ?: throw IllegalArgumentException("af_http_server_new: ${lastError()}"),
    ) { NativeCalls.httpServerFree(it) }
    private val cleanable = CLEANER.register(this, native)

    /** The largest request body accepted: read at most one byte more (a longer body is answered 413 either way). */
    val maxBodyBytes: Long get() = use { NativeCalls.httpServerMaxBodyBytes(it) }

    /**
     * Handles one request. [headers] are the request's header lines as received (names in any
     * case; a CR, LF or NUL in a name or value becomes a space, so none can add a header line or
     * hide the ones after it). A response with a [AppFunctionHttpResponse.stream]
     * comes back at once (a tool call runs on the core's worker): send the status and headers
     * now, then the stream's frames.
     */
    fun handle(
        method: String,
        path: String,
        query: String? = null,
        headers: List<Pair<String, String>> = emptyList(),
        body: ByteArray = EMPTY,
    ): AppFunctionHttpResponse = use { s ->
        val block = StringBuilder()
        for ((name, value) in headers) {
            // a name or value never spans lines in the block the core reads, nor ends it early
            // (a NUL would end the C string: the headers after it, Origin among them, unseen)
            block.appendLinePart(name).append(": ").appendLinePart(value).append('\n')
        }
        val req = request(method.cstr(), path.cstr(), query?.cstr(), block.toString().cstr(), body)
        val r = NativeCalls.httpHandle(s, req.address)
        Reference.reachabilityFence(req)
        if (r == 0L) throw IllegalArgumentException("af_http_handle: ${lastError()}")
        try {
            val status = NativeCalls.httpResponseStatus(r)
            val list = NativeCalls.httpResponseHeaders(r).split('\n').mapNotNull { line ->
                val colon = line.indexOf(':')
                if (colon > 0) line.substring(0, colon) to line.substring(colon + 1).trim() else null
            }
            val bytes = NativeCalls.httpResponseBody(r)
            val stream = NativeCalls.httpResponseTakeStream(r).takeIf { it != 0L }?.let(::AppFunctionHttpStream)
            AppFunctionHttpResponse(status, list, bytes, stream)
        } finally {
            NativeCalls.httpResponseFree(r)
        }
    }

    /** Frees the exchange: its sessions end and its worker threads exit. Idempotent. */
    override fun close() {
        cleanable.clean()
    }

    val isClosed: Boolean get() = native.closed

    private inline fun <T> use(block: (Long) -> T): T {
        check(native.enter()) { "the AppFunctionHttpServer is closed" }
        try {
            return block(native.ptr)
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    private companion object {
        val CLEANER: Cleaner = Cleaner.create()
        val EMPTY = ByteArray(0)

        fun StringBuilder.appendLinePart(text: String): StringBuilder {
            for (c in text) append(if (c == '\r' || c == '\n' || c == '\u0000') ' ' else c)
            return this
        }

        /**
         * One af_http_request in native memory, its strings (NUL-terminated) and body after it in
         * the same block: `struct_size`, `body_len` and the five pointers at the offsets the C
         * compiler gives them ([Layout]); a NULL query or (empty) body.
         */
        fun request(method: ByteArray, path: ByteArray, query: ByteArray?, headers: ByteArray, body: ByteArray): NativeBlock {
            val head = Layout.HTTP_REQUEST_SIZE
            val size = head + method.size + 1 + path.size + 1 + (query?.let { it.size + 1 } ?: 0) + headers.size + 1 + body.size
            val block = NativeBlock(size)
            val b = block.buf
            var at = head
            fun put(bytes: ByteArray, nul: Boolean): Long {
                val address = block.address + at
                (b as java.nio.Buffer).position(at) // Buffer's: ByteBuffer.position(int) is not on older Android
                b.put(bytes)
                at += bytes.size
                if (nul) b.put(at++, 0) // allocateDirect zeroes the block; written for clarity
                return address
            }
            b.putInt(Layout.HTTP_STRUCT_SIZE, head)
            b.putInt(Layout.HTTP_RESERVED, 0)
            b.putLong(Layout.HTTP_BODY_LEN, body.size.toLong())
            Layout.putPointer(b, Layout.HTTP_METHOD, put(method, true))
            Layout.putPointer(b, Layout.HTTP_PATH, put(path, true))
            Layout.putPointer(b, Layout.HTTP_QUERY, if (query == null) 0L else put(query, true))
            Layout.putPointer(b, Layout.HTTP_HEADERS, put(headers, true))
            Layout.putPointer(b, Layout.HTTP_BODY, if (body.isEmpty()) 0L else put(body, false))
            return block
        }
    }
}

/** What [AppFunctionHttpServer.handle] answers. */
class AppFunctionHttpResponse internal constructor(
    /** The HTTP status. */
    val status: Int,
    /** The headers to send (Content-Type among them), in order. */
    val headers: List<Pair<String, String>>,
    /** The body (empty for a stream). */
    val body: ByteArray,
    /**
     * A Server-Sent Events stream to send after the headers, or null. The caller owns it:
     * close it when the client goes away or it ends.
     */
    val stream: AppFunctionHttpStream?,
) {
    /** The first header named [name] (any case), or null. */
    fun header(name: String): String? = headers.firstOrNull { it.first.equals(name, ignoreCase = true) }?.second

    /** The body as UTF-8 text. */
    val bodyText: String get() = body.toString(Charsets.UTF_8)
}

/** A Server-Sent Events stream from the core. Closing it tells the core the client went away: a 2026-07-28 tool call it carries is cancelled, a subscription ends. */
class AppFunctionHttpStream internal constructor(raw: Long) : AutoCloseable {
    // the readers count keeps a next() racing close() from using a freed stream: the last
    // one out frees it
    private val native = NativeObject(raw) { NativeCalls.httpStreamFree(it) }
    private val cleanable = CLEANER.register(this, native)

    /** What [next] found. */
    sealed class Next {
        /** One complete SSE event (UTF-8) to write and flush. */
        class Frame(val bytes: ByteArray) : Next() {
            val text: String get() = bytes.toString(Charsets.UTF_8)
        }

        /** Nothing within the timeout; the stream is open (write `:\n\n` now and then as a keep-alive). */
        data object Idle : Next()

        /** The stream is over (or closed): finish the response. */
        data object End : Next()
    }

    /** Waits up to [timeoutMillis] (blocking the calling thread) for the next frame. Safe to race with [close]. */
    fun next(timeoutMillis: Long): Next {
        if (!native.enter()) return Next.End
        try {
            val ms = timeoutMillis.coerceIn(0, 0xFFFF_FFFEL).toInt() // a u32 in C
            val (status, frame) = NativeCalls.httpStreamNext(native.ptr, ms)
            return when {
                status == AfNative.AF_ERR_TIMED_OUT -> Next.Idle
                status != AfNative.AF_OK -> throw IllegalStateException("af_http_stream_next_copy: ${statusName(status)}: ${lastError()}")
                frame == null -> Next.End
                else -> Next.Frame(frame)
            }
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    /** Frees the stream (after a [next] in progress returns). Idempotent. */
    override fun close() {
        cleanable.clean()
    }

    private companion object {
        val CLEANER: Cleaner = Cleaner.create()
    }
}

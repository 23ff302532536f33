package dev.appfunctions.internal

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * A native object's pointer with a use count, so `close()` (or the Cleaner) racing a use
 * frees it only once nothing is inside an `af_` function with it. [free] must not refer to
 * the public object that owns this (the Cleaner runs this as its action).
 */
internal open class NativeObject(val ptr: Long, private val free: (Long) -> Unit) : Runnable {
    private val inUse = AtomicInteger()
    private val freed = AtomicBoolean()

    @Volatile
    var closed = false
        private set

    /** Enter before using [ptr]; false when closed. Always pair a true with [exit]. */
    fun enter(): Boolean {
        inUse.incrementAndGet()
        if (closed) {
            exit()
            return false
        }
        return true
    }

    fun exit() {
        if (inUse.decrementAndGet() == 0 && closed) freeOnce()
    }

    /** close(): the Cleaner's action too. */
    override fun run() {
        closed = true
        if (inUse.get() == 0) freeOnce()
    }

    private fun freeOnce() {
        if (freed.compareAndSet(false, true)) free(ptr)
    }
}

/**
 * The af_dispatcher, with the C strings of the function ids it was asked to run: a new one, or
 * [ptr] from `af_dispatcher_published_new` (a second handle; freeing it frees only the handle).
 */
internal class NativeDispatcher(
    ptr: Long = NativeCalls.dispatcherNew().also { check(it != 0L) { "af_dispatcher_new returned NULL" } },
) : NativeObject(ptr, { NativeCalls.dispatcherFree(it) }) {
    /**
     * C strings of function ids (and tool names), kept for the dispatcher's life (bounded). Past
     * the bound a new id's string is held by nothing but the caller: hold it until the native
     * call that reads it returns (withInvocation does).
     */
    private val ids = ConcurrentHashMap<String, NativeBlock>()

    fun cString(s: String): NativeBlock {
        ids[s]?.let { return it }
        val m = NativeBlock.cString(s.cstr())
        if (ids.size < 4096) ids.putIfAbsent(s, m)?.let { return it }
        return m
    }
}

/**
 * Where the binding writes an `af_invocation`: at the offsets the C compiler gives its fields
 * ([Layout], from the shim), 48 bytes on 64-bit, 32 on 32-bit; `host_context` last: the
 * [Handles] key of [dev.appfunctions.AppFunctionInvocation.hostContext], or NULL. [fill] sets
 * `struct_size` to the header's size.
 */
internal object InvocationLayout {
    val SIZE = Layout.INVOCATION_SIZE
    private val STRUCT_SIZE = Layout.INV_STRUCT_SIZE
    private val PLATFORM = Layout.INV_PLATFORM
    private val FUNCTION_ID = Layout.INV_FUNCTION_ID
    private val CALLER_PACKAGE = Layout.INV_CALLER_PACKAGE
    private val CANCEL_TOKEN = Layout.INV_CANCEL_TOKEN
    private val TIMEOUT_MS = Layout.INV_TIMEOUT_MS
    private val IS_FOREGROUND = Layout.INV_IS_FOREGROUND
    private val RESERVED = Layout.INV_RESERVED
    val HOST_CONTEXT = Layout.INV_HOST_CONTEXT

    /**
     * Writes the block through its direct ByteBuffer: plain memory stores, no JNI call (JNA's
     * `Pointer.setInt`/`setPointer` took one each, ten per call, before issue 30).
     */
    fun fill(m: NativeBlock, functionId: Long, platform: Int, foreground: Boolean, callerPackage: Long, token: Long, timeoutMs: Int, hostContext: Long) {
        val b = m.buf
        b.putInt(STRUCT_SIZE, SIZE)
        b.putInt(PLATFORM, platform)
        Layout.putPointer(b, FUNCTION_ID, functionId)
        Layout.putPointer(b, CALLER_PACKAGE, callerPackage)
        Layout.putPointer(b, CANCEL_TOKEN, token)
        b.putInt(TIMEOUT_MS, timeoutMs)
        b.put(IS_FOREGROUND, if (foreground) 1 else 0)
        b.put(RESERVED, 0)
        b.putShort(RESERVED + 1, 0)
        Layout.putPointer(b, HOST_CONTEXT, hostContext)
    }

    private val perThread = ThreadLocal.withInitial { NativeBlock(SIZE) }

    /** A per-thread block: af_execute_json copies the invocation before running host code, so nesting is safe. */
    fun threadBlock(): NativeBlock = perThread.get()
}

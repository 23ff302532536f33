package dev.appfunctions.internal

import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.Pointer
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * A native object's pointer with a use count, so `close()` (or the Cleaner) racing a use
 * frees it only once nothing is inside an `af_` function with it. [free] must not refer to
 * the public object that owns this (the Cleaner runs this as its action).
 */
internal open class NativeObject(val ptr: Pointer, private val free: (Pointer) -> Unit) : Runnable {
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
    ptr: Pointer = NativeCalls.dispatcherNew() ?: throw IllegalStateException("af_dispatcher_new returned NULL"),
) : NativeObject(ptr, { NativeCalls.dispatcherFree(it) }) {
    /**
     * C strings of function ids (and tool names), kept for the dispatcher's life (bounded). Past
     * the bound a new id's string is held by nothing but the caller: hold it until the native
     * call that reads it returns (withInvocation does).
     */
    private val ids = ConcurrentHashMap<String, Memory>()

    fun cString(s: String): Memory {
        ids[s]?.let { return it }
        val bytes = s.cstr()
        val m = Memory(bytes.size.toLong())
        m.write(0, bytes, 0, bytes.size)
        if (ids.size < 4096) ids.putIfAbsent(s, m)?.let { return it }
        return m
    }
}

/**
 * Where the binding writes an `af_invocation`: the offsets of the JNA declaration
 * ([AfInvocation], checked against abi/v1.txt by ci/interop_abi.py), 48 bytes on 64-bit, 32
 * on 32-bit; `host_context` last: the [Handles] key of [dev.appfunctions.AppFunctionInvocation.hostContext], or
 * NULL. [fill] sets `struct_size`
 * to [SIZE].
 */
internal object InvocationLayout {
    private val L = AfInvocation.LAYOUT
    val STRUCT_SIZE = L.offsetOf("struct_size")
    val PLATFORM = L.offsetOf("platform")
    val FUNCTION_ID = L.offsetOf("function_id")
    val CALLER_PACKAGE = L.offsetOf("caller_package")
    val CANCEL_TOKEN = L.offsetOf("cancel_token")
    val TIMEOUT_MS = L.offsetOf("timeout_ms")
    val IS_FOREGROUND = L.offsetOf("is_foreground")
    val RESERVED = L.offsetOf("reserved")
    val HOST_CONTEXT = L.offsetOf("host_context")
    val SIZE = L.size().toLong()

    /**
     * Writes the block through its direct ByteBuffer view: plain memory stores, where JNA's
     * `Pointer.setInt`/`setPointer` are one JNI call each (ten per call before).
     */
    fun fill(m: InvocationBlock, functionId: Pointer, platform: Int, foreground: Boolean, callerPackage: Pointer?, token: Pointer?, timeoutMs: Int, hostContext: Pointer?) {
        val b = m.buf
        b.putInt(STRUCT_SIZE.toInt(), SIZE.toInt())
        b.putInt(PLATFORM.toInt(), platform)
        putPointer(b, FUNCTION_ID.toInt(), functionId)
        putPointer(b, CALLER_PACKAGE.toInt(), callerPackage)
        putPointer(b, CANCEL_TOKEN.toInt(), token)
        b.putInt(TIMEOUT_MS.toInt(), timeoutMs)
        b.put(IS_FOREGROUND.toInt(), if (foreground) 1 else 0)
        b.put(RESERVED.toInt(), 0)
        b.putShort(RESERVED.toInt() + 1, 0)
        putPointer(b, HOST_CONTEXT.toInt(), hostContext)
    }

    private val POINTER_SIZE = Native.POINTER_SIZE

    private fun putPointer(b: ByteBuffer, at: Int, p: Pointer?) {
        val v = if (p == null) 0L else Pointer.nativeValue(p)
        if (POINTER_SIZE == 8) b.putLong(at, v) else b.putInt(at, v.toInt())
    }

    private val perThread = ThreadLocal.withInitial { InvocationBlock() }

    /** A per-thread block: af_execute_json copies the invocation before running host code, so nesting is safe. */
    fun threadBlock(): InvocationBlock = perThread.get()
}

/** An af_invocation's native memory, with a direct ByteBuffer over the same bytes (native order) to write it. */
internal class InvocationBlock : Memory(InvocationLayout.SIZE) {
    val buf: ByteBuffer = getByteBuffer(0, InvocationLayout.SIZE).order(ByteOrder.nativeOrder())

    init {
        clear()
    }
}

/** Where the binding writes an `af_delegate`: the offsets of [AfDelegate] (32 bytes on 64-bit, 20 on 32-bit). */
internal object DelegateLayout {
    private val L = AfDelegate.LAYOUT
    val STRUCT_SIZE = L.offsetOf("struct_size")
    val RESERVED = L.offsetOf("reserved")
    val ON_INVOKING = L.offsetOf("on_invoking")
    val ON_INVOKED = L.offsetOf("on_invoked")
    val FREE_USER_DATA = L.offsetOf("free_user_data")
    val SIZE = L.size().toLong()
}

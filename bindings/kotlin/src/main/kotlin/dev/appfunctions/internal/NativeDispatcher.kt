package dev.appfunctions.internal

import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.Pointer
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * The af_dispatcher pointer with a use count, so `close()` (or the Cleaner) racing a call
 * frees it only once nothing is inside an `af_` function with it.
 */
internal class NativeDispatcher : Runnable {
    val ptr: Pointer = AfNative.af_dispatcher_new() ?: throw IllegalStateException("af_dispatcher_new returned NULL")
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
        if (freed.compareAndSet(false, true)) AfNative.af_dispatcher_free(ptr)
    }

    /** C strings of function ids, kept for the dispatcher's life (bounded). */
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

/** `af_invocation` layout (repr(C)), computed for this platform's pointer size. */
internal object InvocationLayout {
    private val P = Native.POINTER_SIZE.toLong()
    private fun align(off: Long, a: Long) = (off + a - 1) / a * a
    val FUNCTION_ID = 0L
    val PLATFORM = P
    val IS_FOREGROUND = PLATFORM + 4
    val CALLER_PACKAGE = align(IS_FOREGROUND + 1, P)
    val CANCEL_TOKEN = CALLER_PACKAGE + P
    val TIMEOUT_MS = CANCEL_TOKEN + P
    val SIZE = align(TIMEOUT_MS + 4, P)

    fun fill(m: Pointer, functionId: Pointer, platform: Int, foreground: Boolean, callerPackage: Pointer?, token: Pointer?, timeoutMs: Int) {
        m.setPointer(FUNCTION_ID, functionId)
        m.setInt(PLATFORM, platform)
        m.setByte(IS_FOREGROUND, if (foreground) 1 else 0)
        m.setPointer(CALLER_PACKAGE, callerPackage)
        m.setPointer(CANCEL_TOKEN, token)
        m.setInt(TIMEOUT_MS, timeoutMs)
    }

    private val perThread = ThreadLocal.withInitial { Memory(SIZE).also { it.clear() } }

    /** A per-thread block: af_execute copies the invocation before running host code, so nesting is safe. */
    fun threadBlock(): Memory = perThread.get()
}

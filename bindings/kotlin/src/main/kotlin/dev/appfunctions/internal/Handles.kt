package dev.appfunctions.internal

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * Host objects handed to C as `void *user_data`: a key into this map, never a real pointer.
 * The static trampolines (one per callback type) look the key up. Keys are never reused, so
 * a late callback with a removed key finds nothing and does nothing (on 64-bit; 32-bit keys wrap
 * after 2^32 entries, skipping the ones still live).
 */
internal object Handles {
    private val next = AtomicLong(1)
    private val map = ConcurrentHashMap<Long, Any>()

    /** 32-bit processes (armeabi-v7a): keys must fit a pointer, so they wrap, skipping live ones. */
    private val MASK = if (Layout.POINTER_SIZE == 4) 0xFFFF_FFFFL else -1L

    fun put(value: Any): Long {
        while (true) {
            val key = next.getAndIncrement() and MASK
            if (key != 0L && map.putIfAbsent(key, value) == null) return key
        }
    }

    /** A key the shim passed as its pointer's value (a `void *` of 32 bits is zero-extended, or sign-extended, to 64). */
    fun fromC(v: Long): Long = v and MASK

    operator fun get(key: Long): Any? = map[key]

    fun remove(key: Long): Any? = map.remove(key)

    val size: Int get() = map.size
}

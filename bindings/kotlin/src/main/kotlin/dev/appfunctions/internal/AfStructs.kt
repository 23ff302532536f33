// The C ABI's two structs (include/appfunctions.h, abi/v1.txt) as JNA Structures: JNA lays
// them out from the declared field order and types with the platform's C alignment, and the
// binding reads the offsets it writes at from here (InvocationLayout, DelegateLayout).
// ci/interop_abi.py (the header lane) checks the declarations against abi/v1.txt.
@file:Suppress("PropertyName")

package dev.appfunctions.internal

import com.sun.jna.Pointer
import com.sun.jna.Structure

/** `af_invocation` (ABI 1): size first; `host_context` last. */
@Structure.FieldOrder(
    "struct_size", "platform", "function_id", "caller_package", "cancel_token", "timeout_ms", "is_foreground", "reserved",
    "host_context",
)
internal class AfInvocation : Structure() {
    @JvmField var struct_size: Int = 0
    @JvmField var platform: Int = 0
    @JvmField var function_id: Pointer? = null
    @JvmField var caller_package: Pointer? = null
    @JvmField var cancel_token: Pointer? = null
    @JvmField var timeout_ms: Int = 0
    @JvmField var is_foreground: Byte = 0
    @JvmField var reserved: ByteArray = ByteArray(3)
    @JvmField var host_context: Pointer? = null

    /** The byte offset of [field] as JNA lays the struct out. */
    fun offsetOf(field: String): Long = fieldOffset(field).toLong()

    companion object {
        /** One instance, for its layout only (the hot paths write into their own blocks). */
        val LAYOUT = AfInvocation()
    }
}

/** `af_delegate` (ABI 1): a size, then the three callbacks. */
@Structure.FieldOrder("struct_size", "reserved", "on_invoking", "on_invoked", "free_user_data")
internal class AfDelegate : Structure() {
    @JvmField var struct_size: Int = 0
    @JvmField var reserved: Int = 0
    @JvmField var on_invoking: GateFn? = null
    @JvmField var on_invoked: InvokedFn? = null
    @JvmField var free_user_data: UserDataFn? = null

    /** The byte offset of [field] as JNA lays the struct out. */
    fun offsetOf(field: String): Long = fieldOffset(field).toLong()

    companion object {
        val LAYOUT = AfDelegate()
    }
}

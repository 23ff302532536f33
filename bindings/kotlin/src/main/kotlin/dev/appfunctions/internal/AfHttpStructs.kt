@file:Suppress("PropertyName")

// af_http_request (include/appfunctions.h) as JNA lays it out; ci/interop_abi.py checks it
// against abi/v1.txt. AppFunctionHttpServer.handle fills one per request.
package dev.appfunctions.internal

import com.sun.jna.Pointer
import com.sun.jna.Structure

/** af_http_request: 56 bytes on 64-bit (`struct_size`, `reserved`, `body_len`, then five pointers). */
@Structure.FieldOrder("struct_size", "reserved", "body_len", "method", "path", "query", "headers", "body")
internal class AfHttpRequest : Structure() {
    @JvmField var struct_size: Int = 0
    @JvmField var reserved: Int = 0
    @JvmField var body_len: Long = 0
    @JvmField var method: Pointer? = null
    @JvmField var path: Pointer? = null
    @JvmField var query: Pointer? = null
    @JvmField var headers: Pointer? = null
    @JvmField var body: Pointer? = null
}

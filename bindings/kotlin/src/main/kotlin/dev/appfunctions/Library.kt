package dev.appfunctions

import dev.appfunctions.internal.JniShim
import dev.appfunctions.internal.NativeCalls

/** Thrown when libappfunctions or the binding's JNI library cannot be loaded, or is not the ABI this binding was written for. */
class AppFunctionsLibraryException(message: String, cause: Throwable? = null) : RuntimeException(message, cause)

/**
 * The native libraries, loaded and checked on first use: the binding's JNI library
 * (`libappfunctions_jni`), which opens the core (`libappfunctions`), then
 * `af_abi_version() == 1` and every [AppFunctionErrorCode] has the name the core gives its value
 * (`af_error_code_name`).
 */
object AppFunctionsLibrary {
    /** The `AF_ABI_VERSION` this binding was written for. */
    const val ABI_VERSION: Int = 1

    private val loaded: Result<String> by lazy {
        runCatching {
            JniShim.ensureLoaded()
            checkAbi(NativeCalls.abiVersion())
            for (code in AppFunctionErrorCode.entries) {
                val name = NativeCalls.errorCodeName(code.code)
                if (name != code.name) {
                    throw AppFunctionsLibraryException("error code ${code.code} is '$name' in libappfunctions but ${code.name} in this binding")
                }
            }
            NativeCalls.version()
        }
    }

    internal fun checkAbi(found: Int) {
        if (found != ABI_VERSION) {
            throw AppFunctionsLibraryException(
                "libappfunctions has C ABI version $found but this Kotlin binding was written for " +
                    "version $ABI_VERSION: use the native library and the binding of the same release",
            )
        }
    }

    /** Loads and checks the libraries; throws [AppFunctionsLibraryException] on failure (the same one on every call). */
    fun ensureLoaded() {
        loaded.getOrThrow()
    }

    /**
     * Where the two native libraries were loaded from: `libappfunctions_jni from <where>,
     * libappfunctions from <where>` (a file, `java.library.path`, a jar's resource, or the
     * system's library path). Loads them.
     */
    val loadedFrom: String
        get() {
            ensureLoaded()
            return JniShim.ensureLoaded()
        }

    /** The crate version of the loaded library (e.g. "0.1.0"). */
    val version: String get() = loaded.getOrThrow()
}

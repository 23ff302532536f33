package dev.appfunctions

import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.AfNative

/** Thrown when libappfunctions cannot be loaded or is not the ABI this binding was written for. */
class AppFunctionsLibraryException(message: String, cause: Throwable? = null) : RuntimeException(message, cause)

/**
 * The native library: loaded and checked on first use: `af_abi_version() == 1`, and every
 * [AppFunctionErrorCode] has the name the core gives its value (`af_error_code_name`).
 */
object AppFunctionsLibrary {
    /** The `AF_ABI_VERSION` this binding was written for. */
    const val ABI_VERSION: Int = 1

    private val loaded: Result<String> by lazy {
        runCatching {
            val abi = try {
                NativeCalls.abiVersion()
            } catch (e: Throwable) {
                throw AppFunctionsLibraryException(
                    "cannot load the native library '${AfNative.LIBRARY}' " +
                        "(jna.library.path=${System.getProperty("jna.library.path")}; " +
                        "on Android ship it in jniLibs/<abi>/libappfunctions.so): ${e.message}",
                    e,
                )
            }
            checkAbi(abi)
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

    /** Loads and checks the library; throws [AppFunctionsLibraryException] on failure. */
    fun ensureLoaded() {
        loaded.getOrThrow()
    }

    /** The crate version of the loaded library (e.g. "0.1.0"). */
    val version: String get() = loaded.getOrThrow()
}

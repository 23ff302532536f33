package dev.appfunctions

import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.Callbacks
import dev.appfunctions.internal.JniShim

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
            val version = NativeCalls.version()
            logCallbackPath()
            version
        }
    }

    /**
     * One line when the binding runs on JNA's callbacks (the shim missing, or not wanted). Silent on
     * the shim's path: java.util.logging's first use costs tens of milliseconds of a cold start.
     */
    private fun logCallbackPath() {
        val why = JniShim.loaded.exceptionOrNull() ?: return
        val jul = java.util.logging.Logger.getLogger("dev.appfunctions")
        val level = if (System.getProperty(JniShim.PROPERTY) == "jna") java.util.logging.Level.INFO else java.util.logging.Level.WARNING
        jul.log(level, "appfunctions: callbacks through JNA, slower (lib${JniShim.LIBRARY} not used: ${why.message})")
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

    /**
     * How the core calls back into Kotlin: [AppFunctionCallbackPath.Jni] through the binding's
     * JNI shim (`libappfunctions_jni`, shipped beside the library), else
     * [AppFunctionCallbackPath.Jna] through JNA callbacks (slower, the same behaviour; the first
     * load then logs one line saying why: `dev.appfunctions`, WARNING). Loads the library.
     */
    val callbackPath: AppFunctionCallbackPath
        get() {
            ensureLoaded()
            return if (Callbacks.jni) AppFunctionCallbackPath.Jni else AppFunctionCallbackPath.Jna
        }

    /** Where the JNI shim was loaded from, or why it is not used (with [callbackPath] `Jna`). */
    val callbackPathDetail: String
        get() {
            ensureLoaded()
            return JniShim.loaded.fold({ it }, { it.message ?: it.javaClass.name })
        }

    /** The crate version of the loaded library (e.g. "0.1.0"). */
    val version: String get() = loaded.getOrThrow()
}

/** How the native core calls back into Kotlin ([AppFunctionsLibrary.callbackPath]). */
enum class AppFunctionCallbackPath {
    /** C trampolines of the binding's JNI shim calling Kotlin through JNI: the fast path. */
    Jni,

    /** JNA callbacks: when the shim is missing (or `-Dappfunctions.callbacks=jna`). */
    Jna,
}

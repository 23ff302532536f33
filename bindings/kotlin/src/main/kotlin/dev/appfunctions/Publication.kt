package dev.appfunctions

import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.NativeDispatcher
import dev.appfunctions.internal.blockingOutcomeJson
import dev.appfunctions.internal.lastError
import java.lang.ref.Reference
import java.util.concurrent.TimeoutException
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

/**
 * A handle to a dispatcher that some code in this process published ([AppFunctionDispatcher.publish],
 * or a .NET or Swift dispatcher publishing through the same core): what a platform entry point the OS
 * may start before the app has built its dispatcher (an Android `AppFunctionService`) waits for.
 * [close] releases only this handle; the dispatcher belongs to its publisher.
 */
class PublishedAppFunctionDispatcher private constructor(
    internal val native: NativeDispatcher,
    /** The name it was published under. */
    val name: String,
) : AutoCloseable {
    companion object {
        /** The name every binding publishes under and waits for unless told otherwise. */
        const val DEFAULT_NAME = "default"

        /** How long [wait] waits unless told otherwise: 10 s, enough for a cold start, within the OS's own deadline. */
        val DEFAULT_TIMEOUT: Duration = 10.seconds

        /**
         * Blocks up to [timeout] ([Duration.INFINITE]: without limit; zero: not at all) for a dispatcher
         * published under [name]. Never call it on an app's main thread.
         * @throws TimeoutException nothing was published in time (the message names the name and the wait).
         */
        @JvmStatic
        @JvmOverloads
        fun wait(name: String = DEFAULT_NAME, timeout: Duration = DEFAULT_TIMEOUT): PublishedAppFunctionDispatcher {
            require(name.isNotEmpty()) { "the publication name is empty" }
            AppFunctionsLibrary.ensureLoaded()
            val ms = when {
                timeout.isInfinite() -> AfNative.AF_TIMEOUT_NONE
                timeout <= Duration.ZERO -> 0
                else -> timeout.inWholeMilliseconds.coerceIn(1, UInt.MAX_VALUE.toLong() - 1).toUInt().toInt()
            }
            val out = LongArray(1)
            val s = NativeCalls.publishedNew(name, ms, out)
            if (s == AfNative.AF_ERR_TIMED_OUT) throw TimeoutException(lastError())
            if (s != AfNative.AF_OK) throw IllegalStateException("af_dispatcher_published_new: ${lastError()}")
            return PublishedAppFunctionDispatcher(NativeDispatcher(out[0]), name)
        }

        /** Withdraws the publication under [name]; false when nothing was published there. */
        @JvmStatic
        @JvmOverloads
        fun unpublish(name: String = DEFAULT_NAME): Boolean {
            AppFunctionsLibrary.ensureLoaded()
            return when (val s = NativeCalls.unpublish(name)) {
                AfNative.AF_OK -> true
                AfNative.AF_ERR_NOT_FOUND -> false
                else -> throw IllegalArgumentException("af_dispatcher_unpublish ($s): ${lastError()}")
            }
        }
    }

    /** Runs a function on the published dispatcher and blocks for its outcome JSON: the publisher's handlers and delegates run. */
    @JvmOverloads
    fun executeBlockingJson(invocation: AppFunctionInvocation, argumentsJson: String = "{}", cancel: AppFunctionCancellationToken? = null): String {
        check(native.enter()) { "the published dispatcher handle is closed" }
        try {
            return blockingOutcomeJson(native, invocation, cancel) { inv -> NativeCalls.executeJson(native.ptr, inv, argumentsJson) }
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    /** An export of the published dispatcher (the formats of [AppFunctionDispatcher.export]). */
    fun export(format: String): String {
        check(native.enter()) { "the published dispatcher handle is closed" }
        try {
            return NativeCalls.exportCopy(native.ptr, format) ?: throw IllegalArgumentException(lastError())
        } finally {
            native.exit()
        }
    }

    /** Releases this handle (never the dispatcher). Idempotent. */
    override fun close() = native.run()
}

/** Descriptor bundles: every export without a running app, for build steps (Gradle tasks, tests that write assets). */
object AppFunctionBundle {
    /**
     * What [AppFunctionDispatcher.export] gives for a dispatcher with exactly the registrations of
     * [bundleJson] ([AppFunctionDispatcher.bundleJson]).
     * @throws IllegalArgumentException a bad bundle (the message names the item and path) or an unknown format.
     */
    @JvmStatic
    fun export(bundleJson: String, format: String): String {
        AppFunctionsLibrary.ensureLoaded()
        return NativeCalls.bundleExportCopy(bundleJson, format) ?: throw IllegalArgumentException(lastError())
    }
}

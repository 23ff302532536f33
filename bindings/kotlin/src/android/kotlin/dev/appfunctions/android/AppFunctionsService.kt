package dev.appfunctions.android

import android.app.appfunctions.AppFunctionException
import android.app.appfunctions.AppFunctionService
import android.app.appfunctions.ExecuteAppFunctionRequest
import android.app.appfunctions.ExecuteAppFunctionResponse
import android.content.pm.SigningInfo
import android.os.CancellationSignal
import android.os.OutcomeReceiver
import dev.appfunctions.AppFunctionCancellationToken
import dev.appfunctions.PublishedAppFunctionDispatcher
import dev.appfunctions.internal.executeAndroid
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration

/**
 * The platform's `AppFunctionService` (API 36) over the published dispatcher: Android's
 * AppFunctions calls (Gemini, any caller holding `EXECUTE_APP_FUNCTIONS`, `adb shell cmd
 * app_function execute-app-function`) reach the functions the app registered.
 *
 * The library's manifest declares it, so an app declares nothing: it publishes its dispatcher
 * once it has built it (`dispatcher.publish()`), and ships the assets (docs/android.md). A
 * call that arrives first (the OS started the process for it) waits up to [publishTimeout]
 * for the publication, then fails with `ERROR_SYSTEM_ERROR` naming what was not ready.
 *
 * [onExecuteFunction] runs on the main thread and never blocks it: it walks the request's
 * document and hands the rest to a worker; the core answers the callback exactly once, on
 * whichever thread finishes the call. The request's `CancellationSignal` cancels the call
 * (`ERROR_CANCELLED`). Subclass it only to change [publishedName] or [publishTimeout], and
 * declare the subclass instead (docs/android.md).
 */
open class AppFunctionsService : AppFunctionService() {
    /** The publication the calls go to ([PublishedAppFunctionDispatcher.DEFAULT_NAME] unless overridden). */
    protected open val publishedName: String get() = PublishedAppFunctionDispatcher.DEFAULT_NAME

    /** How long a call waits for the app to publish its dispatcher ([PublishedAppFunctionDispatcher.DEFAULT_TIMEOUT], 10 s). */
    protected open val publishTimeout: Duration get() = PublishedAppFunctionDispatcher.DEFAULT_TIMEOUT

    final override fun onExecuteFunction(
        request: ExecuteAppFunctionRequest,
        callingPackage: String,
        callingPackageSigningInfo: SigningInfo,
        cancellationSignal: CancellationSignal,
        callback: OutcomeReceiver<ExecuteAppFunctionResponse, AppFunctionException>,
    ) {
        val call = PendingCall(callback)
        val parameters = try {
            Documents.image(request.parameters)
        } catch (t: Throwable) {
            call.fail(AppFunctionException.ERROR_INVALID_ARGUMENT, "the parameters document cannot be read: $t")
            return
        }
        cancellationSignal.setOnCancelListener { call.cancel() }
        val functionId = request.functionIdentifier
        val name = publishedName
        val timeout = publishTimeout
        workers.execute { call.run(name, timeout, functionId, callingPackage, parameters) }
    }

    /** One call: answers its callback exactly once, whatever ends it. */
    private class PendingCall(private val callback: OutcomeReceiver<ExecuteAppFunctionResponse, AppFunctionException>) {
        private val answered = AtomicBoolean()
        private val token = AppFunctionCancellationToken()

        /** 0 waiting for the dispatcher, 1 in the core, 2 ended. */
        private val stage = AtomicInteger()

        fun run(name: String, timeout: Duration, functionId: String, callingPackage: String, parameters: String) {
            val published = try {
                PublishedAppFunctionDispatcher.wait(name, timeout)
            } catch (e: TimeoutException) {
                fail(AppFunctionException.ERROR_SYSTEM_ERROR, "the app's dispatcher was not ready: ${e.message}")
                return
            } catch (t: Throwable) {
                fail(AppFunctionException.ERROR_SYSTEM_ERROR, "the app's dispatcher is not available: $t")
                return
            }
            if (!stage.compareAndSet(0, 1)) {
                published.close() // cancelled while waiting: already answered
                return
            }
            try {
                executeAndroid(published.native, functionId, callingPackage, parameters, token) { json ->
                    published.close()
                    answer(json)
                }
            } catch (t: Throwable) {
                published.close()
                fail(AppFunctionException.ERROR_SYSTEM_ERROR, "the call could not start: $t")
            }
        }

        /** The CancellationSignal fired: the core ends a running call `ERROR_CANCELLED`; one still waiting ends here. */
        fun cancel() {
            token.cancel()
            if (stage.compareAndSet(0, 2)) fail(AppFunctionException.ERROR_CANCELLED, "cancelled before the app's dispatcher was ready")
        }

        fun answer(responseJson: String) {
            val r = try {
                Documents.response(responseJson)
            } catch (t: Throwable) {
                Result.failure(AppFunctionException(AppFunctionException.ERROR_SYSTEM_ERROR, "unreadable response: $t"))
            }
            r.fold({ respond { callback.onResult(it) } }, { e -> respond { callback.onError(e as AppFunctionException) } })
        }

        fun fail(code: Int, message: String) = respond { callback.onError(AppFunctionException(code, message)) }

        private inline fun respond(deliver: () -> Unit) {
            if (!answered.compareAndSet(false, true)) return
            stage.set(2)
            try {
                deliver()
            } finally {
                token.close()
            }
        }
    }

    private companion object {
        /** Where calls wait for the dispatcher and start: never the main thread. */
        val workers: ExecutorService = Executors.newCachedThreadPool { r ->
            Thread(r, "appfunctions-android").apply { isDaemon = true }
        }
    }
}

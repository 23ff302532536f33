// Running one call through af_execute_* or af_view_execute_*: the invocation block, the
// per-call cancel token of the suspend form, and the outcome callback.
package dev.appfunctions.internal

import com.sun.jna.Pointer
import dev.appfunctions.AppFunctionCancellationToken
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionOutcome
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlin.time.Duration

/** A timeout as af_invocation.timeout_ms: null is 0 (the dispatcher's default), INFINITE is AF_TIMEOUT_NONE. */
internal fun timeoutMs(t: Duration?): Int = when {
    t == null -> 0
    t.isInfinite() -> AfNative.AF_TIMEOUT_NONE
    else -> t.inWholeMilliseconds.coerceIn(1, UInt.MAX_VALUE.toLong() - 1).toUInt().toInt()
}

/** Writes [inv] into the v1 af_invocation block [m]. */
internal fun fillInvocation(native: NativeDispatcher, m: Pointer, inv: AppFunctionInvocation, token: Pointer?) {
    InvocationLayout.fill(
        m,
        native.cString(inv.functionId),
        inv.platform.code,
        inv.isForeground,
        inv.callerPackage?.let { native.cString(it) },
        token,
        timeoutMs(inv.timeout),
    )
}

/**
 * The suspend form of a call: [start] is `af_execute_async` or `af_view_execute_async` with the
 * invocation block and the outcome callback's user data. A per-call cancel token carries the
 * coroutine's cancellation to the core; the caller then gets its `CancellationException`.
 */
internal suspend fun awaitOutcome(
    native: NativeDispatcher,
    invocation: AppFunctionInvocation,
    start: (inv: Pointer, userData: Pointer) -> Int,
): AppFunctionOutcome {
    var pending: PendingExecute? = null
    try {
        return suspendCancellableCoroutine { cont ->
            val token = AfNative.af_cancel_token_new()
            val p = PendingExecute(cont, token)
            pending = p
            val key = Handles.put(p)
            // af_*_execute_async copies the invocation before any host code runs: a per-thread block is safe
            val inv = InvocationLayout.threadBlock()
            fillInvocation(native, inv, invocation, token)
            val s = start(inv, Handles.pointer(key))
            if (s != AfNative.AF_OK) {
                if (Handles.remove(key) != null) {
                    p.release()
                    cont.resumeWith(Result.success(AppFunctionOutcome.error(AppFunctionErrorCode.InvalidArgument, lastError())))
                }
            } else {
                cont.invokeOnCancellation { AfNative.af_cancel_token_cancel(token) }
            }
        }
    } finally {
        pending?.release()
    }
}

/** The blocking form: [run] is `af_execute_json` or `af_view_execute_json` with the invocation block. */
internal fun blockingOutcomeJson(
    native: NativeDispatcher,
    invocation: AppFunctionInvocation,
    cancel: AppFunctionCancellationToken?,
    run: (inv: Pointer) -> Pointer?,
): String {
    val inv = InvocationLayout.threadBlock()
    val tokenPtr = cancel?.acquire()
    try {
        fillInvocation(native, inv, invocation, tokenPtr)
        return run(inv).takeUtf8()!!
    } finally {
        if (tokenPtr != null) cancel.releaseUse()
    }
}

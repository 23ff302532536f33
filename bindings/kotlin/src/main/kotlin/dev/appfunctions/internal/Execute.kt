// Running one call through af_execute_* or af_view_execute_*: the invocation block, the
// per-call cancel token of the suspend form, and the outcome callback.
package dev.appfunctions.internal

import dev.appfunctions.AppFunctionCancellationToken
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionOutcome
import java.lang.ref.Reference
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlin.coroutines.coroutineContext
import kotlin.coroutines.resume
import kotlin.time.Duration

/** A timeout as af_invocation.timeout_ms: null is 0 (the dispatcher's default), INFINITE is AF_TIMEOUT_NONE. */
internal fun timeoutMs(t: Duration?): Int = when {
    t == null -> 0
    t.isInfinite() -> AfNative.AF_TIMEOUT_NONE
    else -> t.inWholeMilliseconds.coerceIn(1, UInt.MAX_VALUE.toLong() - 1).toUInt().toInt()
}

/** Test-only: runs between writing an invocation block and the native call that reads it. */
@Volatile
internal var beforeNativeCallForTest: Runnable? = null

/**
 * Writes [inv] into the v1 af_invocation block [m] and runs [body] (the native call that reads
 * it). The block holds the C strings of the function id and caller package only as raw
 * addresses, and the id cache keeps a bounded number of them: an id past the bound is
 * referenced by nothing the collector sees once the block is written, so both strings are held
 * here until [body] returns (the core copies what it keeps before it returns). [hostKey] is the
 * [Handles] key of the invocation's host context ([hostContextKey]; 0: none), which the caller
 * keeps until the call's outcome.
 */
internal inline fun <R> withInvocation(native: NativeDispatcher, m: NativeBlock, inv: AppFunctionInvocation, token: Long, hostKey: Long, body: () -> R): R {
    val id = native.cString(inv.functionId)
    val caller = inv.callerPackage?.let { native.cString(it) }
    try {
        InvocationLayout.fill(m, id.address, inv.platform.code, inv.isForeground, caller?.address ?: 0L, token, timeoutMs(inv.timeout), hostKey)
        beforeNativeCallForTest?.run()
        return body()
    } finally {
        Reference.reachabilityFence(id)
        Reference.reachabilityFence(caller)
    }
}

/** The [Handles] key that carries [AppFunctionInvocation.hostContext] as `host_context` (0: none); the caller removes it after the outcome. */
internal fun hostContextKey(inv: AppFunctionInvocation): Long = inv.hostContext?.let { Handles.put(it) } ?: 0L

/**
 * The suspend form of a call: [start] is `af_execute_async`, `af_view_execute_async` or
 * `af_entities_async` with the invocation block, and [PendingExecute] where the outcome lands
 * ([startWithKey] on the shim's outcome trampoline, or the shim's rendezvous); it answers the
 * status. A per-call cancel token carries the coroutine's cancellation to the core; the caller
 * then gets its `CancellationException`. An outcome there when [start] returns (the handler
 * answered inline) is answered without suspending: no continuation, no cancellation hook.
 */
internal suspend fun awaitOutcome(
    native: NativeDispatcher,
    invocation: AppFunctionInvocation,
    start: (inv: Long, pending: PendingExecute) -> Int,
): AppFunctionOutcome {
    val started = startOutcome(native, invocation, start)
    if (started is Waiting) return started.await()
    return inlineOutcome(started)
}

/**
 * [awaitOutcome] for a caller that has entered [native] ([NativeDispatcher.enter]): it leaves it
 * when the call is over, and keeps [owner] (the public object the caller is a member of)
 * reachable until then. A call answered inline returns without suspending and with no
 * continuation made, neither this function's nor its caller's when it calls this last (a
 * suspend function whose only suspending call is its last makes none): the state of a call
 * that waits is made only when it does ([Waiting.await]).
 */
internal suspend fun awaitOutcomeEntered(
    native: NativeDispatcher,
    owner: Any,
    invocation: AppFunctionInvocation,
    start: (inv: Long, pending: PendingExecute) -> Int,
): AppFunctionOutcome {
    val started = try {
        startOutcome(native, invocation, start)
    } catch (t: Throwable) {
        native.exit()
        throw t
    }
    if (started is Waiting) {
        started.entered = native
        started.owner = owner
        return started.await()
    }
    native.exit()
    Reference.reachabilityFence(owner)
    return inlineOutcome(started)
}

/** [startOutcome]'s answer when the call failed to start: its error outcome, returned even to a cancelled coroutine. */
internal class Refused(val outcome: AppFunctionOutcome)

/** The outcome of a call [startOutcome] did not leave waiting. */
private suspend fun inlineOutcome(started: Any): AppFunctionOutcome {
    if (started is Refused) return started.outcome
    // a coroutine cancelled while the call ran inline throws, as it would have on resuming
    coroutineContext.ensureActive()
    return started as AppFunctionOutcome
}

/**
 * Starts the call: its outcome when the handler answered inline, [Refused] when the core refused
 * to start it (everything of the call let go in both), or [Waiting].
 */
private fun startOutcome(
    native: NativeDispatcher,
    invocation: AppFunctionInvocation,
    start: (inv: Long, pending: PendingExecute) -> Int,
): Any {
    val hostKey = hostContextKey(invocation)
    val p = PendingExecute(Tokens.take())
    var waits = false
    try {
        // af_*_async copies the invocation before any host code runs: a per-thread block is safe
        val inv = InvocationLayout.threadBlock()
        val s = withInvocation(native, inv, invocation, p.token, hostKey) { start(inv.address, p) }
        if (s != AfNative.AF_OK) {
            p.release() // no outcome will come: its side's share of the token
            return Refused(AppFunctionOutcome.error(AppFunctionErrorCode.InvalidArgument, lastError()))
        }
        p.outcome?.let { return it }
        waits = true
        return Waiting(p, hostKey)
    } finally {
        if (!waits) {
            p.end()
            if (hostKey != 0L) Handles.remove(hostKey)
        }
    }
}

/** A call still waiting for its outcome when [startOutcome] returned. */
internal class Waiting(private val p: PendingExecute, private val hostKey: Long) {
    /** What [awaitOutcomeEntered]'s caller entered, left when the call is over (null: nothing). */
    var entered: NativeDispatcher? = null
    var owner: Any? = null

    suspend fun await(): AppFunctionOutcome {
        try {
            return suspendCancellableCoroutine { cont ->
                if (p.attach(cont)) {
                    cont.invokeOnCancellation {
                        p.cancelled = true
                        if (p.token != 0L) NativeCalls.cancelTokenCancel(p.token)
                    }
                } else {
                    cont.resume(p.outcome!!) // it arrived in between
                }
            }
        } finally {
            p.end()
            if (hostKey != 0L) Handles.remove(hostKey)
            entered?.exit()
            Reference.reachabilityFence(owner)
        }
    }
}

/**
 * An `af_*_async` call on the shim's outcome trampoline: [p] under a [Handles] key (its
 * `user_data`), which the callback removes to deliver the outcome; removed here when [start]
 * refuses.
 */
internal inline fun startWithKey(p: PendingExecute, start: (userData: Long) -> Int): Int {
    val key = Handles.put(p)
    val s = start(key)
    if (s != AfNative.AF_OK) Handles.remove(key)
    return s
}

/**
 * The shim's `nativeExecuteAsync` ([start]) as a status ([shimStarted]). Its OutOfMemoryError
 * (nothing was started, or the outcome came and found no memory) goes to the caller, and the
 * outcome side's share of [p] is let go here: no outcome will come to release it.
 */
internal inline fun shimStart(p: PendingExecute, scratch: Scratch?, start: () -> ByteArray?): Int {
    val answer = try {
        start()
    } catch (e: OutOfMemoryError) {
        p.release()
        throw e
    }
    return shimStarted(answer, p, scratch)
}

/**
 * What the JNI shim's `nativeExecuteAsync` answered, as a status: an inline outcome delivered to
 * [p] (in [scratch] when the answer is [Scratch.MARKER]), pending, or refused.
 */
internal fun shimStarted(answer: ByteArray?, p: PendingExecute, scratch: Scratch? = null): Int = when {
    answer == null -> AfNative.AF_OK // pending: the shim delivers the outcome to p later
    answer === Scratch.MARKER -> {
        p.deliverInline(scratch!!.text())
        AfNative.AF_OK
    }
    answer.isEmpty() -> REFUSED
    else -> {
        p.deliverInline(answer.toString(Charsets.UTF_8))
        AfNative.AF_OK
    }
}

/** A refusal by `af_*_async` through the shim (its status is not carried back; af_last_error says why). */
internal const val REFUSED = -1

/** The blocking form: [run] is `af_execute_json` or `af_view_execute_json` with the invocation block, answering the outcome JSON. */
internal fun blockingOutcomeJson(
    native: NativeDispatcher,
    invocation: AppFunctionInvocation,
    cancel: AppFunctionCancellationToken?,
    run: (inv: Long) -> String?,
): String {
    val inv = InvocationLayout.threadBlock()
    val tokenPtr = cancel?.acquire()
    val hostKey = hostContextKey(invocation)
    try {
        return withInvocation(native, inv, invocation, tokenPtr ?: 0L, hostKey) { run(inv.address) }
            ?: throw IllegalStateException("the core answered no outcome: ${lastError()}")
    } finally {
        if (tokenPtr != null) cancel.releaseUse()
        if (hostKey != 0L) Handles.remove(hostKey)
    }
}

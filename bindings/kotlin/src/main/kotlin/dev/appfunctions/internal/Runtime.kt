// The runtime behind the static trampolines: what each `user_data` key points at, and how a
// call body (sync or suspend) completes its af_call.
package dev.appfunctions.internal

import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionDelegate
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionException
import dev.appfunctions.AppFunctionGate
import dev.appfunctions.AppFunctionLogger
import dev.appfunctions.AppFunctionOutcome
import dev.appfunctions.AppFunctionToolkitText
import dev.appfunctions.AppFunctionToolkitTexts
import dev.appfunctions.AppJson
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import dev.appfunctions.ScopeBox
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.launch
import java.lang.reflect.InvocationTargetException
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater
import java.util.concurrent.atomic.AtomicReference
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater
import kotlin.coroutines.cancellation.CancellationException
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.intrinsics.COROUTINE_SUSPENDED
import kotlin.coroutines.intrinsics.startCoroutineUninterceptedOrReturn
import kotlin.coroutines.resume

/** Per-dispatcher state shared by its registrations (never references the public dispatcher, so a Cleaner can run). */
internal class DispatcherState(val logger: AppFunctionLogger, makeScope: () -> CoroutineScope) {
    /** Where suspend bodies resume: made on first use (a cold start of blocking handlers loads no coroutine classes). */
    val scope: CoroutineScope by lazy(makeScope)

    /** user_data handed to the core / released by the core's free_user_data. */
    val handedOver = AtomicInteger()
    val released = AtomicInteger()

    fun log(level: Int, message: String) {
        try {
            logger.log(level, message)
        } catch (_: Throwable) {
        }
    }
}

/** Something handed to C as user_data with a free_user_data: counted when handed over and when released. */
internal abstract class UserData(val state: DispatcherState) {
    /** Puts this into [Handles] and returns the key, the C pointer. */
    fun handOver(): Long {
        state.handedOver.incrementAndGet()
        return Handles.put(this)
    }
}

/** A call body: a handler or an entity lookup. Sync bodies run inline; suspend ones in a coroutine started undispatched. */
internal abstract class CallBody(state: DispatcherState) : UserData(state) {
    abstract val isSuspend: Boolean

    /** Returns the result JSON (null is JSON null). */
    open fun runSync(ctx: AppFunctionContext): String? = throw UnsupportedOperationException()

    /** [runSync]'s result as [run] answers it (a body that has its result as a JsonElement writes it itself: [resultUtf8]). */
    open fun runSyncUtf8(ctx: AppFunctionContext): ByteArray = resultUtf8(runSync(ctx))
    open suspend fun runSuspend(ctx: AppFunctionContext): String? = runSync(ctx)

    /**
     * Runs the body. A sync body's result comes back as the C string to answer with
     * `af_call_return` ([NULL_RESULT] for NULL): the shim's trampoline answers it in C. Null when
     * the body answered itself (a failure) or will (it suspended).
     */
    fun run(call: Long): ByteArray? {
        val ctx = AppFunctionContext(call)
        if (!isSuspend) {
            return try {
                runSyncUtf8(ctx)
            } catch (t: Throwable) {
                fail(call, t)
                null
            }
        }
        val job = state.scope.launch(start = CoroutineStart.UNDISPATCHED) {
            val r = try {
                runSuspend(ctx)
            } catch (t: Throwable) {
                fail(call, t)
                return@launch
            }
            complete(call, r)
        }
        if (!job.isCompleted) {
            // It suspended: let the core's cancellation (a cancelled token, a timeout) cancel it.
            // The core releases the key exactly once (the release trampoline): after the cancel
            // callback ran, or when the call ends without one, or at once on a refusal.
            val key = Handles.put(job)
            NativeCalls.callOnCancel(call, key)
            afterSuspendForTest?.run()
        }
        return null
    }

    private fun complete(call: Long, resultJson: String?) {
        val s = NativeCalls.callReturn(call, resultJson?.cstr())
        if (s != AfNative.AF_OK && s != AfNative.AF_ERR_ALREADY_COMPLETED) {
            state.log(2, "af_call_return: ${lastError()}")
        }
    }

    private fun fail(call: Long, thrown: Throwable) {
        var t = thrown
        while (t is InvocationTargetException && t.targetException != null) t = t.targetException
        if (t is CancellationException && NativeCalls.callIsCancelled(call)) return // the core ended it
        val code = when (t) {
            is AppFunctionException -> t.errorCode
            is CancellationException -> AppFunctionErrorCode.Cancelled
            else -> AppFunctionErrorCode.HandlerFailed
        }
        NativeCalls.callFail(call, code.code, t.message ?: t.javaClass.name)
    }
}

/** Test-only: runs in a suspended body's handler callback, before it returns to the core (the call still in af_execute_async). */
@Volatile
internal var afterSuspendForTest: Runnable? = null

/** [CallBody.run]'s result for a NULL `result_json` (a void function, JSON null). */
internal val NULL_RESULT = ByteArray(0)

/**
 * A result's text as [CallBody.run] answers it: the shim copies the bytes and ends them itself
 * (an empty array is its NULL, so "" goes as a lone NUL).
 */
internal fun resultUtf8(r: String?): ByteArray =
    if (r == null) NULL_RESULT else if (r.isNotEmpty()) r.toByteArray(Charsets.UTF_8) else EMPTY_RESULT

private val EMPTY_RESULT = ByteArray(1)

/**
 * [resultUtf8] of `e?.toString()`, with the common results written straight to bytes: a
 * JsonPrimitive whose text is printable ASCII (a number, a boolean, null, a string with
 * nothing kotlinx would escape). What kotlinx's toString writes, byte for byte.
 */
internal fun resultUtf8(e: JsonElement?): ByteArray {
    if (e == null) return NULL_RESULT
    if (e is JsonPrimitive) {
        val c = e.content
        val quoted = e.isString
        val n = c.length
        if (n > 0 || quoted) {
            val out = ByteArray(if (quoted) n + 2 else n)
            var o = if (quoted) 1 else 0
            var plain = true
            for (i in 0 until n) {
                val ch = c[i]
                if (ch < ' ' || ch > '~' || (quoted && (ch == '"' || ch == '\\'))) {
                    plain = false
                    break
                }
                out[o++] = ch.code.toByte()
            }
            if (plain) {
                if (quoted) {
                    out[0] = '"'.code.toByte()
                    out[o] = '"'.code.toByte()
                }
                return out
            }
        }
    }
    return resultUtf8(e.toString())
}

internal class DelegateData(state: DispatcherState, val delegate: AppFunctionDelegate, val name: String) : UserData(state)

internal class PermissionData(state: DispatcherState, val hook: suspend (AppFunctionContext) -> Boolean) : UserData(state)

internal class ScopeHooksData(
    state: DispatcherState,
    val begin: (AppFunctionContext) -> Any?,
    val end: (AppFunctionContext, Any?) -> Unit,
) : UserData(state)

internal class LogData(state: DispatcherState) : UserData(state)

/** A toolkit's dynamic texts (af_define_toolkit's `texts`). */
internal class ToolkitTextsData(state: DispatcherState, val texts: AppFunctionToolkitTexts) : UserData(state)

/** Where an MCP session's notifications go (af_mcp_session_set_notify, af_mcp_set_notify). */
internal class NotifyData(state: DispatcherState, val sink: (String) -> Unit) : UserData(state)

/**
 * One suspend execute between its start and its outcome: where the outcome lands (delivered by
 * the outcome callback, on whatever thread finishes the call) and the call's cancel token,
 * given back to [Tokens] when both sides let go (the outcome arrived and the awaiting side
 * returned). An outcome that arrives before the awaiting side asks for it (the handler answered
 * inline, during `af_execute_async`) is kept here, and the awaiting side returns it without
 * suspending; otherwise the awaiting side attaches its continuation and the outcome resumes it.
 */
internal class PendingExecute(val token: Long) {
    /** null (nothing yet), the [AppFunctionOutcome] (delivered first), or the waiting continuation (attached first). */
    @Volatile
    private var state: Any? = null

    /** The two sides' shares of [token]. */
    @Volatile
    private var refs = 2

    /** Set before the token is cancelled: a cancelled token is freed, never reused. */
    @Volatile
    var cancelled = false

    /**
     * An outcome the shim answered inline (before `af_execute_async` returned): no other thread
     * ever saw this call, so it is kept without an atomic operation and the outcome side's share
     * of the token goes with the awaiting side's ([end]).
     */
    private var inlineOutcome: AppFunctionOutcome? = null

    /** The outcome side, exactly once: [outcomeJson] read, kept or handed to the waiting continuation; then its share of the token let go. */
    fun deliver(outcomeJson: String?) {
        try {
            val outcome = read(outcomeJson)
            if (!STATE.compareAndSet(this, null, outcome)) {
                @Suppress("UNCHECKED_CAST")
                (state as? CancellableContinuation<AppFunctionOutcome>)?.resume(outcome)
            }
        } finally {
            release()
        }
    }

    /** The outcome side when the shim answered inline, on the awaiting thread ([inlineOutcome]). */
    fun deliverInline(outcomeJson: String) {
        inlineOutcome = read(outcomeJson)
    }

    private fun read(outcomeJson: String?): AppFunctionOutcome = try {
        // null: the shim found no memory to hand the outcome up (the core never answers NULL)
        if (outcomeJson == null) AppFunctionOutcome.error(AppFunctionErrorCode.InternalError, "Kotlin binding: no memory for the call's outcome")
        else AppFunctionOutcome.fromCore(outcomeJson)
    } catch (t: Throwable) {
        AppFunctionOutcome.error(AppFunctionErrorCode.InternalError, "unreadable outcome: $t")
    }

    /** The outcome, when it was delivered before a continuation was attached. */
    val outcome: AppFunctionOutcome? get() = inlineOutcome ?: state as? AppFunctionOutcome

    /** The awaiting side: waits in [cont] for the outcome; false when it is here already ([outcome]). */
    fun attach(cont: CancellableContinuation<AppFunctionOutcome>): Boolean = STATE.compareAndSet(this, null, cont)

    /** One side's share of [token] let go (the outcome side's when no outcome will come). */
    fun release() {
        if (REFS.decrementAndGet(this) == 0 && token != 0L) Tokens.giveBack(token, cancelled)
    }

    /** The awaiting side's end: its share let go, and the outcome side's too when it was answered inline. */
    fun end() {
        if (inlineOutcome == null) release()
        else if (token != 0L) Tokens.giveBack(token, cancelled)
    }

    private companion object {
        // field updaters: one object per call, where AtomicReference and AtomicInteger made three
        val STATE: AtomicReferenceFieldUpdater<PendingExecute, Any> =
            AtomicReferenceFieldUpdater.newUpdater(PendingExecute::class.java, Any::class.java, "state")
        val REFS: AtomicIntegerFieldUpdater<PendingExecute> = AtomicIntegerFieldUpdater.newUpdater(PendingExecute::class.java, "refs")
    }
}

/**
 * The suspend execute's per-call cancel tokens, one kept for the next call: a token that was not
 * cancelled is as new once its call ended (each call registers with it, and the next call takes
 * over the entry of one that ended), and making and freeing one per call cost about 180 ns. At
 * most one is kept (for the life of the process); a cancelled one is always freed.
 */
internal object Tokens {
    private val kept = java.util.concurrent.atomic.AtomicLong()

    /** A token (0: none could be made: the call goes without one). */
    fun take(): Long = kept.getAndSet(0).takeIf { it != 0L } ?: NativeCalls.cancelTokenNewOrNull()

    fun giveBack(token: Long, cancelled: Boolean) {
        if (cancelled || !kept.compareAndSet(0, token)) NativeCalls.cancelTokenFree(token)
    }
}

/**
 * What each callback does: the shim's C trampolines (one per callback type, JniShim.kt) call
 * these through JniCallbacks, with the [Handles] key the core handed back as `user_data`.
 */
internal object Trampolines {
    /** A handler or entity lookup: [CallBody.run]'s result, or null when answered otherwise. */
    fun handle(userData: Long, call: Long): ByteArray? {
        try {
            val body = Handles[userData] as? CallBody
            if (body == null) {
                NativeCalls.callFail(call, AppFunctionErrorCode.InternalError.code, "the Kotlin handler is gone")
                return null
            }
            return body.run(call)
        } catch (t: Throwable) {
            NativeCalls.callFail(call, AppFunctionErrorCode.InternalError.code, "Kotlin binding: $t")
            return null
        }
    }

    fun free(userData: Long) {
        val d = Handles.remove(userData) as? UserData ?: return
        d.state.released.incrementAndGet()
    }

    fun cancel(userData: Long) {
        (Handles[userData] as? Job)?.cancel(CancellationException("the call was cancelled or timed out"))
    }

    /** An `af_outcome_fn`'s outcome: a suspend call's ([PendingExecute]) or an Android call's response ([PendingAndroid]). */
    fun outcome(userData: Long, outcomeJson: String?) {
        when (val p = Handles.remove(userData)) {
            is PendingExecute -> p.deliver(outcomeJson)
            is PendingAndroid -> p.respond(outcomeJson)
        }
    }

    fun onInvoking(userData: Long, call: Long, gate: Long) {
        val d = Handles[userData] as? DelegateData
        if (d == null) {
            NativeCalls.gateAllow(gate)
            return
        }
        val ctx = AppFunctionContext(call)
        // Started on this thread as a coroutine of no Job of its own: a delegate that answers
        // without suspending (a check of state it holds, as a rule) answers the gate here, with
        // none of a launched coroutine's Job, its place among the scope's children and its
        // completion. One that suspends resumes as a part of the dispatcher's scope ([GateAnswer]'s
        // context): on its dispatcher, and cancelled when the dispatcher closes.
        val answer = GateAnswer(d, ctx, gate)
        val block: suspend () -> AppFunctionGate = { d.delegate.onInvoking(ctx) }
        val now = try {
            block.startCoroutineUninterceptedOrReturn(answer)
        } catch (t: Throwable) {
            answer.failed(t)
            return
        }
        if (now !== COROUTINE_SUSPENDED) answerGate(gate, now as AppFunctionGate)
    }

    /** Where a delegate's `onInvoking` that suspended answers its gate. */
    private class GateAnswer(val d: DelegateData, val ctx: AppFunctionContext, val gate: Long) : Continuation<AppFunctionGate> {
        override val context: CoroutineContext get() = d.state.scope.coroutineContext

        override fun resumeWith(result: Result<AppFunctionGate>) {
            val gateAnswer = result.getOrElse {
                failed(it)
                return
            }
            answerGate(gate, gateAnswer)
        }

        fun failed(t: Throwable) {
            if (t is CancellationException && ctx.isCancelled) return
            d.state.log(3, "delegate ${d.name}.onInvoking failed: $t")
            answerGate(gate, AppFunctionGate.Deny(t.message ?: t.javaClass.name))
        }
    }

    fun answerGate(gate: Long, answer: AppFunctionGate) {
        when (answer) {
            AppFunctionGate.Allow -> NativeCalls.gateAllow(gate)
            is AppFunctionGate.Deny -> NativeCalls.gateDeny(gate, answer.message)
            is AppFunctionGate.OpenApp -> NativeCalls.gateOpenApp(gate, answer.message)
        }
    }

    fun onInvoked(userData: Long, call: Long, outcomeJson: String?) {
        val d = Handles[userData] as? DelegateData ?: return
        try {
            d.delegate.onInvoked(AppFunctionContext(call), AppFunctionOutcome.fromCore(outcomeJson!!))
        } catch (t: Throwable) {
            // to the core's log (which the dispatcher forwards to its logger)
            val msg = "delegate ${d.name}.onInvoked failed (ignored): $t"
            if (NativeCalls.callLog(call, 2, msg) != 0) d.state.log(2, msg)
        }
    }

    fun permission(userData: Long, call: Long, gate: Long) {
        val d = Handles[userData] as? PermissionData
        if (d == null) {
            NativeCalls.gateDeny(gate, "no permission hook")
            return
        }
        val ctx = AppFunctionContext(call)
        d.state.scope.launch(start = CoroutineStart.UNDISPATCHED) {
            val ok = try {
                d.hook(ctx)
            } catch (t: Throwable) {
                if (t is CancellationException && ctx.isCancelled) return@launch
                d.state.log(3, "permission hook failed: $t")
                false
            }
            if (ok) NativeCalls.gateAllow(gate) else NativeCalls.gateDeny(gate, "The user did not approve this action.")
        }
    }

    /**
     * The scope-begin hook: the key of the call's scope box in [Handles] (0: none, begin failed),
     * which the shim attaches as the call's host data with a release that forgets it.
     */
    fun scopeBegin(userData: Long, call: Long): Long {
        val d = Handles[userData] as? ScopeHooksData ?: return 0
        return try {
            Handles.put(ScopeBox(d.begin(AppFunctionContext(call))))
        } catch (t: Throwable) {
            d.state.log(3, "scope begin failed: $t")
            0
        }
    }

    /**
     * The scope-end hook: runs [ScopeHooksData.end] and forgets the box, whose key it answers
     * (0: none). The core releases the host data right after this hook on this thread; the shim
     * then has nothing to forget and makes no upcall for it.
     */
    fun scopeEnd(userData: Long, call: Long): Long {
        val d = Handles[userData] as? ScopeHooksData ?: return 0
        val key = NativeCalls.callHostData(call)
        val box = Handles[key] as? ScopeBox ?: return 0
        try {
            d.end(AppFunctionContext(call), box.scope)
        } catch (t: Throwable) {
            d.state.log(3, "scope end failed: $t")
        } finally {
            Handles.remove(key)
        }
        return key
    }

    /** A toolkit's dynamic text ([AppFunctionToolkitTexts]), or null for its static one. */
    fun toolkitText(userData: Long, toolkit: String, which: Int, metadataJson: String?): String? {
        val d = Handles[userData] as? ToolkitTextsData ?: return null
        return try {
            val metadata = metadataJson?.let { AppJson.parseToJsonElement(it) as? JsonObject } ?: EMPTY_OBJECT
            val kind = if (which == AfNative.AF_TOOLKIT_SYSTEM_PROMPT) AppFunctionToolkitText.SystemPrompt else AppFunctionToolkitText.FunctionResult
            d.texts.text(toolkit, kind, metadata) // null: the static text
        } catch (t: Throwable) {
            // the static text is used instead
            d.state.log(3, "toolkit texts of $toolkit failed: $t")
            null
        }
    }

    fun notify(userData: Long, messageJson: String?) {
        val d = Handles[userData] as? NotifyData ?: return
        try {
            d.sink(messageJson ?: return)
        } catch (t: Throwable) {
            d.state.log(3, "MCP notification handler failed: $t")
        }
    }

    private val EMPTY_OBJECT = JsonObject(emptyMap())

    fun log(userData: Long, level: Int, message: String) {
        val d = Handles[userData] as? LogData ?: return
        d.state.log(level, message)
    }
}

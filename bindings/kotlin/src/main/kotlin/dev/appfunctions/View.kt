package dev.appfunctions

import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.shortForMessage
import dev.appfunctions.internal.NativeDispatcher
import dev.appfunctions.internal.NativeObject
import dev.appfunctions.internal.awaitOutcome
import dev.appfunctions.internal.blockingOutcomeJson
import dev.appfunctions.internal.lastError
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.asStateFlow
import kotlinx.coroutines.flow.drop
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import java.lang.ref.Cleaner
import java.lang.ref.Reference

/** The tool-list formats of an agent view and of [AppFunctionDispatcher.export]. */
enum class AppFunctionToolFormat(val id: String) {
    Mcp("mcp"),
    OpenAi("openai"),
    OpenAiChat("openai-chat"),
    Anthropic("anthropic"),
    Gemini("gemini"),
}

/** Which text of a toolkit the core asks for (seed 004's `FunctionResult` and `SystemPrompt`). */
enum class AppFunctionToolkitText {
    /** Returned once, as the container call's result, when the toolkit expands. */
    FunctionResult,

    /** Added to the system instructions every turn while the toolkit is expanded. */
    SystemPrompt,
}

/**
 * Answers a toolkit's texts when a view needs them (seed 004's "Dynamic Instructions with
 * Expressions"): [metadata] is the asking view's metadata. Return null to use the toolkit's
 * static text. Called on the thread that renders the view (the one calling
 * [AppFunctionView.execute] or [AppFunctionView.instructions]); an exception falls back to
 * the static text and is logged.
 */
fun interface AppFunctionToolkitTexts {
    fun text(toolkit: String, which: AppFunctionToolkitText, metadata: JsonObject): String?
}

/**
 * What one conversation's model sees of a dispatcher: toolkits collapsed into one container
 * tool until called, functions hidden by their `condition` over this view's metadata,
 * `{metadata.X}` placeholders rendered, output tools, and a confirmation for void functions.
 * Made by [AppFunctionDispatcher.view]; thread-safe; close it when the conversation ends
 * (a `Cleaner` frees a forgotten one).
 *
 * An agent loop: send [tools] and [instructions] to the model, run each tool call with
 * [execute], and fetch the tools again when [generations] moved (a container expanded, the
 * metadata or the registry changed). An outcome with [AppFunctionOutcome.isFinal] is an
 * output tool's structured result: the run ends there.
 */
class AppFunctionView internal constructor(
    private val dispatcherNative: NativeDispatcher,
    ptr: Long,
) : AutoCloseable {
    private val native = NativeObject(ptr) { NativeCalls.viewFree(it) }
    private val cleanable = CLEANER.register(this, native)
    private val generationFlow = MutableStateFlow(readGeneration())

    private inline fun <T> withNative(closed: () -> T, block: (Long) -> T): T {
        if (!native.enter()) return closed()
        try {
            return block(native.ptr)
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    private fun open(): Nothing = throw IllegalStateException("the AppFunctionView is closed")

    private fun check(status: Int, what: String) {
        if (status != AfNative.AF_OK) throw IllegalArgumentException("$what: ${lastError()}")
    }

    // --- what the model sees --------------------------------------------------------------

    /** What the model sees now, as the JSON tool list of [format] (MCP `tools`, OpenAI `tools`, ...). */
    fun toolsJson(format: AppFunctionToolFormat = AppFunctionToolFormat.Mcp): String =
        withNative(::open) { NativeCalls.viewToolsJson(it, format.id) } ?: throw IllegalStateException(lastError())

    /** [toolsJson] parsed. */
    fun tools(format: AppFunctionToolFormat = AppFunctionToolFormat.Mcp): JsonArray =
        AppJson.parseToJsonElement(toolsJson(format)).jsonArray

    /** The names of the tools the model sees now (containers of collapsed toolkits included). */
    val toolNames: List<String>
        get() = tools().map { ((it as JsonObject)["name"] as JsonPrimitive).content }

    /**
     * The system prompts of the toolkits expanded now, joined by blank lines ("" when none):
     * add them to the system instructions every turn.
     */
    val instructions: String
        get() = withNative(::open) { NativeCalls.viewInstructions(it) }.orEmpty()

    // --- running what the model called -----------------------------------------------------

    /**
     * Runs the tool the model called ([AppFunctionInvocation.functionId] is the tool name;
     * platform, caller, timeout apply as for [AppFunctionDispatcher.execute]). A container
     * expands its toolkit and answers its `functionResult` text; a hidden or collapsed function
     * is `FunctionNotFound` saying how to make it visible; an output tool answers its arguments
     * with [AppFunctionOutcome.isFinal]; a void function's outcome carries the confirmation as
     * its dialog. Never throws for a failed call. Cancelling the calling coroutine cancels the
     * core call (the invocation's cancel token) and this function then throws the coroutine's
     * `CancellationException`.
     */
    suspend fun execute(invocation: AppFunctionInvocation, argumentsJson: String = "{}"): AppFunctionOutcome {
        if (!native.enter()) return closedOutcome(invocation.functionId)
        try {
            return awaitOutcome(dispatcherNative, invocation) { inv, p ->
                NativeCalls.viewExecuteAsync(native.ptr, inv, argumentsJson, p)
            }
        } finally {
            native.exit()
            refreshGeneration()
            Reference.reachabilityFence(this)
        }
    }

    /**
     * Runs the tool [toolName] (platform `Other`); see [execute]. In the foreground by default: a view
     * is the app's own assistant and the user is in the app, so an `OpenApp` gate passes. Pass
     * `isForeground = false` for a caller outside the app.
     */
    suspend fun execute(toolName: String, argumentsJson: String = "{}", isForeground: Boolean = true): AppFunctionOutcome =
        execute(AppFunctionInvocation(toolName, isForeground = isForeground), argumentsJson)

    /** The blocking variant of [execute] (from a plain thread; not from one a handler needs). */
    @JvmOverloads
    fun executeBlocking(invocation: AppFunctionInvocation, argumentsJson: String = "{}", cancel: AppFunctionCancellationToken? = null): AppFunctionOutcome =
        AppFunctionOutcome.fromCore(executeBlockingJson(invocation, argumentsJson, cancel))

    /** [executeBlocking] returning the outcome JSON as the core wrote it. */
    @JvmOverloads
    fun executeBlockingJson(invocation: AppFunctionInvocation, argumentsJson: String = "{}", cancel: AppFunctionCancellationToken? = null): String {
        if (!native.enter()) return closedOutcome(invocation.functionId).json
        try {
            return blockingOutcomeJson(dispatcherNative, invocation, cancel) { inv ->
                NativeCalls.viewExecuteJson(native.ptr, inv, argumentsJson)
            }
        } finally {
            native.exit()
            refreshGeneration()
            Reference.reachabilityFence(this)
        }
    }

    /** A call after [close]: `LimitExceeded`, as .NET answers it for a disposed view (a view outlives its dispatcher's close). */
    private fun closedOutcome(functionId: String) =
        AppFunctionOutcome.error(AppFunctionErrorCode.LimitExceeded, "${JsonPrimitive(functionId.shortForMessage())}: the view was disposed")

    // --- the conversation's state ------------------------------------------------------------

    /** Replaces the metadata (conditions and `{metadata.X}` texts follow at once). */
    fun setMetadata(metadata: JsonObject) = setMetadataJson(metadata.toString())

    /** [setMetadata] from a `@Serializable` value. */
    inline fun <reified T> setMetadata(metadata: T) =
        setMetadata(AppJson.encodeToJsonElement(kotlinx.serialization.serializer<T>(), metadata) as JsonObject)

    /** [setMetadata] from JSON text (an object). */
    fun setMetadataJson(metadataJson: String) {
        withNative(::open) { check(NativeCalls.viewSetMetadata(it, metadataJson), "setting the view's metadata") }
        refreshGeneration()
    }

    /** Collapses every toolkit again (a new conversation on the same view). */
    fun reset() {
        withNative(::open) { check(NativeCalls.viewReset(it), "resetting the view") }
        refreshGeneration()
    }

    /** The text a void function's outcome carries as its dialog in this view. */
    fun setConfirmation(text: String) =
        withNative(::open) { check(NativeCalls.viewSetConfirmation(it, text), "setting the confirmation") }

    // --- changes ---------------------------------------------------------------------------------

    /**
     * The view's change counter (`af_view_generation`): it moves whenever what the view shows
     * (its tools or its instructions) may have changed.
     */
    val generation: Long get() = readGeneration()

    /**
     * The change counter as a flow: the current value, then each new one after an expansion,
     * a metadata change, a reset, or a registry change made through the dispatcher
     * (registration, enabling, toolkits). Conflated: a slow collector sees the latest value.
     */
    val generations: StateFlow<Long> = generationFlow.asStateFlow()

    /** [generations] without the current value: one element per change (re-fetch [tools] on each). */
    val changes: Flow<Long> get() = generations.drop(1)

    /** Reads the counter again and publishes it in [generations]; returns it. */
    fun refreshGeneration(): Long {
        val g = readGeneration()
        if (g != 0L) generationFlow.value = g
        return g
    }

    private fun readGeneration(): Long = withNative({ 0L }) { NativeCalls.viewGeneration(it) }

    /** Frees the native view. Calls in flight finish normally. Idempotent. */
    override fun close() {
        cleanable.clean()
    }

    val isClosed: Boolean get() = native.closed

    private companion object {
        val CLEANER: Cleaner = Cleaner.create()
    }
}

/** The view's metadata object from typed properties (`null` values are left out). */
fun metadataOf(vararg entries: Pair<String, Any?>): JsonObject = JsonObject(
    entries.filter { it.second != null }.associate { (k, v) ->
        k to when (v) {
            is Boolean -> JsonPrimitive(v)
            is Number -> JsonPrimitive(v)
            is String -> JsonPrimitive(v)
            is kotlinx.serialization.json.JsonElement -> v
            else -> JsonPrimitive(v.toString())
        }
    },
)

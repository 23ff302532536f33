package dev.appfunctions

import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.DISPOSED
import dev.appfunctions.internal.shortForMessage
import dev.appfunctions.internal.CallBody
import dev.appfunctions.internal.DelegateData
import dev.appfunctions.internal.DispatcherState
import dev.appfunctions.internal.EntityBody
import dev.appfunctions.internal.LogData
import dev.appfunctions.internal.NotifyData
import dev.appfunctions.internal.ToolkitTextsData
import dev.appfunctions.internal.NativeDispatcher
import dev.appfunctions.internal.PermissionData
import dev.appfunctions.internal.ScopeHooksData
import dev.appfunctions.internal.Shape
import dev.appfunctions.internal.Shapes
import dev.appfunctions.internal.UserData
import dev.appfunctions.internal.awaitOutcome
import dev.appfunctions.internal.awaitOutcomeEntered
import dev.appfunctions.internal.blockingOutcomeJson
import dev.appfunctions.internal.timeoutMs
import dev.appfunctions.internal.cstr
import dev.appfunctions.internal.lastError
import dev.appfunctions.internal.statusName
import dev.appfunctions.internal.readFunctions
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import java.lang.ref.Cleaner
import java.lang.ref.Reference
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.reflect.KClass
import kotlin.reflect.full.createType
import kotlin.reflect.full.findAnnotation
import kotlin.reflect.full.primaryConstructor

/** A registration refused by the core (a malformed descriptor, a duplicate id, ...); [message] names the path and the reason. */
class AppFunctionRegistrationException(
    message: String,
    /** The core's status as its constant is spelled (`AF_ERR_DUPLICATE` for an id registered twice, `AF_ERR_INVALID` for a malformed descriptor, ...); null when the failure did not come from a status. */
    val status: String? = null,
) : IllegalArgumentException(message)

/**
 * The registry of functions, entities and delegates, and the entry point of every call: from
 * Gemini (through your `AppFunctionService`), Siri, MCP, or your own code and tests.
 *
 * Thread-safe. Close it when done: `close()` releases the native dispatcher and, once no call
 * uses them any more, every handler, provider and delegate it holds.
 *
 * @param logger receives the core's warnings and the binding's (a failing `onInvoked`, a late completion).
 * @param coroutineContext where suspend handlers, providers and delegates resume after they suspend
 *   (they start on the thread that drives the call). Default: none, which coroutines run as
 *   [Dispatchers.Default]. The scope is made when the first suspend handler, provider, delegate or
 *   permission hook runs, so an app of blocking handlers never starts kotlinx.coroutines.
 */
class AppFunctionDispatcher(
    private val logger: AppFunctionLogger = AppFunctionLogger.JavaUtilLogging,
    coroutineContext: CoroutineContext = EmptyCoroutineContext,
) : AutoCloseable {
    init {
        AppFunctionsLibrary.ensureLoaded()
    }

    private val native = NativeDispatcher()
    internal val state = DispatcherState(logger) { CoroutineScope(SupervisorJob() + coroutineContext) }
    private val cleanable = CLEANER.register(this, native)

    /** Named types already defined in the core, by name -> the Kotlin class (or DSL marker) that defined them. */
    private val definedTypes = HashMap<String, Any>()
    private val entities = HashMap<String, KClass<*>>()

    init {
        withNative { d ->
            NativeCalls.setLogCallback(d, LogData(state).handOver())
        }
    }

    /** The number of native user data objects (handlers, providers, delegates, hooks) handed to the core, and released by it. */
    val userDataHandedOver: Int get() = state.handedOver.get()
    val userDataReleased: Int get() = state.released.get()

    val isClosed: Boolean get() = native.closed

    /** [withNative] for the other handles made over this dispatcher (the HTTP exchange). */
    internal fun <T> withNativeHandle(block: (Long) -> T): T = withNative(block)

    private inline fun <T> withNative(block: (Long) -> T): T {
        check(native.enter()) { "AppFunctions: $DISPOSED (AppFunctionDispatcher.close() was called)" }
        try {
            return block(native.ptr)
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    private fun check(status: Int, what: String) {
        if (status != AfNative.AF_OK) {
            val message = lastError()
            val name = statusName(status)
            throw AppFunctionRegistrationException("$what ($name): $message", name)
        }
    }

    // --- registration: annotations -------------------------------------------------------

    /**
     * Registers every `@AppFunction` method of [instance] (read by reflection). Enum, record and
     * entity types are defined on first use; entity types need their provider registered first
     * ([registerEntity]). Functions are registered in the alphabetical order of their method names (the run time
     * cannot see source order; register in several calls, or use the DSL, to choose it).
     * All or nothing: when the core refuses one function, none stays registered.
     * Returns the ids registered.
     */
    fun register(instance: Any): List<String> = synchronized(this) {
        val functions = readFunctions(state, instance)
        val enums = LinkedHashMap<String, Shape.Enum>()
        val records = LinkedHashMap<String, Shape.Record>()
        val ents = LinkedHashMap<String, Shape.Record>()
        for (f in functions) {
            for (p in f.paramShapes()) Shapes.collectNamed(p, enums, records, ents)
            Shapes.collectNamed(f.result, enums, records, ents)
        }
        for ((name, e) in ents) {
            check(entities[name] == e.cls) {
                "${functions.first().id}: entity '$name' (${e.cls.qualifiedName}) is used before its provider is registered: call registerEntity(${e.cls.simpleName}::class, provider) first"
            }
        }
        defineTypes(enums, records)
        instance::class.findAnnotation<AppFunctionToolkit>()?.let { tk ->
            if (tk.name !in definedToolkits) {
                val json = buildJsonObject {
                    put("name", tk.name)
                    if (tk.description.isNotEmpty()) put("description", tk.description)
                    if (tk.functionResult.isNotEmpty()) put("functionResult", tk.functionResult)
                    if (tk.systemPrompt.isNotEmpty()) put("systemPrompt", tk.systemPrompt)
                }
                defineToolkit(json.toString(), instance as? AppFunctionToolkitTexts)
            }
        }
        // all or nothing: a refused function unregisters the ones this call registered
        val done = ArrayList<String>()
        try {
            for (f in functions) {
                registerBody(f.descriptor, f)
                done += f.id
            }
        } catch (e: Throwable) {
            done.forEach { id -> withNative { NativeCalls.unregisterFunction(it, id) } }
            throw e
        } finally {
            registryChanged()
        }
        done
    }

    private fun defineTypes(enums: Map<String, Shape.Enum>, records: Map<String, Shape.Record>) {
        val newEnums = enums.values.filter { claim(it.name, it.cls) }
        val newRecords = records.values.filter { claim(it.name, it.cls) }
        if (newEnums.isEmpty() && newRecords.isEmpty()) return
        val json = buildJsonObject {
            put("enums", buildJsonArray { newEnums.forEach { add(it.definition()) } })
            put("records", buildJsonArray { newRecords.forEach { add(it.definition()) } })
        }
        val s = withNative { NativeCalls.defineTypes(it, json.toString()) }
        if (s != AfNative.AF_OK) {
            val msg = lastError()
            (newEnums.map { it.name } + newRecords.map { it.name }).forEach { definedTypes.remove(it) }
            throw AppFunctionRegistrationException("defining types: $msg")
        }
    }

    /** True when [name] is new (and now claimed by [owner]); false when [owner] already defined it. */
    private fun claim(name: String, owner: Any): Boolean {
        val prev = definedTypes[name]
        if (prev == null) {
            definedTypes[name] = owner
            return true
        }
        require(prev == owner) { "type name '$name' is defined twice: by $prev and by $owner" }
        return false
    }

    private fun registerBody(descriptor: JsonObject, body: CallBody) {
        val s = withNative { NativeCalls.registerFunction(it, descriptor.toString(), body.handOver()) }
        check(s, "registering ${descriptor["id"]}")
    }

    /**
     * Registers an entity type (an `@AppFunctionEntity` data class) with its provider, and the
     * generated `search_{name}` function.
     */
    fun <T : Any> registerEntity(type: KClass<T>, provider: AppFunctionEntityProvider<T>): Unit = synchronized(this) {
        val ann = type.findAnnotation<AppFunctionEntity>()
            ?: throw IllegalArgumentException("${type.qualifiedName} is not annotated with @AppFunctionEntity")
        val shape = Shapes.of(type.createType(), "entity ${ann.name}") as Shape.Record
        val enums = LinkedHashMap<String, Shape.Enum>()
        val records = LinkedHashMap<String, Shape.Record>()
        val ents = LinkedHashMap<String, Shape.Record>()
        for (f in shape.fields) Shapes.collectNamed(f.shape, enums, records, ents)
        defineTypes(enums, records)
        @Suppress("UNCHECKED_CAST")
        val body = EntityBody(state, shape, provider as AppFunctionEntityProvider<Any>)
        val s = withNative { NativeCalls.registerEntity(it, shape.entityDescriptor().toString(), body.handOver()) }
        check(s, "registering entity ${ann.name}")
        entities[ann.name] = type
        definedTypes[ann.name] = type
        registryChanged()
    }

    inline fun <reified T : Any> registerEntity(provider: AppFunctionEntityProvider<T>) = registerEntity(T::class, provider)

    // --- registration: builder DSL (no reflection) --------------------------------------

    /** Defines named enums and records for DSL-declared functions. */
    fun types(block: TypesBuilder.() -> Unit): Unit = synchronized(this) {
        val b = TypesBuilder().apply(block)
        val names = b.names()
        names.forEach { require(definedTypes[it] == null) { "type name '$it' is already defined" } }
        val s = withNative { NativeCalls.defineTypes(it, b.build().toString()) }
        check(s, "defining types")
        names.forEach { definedTypes[it] = "DSL" }
    }

    /** Declares a function without reflection: `function("create_order") { parameter(...); handler { ctx, args -> ... } }`. */
    fun function(id: String, block: FunctionBuilder.() -> Unit): Unit = synchronized(this) {
        val b = FunctionBuilder(id).apply(block)
        val body = b.body(state)
        if (body == null) {
            val s = withNative { NativeCalls.registerFunction(it, b.descriptor().toString(), 0L) }
            check(s, "registering $id")
        } else {
            registerBody(b.descriptor(), body)
        }
        registryChanged()
    }

    /** Declares an entity and its lookups without reflection (generates `search_{name}`). */
    fun entity(name: String, block: EntityBuilder.() -> Unit): Unit = synchronized(this) {
        val b = EntityBuilder(name).apply(block)
        val body = b.body(state)
        val s = withNative { NativeCalls.registerEntity(it, b.descriptor().toString(), body.handOver()) }
        check(s, "registering entity $name")
        definedTypes[name] = "DSL"
        registryChanged()
    }

    /**
     * Defines a toolkit (before the functions naming it in `@AppFunction(toolkit = ...)`):
     * `{"name", "description"?, "functionResult"?, "systemPrompt"?}`. With a description it
     * collapses in agent views into one container tool (seed 004's `[Collapse]`); [texts]
     * answers its texts dynamically from the asking view's metadata (null: the static ones).
     */
    @JvmOverloads
    fun defineToolkit(json: String, texts: AppFunctionToolkitTexts? = null): Unit = synchronized(this) {
        defineToolkitNative(json, texts)
        (AppJson.parseToJsonElement(json) as? JsonObject)?.get("name")?.let { definedToolkits += (it as JsonPrimitive).content }
        registryChanged()
    }

    /** Defines a toolkit with the builder: `toolkit("search") { description = "..."; functionResult { metadata -> "..." } }`. */
    fun toolkit(name: String, block: ToolkitBuilder.() -> Unit = {}) {
        val b = ToolkitBuilder(name).apply(block)
        synchronized(this) {
            defineToolkitNative(b.json().toString(), b.texts())
            // the builder knows its name: no parse of the JSON it wrote, which would make the
            // binding's Json instance (milliseconds of an interpreted cold start) for nothing
            definedToolkits += name
            registryChanged()
        }
    }

    private fun defineToolkitNative(json: String, texts: AppFunctionToolkitTexts?) {
        val s = withNative {
            NativeCalls.defineToolkit(it, json, if (texts == null) 0L else ToolkitTextsData(state, texts).handOver())
        }
        check(s, "defining a toolkit")
    }

    /**
     * Declares the metadata schema that `condition`s and `{metadata.X}` placeholders refer to (a JSON
     * Schema object with `properties`, or an array of property names); functions and toolkits
     * registered afterwards naming anything else are refused (seed 004's `AIFunction<TMetadata>`).
     */
    fun setMetadataSchema(json: String) = check(withNative { NativeCalls.setMetadataSchema(it, json) }, "setting the metadata schema")

    /**
     * [setMetadataSchema] from a class: its primary constructor's properties are the metadata's
     * properties (Boolean → boolean, String → string, integers → integer, Double/Float → number;
     * nullable and other types: any value).
     */
    fun setMetadataSchema(type: KClass<*>) {
        val ctor = requireNotNull(type.primaryConstructor) { "${type.qualifiedName} has no primary constructor" }
        val schema = buildJsonObject {
            put("type", "object")
            put(
                "properties",
                buildJsonObject {
                    for (p in ctor.parameters) {
                        val t = if (p.type.isMarkedNullable) null else when (p.type.classifier) {
                            Boolean::class -> "boolean"
                            String::class -> "string"
                            Int::class, Long::class, Short::class, Byte::class -> "integer"
                            Double::class, Float::class -> "number"
                            else -> null
                        }
                        put(p.name!!, buildJsonObject { t?.let { put("type", it) } })
                    }
                },
            )
        }
        setMetadataSchema(schema.toString())
    }

    // --- delegates and hooks -----------------------------------------------------------

    /** Adds a delegate; delegates run in the order added. */
    fun addDelegate(delegate: AppFunctionDelegate) {
        val cls = delegate.javaClass
        val (overridesInvoking, overridesInvoked) = delegateOverrides(cls)
        // the v1 af_delegate is one of the shim's static tables: an entry the delegate does not
        // override is NULL, and the core does not call it
        val data = DelegateData(state, delegate, cls.simpleName.ifEmpty { cls.name })
        val s = withNative { NativeCalls.addDelegate(it, overridesInvoking, overridesInvoked, data.handOver()) }
        check(s, "adding delegate")
    }

    /**
     * Opens a host scope (a DI scope) for every call: [begin] runs first in every call and its
     * value is [AppFunctionContext.scope]; [end] runs exactly once when the call ends.
     */
    fun setScopeHooks(begin: (AppFunctionContext) -> Any?, end: (AppFunctionContext, Any?) -> Unit = { _, s -> (s as? AutoCloseable)?.close() }) {
        val data = ScopeHooksData(state, begin, end)
        val s = withNative { NativeCalls.setScopeHooks(it, data.handOver()) }
        check(s, "setting scope hooks")
    }

    /** Asks the user to approve each `requiresPermission` function; false refuses with `PermissionDenied`. */
    fun setPermissionHook(hook: suspend (AppFunctionContext) -> Boolean) {
        val data = PermissionData(state, hook)
        val s = withNative { NativeCalls.setPermissionHook(it, data.handOver()) }
        check(s, "setting the permission hook")
    }

    fun setEnabled(functionId: String, enabled: Boolean) {
        check(withNative { NativeCalls.setFunctionEnabled(it, functionId, enabled) }, "enabling $functionId")
        registryChanged()
    }

    fun unregister(functionId: String) {
        check(withNative { NativeCalls.unregisterFunction(it, functionId) }, "unregistering $functionId")
        registryChanged()
    }

    /** Which calling packages may call any function ("" names in-process callers). */
    fun setCallerPolicy(allow: List<String> = emptyList(), deny: List<String> = emptyList()) {
        check(withNative { NativeCalls.setCallerPolicy(it, policyJson(allow, deny)) }, "setting the caller policy")
    }

    /** Which calling packages may call [functionId], replacing its declared `callers`; an unknown function throws. */
    fun setCallerPolicy(functionId: String, allow: List<String> = emptyList(), deny: List<String> = emptyList()) {
        check(withNative { NativeCalls.setFunctionCallerPolicy(it, functionId, policyJson(allow, deny)) }, "setting the caller policy of $functionId")
    }

    private fun policyJson(allow: List<String>, deny: List<String>): String = buildJsonObject {
        put("allow", buildJsonArray { allow.forEach { add(kotlinx.serialization.json.JsonPrimitive(it)) } })
        put("deny", buildJsonArray { deny.forEach { add(kotlinx.serialization.json.JsonPrimitive(it)) } })
    }.toString()

    /**
     * The limits applied to arguments: the largest input in bytes (default 1 MiB) and the deepest
     * nesting (default 64); past either a call answers `InvalidArgument`. Both must be greater than zero.
     */
    fun setLimits(maxInputBytes: Long, maxDepth: Int) {
        require(maxInputBytes > 0 && maxDepth > 0) { "setLimits: both limits must be greater than zero ($maxInputBytes, $maxDepth)" }
        check(withNative { NativeCalls.setLimits(it, maxInputBytes, maxDepth) }, "setting the limits")
    }

    // --- executing -----------------------------------------------------------------------

    /**
     * Runs a call: binding, delegates, the handler, the outcome. Never throws: every failure is
     * an outcome. Cancelling the calling coroutine cancels the core call (its suspended handler
     * is cancelled too) and this function then throws the coroutine's `CancellationException`.
     */
    suspend fun execute(invocation: AppFunctionInvocation, argumentsJson: String = "{}"): AppFunctionOutcome {
        if (!native.enter()) return closedOutcome(invocation.functionId)
        // (its last call: a call answered inline makes no continuation here or there)
        return awaitOutcomeEntered(native, this, invocation) { inv, p -> NativeCalls.executeAsync(native.ptr, inv, argumentsJson, p) }
    }

    /** The blocking variant of [execute] (from a plain thread; not from a coroutine's thread that a handler needs). */
    @JvmOverloads
    fun executeBlocking(invocation: AppFunctionInvocation, argumentsJson: String = "{}", cancel: AppFunctionCancellationToken? = null): AppFunctionOutcome =
        AppFunctionOutcome.fromCore(executeBlockingJson(invocation, argumentsJson, cancel))

    /** [executeBlocking] returning the outcome JSON as the core wrote it (no parsing). */
    @JvmOverloads
    fun executeBlockingJson(invocation: AppFunctionInvocation, argumentsJson: String = "{}", cancel: AppFunctionCancellationToken? = null): String {
        if (!native.enter()) return closedOutcome(invocation.functionId).json
        try {
            return blockingOutcomeJson(native, invocation, cancel) { inv -> NativeCalls.executeJson(native.ptr, inv, argumentsJson) }
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    /**
     * The entities of [entity] with these [ids], through the entity's registered lookup, with
     * the delegates and scope hooks a call has: what an entity query by id asks (App Intents'
     * `entities(for:)`). Never throws: on success [AppFunctionOutcome.resultJson] is the JSON array
     * of the entities **in the order of [ids]** (an id the lookup does not return is left out, an
     * id given twice gives its entity once); errors are outcomes naming what is wrong (an unknown
     * entity `InvalidArgument`, a failing lookup its code with "looking up order failed: …", a
     * delegate's refusal, `TimedOut`, `LimitExceeded` after [shutdown] or [close]). [invocation]
     * gives the platform, foreground, caller and timeout (default: in-process, the dispatcher's
     * default timeout); its `functionId` is not used. Cancelling the calling coroutine cancels the
     * lookup in the core and this function then throws its `CancellationException`.
     */
    suspend fun lookupEntities(entity: String, ids: List<String>, invocation: AppFunctionInvocation? = null): AppFunctionOutcome {
        val inv = (invocation ?: AppFunctionInvocation("search_$entity")).copy(functionId = "search_$entity")
        if (!native.enter()) return closedOutcome(inv.functionId)
        try {
            val name = entity.cstr()
            val idsJson = idsJson(ids).cstr()
            return awaitOutcome(native, inv) { block, p -> NativeCalls.entitiesAsync(native.ptr, block, name, idsJson, p) }
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    /** The blocking variant of [lookupEntities] (from a plain thread), cancelled by [cancel]. */
    @JvmOverloads
    fun lookupEntitiesBlocking(entity: String, ids: List<String>, invocation: AppFunctionInvocation? = null, cancel: AppFunctionCancellationToken? = null): AppFunctionOutcome {
        val inv = (invocation ?: AppFunctionInvocation("search_$entity")).copy(functionId = "search_$entity")
        if (!native.enter()) return closedOutcome(inv.functionId)
        try {
            return AppFunctionOutcome.fromCore(blockingOutcomeJson(native, inv, cancel) { block -> NativeCalls.entitiesJson(native.ptr, block, entity, idsJson(ids)) })
        } finally {
            native.exit()
            Reference.reachabilityFence(this)
        }
    }

    private fun idsJson(ids: List<String>): String = buildJsonArray { ids.forEach { add(JsonPrimitive(it)) } }.toString()

    // --- timeouts and shutdown -------------------------------------------------------------

    /**
     * The timeout of invocations that name none (default 30 s): calls still running then end
     * `TimedOut` (logged as a warning). null or [kotlin.time.Duration.INFINITE]: no default.
     */
    fun setDefaultTimeout(timeout: kotlin.time.Duration?) {
        val ms = if (timeout == null || timeout.isInfinite()) 0 else timeoutMs(timeout)
        check(withNative { NativeCalls.setDefaultTimeout(it, ms) }, "setting the default timeout")
    }

    /** Calls running now (started, their outcome not yet delivered). */
    val inFlight: Int get() = withNative { NativeCalls.inFlight(it) }

    /**
     * Refuses new calls from now on (they end `LimitExceeded`, running no handler or delegate)
     * and waits up to [timeout] for the calls in flight. Returns how many still run (0: drained).
     * Idempotent; [close] afterwards never blocks.
     */
    fun shutdown(timeout: kotlin.time.Duration): Int {
        val ms = if (timeout.isInfinite()) AfNative.AF_TIMEOUT_NONE else timeout.inWholeMilliseconds.coerceIn(0, UInt.MAX_VALUE.toLong() - 1).toUInt().toInt()
        val left = IntArray(1)
        val s = withNative { NativeCalls.shutdown(it, ms, left) }
        if (s != AfNative.AF_OK && s != AfNative.AF_ERR_TIMED_OUT) throw IllegalStateException("shutdown: ${lastError()}")
        return left[0]
    }

    /** A call after [close]: `LimitExceeded`, as after [shutdown], saying so (the same code and words in every binding). */
    private fun closedOutcome(functionId: String) =
        AppFunctionOutcome.error(AppFunctionErrorCode.LimitExceeded, "${JsonPrimitive(functionId.shortForMessage())}: $DISPOSED")

    // --- descriptors and schemas -----------------------------------------------------------

    /** Every function (declared, then the generated `search_{entity}`), a fresh snapshot on each read. */
    val registry: AppFunctionRegistry get() = AppFunctionRegistry.parse(this, registryJson())

    /** The registry as JSON (docs/descriptors.md). */
    fun registryJson(): String = withNative { NativeCalls.registryJson(it)!! }

    /** The JSON Schema (draft 2020-12) of a function's parameters. */
    fun parametersJsonSchema(functionId: String): String =
        withNative { NativeCalls.parametersSchemaJson(it, functionId) } ?: throw NoSuchElementException(lastError())

    /** The JSON Schema (draft 2020-12) of a function's result (`null` for void). */
    fun resultJsonSchema(functionId: String): String =
        withNative { NativeCalls.resultSchemaJson(it, functionId) } ?: throw NoSuchElementException(lastError())

    /**
     * Exports the registry: `"mcp"`, `"openai"`, `"openai-chat"`, `"anthropic"`, `"gemini"` give a
     * JSON tool list of every enabled function; `"android-xml"` gives Android's AppFunctions schema XML.
     */
    fun export(format: String): String =
        withNative { NativeCalls.exportCopy(it, format) } ?: throw IllegalArgumentException(lastError())

    // --- agent views ---------------------------------------------------------------------------

    /** Views of this dispatcher, told when the registry changes (held weakly). */
    private val views = java.util.Collections.newSetFromMap(java.util.WeakHashMap<AppFunctionView, Boolean>())
    private val definedToolkits = java.util.concurrent.ConcurrentHashMap.newKeySet<String>()

    /**
     * A new agent view (one conversation's model) with its [metadata]: the object that
     * conditions and `{metadata.X}` placeholders read. Close it when the conversation ends.
     */
    @JvmOverloads
    fun view(metadata: JsonObject = JsonObject(emptyMap())): AppFunctionView = viewJson(metadata.toString())

    /** [view] with typed metadata (a `@Serializable` class: its properties are the metadata's). */
    inline fun <reified T> view(metadata: T): AppFunctionView =
        view(AppJson.encodeToJsonElement(kotlinx.serialization.serializer<T>(), metadata) as JsonObject)

    /** [view] with the metadata as JSON text (an object). */
    fun viewJson(metadataJson: String): AppFunctionView {
        val ptr = withNative { NativeCalls.viewNew(it, metadataJson) }.takeIf { it != 0L } ?: throw IllegalArgumentException("af_view_new: ${lastError()}")
        val v = AppFunctionView(native, ptr)
        synchronized(views) { views += v }
        return v
    }

    /** Re-reads the change counter of every open view after a registry change made here. */
    private fun registryChanged() {
        val open = synchronized(views) { views.toList() }
        for (v in open) v.refreshGeneration()
    }

    // --- MCP ---------------------------------------------------------------------------------

    /**
     * A new MCP session (one per connection) with its own agent view of [metadata].
     * [onNotification] receives the server-initiated messages to send on the transport
     * (`notifications/tools/list_changed`, ...) on the thread that caused them; they are also
     * on [AppFunctionMcpSession.notifications].
     */
    @JvmOverloads
    fun mcpSession(metadata: JsonObject = JsonObject(emptyMap()), onNotification: ((String) -> Unit)? = null): AppFunctionMcpSession {
        val ptr = withNative { NativeCalls.mcpSessionNew(it, metadata.toString()) }.takeIf { it != 0L } ?: throw IllegalArgumentException("af_mcp_session_new: ${lastError()}")
        return AppFunctionMcpSession(state, ptr, onNotification)
    }

    /**
     * Where the dispatcher's own session ([mcpHandle]) sends its notifications; null removes
     * the sink. Set it before the first message: a session without one does not offer
     * `listChanged`.
     */
    fun setMcpNotificationHandler(handler: ((String) -> Unit)?) {
        val s = withNative {
            NativeCalls.mcpSetNotify(it, if (handler == null) 0L else NotifyData(state, handler).handOver())
        }
        check(s, "setting the MCP notification handler")
    }

    /**
     * Handles one MCP JSON-RPC message on the dispatcher's own session and returns the response,
     * or null for a notification. Malformed messages get JSON-RPC errors. A `tools/call` blocks
     * until its outcome (call it from a thread of an I/O pool, one message per call, to keep
     * reading while calls run).
     */
    fun mcpHandle(message: String): String? = withNative { NativeCalls.mcpHandleJson(it, message) }

    /**
     * Serves this dispatcher as an MCP server on the process's stdin and stdout (newline-delimited
     * JSON-RPC, both protocol eras) until stdin ends, then waits for the calls in flight; blocks.
     * This is how a desktop MCP client (Claude Desktop, an IDE) runs a local server: nothing else
     * may write to stdout meanwhile (log to stderr). Tool calls run on the core's workers.
     */
    fun serveMcpStdio() = check(withNative { NativeCalls.mcpServeStdio(it) }, "serving MCP on stdio")

    /** Configures the MCP server: `{"serverName", "serverVersion", "serverTitle", "instructions", "pageSize", "maxMessageBytes"}`, any subset. */
    fun mcpConfigure(configJson: String) = check(withNative { NativeCalls.mcpConfigure(it, configJson) }, "configuring MCP")

    // --- publication and bundles ----------------------------------------------------------------

    /**
     * Publishes this dispatcher for the whole process under [name], so a platform call that the OS
     * delivers during a cold start (the Android service, an App Intent) waits for it instead of
     * failing ([PublishedAppFunctionDispatcher.wait]). Replaces an earlier publication of that name;
     * [close] and [shutdown] withdraw it.
     */
    @JvmOverloads
    fun publish(name: String = PublishedAppFunctionDispatcher.DEFAULT_NAME) {
        require(name.isNotEmpty()) { "the publication name is empty" }
        check(withNative { NativeCalls.publish(it, name) }, "publishing as \"$name\"")
    }

    /** This dispatcher's registrations as a descriptor bundle (JSON): what build steps make the Android assets and App Intents source from ([AppFunctionBundle.export]). */
    fun bundleJson(): String = withNative { NativeCalls.bundleJson(it)!! }

    /** Frees the native dispatcher; each handler/provider/delegate is released once no call uses it. Idempotent. */
    override fun close() {
        cleanable.clean()
    }

    private companion object {
        val CLEANER: Cleaner = Cleaner.create()
    }
}

/** A cancellation token for [AppFunctionDispatcher.executeBlocking]: cancel it and every call carrying it ends `Cancelled`. */
class AppFunctionCancellationToken : AutoCloseable {
    private val ptr: Long = run {
        AppFunctionsLibrary.ensureLoaded()
        NativeCalls.cancelTokenNew()
    }
    private var uses = 0
    private var closed = false

    internal fun acquire(): Long = synchronized(this) {
        check(!closed) { "the token is closed" }
        uses++
        ptr
    }

    internal fun releaseUse() = synchronized(this) {
        uses--
        if (closed && uses == 0) NativeCalls.cancelTokenFree(ptr)
    }

    /** Cancels every call carrying the token; calls waiting for the host end now, on this thread. */
    fun cancel() {
        synchronized(this) {
            if (!closed) NativeCalls.cancelTokenCancel(ptr)
        }
    }

    val isCancelled: Boolean get() = synchronized(this) { !closed && NativeCalls.cancelTokenIsCancelled(ptr) }

    override fun close() {
        synchronized(this) {
            if (closed) return
            closed = true
            if (uses == 0) NativeCalls.cancelTokenFree(ptr)
        }
    }
}

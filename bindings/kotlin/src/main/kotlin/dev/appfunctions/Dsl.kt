// The builder DSL: declare types, functions and entities without reflection (for hosts that
// avoid kotlin-reflect, or generate code). Arguments arrive as the bound JsonObject; results
// are JsonElements (use kotlinx.serialization's encodeToJsonElement for @Serializable classes).
package dev.appfunctions

import dev.appfunctions.internal.Arguments
import dev.appfunctions.internal.CallBody
import dev.appfunctions.internal.DispatcherState
import dev.appfunctions.internal.resultUtf8
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put

@DslMarker
annotation class AppFunctionDsl

/** A descriptor type (docs/descriptors.md). */
@JvmInline
value class AppFunctionType(val json: JsonElement) {
    companion object {
        val String = AppFunctionType(JsonPrimitive("string"))
        val Boolean = AppFunctionType(JsonPrimitive("boolean"))
        val Int32 = AppFunctionType(JsonPrimitive("int32"))
        val Int64 = AppFunctionType(JsonPrimitive("int64"))
        val Double = AppFunctionType(JsonPrimitive("double"))
        val DateTime = AppFunctionType(JsonPrimitive("dateTime"))
        val Date = AppFunctionType(JsonPrimitive("date"))
        val Uuid = AppFunctionType(JsonPrimitive("uuid"))
        val Void = AppFunctionType(JsonPrimitive("void"))
        fun enum(name: kotlin.String) = AppFunctionType(buildJsonObject { put("enum", name) })
        fun record(name: kotlin.String) = AppFunctionType(buildJsonObject { put("record", name) })
        fun entity(name: kotlin.String) = AppFunctionType(buildJsonObject { put("entity", name) })
        fun array(of: AppFunctionType) = AppFunctionType(buildJsonObject { put("array", of.json) })
        fun nullable(of: AppFunctionType) = AppFunctionType(buildJsonObject { put("nullable", of.json) })
    }
}

@AppFunctionDsl
class FieldsBuilder internal constructor() {
    internal val fields = ArrayList<JsonObject>()

    fun field(name: String, type: AppFunctionType, description: String? = null, optional: Boolean = false, constraints: AppFunctionConstraints? = null) {
        fields += buildJsonObject {
            put("name", name)
            put("type", type.json)
            description?.let { put("description", it) }
            if (optional) put("optional", true)
            putConstraints(constraints)
        }
    }
}

@AppFunctionDsl
class TypesBuilder internal constructor() {
    private val enums = ArrayList<JsonObject>()
    private val records = ArrayList<JsonObject>()
    private val names = ArrayList<String>()

    /** An enum; members are names, or `name to description` pairs. */
    fun enum(name: String, vararg members: Any, description: String? = null) {
        names += name
        enums += buildJsonObject {
            put("name", name)
            description?.let { put("description", it) }
            put(
                "members",
                buildJsonArray {
                    for (m in members) when (m) {
                        is Pair<*, *> -> add(buildJsonObject { put("name", m.first.toString()); put("description", m.second.toString()) })
                        else -> add(JsonPrimitive(m.toString()))
                    }
                },
            )
        }
    }

    fun record(name: String, description: String? = null, block: FieldsBuilder.() -> Unit) {
        names += name
        val f = FieldsBuilder().apply(block)
        records += buildJsonObject {
            put("name", name)
            description?.let { put("description", it) }
            put("fields", JsonArray(f.fields))
        }
    }

    internal fun names(): List<String> = names
    internal fun build() = buildJsonObject {
        put("enums", JsonArray(enums))
        put("records", JsonArray(records))
    }
}

@AppFunctionDsl
class FunctionBuilder internal constructor(val id: String) {
    var title: String? = null
    var description: String? = null
    var opensApp: Boolean = false
    var requiresPermission: Boolean = false
    var enabled: Boolean = true
    var toolkit: String? = null
    var condition: String? = null

    /** `function` (default) or `output` (no handler: the bound arguments are the result). */
    var kind: String = "function"
    private val parameters = ArrayList<JsonObject>()
    private var result: AppFunctionType = AppFunctionType.Void
    private var resultConstraints: AppFunctionConstraints? = null
    private var suspendHandler: (suspend (AppFunctionContext, JsonObject) -> JsonElement?)? = null
    private var blockingHandler: ((AppFunctionContext, JsonObject) -> JsonElement?)? = null

    fun parameter(
        name: String,
        type: AppFunctionType,
        description: String? = null,
        optional: Boolean = false,
        default: JsonElement? = null,
        constraints: AppFunctionConstraints? = null,
    ) {
        parameters += buildJsonObject {
            put("name", name)
            put("type", type.json)
            description?.let { put("description", it) }
            if (optional || default != null) put("optional", true)
            default?.let { put("default", it) }
            putConstraints(constraints)
        }
    }

    /** The result's type, and the constraints the core checks the handler's result against. */
    fun result(type: AppFunctionType, constraints: AppFunctionConstraints? = null) {
        result = type
        resultConstraints = constraints
    }

    /** The handler: [block] gets the bound arguments and returns the result (null for void). */
    fun handler(block: suspend (context: AppFunctionContext, arguments: JsonObject) -> JsonElement?) {
        suspendHandler = block
    }

    /** A handler that never suspends: runs inline on the calling thread, without a coroutine. */
    fun blockingHandler(block: (context: AppFunctionContext, arguments: JsonObject) -> JsonElement?) {
        blockingHandler = block
    }

    internal fun descriptor() = buildJsonObject {
        put("id", id)
        title?.let { put("title", it) }
        description?.let { put("description", it) }
        put("parameters", JsonArray(parameters))
        val rc = resultConstraints
        if (rc == null || rc.isEmpty()) put("result", result.json)
        else put("result", buildJsonObject { put("type", result.json); putConstraints(rc) })
        if (opensApp) put("opensApp", true)
        if (requiresPermission) put("requiresPermission", true)
        if (!enabled) put("enabled", false)
        toolkit?.let { put("toolkit", it) }
        condition?.let { put("condition", it) }
        if (kind != "function") put("kind", kind)
    }

    internal fun body(state: DispatcherState): CallBody? {
        val hasParams = parameters.isNotEmpty()
        blockingHandler?.let { h ->
            return object : CallBody(state) {
                override val isSuspend = false
                override fun runSync(ctx: AppFunctionContext): String? = h(ctx, args(ctx, hasParams))?.toString()
                override fun runSyncUtf8(ctx: AppFunctionContext): ByteArray = resultUtf8(h(ctx, args(ctx, hasParams)))
            }
        }
        suspendHandler?.let { h ->
            return object : CallBody(state) {
                override val isSuspend = true
                override suspend fun runSuspend(ctx: AppFunctionContext): String? = h(ctx, args(ctx, hasParams))?.toString()
            }
        }
        require(kind == "output") { "$id: a function needs a handler { } or blockingHandler { } (only kind = \"output\" has none)" }
        return null
    }

    /** The bound arguments (the core's own compact text), scanned and made into entries when the handler first reads them (internal/Arguments.kt, ofCore). */
    private fun args(ctx: AppFunctionContext, hasParams: Boolean): JsonObject =
        if (!hasParams) EMPTY else Arguments.ofCore(ctx.argumentsUtf8())

    private companion object {
        val EMPTY = JsonObject(emptyMap())
    }
}

@AppFunctionDsl
class EntityBuilder internal constructor(val name: String) {
    var title: String? = null
    var description: String? = null
    var idField: String = "id"
    private val fields = FieldsBuilder()
    private var lookup: (suspend (AppFunctionContext, List<String>) -> JsonArray)? = null
    private var search: (suspend (AppFunctionContext, String, Int?) -> JsonArray)? = null

    fun field(name: String, type: AppFunctionType, description: String? = null, optional: Boolean = false, constraints: AppFunctionConstraints? = null) =
        fields.field(name, type, description, optional, constraints)

    /** Entities by id (leave unknown ids out). */
    fun lookup(block: suspend (context: AppFunctionContext, ids: List<String>) -> JsonArray) {
        lookup = block
    }

    /** Entities matching a text query (`search_{name}`). */
    fun search(block: suspend (context: AppFunctionContext, query: String, limit: Int?) -> JsonArray) {
        search = block
    }

    internal fun descriptor() = buildJsonObject {
        put("name", name)
        title?.let { put("title", it) }
        description?.let { put("description", it) }
        put("idField", idField)
        put("fields", JsonArray(fields.fields))
    }

    internal fun body(state: DispatcherState): CallBody {
        val byId = requireNotNull(lookup) { "entity $name: lookup { } is required" }
        val byText = requireNotNull(search) { "entity $name: search { } is required" }
        return object : CallBody(state) {
            override val isSuspend = true
            override suspend fun runSuspend(ctx: AppFunctionContext): String {
                val req = AppJson.parseToJsonElement(
                    dev.appfunctions.internal.NativeCalls.callLookupRequest(ctx.call) ?: "{}",
                ).jsonObject
                val ids = req["ids"]
                return if (ids != null) byId(ctx, ids.jsonArray.map { it.jsonPrimitive.content }).toString()
                else byText(ctx, req["query"]?.jsonPrimitive?.content.orEmpty(), req["limit"]?.jsonPrimitive?.int).toString()
            }
        }
    }
}

/**
 * A toolkit (seed 004's `[Collapse]`): with a [description] it collapses in agent views into one
 * container tool until the model calls it. Texts are static (`functionResult = "..."`) or
 * computed from the asking view's metadata when needed (`functionResult { metadata -> ... }`;
 * null falls back to the static text).
 */
@AppFunctionDsl
class ToolkitBuilder internal constructor(val name: String) {
    var description: String? = null

    /** Returned once, as the container call's result, when the toolkit expands. */
    var functionResult: String? = null

    /** Joins the system instructions every turn while the toolkit is expanded. */
    var systemPrompt: String? = null
    private var dynamicResult: ((JsonObject) -> String?)? = null
    private var dynamicPrompt: ((JsonObject) -> String?)? = null

    /** The expansion's text from the view's metadata (seed 004: `FunctionResult: nameof(GetAvailableSearchers)`). */
    fun functionResult(block: (metadata: JsonObject) -> String?) {
        dynamicResult = block
    }

    /** The instructions' text from the view's metadata, asked every turn while expanded. */
    fun systemPrompt(block: (metadata: JsonObject) -> String?) {
        dynamicPrompt = block
    }

    internal fun json() = buildJsonObject {
        put("name", name)
        description?.let { put("description", it) }
        functionResult?.let { put("functionResult", it) }
        systemPrompt?.let { put("systemPrompt", it) }
    }

    internal fun texts(): AppFunctionToolkitTexts? {
        val r = dynamicResult
        val p = dynamicPrompt
        if (r == null && p == null) return null
        return AppFunctionToolkitTexts { _, which, metadata ->
            when (which) {
                AppFunctionToolkitText.FunctionResult -> r?.invoke(metadata)
                AppFunctionToolkitText.SystemPrompt -> p?.invoke(metadata)
            }
        }
    }
}

/**
 * Value constraints (docs/descriptors.md, "Value constraints") for a DSL parameter, field or
 * result: the JSON Schema carries them and the core enforces them exactly. null: none.
 */
data class AppFunctionConstraints(
    val minimum: Number? = null,
    val maximum: Number? = null,
    val exclusiveMinimum: Number? = null,
    val exclusiveMaximum: Number? = null,
    val minLength: Int? = null,
    val maxLength: Int? = null,
    /** An ECMA-262 regular expression the string must match somewhere (anchor it with `^...$`). */
    val pattern: String? = null,
    val minItems: Int? = null,
    val maxItems: Int? = null,
    val uniqueItems: Boolean? = null,
) {
    /** The descriptor keys, in the order docs/descriptors.md lists them. */
    internal fun entries(): List<Pair<String, JsonElement>> = buildList {
        minimum?.let { add("minimum" to number(it)) }
        maximum?.let { add("maximum" to number(it)) }
        exclusiveMinimum?.let { add("exclusiveMinimum" to number(it)) }
        exclusiveMaximum?.let { add("exclusiveMaximum" to number(it)) }
        minLength?.let { add("minLength" to JsonPrimitive(it)) }
        maxLength?.let { add("maxLength" to JsonPrimitive(it)) }
        pattern?.let { add("pattern" to JsonPrimitive(it)) }
        minItems?.let { add("minItems" to JsonPrimitive(it)) }
        maxItems?.let { add("maxItems" to JsonPrimitive(it)) }
        uniqueItems?.let { add("uniqueItems" to JsonPrimitive(it)) }
    }

    internal fun isEmpty() = entries().isEmpty()

    companion object {
        /** A bound as the descriptor writes it: integral values as integers. */
        private fun number(n: Number): JsonPrimitive = when (n) {
            is Double, is Float -> {
                val d = n.toDouble()
                if (d == Math.rint(d) && kotlin.math.abs(d) < 9.007199254740992E15) JsonPrimitive(d.toLong()) else JsonPrimitive(d)
            }
            else -> JsonPrimitive(n)
        }

        /** From the `@Constraints` annotation (its sentinels mean "none"). */
        internal fun of(c: Constraints?): AppFunctionConstraints? {
            if (c == null) return null
            fun d(v: Double) = v.takeUnless { it.isNaN() }
            fun i(v: Int) = v.takeUnless { it < 0 }
            return AppFunctionConstraints(
                d(c.minimum), d(c.maximum), d(c.exclusiveMinimum), d(c.exclusiveMaximum),
                i(c.minLength), i(c.maxLength), c.pattern.ifEmpty { null },
                i(c.minItems), i(c.maxItems), c.uniqueItems.takeIf { it },
            ).takeUnless { it.isEmpty() }
        }
    }
}

/** Adds [c]'s keys to a descriptor object being built. */
internal fun kotlinx.serialization.json.JsonObjectBuilder.putConstraints(c: AppFunctionConstraints?) {
    c?.entries()?.forEach { (k, v) -> put(k, v) }
}

// The builder DSL: declare types, functions and entities without reflection (for hosts that
// avoid kotlin-reflect, or generate code). Arguments arrive as the bound JsonObject; results
// are JsonElements (use kotlinx.serialization's encodeToJsonElement for @Serializable classes).
package dev.appfunctions

import dev.appfunctions.internal.CallBody
import dev.appfunctions.internal.DispatcherState
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

    fun field(name: String, type: AppFunctionType, description: String? = null, optional: Boolean = false) {
        fields += buildJsonObject {
            put("name", name)
            put("type", type.json)
            description?.let { put("description", it) }
            if (optional) put("optional", true)
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
    private var suspendHandler: (suspend (AppFunctionContext, JsonObject) -> JsonElement?)? = null
    private var blockingHandler: ((AppFunctionContext, JsonObject) -> JsonElement?)? = null

    fun parameter(name: String, type: AppFunctionType, description: String? = null, optional: Boolean = false, default: JsonElement? = null) {
        parameters += buildJsonObject {
            put("name", name)
            put("type", type.json)
            description?.let { put("description", it) }
            if (optional || default != null) put("optional", true)
            default?.let { put("default", it) }
        }
    }

    fun result(type: AppFunctionType) {
        result = type
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
        put("result", result.json)
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

    private fun args(ctx: AppFunctionContext, hasParams: Boolean): JsonObject =
        if (!hasParams) EMPTY else ctx.argumentsJson?.let { AppJson.parseToJsonElement(it).jsonObject } ?: EMPTY

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

    fun field(name: String, type: AppFunctionType, description: String? = null, optional: Boolean = false) =
        fields.field(name, type, description, optional)

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
                    dev.appfunctions.internal.AfNative.af_call_lookup_request(ctx.call)?.getString(0, "UTF-8") ?: "{}",
                ).jsonObject
                val ids = req["ids"]
                return if (ids != null) byId(ctx, ids.jsonArray.map { it.jsonPrimitive.content }).toString()
                else byText(ctx, req["query"]?.jsonPrimitive?.content.orEmpty(), req["limit"]?.jsonPrimitive?.int).toString()
            }
        }
    }
}

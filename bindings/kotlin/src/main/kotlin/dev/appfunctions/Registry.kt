package dev.appfunctions

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject

/** A snapshot of the dispatcher's registry (docs/descriptors.md). */
class AppFunctionRegistry internal constructor(
    /** Declared functions in registration order, then the generated `search_{entity}` ones. */
    val functions: List<AppFunctionInfo>,
    /** The named types: `{"enums": [...], "records": [...]}`. */
    val types: JsonObject,
    val entities: List<JsonObject>,
    val json: String,
) {
    operator fun get(id: String): AppFunctionInfo? = functions.firstOrNull { it.id == id }

    internal companion object {
        fun parse(d: AppFunctionDispatcher, json: String): AppFunctionRegistry {
            val root = AppJson.parseToJsonElement(json).jsonObject
            return AppFunctionRegistry(
                functions = root["functions"]?.jsonArray.orEmpty().map { AppFunctionInfo(d, it.jsonObject) },
                types = root["types"] as? JsonObject ?: JsonObject(emptyMap()),
                entities = (root["entities"] as? JsonArray).orEmpty().map { it.jsonObject },
                json = json,
            )
        }
    }
}

/** One function as the core describes it (every field normalised). */
class AppFunctionInfo internal constructor(private val dispatcher: AppFunctionDispatcher, val descriptor: JsonObject) {
    private fun str(k: String) = (descriptor[k] as? JsonPrimitive)?.contentOrNull
    private fun flag(k: String) = (descriptor[k] as? JsonPrimitive)?.booleanOrNull ?: false

    val id: String = str("id")!!
    val title: String? get() = str("title")
    val description: String? get() = str("description")
    val parameters: List<AppFunctionParameterInfo>
        get() = (descriptor["parameters"] as? JsonArray).orEmpty().map { AppFunctionParameterInfo(it.jsonObject) }
    val resultType: JsonElement get() = descriptor["result"] ?: JsonNull
    val isGenerated: Boolean get() = flag("generated")
    val opensApp: Boolean get() = flag("opensApp")
    val requiresPermission: Boolean get() = flag("requiresPermission")
    val isEnabled: Boolean get() = (descriptor["enabled"] as? JsonPrimitive)?.booleanOrNull ?: true
    val kind: String get() = str("kind") ?: "function"

    /** The JSON Schema (draft 2020-12) of the parameters: what an AI tool or MCP adapter offers a model. */
    fun parametersJsonSchema(): String = dispatcher.parametersJsonSchema(id)

    /** The JSON Schema (draft 2020-12) of the result (`null` for void). */
    fun resultJsonSchema(): String = dispatcher.resultJsonSchema(id)

    override fun toString() = "$id: ${description.orEmpty()}"
}

class AppFunctionParameterInfo internal constructor(val descriptor: JsonObject) {
    val name: String = (descriptor["name"] as JsonPrimitive).content
    val type: JsonElement get() = descriptor["type"] ?: JsonNull
    val description: String? get() = (descriptor["description"] as? JsonPrimitive)?.contentOrNull
    val isOptional: Boolean get() = (descriptor["optional"] as? JsonPrimitive)?.booleanOrNull ?: false
    val default: JsonElement? get() = descriptor["default"]
}

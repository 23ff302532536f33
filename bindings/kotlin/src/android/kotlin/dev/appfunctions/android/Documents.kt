package dev.appfunctions.android

import android.app.appfunctions.AppFunctionException
import android.app.appfunctions.ExecuteAppFunctionResponse
import android.app.appsearch.GenericDocument
import android.os.Bundle
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.double
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import kotlinx.serialization.json.put
import java.util.Base64

/**
 * `GenericDocument`s to and from the neutral JSON image the core converts (docs/android.md):
 * `{"namespace", "id", "schemaType", "properties": {name: {"strings" | "longs" | "doubles" |
 * "booleans" | "bytes" | "documents": [...]}}}`. Only the walk: every rule is the core's.
 */
internal object Documents {
    /** The image of [doc] as JSON text. */
    fun image(doc: GenericDocument): String = imageOf(doc).toString()

    private fun imageOf(doc: GenericDocument): JsonObject = buildJsonObject {
        put("namespace", doc.namespace)
        put("id", doc.id)
        put("schemaType", doc.schemaType)
        put("properties", buildJsonObject {
            for (name in doc.propertyNames.sorted()) {
                val typed = when (val v = doc.getProperty(name)) {
                    is LongArray -> "longs" to buildJsonArray { v.forEach { add(JsonPrimitive(it)) } }
                    is DoubleArray -> "doubles" to buildJsonArray { v.forEach { add(JsonPrimitive(it)) } }
                    is BooleanArray -> "booleans" to buildJsonArray { v.forEach { add(JsonPrimitive(it)) } }
                    is Array<*> -> when {
                        v.isArrayOf<String>() -> "strings" to buildJsonArray { v.forEach { add(JsonPrimitive(it as String)) } }
                        v.isArrayOf<ByteArray>() -> "bytes" to buildJsonArray {
                            v.forEach { add(JsonPrimitive(Base64.getEncoder().encodeToString(it as ByteArray))) }
                        }
                        v.isArrayOf<GenericDocument>() -> "documents" to buildJsonArray { v.forEach { add(imageOf(it as GenericDocument)) } }
                        else -> throw IllegalArgumentException("property `$name` holds ${v.javaClass.componentType?.name}[]")
                    }
                    null -> continue
                    else -> throw IllegalArgumentException("property `$name` holds a ${v.javaClass.name}")
                }
                put(name, buildJsonObject { put(typed.first, typed.second) })
            }
        })
    }

    /** The document an image describes. */
    fun document(image: JsonObject): GenericDocument {
        val b = GenericDocument.Builder<GenericDocument.Builder<*>>(
            image["namespace"]?.jsonPrimitive?.content ?: "",
            image["id"]?.jsonPrimitive?.content ?: "",
            image["schemaType"]?.jsonPrimitive?.content ?: "",
        )
        val props = image["properties"]?.jsonObject ?: JsonObject(emptyMap())
        for ((name, p) in props) {
            val (kind, items) = p.jsonObject.entries.single()
            val a: JsonArray = items.jsonArray
            when (kind) {
                "strings" -> b.setPropertyString(name, *Array(a.size) { a[it].jsonPrimitive.content })
                "longs" -> b.setPropertyLong(name, *LongArray(a.size) { a[it].jsonPrimitive.long })
                "doubles" -> b.setPropertyDouble(name, *DoubleArray(a.size) { a[it].jsonPrimitive.double })
                "booleans" -> b.setPropertyBoolean(name, *BooleanArray(a.size) { a[it].jsonPrimitive.boolean })
                "bytes" -> b.setPropertyBytes(name, *Array(a.size) { Base64.getDecoder().decode(a[it].jsonPrimitive.content) })
                "documents" -> b.setPropertyDocument(name, *Array(a.size) { document(a[it].jsonObject) })
                else -> throw IllegalArgumentException("property `$name`: unknown kind `$kind`")
            }
        }
        return b.build()
    }

    /** The core's response: the platform response, or the exception to answer. */
    fun response(json: String): Result<ExecuteAppFunctionResponse> {
        val r = Json.parseToJsonElement(json).jsonObject
        r["errorCode"]?.let { code ->
            return Result.failure(AppFunctionException(code.jsonPrimitive.int, r["message"]?.jsonPrimitive?.content))
        }
        val extras = Bundle()
        (r["extras"] as? JsonObject)?.forEach { (k, v: JsonElement) -> extras.putString(k, v.jsonPrimitive.content) }
        return Result.success(ExecuteAppFunctionResponse(document(r["result"]!!.jsonObject), extras))
    }
}

package dev.appfunctions

import com.sun.jna.Pointer
import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.Handles
import dev.appfunctions.internal.cstr
import dev.appfunctions.internal.takeUtf8
import dev.appfunctions.internal.utf8
import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.serializer

/**
 * One call's scope, handed to handlers, entity providers, delegates and scope hooks. It is
 * valid until the call ends (afterwards its accessors answer null/defaults and its setters
 * do nothing); do not keep it beyond the call.
 */
class AppFunctionContext internal constructor(internal val call: Pointer) {
    /** The function's id (for an entity lookup: the generated `search_{entity}`). */
    val functionId: String get() = AfNative.af_call_function_id(call).utf8().orEmpty()

    val platform: AppFunctionPlatform get() = AppFunctionPlatform.of(AfNative.af_call_platform(call))

    /** Apple: the app is in the foreground for this run. */
    val isForeground: Boolean get() = AfNative.af_call_is_foreground(call).toInt() != 0

    /** Android: the calling agent's package ("" in-process or from the shell). */
    val callerPackage: String get() = AfNative.af_call_caller_package(call).utf8().orEmpty()

    /** The bound, normalised request as JSON (defaults applied, entity ids replaced by entities); null for entity lookups. */
    val argumentsJson: String? get() = AfNative.af_call_args(call).utf8()

    /** The called function's normalised descriptor (as in the registry; the seed's `context.Function`). */
    val descriptor: JsonObject?
        get() = AfNative.af_call_descriptor_json(call).takeUtf8()?.let { AppJson.parseToJsonElement(it) as? JsonObject }

    /** True when this call is an entity lookup (the provider of an entity, or delegates seeing one). */
    val isEntityLookup: Boolean get() = AfNative.af_call_kind(call) == AfNative.AF_CALL_ENTITY_LOOKUP

    /** True once the call has been cancelled or timed out (or has ended). */
    val isCancelled: Boolean get() = AfNative.af_call_is_cancelled(call).toInt() != 0

    /** The text for Siri, or returned with the Android result (the outcome's `dialog`; the last one wins). */
    fun say(text: String) {
        AfNative.af_call_say(call, text.cstr())
    }

    /** State shared by the delegates and the handler of this call, as JSON values. */
    val items: Items get() = Items(call)

    /** The host scope opened by the dispatcher's `scopeHooks` (a DI scope), or null. */
    val scope: Any? get() = AfNative.af_call_host_data(call)?.let { (Handles[it] as? ScopeBox)?.scope }

    /** The host scope cast to [T]. */
    inline fun <reified T> scope(): T = scope as T

    class Items internal constructor(private val call: Pointer) {
        /** The item's JSON, or null when there is none. */
        fun getJson(key: String): String? = AfNative.af_call_item_get_json(call, key.cstr()).takeUtf8()

        fun setJson(key: String, json: String) {
            val s = AfNative.af_call_item_set(call, key.cstr(), json.cstr())
            require(s == AfNative.AF_OK) { "item '$key': ${dev.appfunctions.internal.lastError()}" }
        }

        operator fun get(key: String): JsonElement? = getJson(key)?.let { AppJson.parseToJsonElement(it) }
        operator fun set(key: String, value: JsonElement) = setJson(key, value.toString())

        fun <T> get(key: String, serializer: KSerializer<T>): T? = getJson(key)?.let { AppJson.decodeFromString(serializer, it) }
        fun <T> set(key: String, serializer: KSerializer<T>, value: T) = setJson(key, AppJson.encodeToString(serializer, value))

        inline fun <reified T> getAs(key: String): T? = get(key, serializer<T>())
        inline fun <reified T> put(key: String, value: T) = set(key, serializer<T>(), value)
    }
}

internal class ScopeBox(val scope: Any?)

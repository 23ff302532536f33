package dev.appfunctions

import dev.appfunctions.internal.NativeCalls
import dev.appfunctions.internal.AfNative
import dev.appfunctions.internal.Handles
import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.serializer

/**
 * One call's scope, handed to handlers, entity providers, delegates and scope hooks. It is
 * valid until the call ends (afterwards its accessors answer null/defaults and its setters
 * do nothing); do not keep it beyond the call.
 */
class AppFunctionContext internal constructor(internal val call: Long) {
    /** The function's id (for an entity lookup: the generated `search_{entity}`). */
    val functionId: String get() = NativeCalls.callFunctionId(call)

    val platform: AppFunctionPlatform get() = AppFunctionPlatform.of(NativeCalls.callPlatform(call))

    /** Apple: the app is in the foreground for this run. */
    val isForeground: Boolean get() = NativeCalls.callIsForeground(call)

    /** Android: the calling agent's package ("" in-process or from the shell). */
    val callerPackage: String get() = NativeCalls.callCallerPackage(call)

    /** The bound, normalised request as JSON (defaults applied, entity ids replaced by entities); null for entity lookups. */
    val argumentsJson: String? get() = NativeCalls.callArgs(call)

    /** [argumentsJson]'s UTF-8, for the binding's own readers (no String made). */
    internal fun argumentsUtf8(): ByteArray? = NativeCalls.callArgsUtf8(call)

    /** The called function's normalised descriptor (as in the registry; the seed's `context.Function`). */
    val descriptor: JsonObject?
        get() = NativeCalls.callDescriptorJson(call)?.let { AppJson.parseToJsonElement(it) as? JsonObject }

    /** True when this call is an entity lookup (the provider of an entity, or delegates seeing one). */
    val isEntityLookup: Boolean get() = NativeCalls.callIsEntityLookup(call)

    /** True once the call has been cancelled or timed out (or has ended). */
    val isCancelled: Boolean get() = NativeCalls.callIsCancelled(call)

    /** The text for Siri, or returned with the Android result (the outcome's `dialog`; the last one wins). */
    fun say(text: String) {
        NativeCalls.callSay(call, text)
    }

    /**
     * The text said so far for this call, by [say] or by any other layer (a delegate, the
     * entity lookup the call made): the core's dialog; null when nothing was said yet and once
     * the call has ended.
     */
    val dialog: String? get() = NativeCalls.callDialog(call)

    /**
     * The [AppFunctionInvocation.hostContext] of the invocation that started this call (for an
     * entity lookup, of the call it serves); null when none was given, for a call the library
     * started itself (MCP `tools/call`, an Android request), and once the caller stopped waiting.
     */
    val invocationContext: Any? get() = Handles[NativeCalls.callInvocationContext(call)]

    /** State shared by the delegates and the handler of this call, as JSON values. */
    val items: Items get() = Items(call)

    /** The host scope opened by the dispatcher's `scopeHooks` (a DI scope), or null. */
    val scope: Any? get() = (Handles[NativeCalls.callHostData(call)] as? ScopeBox)?.scope

    /** The host scope cast to [T]. */
    inline fun <reified T> scope(): T = scope as T

    class Items internal constructor(private val call: Long) {
        /** The item's JSON, or null when there is none. */
        fun getJson(key: String): String? = NativeCalls.callItemGetJson(call, key)

        fun setJson(key: String, json: String) {
            val s = NativeCalls.callItemSet(call, key, json)
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

// @AppFunction methods -> descriptors and call bodies, by kotlin-reflect (once, at registration).
package dev.appfunctions.internal

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionEntityProvider
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionConstraints
import dev.appfunctions.AppFunctionException
import dev.appfunctions.Constraints
import dev.appfunctions.putConstraints
import dev.appfunctions.AppFunctionKind
import dev.appfunctions.AppFunctionToolkit
import dev.appfunctions.DefaultValue
import dev.appfunctions.Description
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
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Method
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn
import kotlin.reflect.KFunction
import kotlin.reflect.KParameter
import kotlin.reflect.full.callSuspendBy
import kotlin.reflect.full.findAnnotation
import kotlin.reflect.full.memberFunctions
import kotlin.reflect.jvm.isAccessible
import kotlin.reflect.jvm.javaMethod

internal fun snakeCase(name: String): String = buildString {
    for ((i, c) in name.withIndex()) {
        if (c.isUpperCase()) {
            if (i > 0 && name[i - 1] != '_') append('_')
            append(c.lowercaseChar())
        } else {
            append(c)
        }
    }
}

internal class ReflectiveParam(val p: KParameter, val name: String, val shape: Shape)

/** A declared function read from an @AppFunction method. */
internal class ReflectiveFunction(
    state: DispatcherState,
    private val instance: Any,
    private val fn: KFunction<*>,
    val id: String,
    private val params: List<ReflectiveParam>,
    private val contextParam: KParameter?,
    val result: Shape,
    val descriptor: JsonObject,
) : CallBody(state) {
    override val isSuspend: Boolean = fn.isSuspend
    fun paramShapes(): List<Shape> = params.map { it.shape }

    /**
     * The JVM method, called with the arguments in its order: a suspend function's takes the
     * continuation last. kotlin-reflect's `callBy` (a map of every parameter, their defaults
     * applied by reflection) is left for a call that omits a parameter with a Kotlin default.
     */
    private val method: Method? = fn.javaMethod?.also { it.isAccessible = true }
    private val instanceParam = fn.parameters.first { it.kind == KParameter.Kind.INSTANCE }
    private val ctxSlots = if (contextParam != null) 1 else 0
    private val nameUtf8: Array<ByteArray> = Array(params.size) { params[it].name.toByteArray() }
    private val optional = BooleanArray(params.size) { params[it].p.isOptional }

    /**
     * The arguments in the method's order (context first when declared), each read where the
     * core's text has it ([ArgumentSpans], [Shape.decodeAt]); null when a parameter with a Kotlin
     * default was omitted (then [bindByParam]), or the text is one the scanner leaves to kotlinx.
     * [extra] slots are left at the end (a suspend function's continuation).
     */
    private fun bindPositional(ctx: AppFunctionContext, extra: Int): Array<Any?>? {
        if (method == null) return null
        val args = arrayOfNulls<Any?>(ctxSlots + params.size + extra)
        if (contextParam != null) args[0] = ctx
        if (params.isEmpty()) return args
        val utf8 = ctx.argumentsUtf8()
        val spans = if (utf8 == null) null else ArgumentSpans.ofCore(utf8) ?: ArgumentSpans.of(utf8) ?: return null
        for (i in params.indices) {
            val at = spans?.find(nameUtf8[i]) ?: -1L
            if (at < 0) {
                if (optional[i]) return null
                continue // null: a nullable parameter the core let be omitted
            }
            args[ctxSlots + i] = decoded(params[i]) { it.decodeAt(spans!!.utf8, (at ushr 32).toInt(), at.toInt()) }
        }
        return args
    }

    private inline fun decoded(rp: ReflectiveParam, read: (Shape) -> Any?): Any? = try {
        read(rp.shape)
    } catch (e: Exception) {
        throw AppFunctionException(AppFunctionErrorCode.InvalidArgument, "${rp.name}: ${e.message}")
    }

    /** Every parameter by its KParameter, for kotlin-reflect's `callBy`, which applies the Kotlin defaults of those left out. */
    private fun bindByParam(ctx: AppFunctionContext): Map<KParameter, Any?> {
        // the DSL's reader (Arguments.kt): kotlinx's parse for any text its scanner does not expect
        val obj = if (params.isEmpty()) JsonObject(emptyMap()) else Arguments.of(ctx.argumentsUtf8())
        val byParam = HashMap<KParameter, Any?>()
        byParam[instanceParam] = instance
        if (contextParam != null) byParam[contextParam] = ctx
        for (rp in params) {
            val v = obj[rp.name]
            if (v == null) {
                if (!rp.p.isOptional) byParam[rp.p] = null
                continue
            }
            byParam[rp.p] = decoded(rp) { it.decode(v) }
        }
        return byParam
    }

    override fun runSync(ctx: AppFunctionContext): String? {
        val args = bindPositional(ctx, 0) ?: return encode(fn.callBy(bindByParam(ctx)))
        return encode(method!!.invokeUnwrapped(instance, args))
    }

    override suspend fun runSuspend(ctx: AppFunctionContext): String? {
        if (!isSuspend) return runSync(ctx)
        val args = bindPositional(ctx, 1) ?: return encode(fn.callSuspendBy(bindByParam(ctx)))
        // the suspend function's JVM method: its continuation last, COROUTINE_SUSPENDED when it
        // suspended (it resumes that continuation), else its result
        val value = suspendCoroutineUninterceptedOrReturn<Any?> { cont ->
            args[args.size - 1] = cont
            method!!.invokeUnwrapped(instance, args)
        }
        return encode(value)
    }

    private fun encode(value: Any?): String? {
        if (result === Shape.Unit_) return null
        val out = StringBuilder(128)
        result.write(out, value)
        return out.toString()
    }
}

/** [Method.invoke], throwing what the method threw rather than its InvocationTargetException. */
internal fun Method.invokeUnwrapped(target: Any?, args: Array<Any?>): Any? = try {
    invoke(target, *args)
} catch (e: InvocationTargetException) {
    throw e.targetException ?: e
}

internal fun AppJsonParse(json: String): JsonObject = dev.appfunctions.AppJson.parseToJsonElement(json).jsonObject

/** Reads every @AppFunction method of [instance], in the alphabetical order of the method names. */
internal fun readFunctions(state: DispatcherState, instance: Any): List<ReflectiveFunction> {
    val cls = instance::class
    val found = cls.memberFunctions.mapNotNull { f -> f.findAnnotation<AppFunction>()?.let { f to it } }
    require(found.isNotEmpty()) { "${cls.qualifiedName} has no @AppFunction methods" }
    // Source order is not visible at run time (kotlin-reflect sorts by name, the JVM does not
    // promise any order), so the order is the methods' names: deterministic everywhere.
    val toolkit = cls.findAnnotation<AppFunctionToolkit>()?.name
    return found.sortedBy { it.first.name }.map { (fn, ann) -> readFunction(state, instance, fn, ann, toolkit) }
}

private fun readFunction(state: DispatcherState, instance: Any, fn: KFunction<*>, ann: AppFunction, classToolkit: String?): ReflectiveFunction {
    fn.isAccessible = true
    val id = ann.id.ifEmpty { snakeCase(fn.name) }
    val values = fn.parameters.filter { it.kind == KParameter.Kind.VALUE }
    var contextParam: KParameter? = null
    val params = ArrayList<ReflectiveParam>()
    for ((i, p) in values.withIndex()) {
        if (p.type.classifier == AppFunctionContext::class) {
            require(i == 0) { "$id: the AppFunctionContext must be the first parameter" }
            contextParam = p
            continue
        }
        val name = p.name ?: throw IllegalArgumentException("$id: parameter $i has no name")
        params += ReflectiveParam(p, name, Shapes.of(p.type, "$id.parameters.$name"))
    }
    val result = Shapes.of(fn.returnType, "$id.result")
    val descriptor = buildJsonObject {
        put("id", id)
        if (ann.title.isNotEmpty()) put("title", ann.title)
        (ann.description.ifEmpty { null } ?: fn.findAnnotation<Description>()?.value)?.let { put("description", it) }
        put("symbol", "${instance::class.simpleName}.${fn.name}")
        put(
            "parameters",
            buildJsonArray {
                for (rp in params) add(
                    buildJsonObject {
                        put("name", rp.name)
                        put("type", rp.shape.descriptorType)
                        rp.p.findAnnotation<Description>()?.let { put("description", it.value) }
                        // a nullable parameter needs no "optional": the core's one nullable rule
                        // lets it be omitted and binds it as null
                        if (rp.p.isOptional) put("optional", true)
                        rp.p.findAnnotation<DefaultValue>()?.let { put("default", AppJsonParseAny(it.json, "$id.parameters.${rp.name} @DefaultValue")) }
                        putConstraints(AppFunctionConstraints.of(rp.p.findAnnotation<Constraints>()))
                    },
                )
            },
        )
        val resultConstraints = AppFunctionConstraints.of(fn.findAnnotation<Constraints>())
        if (resultConstraints == null) put("result", result.descriptorType)
        else put("result", buildJsonObject { put("type", result.descriptorType); putConstraints(resultConstraints) })
        if (ann.opensApp) put("opensApp", true)
        if (ann.requiresPermission) put("requiresPermission", true)
        if (!ann.enabled) put("enabled", false)
        if (ann.deprecated) put("deprecated", true)
        ann.toolkit.ifEmpty { classToolkit }?.let { put("toolkit", it) }
        if (ann.kind == AppFunctionKind.Output) put("kind", "output")
        if (ann.condition.isNotEmpty()) put("condition", ann.condition)
    }
    return ReflectiveFunction(state, instance, fn, id, params, contextParam, result, descriptor)
}

private fun AppJsonParseAny(json: String, where: String): JsonElement = try {
    dev.appfunctions.AppJson.parseToJsonElement(json)
} catch (e: Exception) {
    throw IllegalArgumentException("$where is not JSON: $json (${e.message})")
}

/** The lookup behind an entity and its `search_{entity}`. */
internal class EntityBody(
    state: DispatcherState,
    private val shape: Shape.Record,
    private val provider: AppFunctionEntityProvider<Any>,
) : CallBody(state) {
    override val isSuspend = true

    override suspend fun runSuspend(ctx: AppFunctionContext): String? {
        val req = AppJsonParse(NativeCalls.callLookupRequest(ctx.call) ?: "{}")
        val found = when (val ids = req["ids"]) {
            null -> provider.search(
                ctx,
                req["query"]?.jsonPrimitive?.content.orEmpty(),
                req["limit"]?.jsonPrimitive?.int,
            )
            else -> provider.lookup(ctx, ids.jsonArray.map { it.jsonPrimitive.content })
        }
        return JsonArray(found.map { shape.encode(it) }).toString()
    }
}


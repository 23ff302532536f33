// Cold start on the JVM: one fresh JVM from its start to the first outcome (ci/bench/coldstart-jvm.sh
// starts it once per sample through ci/bench/coldstart.py --binding jvm).
//
//   java -cp ... dev.appfunctions.bench.ColdStartKt BUNDLE APP [--floor]
//
// BUNDLE is the app's descriptor bundle (JSON: types, functions, entities, toolkits,
// metadataSchema: the demo's and numbered copies of its functions, 50 in all), APP the C
// program's app file, read here for its first call's line ("X <id>\t<arguments>\t<result>").
// The program reads and parses both (what an app holding its descriptors would do), then
// (without --floor) loads the library and checks its ABI (AppFunctionsLibrary.ensureLoaded),
// registers everything through the Kotlin DSL (setMetadataSchema, toolkit, types, entity,
// function with a blockingHandler answering the call line's result), and makes the first call
// (executeBlockingJson). It prints System.nanoTime() (CLOCK_MONOTONIC on Linux, the clock
// coldstart.py reads) after each step:
//   coldstart main=N read=N load=N register=N call=N
// With --floor it stops after reading: the same JVM program without appfunctions. With --detail
// it prints the same steps split finer (where the load and the registration spend their time):
//   coldstart main=N read=N native=N load=N dispatcher=N types=N first_function=N functions=N call=N
// native: the binding's JNI library loaded, the core opened by it and its functions looked up,
// the natives registered; load: the rest of the check (af_abi_version, the error code names, the
// version); types: the metadata schema, toolkit, types and entity; first_function: the first
// function; functions: the others.
package dev.appfunctions.bench

import dev.appfunctions.AppFunctionConstraints
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
import dev.appfunctions.AppFunctionsLibrary
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import kotlin.system.exitProcess

/**
 * Descriptor keys the DSL does not take (the Apple symbol, MCP hints, caller policies, the
 * deprecation flag): the bundle's normalised descriptors carry them with their defaults or for
 * other platforms, and the JVM app registers without them. Any other key stops the program, so
 * that the registrations stay the C program's.
 */
private val NOT_IN_DSL = setOf("symbol", "hints", "callers", "deprecated")

fun main(args: Array<String>) {
    val tMain = System.nanoTime()
    val files = args.filter { it != "--floor" && it != "--detail" }
    val detail = "--detail" in args
    if (files.size != 2) {
        System.err.println("usage: ColdStartKt BUNDLE APP [--floor | --detail]")
        exitProcess(2)
    }
    val bundle = Json.parseToJsonElement(File(files[0]).readText()).jsonObject
    val x = File(files[1]).readLines().firstOrNull { it.startsWith("X ") }?.removePrefix("X ")?.split('\t')
    require(x != null && x.size == 3) { "${files[1]}: no X <id>\\t<arguments>\\t<result> line" }
    val (callId, callArgs) = x
    val callResult = Json.parseToJsonElement(x[2])
    val tRead = System.nanoTime()
    if ("--floor" in args) {
        println("coldstart main=$tMain read=$tRead")
        return
    }

    val marks = ArrayList<Pair<String, Long>>()
    fun mark(step: String) {
        if (detail) marks += step to System.nanoTime()
    }
    if (detail) {
        dev.appfunctions.internal.JniShim.ensureLoaded()
        mark("native")
    }
    AppFunctionsLibrary.ensureLoaded()
    val tLoad = System.nanoTime()

    val d = AppFunctionDispatcher()
    mark("dispatcher")
    register(d, bundle, callId, callResult, ::mark)
    val tRegister = System.nanoTime()

    val outcome = d.executeBlockingJson(AppFunctionInvocation(callId), callArgs)
    val tCall = System.nanoTime()
    if (!outcome.contains("\"status\":\"success\"")) {
        System.err.println("coldstart: the first call did not succeed: $outcome")
        exitProcess(1)
    }
    val fine = marks.toMap()
    if (detail) {
        println("coldstart main=$tMain read=$tRead native=${fine["native"]} load=$tLoad dispatcher=${fine["dispatcher"]} " +
            "types=${fine["types"]} first_function=${fine["first_function"]} functions=$tRegister call=$tCall")
    } else {
        println("coldstart main=$tMain read=$tRead load=$tLoad register=$tRegister call=$tCall")
    }
}

private fun register(d: AppFunctionDispatcher, bundle: JsonObject, callId: String, callResult: JsonElement, mark: (String) -> Unit) {
    bundle["metadataSchema"]?.let { d.setMetadataSchema(it.toString()) }
    for (k in bundle["toolkits"]?.jsonArray.orEmpty()) {
        val t = k.jsonObject
        d.toolkit(t.str("name")!!) {
            description = t.str("description")
            functionResult = t.str("functionResult")
            systemPrompt = t.str("systemPrompt")
        }
    }
    bundle["types"]?.jsonObject?.let { types ->
        d.types {
            for (e in types["enums"]?.jsonArray.orEmpty()) {
                val o = e.jsonObject
                val members = o["members"]!!.jsonArray.map { m ->
                    if (m is JsonObject) m.str("description")?.let { m.str("name")!! to it } ?: m.str("name")!! else m.jsonPrimitive.content
                }
                enum(o.str("name")!!, *members.toTypedArray(), description = o.str("description"))
            }
            for (r in types["records"]?.jsonArray.orEmpty()) {
                val o = r.jsonObject
                record(o.str("name")!!, o.str("description")) {
                    for (f in o["fields"]!!.jsonArray) {
                        val p = f.jsonObject
                        field(p.str("name")!!, AppFunctionType(p["type"]!!), p.str("description"), p.bool("optional"), constraints(p))
                    }
                }
            }
        }
    }
    for (e in bundle["entities"]?.jsonArray.orEmpty()) {
        val o = e.jsonObject
        d.entity(o.str("name")!!) {
            title = o.str("title")
            description = o.str("description")
            o.str("idField")?.let { idField = it }
            for (f in o["fields"]!!.jsonArray) {
                val p = f.jsonObject
                field(p.str("name")!!, AppFunctionType(p["type"]!!), p.str("description"), p.bool("optional"), constraints(p))
            }
            lookup { _, _ -> JsonArray(emptyList()) }
            search { _, _, _ -> JsonArray(emptyList()) }
        }
    }
    mark("types")
    val known = setOf("id", "title", "description", "parameters", "result", "opensApp", "requiresPermission", "kind",
        "enabled", "toolkit", "condition") + NOT_IN_DSL
    for (f in bundle["functions"]!!.jsonArray) {
        val o = f.jsonObject
        val id = o.str("id")!!
        (o.keys - known).let { require(it.isEmpty()) { "$id: descriptor keys this program does not register: $it" } }
        d.function(id) {
            title = o.str("title")
            description = o.str("description")
            opensApp = o.bool("opensApp")
            requiresPermission = o.bool("requiresPermission")
            enabled = o["enabled"]?.jsonPrimitive?.booleanOrNull ?: true
            toolkit = o.str("toolkit")
            condition = o.str("condition")
            o.str("kind")?.let { kind = it }
            for (p in o["parameters"]?.jsonArray.orEmpty()) {
                val q = p.jsonObject
                parameter(q.str("name")!!, AppFunctionType(q["type"]!!), q.str("description"), q.bool("optional"), q["default"], constraints(q))
            }
            val r = o["result"] ?: JsonPrimitive("void")
            if (r is JsonObject && "type" in r) result(AppFunctionType(r["type"]!!), constraints(r)) else result(AppFunctionType(r))
            if (kind != "output") {
                val answer = if (id == callId) callResult else JsonNull
                blockingHandler { _, _ -> answer }
            }
        }
        if (id == bundle["functions"]!!.jsonArray.first().jsonObject.str("id")) mark("first_function")
    }
}

private fun JsonObject.str(key: String): String? = (this[key] as? JsonPrimitive)?.contentOrNull
private fun JsonObject.bool(key: String): Boolean = (this[key] as? JsonPrimitive)?.booleanOrNull ?: false

private fun constraints(o: JsonObject): AppFunctionConstraints? {
    fun num(k: String): Number? = (o[k] as? JsonPrimitive)?.contentOrNull?.let { it.toLongOrNull() ?: it.toDouble() }
    fun int(k: String): Int? = (o[k] as? JsonPrimitive)?.intOrNull
    val c = AppFunctionConstraints(
        num("minimum"), num("maximum"), num("exclusiveMinimum"), num("exclusiveMaximum"),
        int("minLength"), int("maxLength"), o.str("pattern"), int("minItems"), int("maxItems"),
        (o["uniqueItems"] as? JsonPrimitive)?.booleanOrNull,
    )
    return c.takeUnless { it == AppFunctionConstraints() }
}

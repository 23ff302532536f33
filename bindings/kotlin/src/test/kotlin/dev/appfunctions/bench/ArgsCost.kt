// Where the C figure's call (create_order, three arguments) spends its time in Kotlin, beyond the
// trivial call: the same function registered with call bodies that each do one step more, in one
// JVM beside the C loops (Floor.kt's measureAll: best of 5 rounds, thread CPU time).
// Run:  mvn -Pbench verify -Dbench.mainClass=dev.appfunctions.bench.ArgsCostKt [-Dbench.args=N]
package dev.appfunctions.bench

import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionOutcome
import dev.appfunctions.AppFunctionType
import dev.appfunctions.AppJson
import dev.appfunctions.internal.Arguments
import dev.appfunctions.internal.CallBody
import dev.appfunctions.internal.JniShim
import dev.appfunctions.internal.NativeCalls
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

fun main(args: Array<String>) {
    val n = args.firstOrNull()?.toIntOrNull() ?: 200_000
    AppFunctionDispatcher().use { d ->
        val register = AppFunctionDispatcher::class.java.getDeclaredMethod("registerBody", JsonObject::class.java, CallBody::class.java)
            .apply { isAccessible = true }
        fun body(step: (AppFunctionContext) -> String?) = object : CallBody(d.state) {
            override val isSuspend = false
            override fun runSync(ctx: AppFunctionContext): String? = step(ctx)
        }
        d.types { enum("Priority", "Low", "Normal", "High") }
        val params = """[{"name":"customer","type":"string"},{"name":"quantity","type":"int32"},{"name":"priority","type":{"enum":"Priority"}}]"""
        fun define(id: String, withParams: Boolean, step: (AppFunctionContext) -> String?) {
            val desc = AppJson.parseToJsonElement(
                """{"id":"$id","parameters":${if (withParams) params else "[]"},"result":"string"}""",
            ) as JsonObject
            register.invoke(d, desc, body(step))
        }
        // each step adds one thing to the one before
        define("ping_const", false) { CONST }
        define("co_const", true) { CONST }
        define("co_bytes", true) { ctx -> JniShim.nativeCallArgs(ctx.call)!!.size.let { CONST } }
        define("co_bytes_scratch", true) { ctx -> NativeCalls.callArgsUtf8(ctx.call)!!.size.let { CONST } }
        define("co_scan", true) { ctx -> System.identityHashCode(Arguments.of(NativeCalls.callArgsUtf8(ctx.call))).let { CONST } }
        define("co_core", true) { ctx -> System.identityHashCode(Arguments.ofCore(NativeCalls.callArgsUtf8(ctx.call))).let { CONST } }
        define("co_scan_read", true) { ctx -> Arguments.of(NativeCalls.callArgsUtf8(ctx.call)).size.let { CONST } }
        define("co_native_noop", true) { ctx -> JniShim.nativeAddress(99).let { CONST } }
        define("co_string", true) { ctx -> ctx.argumentsJson!!.length.let { CONST } }
        define("co_parse", true) { ctx -> (AppJson.parseToJsonElement(ctx.argumentsJson!!) as JsonObject).size.let { CONST } }
        define("co_encode", true) { ctx -> (AppJson.parseToJsonElement(ctx.argumentsJson!!) as JsonObject).size.let { OK.toString() } }
        d.function("co_dsl") {
            parameter("customer", AppFunctionType.String)
            parameter("quantity", AppFunctionType.Int32)
            parameter("priority", AppFunctionType.enum("Priority"))
            result(AppFunctionType.String)
            blockingHandler { _, _ -> OK }
        }
        d.function("co_dsl_read") {
            parameter("customer", AppFunctionType.String)
            parameter("quantity", AppFunctionType.Int32)
            parameter("priority", AppFunctionType.enum("Priority"))
            result(AppFunctionType.String)
            blockingHandler { _, a -> if (a["quantity"] == null) null else OK }
        }
        d.function("dsl_ping") {
            result(AppFunctionType.Int32)
            blockingHandler { _, _ -> JsonPrimitive(1) }
        }
        val jni = FloorJni.loaded.onFailure { println("bench: no JNI floor: $it") }.isSuccess
        val cLoop = jni && FloorJni.cSetup(C_FUNCTIONS.map { JniShim.nativeFunctionAddress(it.toByteArray()) }.toLongArray()) == 0
        for (id in listOf("ping_const", "co_const", "co_dsl")) println("outcome $id: " + d.executeBlockingJson(AppFunctionInvocation(id), if (id.startsWith("ping")) "{}" else ARGS))
        val loops = listOfNotNull(
            if (cLoop) Loop("C create_order (same JVM)", per = C_PER) { FloorJni.cExecute(C_PER, 0) } else null,
            if (cLoop) Loop("C create_order reading args", per = C_PER) { FloorJni.cExecute(C_PER, 1) } else null,
            if (cLoop) Loop("C dsl_ping", per = C_PER) { FloorJni.cExecute(C_PER, 2) } else null,
            call(d, "dsl_ping", "{}"),
            call(d, "ping_const", "{}"),
            call(d, "co_const", ARGS),
            call(d, "co_bytes", ARGS),
            call(d, "co_bytes_scratch", ARGS),
            call(d, "co_scan", ARGS),
            call(d, "co_core", ARGS),
            call(d, "co_scan_read", ARGS),
            call(d, "co_native_noop", ARGS),
            call(d, "co_string", ARGS),
            call(d, "co_parse", ARGS),
            call(d, "co_encode", ARGS),
            call(d, "co_dsl", ARGS),
            call(d, "co_dsl_read", ARGS),
            Loop("Arguments.of(ARGS bytes), unread") { System.identityHashCode(Arguments.of(ARGS_UTF8)) and 1 },
            Loop("Arguments.ofCore(ARGS bytes), unread") { System.identityHashCode(Arguments.ofCore(ARGS_UTF8)) and 1 },
            Loop("Arguments.of(ARGS bytes), read") { Arguments.of(ARGS_UTF8).size },
            Loop("kotlinx parse of ARGS") { (AppJson.parseToJsonElement(ARGS) as JsonObject).size },
            Loop("JsonPrimitive(\"ok\").toString()") { OK.toString().length },
            Loop("ARGS.toByteArray") { ARGS.toByteArray(Charsets.UTF_8).size },
            Loop("outcome bytes to String") { OUTCOME_BYTES.toString(Charsets.UTF_8).length },
            // what a suspend execute (and executeBlocking) does with the outcome: its shape scanned
            Loop("AppFunctionOutcome.fromCore, a success") { AppFunctionOutcome.fromCore(OUTCOME).json.length },
        )
        measureAll(n, loops)
    }
}

private fun call(d: AppFunctionDispatcher, id: String, args: String): Loop {
    val inv = AppFunctionInvocation(id)
    return Loop("Kotlin $id") { d.executeBlockingJson(inv, args).length }
}

private const val CONST = "\"ok\""
private const val ARGS = """{"customer":"acme","quantity":2,"priority":"Normal"}"""
private val OK = JsonPrimitive("ok")
private val ARGS_UTF8 = ARGS.toByteArray()
private const val OUTCOME = """{"status":"success","result":"ok","dialog":null,"errorCode":null,"message":null}"""
private val OUTCOME_BYTES = """{"status":"success","result":"ok"}""".toByteArray()

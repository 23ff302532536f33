// The floor JNI itself imposes on a round trip, measured beside the binding's own call in one
// JVM: a JNI downcall (strlen of a C string), a JNI downcall that calls back once into Kotlin
// through JNI with two pointer arguments (the shape of af_handler_fn, the way the binding's
// trampolines call back), reading a short C string into a ByteArray and a String (how the
// binding reads the core's lent strings), and executeBlockingJson's round trip itself; beside
// them the C figure's call in a C loop of the same JVM (src/test/c/floor_jni.c).
// Bench.kt's main runs it after its own loops (mvn -Pbench verify; ci/bench.sh --bindings-only).
package dev.appfunctions.bench

import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
import dev.appfunctions.AppFunctionsLibrary
import dev.appfunctions.AppJson
import dev.appfunctions.internal.Arguments
import dev.appfunctions.internal.JniShim
import dev.appfunctions.internal.NativePlatform
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

/**
 * src/test/c/floor_jni.c (the bench profile compiles it into the test classes): JNI natives for
 * the floors, and the C figure's call in a C loop.
 */
object FloorJni {
    private var calls = 0L

    external fun nativeInit(cls: Class<*>): Int

    /** strlen of the C string at [s]. */
    external fun strlen(s: Long): Long

    /** Calls [upcall] once through JNI with [a] and [b], as the binding's trampolines call back. */
    external fun callBackOnce(a: Long, b: Long)

    /** The C string at [s] as a byte[] made in C (how the binding reads a lent string). */
    external fun bytesOf(s: Long): ByteArray?

    /** The C figure's dispatcher (benches/execute.rs "plain"), from the ABI functions' addresses. */
    external fun cSetup(fns: LongArray): Int

    /**
     * [n] round trips in a C loop ([mode] 0: the C figure's call; 1: its handler reading its
     * arguments; 2: the trivial call, dsl_ping; 3: dsl_ping through af_execute_async, answered
     * inline); [n] when they succeeded.
     */
    external fun cExecute(n: Int, mode: Int): Int

    /** The realistic call's dispatcher in C (bench/Realistic.kt), after [cSetup]: [C_REALISTIC_FUNCTIONS]' addresses. */
    external fun cRealisticSetup(fns: LongArray): Int

    /** [n] realistic calls in a C loop; [n] when they succeeded and every callback saw what it reads. */
    external fun cRealistic(n: Int): Int

    @JvmStatic
    fun upcall(a: Long, b: Long) {
        calls += 1 + (a and b)
    }

    /** Loaded, or why not (the JNI floor rows are then left out). */
    val loaded: Result<Unit> by lazy {
        runCatching {
            val url = FloorJni::class.java.classLoader.getResource("${NativePlatform.resourcePrefix}/libafj_floor.so")
                ?: error("libafj_floor.so is not in the test classes (mvn -Pbench builds it)")
            System.load(java.io.File(url.toURI()).absolutePath)
            check(nativeInit(FloorJni::class.java) == 0) { "nativeInit failed" }
        }
    }

    val called: Long get() = calls
}

/** The C figure's round trips in a C loop of this JVM: [C_PER] calls per downcall, so the crossing's own cost is spread thin. */
internal const val C_PER = 100

/** The floor's loops and executeBlockingJson's, [n] calls per round, in turn (best of 5 rounds). */
fun floorBench(n: Int) {
    AppFunctionsLibrary.ensureLoaded()
    val text = dev.appfunctions.internal.NativeBlock.cString("{\"result\":1}".toByteArray())
    AppFunctionDispatcher().use { d ->
        d.function("dsl_ping") {
            result(AppFunctionType.Int32)
            blockingHandler { _, _ -> JsonPrimitive(1) }
        }
        val ping = AppFunctionInvocation("dsl_ping")
        // the loops in turn, round after round, so that their best rounds saw the same machine
        // the C figure's call (benches/execute.rs "plain") in Kotlin: create_order, three arguments
        d.types { enum("Priority", "Low", "Normal", "High") }
        d.function("create_order") {
            parameter("customer", AppFunctionType.String)
            parameter("quantity", AppFunctionType.Int32)
            parameter("priority", AppFunctionType.enum("Priority"))
            result(AppFunctionType.String)
            blockingHandler { _, _ -> OK }
        }
        val createOrder = AppFunctionInvocation("create_order")
        val jni = FloorJni.loaded.onFailure { println("bench: no JNI floor: $it") }.isSuccess
        val cLoop = jni && FloorJni.cSetup(C_FUNCTIONS.map { functionAddress(it) }.toLongArray()) == 0
        val loops = listOfNotNull(
            if (jni) Loop("floor JNI downcall (strlen)") { FloorJni.strlen(text.address).toInt() } else null,
            if (jni) Loop("floor JNI downcall + 1 JNI callback") { FloorJni.callBackOnce(text.address, 0); 1 } else null,
            if (jni) Loop("floor read a 12-byte C string (JNI byte[])") { FloorJni.bytesOf(text.address)!!.toString(Charsets.UTF_8).length } else null,
            Loop("executeBlockingJson, DSL blockingHandler (floor run)") { d.executeBlockingJson(ping, "{}").length },
            // the same call in C and in Kotlin, one beside the other: a ratio of one moment's machine
            if (cLoop) Loop("C af_execute_json, the C figure's call (same JVM)", per = C_PER) { FloorJni.cExecute(C_PER, 0) } else null,
            if (cLoop) Loop("C af_execute_json, handler reading its arguments", per = C_PER) { FloorJni.cExecute(C_PER, 1) } else null,
            // the trivial call in C, blocking and as the suspend execute makes it: the core's part of those Kotlin figures
            if (cLoop) Loop("C af_execute_json, the trivial call (dsl_ping)", per = C_PER) { FloorJni.cExecute(C_PER, 2) } else null,
            if (cLoop) Loop("C af_execute_async, the trivial call, inline", per = C_PER) { FloorJni.cExecute(C_PER, 3) } else null,
            Loop("executeBlockingJson, the C figure's call") { d.executeBlockingJson(createOrder, ARGS).length },
            // what the DSL does for a handler with parameters and the C handler does not: its arguments
            // checked by the DSL's scanner (their entries made only when the handler reads them), and
            // kotlinx's parse of them, which the DSL made before its handler ran until 2026-12-01
            Loop("scan the C figure's arguments (the DSL's reader)") { System.identityHashCode(Arguments.of(ARGS_UTF8)) and 1 },
            Loop("parse the C figure's arguments (kotlinx)") { (AppJson.parseToJsonElement(ARGS) as JsonObject).size },
        )
        measureAll(n, loops)
    }
    java.lang.ref.Reference.reachabilityFence(text)
    check(!FloorJni.loaded.isSuccess || FloorJni.called > 0) { "the JNI floor never called back" }
}

/** One loop of [measureAll]: [body] makes [per] calls. */
internal class Loop(val label: String, val per: Int = 1, val body: () -> Int)

private const val ARGS = """{"customer":"acme","quantity":2,"priority":"Normal"}"""
private val ARGS_UTF8 = ARGS.toByteArray()
private val OK = JsonPrimitive("ok")

/** What cSetup takes, in its order. */
internal val C_FUNCTIONS = listOf(
    "af_dispatcher_new", "af_define_types", "af_register_function", "af_execute_json", "af_string_free", "af_call_return", "af_call_args",
    "af_execute_async", "af_cancel_token_new",
)

/** What cRealisticSetup takes, in its order. */
internal val C_REALISTIC_FUNCTIONS = listOf(
    "af_add_delegate", "af_set_scope_hooks", "af_call_set_host_data", "af_call_host_data", "af_gate_allow", "af_gate_open_app",
    "af_call_function_id", "af_call_platform",
)

internal fun functionAddress(name: String): Long = JniShim.nativeFunctionAddress(name.toByteArray()).also { check(it != 0L) { "no $name" } }

internal fun measureAll(n: Int, loops: List<Loop>, rounds: Int = 5) {
    var sink = 0
    for (loop in loops) repeat(n / loop.per) { sink += loop.body() } // warm up (JIT)
    val best = LongArray(loops.size) { Long.MAX_VALUE }
    val bestCpu = LongArray(loops.size) { Long.MAX_VALUE }
    val mx = java.lang.management.ManagementFactory.getThreadMXBean()
    repeat(rounds) {
        for ((i, loop) in loops.withIndex()) {
            val c0 = mx.currentThreadCpuTime
            val t0 = System.nanoTime()
            repeat(n / loop.per) { sink += loop.body() }
            best[i] = minOf(best[i], System.nanoTime() - t0)
            bestCpu[i] = minOf(bestCpu[i], mx.currentThreadCpuTime - c0)
        }
    }
    // the thread's CPU time beside the wall clock: on a loaded machine the wall clock also counts
    // the time the thread waited for a core
    for ((i, loop) in loops.withIndex()) {
        val calls = n / loop.per * loop.per
        println("bench %-44s %9.0f ns/call  (%d calls x %d rounds, best round; cpu %.0f ns/call; sink=%d)"
            .format(loop.label, best[i].toDouble() / calls, calls, rounds, bestCpu[i].toDouble() / calls, sink and 1))
    }
}

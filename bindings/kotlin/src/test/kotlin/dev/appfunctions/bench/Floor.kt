// The floor JNA itself imposes on a round trip, measured beside the binding's own call in one
// JVM: a direct-mapped downcall, a downcall that calls back once into a direct-mapped callback
// (libc's qsort of two elements: its comparator runs once, two pointer arguments like
// af_handler_fn), the same downcall calling back once through JNI instead (src/test/c/floor_jni.c,
// the way the binding's JNI shim calls back), reading a short C string, and
// executeBlockingJson's round trip itself.
// Bench.kt's main runs it after its own loops (mvn -Pbench verify; ci/bench.sh --bindings-only).
package dev.appfunctions.bench

import com.sun.jna.Callback
import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.Pointer
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
import dev.appfunctions.AppJson
import dev.appfunctions.internal.Arguments
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

/** int (*)(const void *, const void *): qsort's comparator, the shape of af_handler_fn (two pointers). */
interface CompareFn : Callback {
    fun invoke(a: Pointer?, b: Pointer?): Int
}

object LibC {
    init {
        Native.register(LibC::class.java, "c")
    }

    external fun qsort(base: Pointer?, count: Long, size: Long, compare: CompareFn?)
    external fun strlen(s: Pointer?): Long
}

private var compared = 0L

/**
 * src/test/c/floor_jni.c (the bench profile compiles it into the test classes): a plain C
 * function that calls [upcall] through JNI, called through JNA direct mapping.
 */
object FloorJni {
    private var calls = 0L

    external fun nativeInit(cls: Class<*>): Int

    @JvmStatic
    fun upcall(a: Long, b: Long) {
        calls += 1 + (a and b)
    }

    /** Loaded, or why not (the floor row is then left out). */
    val loaded: Result<Unit> by lazy {
        runCatching {
            val url = FloorJni::class.java.classLoader.getResource("${com.sun.jna.Platform.RESOURCE_PREFIX}/libafj_floor.so")
                ?: error("libafj_floor.so is not in the test classes (mvn -Pbench builds it)")
            val path = java.io.File(url.toURI()).absolutePath
            System.load(path)
            check(nativeInit(FloorJni::class.java) == 0) { "nativeInit failed" }
            Native.register(FloorJniC::class.java, path)
        }
    }

    fun callBackOnce(): Int {
        FloorJniC.afj_floor_call_back_once(null, null)
        return 1
    }

    val called: Long get() = calls
}

object FloorJniC {
    external fun afj_floor_call_back_once(a: Pointer?, b: Pointer?)

    /** The C figure's dispatcher (benches/execute.rs "plain"), from the ABI functions' addresses. */
    external fun afj_c_setup(fns: LongArray): Int

    /**
     * [n] round trips in a C loop ([mode] 0: the C figure's call; 1: its handler reading its
     * arguments; 2: the trivial call, dsl_ping; 3: dsl_ping through af_execute_async, answered
     * inline); [n] when they succeeded.
     */
    external fun afj_c_execute(n: Int, mode: Int): Int
}

/** The C figure's round trips in a C loop of this JVM: [C_PER] calls per downcall, so JNA's own cost is spread thin. */
internal const val C_PER = 100

private val Compare = object : CompareFn {
    override fun invoke(a: Pointer?, b: Pointer?): Int {
        compared++
        return 0
    }
}

/** The floor's loops and executeBlockingJson's, [n] calls per round, in turn (best of 5 rounds). */
fun floorBench(n: Int) {
    val two = Memory(8).also { it.setInt(0, 2); it.setInt(4, 1) }
    val scratch = Memory(40)
    val text = Memory(16).also { it.setString(0, "{\"result\":1}", "UTF-8") }
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
        val cLoop = jni && FloorJniC.afj_c_setup(C_FUNCTIONS.map { functionAddress(it) }.toLongArray()) == 0
        val loops = listOfNotNull(
            Loop("floor downcall (strlen)") { LibC.strlen(text).toInt() },
            Loop("floor downcall + 1 callback (qsort of 2)") { LibC.qsort(two, 2, 4, Compare); 1 },
            if (jni) Loop("floor downcall + 1 JNI callback") { FloorJni.callBackOnce() } else null,
            Loop("floor read a 12-byte C string (getString)") { text.getString(0, "UTF-8").length },
            Loop("floor 10 JNA Memory.setInt") { repeat(10) { i -> scratch.setInt(4L * i, i) }; 1 },
            Loop("executeBlockingJson, DSL blockingHandler (floor run)") { d.executeBlockingJson(ping, "{}").length },
            // the same call in C and in Kotlin, one beside the other: a ratio of one moment's machine
            if (cLoop) Loop("C af_execute_json, the C figure's call (same JVM)", per = C_PER) { FloorJniC.afj_c_execute(C_PER, 0) } else null,
            if (cLoop) Loop("C af_execute_json, handler reading its arguments", per = C_PER) { FloorJniC.afj_c_execute(C_PER, 1) } else null,
            // the trivial call in C, blocking and as the suspend execute makes it: the core's part of those Kotlin figures
            if (cLoop) Loop("C af_execute_json, the trivial call (dsl_ping)", per = C_PER) { FloorJniC.afj_c_execute(C_PER, 2) } else null,
            if (cLoop) Loop("C af_execute_async, the trivial call, inline", per = C_PER) { FloorJniC.afj_c_execute(C_PER, 3) } else null,
            Loop("executeBlockingJson, the C figure's call") { d.executeBlockingJson(createOrder, ARGS).length },
            // what the DSL does for a handler with parameters and the C handler does not: its arguments
            // checked by the DSL's scanner (their entries made only when the handler reads them), and
            // kotlinx's parse of them, which the DSL made before its handler ran until 2026-12-01
            Loop("scan the C figure's arguments (the DSL's reader)") { System.identityHashCode(Arguments.of(ARGS_UTF8)) and 1 },
            Loop("parse the C figure's arguments (kotlinx)") { (AppJson.parseToJsonElement(ARGS) as JsonObject).size },
        )
        measureAll(n, loops)
    }
    check(compared > 0) { "qsort never called its comparator" }
    check(!FloorJni.loaded.isSuccess || FloorJni.called > 0) { "the JNI floor never called back" }
}

/** One loop of [measureAll]: [body] makes [per] calls. */
internal class Loop(val label: String, val per: Int = 1, val body: () -> Int)

private const val ARGS = """{"customer":"acme","quantity":2,"priority":"Normal"}"""
private val ARGS_UTF8 = ARGS.toByteArray()
private val OK = JsonPrimitive("ok")

/** What afj_c_setup takes, in its order. */
internal val C_FUNCTIONS = listOf(
    "af_dispatcher_new", "af_define_types", "af_register_function", "af_execute_json", "af_string_free", "af_call_return", "af_call_args",
    "af_execute_async", "af_cancel_token_new",
)

private fun functionAddress(name: String): Long = dev.appfunctions.internal.NativeCalls.functionAddress(name)

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

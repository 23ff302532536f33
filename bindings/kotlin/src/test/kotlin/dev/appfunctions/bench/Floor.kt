// The floor JNA itself imposes on a round trip, measured beside the binding's own call in one
// JVM: a direct-mapped downcall, a downcall that calls back once into a direct-mapped callback
// (libc's qsort of two elements: its comparator runs once, two pointer arguments like
// af_handler_fn), reading a short C string, and executeBlockingJson's round trip itself.
// Bench.kt's main runs it after its own loops (mvn -Pbench verify; ci/bench.sh --bindings-only).
package dev.appfunctions.bench

import com.sun.jna.Callback
import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.Pointer
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
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
        measureAll(
            n,
            "floor downcall (strlen)" to { LibC.strlen(text).toInt() },
            "floor downcall + 1 callback (qsort of 2)" to { LibC.qsort(two, 2, 4, Compare); 1 },
            "floor read a 12-byte C string (getString)" to { text.getString(0, "UTF-8").length },
            "floor 10 JNA Memory.setInt" to { repeat(10) { i -> scratch.setInt(4L * i, i) }; 1 },
            "executeBlockingJson, DSL blockingHandler (floor run)" to { d.executeBlockingJson(ping, "{}").length },
        )
    }
    check(compared > 0) { "qsort never called its comparator" }
}

private fun measureAll(n: Int, vararg loops: Pair<String, () -> Int>, rounds: Int = 5) {
    var sink = 0
    for ((_, body) in loops) repeat(n) { sink += body() } // warm up (JIT)
    val best = LongArray(loops.size) { Long.MAX_VALUE }
    val bestCpu = LongArray(loops.size) { Long.MAX_VALUE }
    val mx = java.lang.management.ManagementFactory.getThreadMXBean()
    repeat(rounds) {
        for ((i, loop) in loops.withIndex()) {
            val c0 = mx.currentThreadCpuTime
            val t0 = System.nanoTime()
            repeat(n) { sink += loop.second() }
            best[i] = minOf(best[i], System.nanoTime() - t0)
            bestCpu[i] = minOf(bestCpu[i], mx.currentThreadCpuTime - c0)
        }
    }
    // the thread's CPU time beside the wall clock: on a loaded machine the wall clock also counts
    // the time the thread waited for a core
    for ((i, loop) in loops.withIndex()) {
        println("bench %-44s %9.0f ns/call  (%d calls x %d rounds, best round; cpu %.0f ns/call; sink=%d)"
            .format(loop.first, best[i].toDouble() / n, n, rounds, bestCpu[i].toDouble() / n, sink and 1))
    }
}

// One execute round trip from Kotlin with a trivial handler, as a warmed-up loop in a fresh JVM,
// and the same call through an agent view (the model's tool call) beside it.
// Run:  mvn -Pbench verify [-Dbench.args="N"]   (N calls per round, default 200000; best of 5 rounds)
package dev.appfunctions.bench

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
import dev.appfunctions.AppFunctionsLibrary
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive

class Trivial {
    @AppFunction
    fun ping(): Int = 1

    @AppFunction
    fun add(a: Int, b: Int): Int = a + b
}

private inline fun measure(label: String, iterations: Int, rounds: Int = 5, body: (Int) -> Int) {
    var sink = 0
    repeat(iterations) { sink += body(it) } // warm up (JIT)
    var best = Long.MAX_VALUE
    repeat(rounds) {
        val t0 = System.nanoTime()
        repeat(iterations) { sink += body(it) }
        best = minOf(best, System.nanoTime() - t0)
    }
    println("bench %-44s %9.0f ns/call  (%d calls x %d rounds, best round; sink=%d)"
        .format(label, best.toDouble() / iterations, iterations, rounds, sink and 1))
}

fun main(args: Array<String>) {
    val n = args.firstOrNull()?.toIntOrNull() ?: 200_000
    println("java ${System.getProperty("java.version")}, libappfunctions ${AppFunctionsLibrary.version}, " +
        "cpus ${Runtime.getRuntime().availableProcessors()}")
    // downcalls and callbacks alike through the binding's JNI library (no JNA since issue 30)
    println("bench callbacks: jni (${AppFunctionsLibrary.loadedFrom})")
    AppFunctionDispatcher().use { d ->
        d.function("dsl_ping") {
            result(AppFunctionType.Int32)
            blockingHandler { _, _ -> ONE }
        }
        d.function("dsl_ping_suspend") {
            result(AppFunctionType.Int32)
            handler { _, _ -> ONE }
        }
        d.register(Trivial())
        val dslPing = AppFunctionInvocation("dsl_ping")
        val dslSuspend = AppFunctionInvocation("dsl_ping_suspend")
        val ping = AppFunctionInvocation("ping")
        val add = AppFunctionInvocation("add")
        measure("executeBlockingJson, DSL blockingHandler", n) { d.executeBlockingJson(dslPing, "{}").length }
        measure("executeBlocking (parsed outcome), DSL", n) { d.executeBlocking(dslPing, "{}").json.length }
        measure("executeBlocking, DSL suspend handler", n) { d.executeBlocking(dslSuspend, "{}").json.length }
        measure("executeBlocking, @AppFunction ping()", n) { d.executeBlocking(ping, "{}").json.length }
        measure("executeBlocking, @AppFunction add(a, b)", n) { d.executeBlocking(add, """{"a":1,"b":2}""").json.length }
        // a view call beside execute: batches taken in turn, so both see the same machine load
        d.view().use { v ->
            measurePair(n, "executeBlockingJson, DSL blockingHandler (paired)" to { d.executeBlockingJson(dslPing, "{}").length },
                "view executeBlockingJson, DSL blockingHandler" to { v.executeBlockingJson(dslPing, "{}").length })
            measure("view executeBlocking (parsed outcome), DSL", n) { v.executeBlocking(dslPing, "{}").json.length }
            suspendMeasurePair(n, "suspend execute (runBlocking), DSL" to { d.execute(dslPing, "{}").json.length },
                "suspend view execute (runBlocking), DSL" to { v.execute(dslPing, "{}").json.length })
        }
    }
    // what JNI itself costs, beside the round trip again (Floor.kt)
    floorBench(n)
    // the seed's app as one of its calls feels: a scope and two delegates (Realistic.kt)
    realisticBench(n)
}

private fun report(label: String, bestNs: Long, bestCpuNs: Long, n: Int, rounds: Int, sink: Int) =
    println("bench %-44s %9.0f ns/call  (%d calls x %d rounds, best round; cpu %.0f ns/call; sink=%d)"
        .format(label, bestNs.toDouble() / n, n, rounds, bestCpuNs.toDouble() / n, sink and 1))

private val MX = java.lang.management.ManagementFactory.getThreadMXBean()

/**
 * Two loops measured in turn, round after round: their best rounds saw the same machine. The
 * thread's CPU time beside the wall clock (the calls complete on this thread, so it is all of
 * their CPU time; on a loaded machine the wall clock also counts the waits for a core).
 */
private fun measurePair(n: Int, a: Pair<String, () -> Int>, b: Pair<String, () -> Int>, rounds: Int = 5) {
    var sink = 0
    repeat(n) { sink += a.second() + b.second() } // warm up (JIT)
    val best = longArrayOf(Long.MAX_VALUE, Long.MAX_VALUE)
    val bestCpu = longArrayOf(Long.MAX_VALUE, Long.MAX_VALUE)
    repeat(rounds) {
        for ((i, body) in listOf(a.second, b.second).withIndex()) {
            val c0 = MX.currentThreadCpuTime
            val t0 = System.nanoTime()
            repeat(n) { sink += body() }
            best[i] = minOf(best[i], System.nanoTime() - t0)
            bestCpu[i] = minOf(bestCpu[i], MX.currentThreadCpuTime - c0)
        }
    }
    report(a.first, best[0], bestCpu[0], n, rounds, sink)
    report(b.first, best[1], bestCpu[1], n, rounds, sink)
}

private fun suspendMeasurePair(n: Int, a: Pair<String, suspend () -> Int>, b: Pair<String, suspend () -> Int>, rounds: Int = 5) = runBlocking {
    var sink = 0
    repeat(n) { sink += a.second() + b.second() }
    val best = longArrayOf(Long.MAX_VALUE, Long.MAX_VALUE)
    val bestCpu = longArrayOf(Long.MAX_VALUE, Long.MAX_VALUE)
    repeat(rounds) {
        for ((i, body) in listOf(a.second, b.second).withIndex()) {
            val c0 = MX.currentThreadCpuTime
            val t0 = System.nanoTime()
            repeat(n) { sink += body() }
            best[i] = minOf(best[i], System.nanoTime() - t0)
            bestCpu[i] = minOf(bestCpu[i], MX.currentThreadCpuTime - c0)
        }
    }
    report(a.first, best[0], bestCpu[0], n, rounds, sink)
    report(b.first, best[1], bestCpu[1], n, rounds, sink)
}

private val ONE = JsonPrimitive(1)

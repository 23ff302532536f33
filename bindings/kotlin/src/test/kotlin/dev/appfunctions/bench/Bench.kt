// One execute round trip from Kotlin with a trivial handler, as a warmed-up loop in a fresh JVM,
// and the same call through an agent view (the model's tool call) beside it.
// Run:  mvn -Pbench verify [-Dbench.args="N"]   (N calls per round, default 200000; best of 5 rounds)
package dev.appfunctions.bench

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
import dev.appfunctions.AppFunctionsLibrary
import com.sun.jna.Native
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
    println("java ${System.getProperty("java.version")}, jna ${Native.VERSION}, libappfunctions ${AppFunctionsLibrary.version}, " +
        "cpus ${Runtime.getRuntime().availableProcessors()}")
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
        d.view().use { v ->
            measure("view executeBlockingJson, DSL blockingHandler", n) { v.executeBlockingJson(dslPing, "{}").length }
            measure("view executeBlocking (parsed outcome), DSL", n) { v.executeBlocking(dslPing, "{}").json.length }
            suspendMeasure("suspend view execute (runBlocking), DSL", n) { v.execute(dslPing, "{}").json.length }
        }
        suspendMeasure("suspend execute (runBlocking), DSL", n) { d.execute(dslPing, "{}").json.length }
    }
}

private fun suspendMeasure(label: String, n: Int, body: suspend () -> Int) = runBlocking {
    var sink = 0
    repeat(n) { sink += body() }
    var best = Long.MAX_VALUE
    repeat(5) {
        val t0 = System.nanoTime()
        repeat(n) { sink += body() }
        best = minOf(best, System.nanoTime() - t0)
    }
    println("bench %-44s %9.0f ns/call  (%d calls x 5 rounds, best round; sink=%d)"
        .format(label, best.toDouble() / n, n, sink and 1))
}

private val ONE = JsonPrimitive(1)

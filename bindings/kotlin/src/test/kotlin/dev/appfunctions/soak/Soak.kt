// The soak run's Kotlin part (ci/soak.sh): calls through the binding under garbage-collector
// pressure, the fault that freed a function id the core was about to read (issue 28, item 1).
// Run:  mvn -Psoak verify [-Dsoak.args="SECONDS"]   (default 10)
package dev.appfunctions.soak

import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionType
import dev.appfunctions.internal.beforeNativeCallForTest
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.ThreadLocalRandom
import kotlin.system.exitProcess

private val passed = AtomicLong()
private val failed = AtomicLong()
private val failures = java.util.concurrent.ConcurrentLinkedQueue<String>()

private fun check(ok: Boolean, what: () -> String) {
    if (ok) {
        passed.incrementAndGet()
    } else {
        failed.incrementAndGet()
        if (failures.size < 20) failures += what()
    }
}

fun main(args: Array<String>) {
    val seconds = args.firstOrNull()?.toDoubleOrNull() ?: 10.0
    val threads = (System.getenv("SOAK_THREADS")?.toIntOrNull() ?: 2).coerceAtLeast(1)
    val calls = AtomicLong()
    val gcAtTheNativeCall = AtomicLong()
    val gcBackground = AtomicLong()
    val stop = AtomicBoolean()
    AppFunctionDispatcher().use { d ->
        // functions whose ids are long enough that a freed copy would be overwritten
        val ids = List(64) { "soak_function_number_${it}_with_a_long_enough_identifier" }
        for (id in ids) {
            d.function(id) {
                result(AppFunctionType.String)
                blockingHandler { ctx, _ -> JsonPrimitive("${ctx.functionId}|${ctx.callerPackage}") }
            }
        }
        // fill the binding's id cache (4,096): past it every new id or caller package is a
        // C string that only the call itself holds
        for (i in 0 until 4_200) d.executeBlockingJson(AppFunctionInvocation("not_registered_$i"))
        // the fault: a collection between writing the invocation block and the native call,
        // on one call in 64 (each forced collection takes milliseconds)
        beforeNativeCallForTest = Runnable {
            if (ThreadLocalRandom.current().nextInt(64) == 0) {
                gcAtTheNativeCall.incrementAndGet()
                System.gc()
            }
        }
        val pressure = Thread {
            while (!stop.get()) {
                ByteArray(256 shl 10)
                System.gc()
                gcBackground.incrementAndGet()
                Thread.sleep(2)
            }
        }.apply { isDaemon = true; start() }
        val deadline = System.nanoTime() + (seconds * 1e9).toLong()
        val workers = List(threads) { t ->
            Thread {
                val rnd = ThreadLocalRandom.current()
                var n = 0L
                while (System.nanoTime() < deadline) {
                    val id = ids[rnd.nextInt(ids.size)]
                    // a fresh caller package every call: never cached
                    val caller = "com.example.soak.t$t.call${n++}.package"
                    val inv = AppFunctionInvocation(id, callerPackage = caller)
                    val outcome = if (n % 4 == 0L) runBlocking { d.execute(inv) } else d.executeBlocking(inv)
                    calls.incrementAndGet()
                    check(outcome.isSuccess && outcome.resultJson == "\"$id|$caller\"") {
                        "call to $id from $caller: ${outcome.json}"
                    }
                }
            }.apply { start() }
        }
        workers.forEach { it.join() }
        stop.set(true)
        pressure.join()
        beforeNativeCallForTest = null
    }
    println("soak(kotlin): %.1f s, %d traffic threads".format(seconds, threads))
    println("soak(kotlin): calls ${calls.get()}, each with a fresh uncached caller package")
    println("soak(kotlin): faults injected ${gcAtTheNativeCall.get() + gcBackground.get()}")
    println("soak(kotlin): %11d collection between the invocation block and the native call".format(gcAtTheNativeCall.get()))
    println("soak(kotlin): %11d background collection under allocation pressure".format(gcBackground.get()))
    failures.forEach { println("soak(kotlin): FAILED $it") }
    println("soak(kotlin): ${passed.get()} passed, ${failed.get()} failed")
    exitProcess(if (failed.get() == 0L) 0 else 1)
}

// PLACEHOLDER benchmark: a warmed-up loop in a fresh JVM. Replace the body with calls into
// the appfunctions C ABI once it exists. Run:  mvn -Pbench verify [-Dbench.args="N"]
// It compares JNA direct mapping against interface mapping on trivial libc calls.
package dev.appfunctions.bench

import com.sun.jna.Library
import com.sun.jna.Native

object DirectLibC {
    init {
        Native.register("c")
    }

    external fun getpid(): Int
    external fun abs(x: Int): Int
}

interface InterfaceLibC : Library {
    fun getpid(): Int
    fun abs(x: Int): Int
}

private inline fun measure(label: String, iterations: Int, rounds: Int = 5, body: (Int) -> Int) {
    var sink = 0
    // Warm up (JIT), then time several rounds and report the best.
    repeat(iterations) { sink += body(it) }
    var best = Long.MAX_VALUE
    repeat(rounds) {
        val t0 = System.nanoTime()
        repeat(iterations) { sink += body(it) }
        best = minOf(best, System.nanoTime() - t0)
    }
    val nsPerCall = best.toDouble() / iterations
    println("bench %-22s %10.1f ns/call  (%d calls x %d rounds, best round; sink=%d)"
        .format(label, nsPerCall, iterations, rounds, sink and 1))
}

fun main(args: Array<String>) {
    val n = args.firstOrNull()?.toIntOrNull() ?: 2_000_000
    val iface = Native.load("c", InterfaceLibC::class.java)
    println("java ${System.getProperty("java.version")}, jna ${Native.VERSION}, " +
        "jna.library.path=${System.getProperty("jna.library.path")}")
    // abs(): pure user space, so the numbers are the JNA call overhead itself.
    measure("direct abs", n) { DirectLibC.abs(-it) }
    measure("interface abs", n) { iface.abs(-it) }
    // getpid(): a real system call on current glibc (no pid cache), for scale.
    measure("direct getpid", n) { DirectLibC.getpid() }
    measure("interface getpid", n) { iface.getpid() }
}

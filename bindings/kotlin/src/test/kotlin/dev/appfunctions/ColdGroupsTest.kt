package dev.appfunctions

import dev.appfunctions.internal.AfNative
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.Test
import java.io.File
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/**
 * The C ABI is bound in groups (internal/AfNative.kt): what loading, registering and the first
 * call need at load, each cold group (views, MCP, HTTP, publication, Android, the dispatcher's
 * settings and reads, the call context's other functions) on its first use.
 */
class ColdGroupsTest {
    private fun dispatcher() = AppFunctionDispatcher().apply {
        function("echo") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args -> args["text"]!! }
        }
    }

    @Test
    fun `cold groups used first from several threads at once are bound once each, and work`() {
        val d = dispatcher()
        val threads = 8
        val barrier = CyclicBarrier(threads)
        val pool = Executors.newFixedThreadPool(threads)
        try {
            val results = (0 until threads).map { i ->
                pool.submit<List<String>> {
                    barrier.await(10, TimeUnit.SECONDS)
                    // each thread reaches the groups in another order
                    val uses = listOf<() -> String>(
                        { d.view().use { v -> v.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"v$i"}""") } },
                        { d.mcpHandle("""{"jsonrpc":"2.0","id":$i,"method":"tools/list"}""").orEmpty() },
                        { AppFunctionHttpServer(d).use { it.maxBodyBytes.toString() } },
                        { d.bundleJson() },
                        { d.registryJson() },
                    )
                    (uses.indices).map { k -> uses[(k + i) % uses.size]() }
                }
            }.map { it.get(60, TimeUnit.SECONDS) }
            for ((i, r) in results.withIndex()) {
                assertTrue(r.any { it.contains("\"v$i\"") }, "thread $i: the view's call answered: $r")
                assertTrue(r.any { it.contains("\"jsonrpc\"") && it.contains("\"id\":$i") }, "thread $i: MCP answered its message: $r")
                assertTrue(r.any { it.contains("\"functions\"") && it.contains("\"echo\"") }, "thread $i: the bundle or the registry: $r")
            }
        } finally {
            pool.shutdownNow()
            d.close()
        }
        for (group in listOf("AfNative", "AfNativeViews", "AfNativeMcp", "AfNativeHttp", "AfNativePublication", "AfNativeAdmin")) {
            assertEquals(1, AfNative.bound[group], "$group bound once (${AfNative.bound})")
        }
    }

    @Test
    fun `a call into a cold group after close fails cleanly`() {
        val d = dispatcher()
        d.close()
        val uses = mapOf<String, () -> Any?>(
            "view" to { d.view() },
            "mcpHandle" to { d.mcpHandle("""{"jsonrpc":"2.0","id":1,"method":"tools/list"}""") },
            "mcpSession" to { d.mcpSession() },
            "http server" to { AppFunctionHttpServer(d) },
            "bundleJson" to { d.bundleJson() },
            "publish" to { d.publish("cold-groups-closed") },
            "setLimits" to { d.setLimits(1024, 8) },
            "registryJson" to { d.registryJson() },
            "export" to { d.export("mcp") },
        )
        for ((what, use) in uses) {
            val e = assertFailsWith<IllegalStateException>(what) { use() }
            assertTrue(e.message.orEmpty().contains("close()"), "$what: ${e.message}")
        }
        // and the groups still serve an open dispatcher
        dispatcher().use { open ->
            open.view().use { v ->
                assertTrue(v.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"after"}""").contains("\"after\""))
            }
        }
    }

    /**
     * A fresh JVM: loading, registering and the first call bind only [AfNative]'s functions, and
     * a view then binds its group (AfNativeViews) and no other.
     */
    @Test
    fun `the first call binds only the hot group, a view then its own`() {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val cmd = mutableListOf(java, "-cp", System.getProperty("java.class.path"))
        System.getProperty("jna.library.path")?.let { cmd += "-Djna.library.path=$it" }
        System.getProperty(dev.appfunctions.internal.JniShim.PROPERTY)?.let { cmd += "-D${dev.appfunctions.internal.JniShim.PROPERTY}=$it" }
        cmd += ColdGroupsProbe::class.java.name
        val p = ProcessBuilder(cmd).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText()
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out)
        assertEquals(0, p.exitValue(), out)
        val lines = out.lines().filter { it.startsWith("bound ") }
        assertEquals(listOf("bound after-call AfNative", "bound after-view AfNative,AfNativeViews"), lines, out)
    }
}

/** The fresh JVM of ColdGroupsTest: prints the groups bound after the first call, and after a view's. */
object ColdGroupsProbe {
    @JvmStatic
    fun main(args: Array<String>) {
        AppFunctionDispatcher().use { d ->
            d.function("echo") {
                parameter("text", AppFunctionType.String)
                result(AppFunctionType.String)
                blockingHandler { _, a -> a["text"] ?: JsonPrimitive("") }
            }
            val outcome = d.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"x"}""")
            check(outcome.contains("\"x\"")) { outcome }
            println("bound after-call " + AfNative.bound.keys.sorted().joinToString(","))
            d.view().use { v -> check(v.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"y"}""").contains("\"y\"")) }
            println("bound after-view " + AfNative.bound.keys.sorted().joinToString(","))
        }
    }
}

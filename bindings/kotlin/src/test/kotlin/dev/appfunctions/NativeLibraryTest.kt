package dev.appfunctions

import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.Test
import java.io.File
import java.nio.file.Files
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/**
 * The binding's native side: every call crosses JNI through its own library
 * (libappfunctions_jni), which opens the core; no JNA. Its parts (views, MCP, HTTP, publication,
 * the dispatcher's reads) are all bound when the library loads, used first from several threads
 * at once, and after close; a fresh JVM running an app's whole path loads no `com.sun.jna` class
 * and the binding's classes name none; a missing JNI library or core fails the load, naming the
 * file.
 */
class NativeLibraryTest {
    private fun dispatcher() = AppFunctionDispatcher().apply {
        function("echo") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args -> args["text"]!! }
        }
    }

    @Test
    fun `every part used first from several threads at once works`() {
        val d = dispatcher()
        val threads = 8
        val barrier = CyclicBarrier(threads)
        val pool = Executors.newFixedThreadPool(threads)
        try {
            val results = (0 until threads).map { i ->
                pool.submit<List<String>> {
                    barrier.await(10, TimeUnit.SECONDS)
                    // each thread reaches the parts in another order
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
    }

    @Test
    fun `a call into any part after close fails cleanly`() {
        val d = dispatcher()
        d.close()
        val uses = mapOf<String, () -> Any?>(
            "view" to { d.view() },
            "mcpHandle" to { d.mcpHandle("""{"jsonrpc":"2.0","id":1,"method":"tools/list"}""") },
            "mcpSession" to { d.mcpSession() },
            "http server" to { AppFunctionHttpServer(d) },
            "bundleJson" to { d.bundleJson() },
            "publish" to { d.publish("native-library-closed") },
            "setLimits" to { d.setLimits(1024, 8) },
            "registryJson" to { d.registryJson() },
            "export" to { d.export("mcp") },
        )
        for ((what, use) in uses) {
            val e = assertFailsWith<IllegalStateException>(what) { use() }
            assertTrue(e.message.orEmpty().contains("close()"), "$what: ${e.message}")
        }
        // and they still serve an open dispatcher
        dispatcher().use { open ->
            open.view().use { v ->
                assertTrue(v.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"after"}""").contains("\"after\""))
            }
        }
    }

    /** The binding's own classes (target/classes or its jar). */
    private val mainClasses: File = File(AppFunctionDispatcher::class.java.protectionDomain.codeSource.location.toURI())

    @Test
    fun `no class of the binding refers to JNA, and JNA is not on the class path`() {
        val classes = mainClasses.walkTopDown().filter { it.isFile && it.name.endsWith(".class") }.toList()
        assertTrue(classes.size > 50, "the binding's classes under $mainClasses: ${classes.size}")
        val naming = classes.filter { f -> String(f.readBytes(), Charsets.ISO_8859_1).contains("com/sun/jna") }
        assertEquals(emptyList(), naming.map { it.relativeTo(mainClasses).path })
        assertFailsWith<ClassNotFoundException> { Class.forName("com.sun.jna.Native") }
    }

    private fun java(vararg args: String, classPath: String = System.getProperty("java.class.path"), props: Map<String, String?> = mapOf(
        "appfunctions.library.path" to System.getProperty("appfunctions.library.path"),
    )): Pair<Int, String> {
        val cmd = mutableListOf(File(System.getProperty("java.home"), "bin/java").path)
        if (Runtime.version().feature() >= 22) cmd += "--enable-native-access=ALL-UNNAMED"
        for ((k, v) in props) if (v != null) cmd += "-D$k=$v"
        cmd += listOf("-cp", classPath)
        cmd += args
        val p = ProcessBuilder(cmd).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText()
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out)
        return p.exitValue() to out
    }

    /**
     * A fresh JVM runs what an Android AppFunctionService and the cold-start benchmark run: the
     * load and ABI check, a dispatcher, types, functions and an entity through the DSL and
     * annotations, a delegate, scope and permission hooks, the log sink, blocking and suspend
     * execute, the call context, cancellation; then a view, MCP, HTTP and a publication. With
     * `-verbose:class` every class it loads is listed: none is JNA's.
     */
    @Test
    fun `a fresh JVM running an app's whole path loads no JNA class`() {
        val (code, out) = java("-verbose:class", NativeLibraryProbe::class.java.name)
        assertEquals(0, code, out)
        assertTrue(out.lines().any { it == "probe: done" }, out)
        val loaded = out.lines().filter { it.startsWith("[") && "class,load" in it }
        assertTrue(loaded.any { "dev.appfunctions.internal.AfNative " in it }, "the probe's -verbose:class output:\n$out")
        assertEquals(emptyList(), loaded.filter { "com.sun.jna" in it })
    }

    /** The binding's classes without the JNI library the build puts among them: where the probe JVM looks for nothing. */
    private fun classPathWithoutTheJniLibrary(): String {
        val copy = Files.createTempDirectory("appfunctions-classes").toFile()
        mainClasses.copyRecursively(copy)
        copy.walkTopDown().filter { it.name.startsWith("libappfunctions_jni") }.forEach { it.delete() }
        return System.getProperty("java.class.path").split(File.pathSeparator)
            .joinToString(File.pathSeparator) { if (File(it) == mainClasses) copy.path else it }
    }

    @Test
    fun `without the JNI library the load fails naming the file, and nothing else is tried`() {
        val (code, out) = java(
            NativeLibraryLoadProbe::class.java.name,
            classPath = classPathWithoutTheJniLibrary(),
            props = mapOf("appfunctions.library.path" to System.getProperty("appfunctions.library.path"), "java.library.path" to "/nonexistent"),
        )
        assertEquals(0, code, out)
        val line = out.lines().single { it.startsWith("load: ") }
        assertTrue(line.startsWith("load: AppFunctionsLibraryException: cannot load the binding's JNI library libappfunctions_jni.so"), line)
        assertTrue("java.library.path" in line && "appfunctions.library.path" in line && "linux-x86-64/libappfunctions_jni.so" in line, line)
        // the same exception on every use, and a dispatcher cannot be made
        assertEquals(line, out.lines().single { it.startsWith("again: ") }.replaceFirst("again: ", "load: "))
        assertTrue(out.lines().single { it.startsWith("dispatcher: ") }.startsWith("dispatcher: AppFunctionsLibraryException: cannot load the binding's JNI library"), out)
    }

    @Test
    fun `without the core the load fails naming it and where it looked`() {
        val empty = Files.createTempDirectory("appfunctions-empty").toFile()
        val (code, out) = java(
            NativeLibraryLoadProbe::class.java.name,
            props = mapOf("appfunctions.library.path" to empty.path, "java.library.path" to "/nonexistent"),
        )
        assertEquals(0, code, out)
        val line = out.lines().single { it.startsWith("load: ") }
        if (line.startsWith("load: ok")) {
            // a libappfunctions.so the system's linker finds (installed on this machine): then it must say so
            assertTrue("the system's library path" in out, out)
            return
        }
        assertTrue(line.startsWith("load: AppFunctionsLibraryException: cannot load the native library 'appfunctions' (libappfunctions.so)"), line)
        assertTrue("appfunctions.library.path (${empty.path})" in line && "linux-x86-64/libappfunctions.so" in line, line)
    }
}

/** The fresh JVM of NativeLibraryTest's class listing: an app's whole path, blocking and suspend. */
object NativeLibraryProbe {
    class Greeter {
        @AppFunction(description = "Greets someone by name.")
        fun greet(context: AppFunctionContext, @Description("Who to greet") name: String): String {
            context.say("Greeted $name.")
            return "Hello, $name!"
        }
    }

    @JvmStatic
    fun main(args: Array<String>) {
        val logged = java.util.concurrent.atomic.AtomicInteger()
        AppFunctionDispatcher(logger = { _, _ -> logged.incrementAndGet() }).use { d ->
            d.types { enum("Priority", "Low", "High") }
            d.entity("thing") {
                field("id", AppFunctionType.String)
                lookup { _, ids -> kotlinx.serialization.json.JsonArray(ids.map { kotlinx.serialization.json.buildJsonObject { put("id", JsonPrimitive(it)) } }) }
                search { _, _, _ -> kotlinx.serialization.json.JsonArray(emptyList()) }
            }
            d.function("echo") {
                parameter("text", AppFunctionType.String)
                parameter("priority", AppFunctionType.enum("Priority"), optional = true)
                result(AppFunctionType.String)
                blockingHandler { ctx, args ->
                    ctx.items["seen"] = JsonPrimitive(true)
                    ctx.say("echoed")
                    check(ctx.functionId == "echo" && !ctx.isCancelled)
                    args["text"]!!
                }
            }
            d.function("later") {
                result(AppFunctionType.String)
                handler { _, _ ->
                    kotlinx.coroutines.delay(1)
                    JsonPrimitive("late")
                }
            }
            d.register(Greeter())
            d.addDelegate(object : AppFunctionDelegate {
                override suspend fun onInvoking(context: AppFunctionContext) = AppFunctionGate.Allow
                override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {}
            })
            d.setScopeHooks({ "scope" })
            d.setPermissionHook { true }
            val blocking = d.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"x"}""")
            check("\"x\"" in blocking) { blocking }
            check(d.executeBlocking(AppFunctionInvocation("greet"), """{"name":"Ada"}""").dialog == "Greeted Ada.")
            AppFunctionCancellationToken().use { token ->
                token.cancel()
                check(d.executeBlocking(AppFunctionInvocation("echo"), """{"text":"x"}""", token).errorCode == AppFunctionErrorCode.Cancelled)
            }
            runBlocking {
                check(d.execute(AppFunctionInvocation("later")).resultJson == "\"late\"")
                check(d.lookupEntities("thing", listOf("a")).isSuccess)
            }
            d.executeBlocking(AppFunctionInvocation("missing"))
            d.view().use { v -> check(v.toolNames.isNotEmpty()) }
            check(d.mcpHandle("""{"jsonrpc":"2.0","id":1,"method":"ping"}""")!!.contains("\"id\":1"))
            AppFunctionHttpServer(d).use { check(it.maxBodyBytes > 0) }
            d.publish("native-library-probe")
            PublishedAppFunctionDispatcher.wait("native-library-probe").use { check("\"x\"" in it.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"x"}""")) }
        }
        println("probe: done")
    }
}

/** The fresh JVM of NativeLibraryTest's failed loads: prints what the load answered, twice, and what making a dispatcher does. */
object NativeLibraryLoadProbe {
    private fun describe(e: Throwable) = "${e.javaClass.simpleName}: ${e.message}"

    @JvmStatic
    fun main(args: Array<String>) {
        println("load: " + runCatching { AppFunctionsLibrary.ensureLoaded() }.fold({ "ok (${AppFunctionsLibrary.loadedFrom})" }, ::describe))
        println("again: " + runCatching { AppFunctionsLibrary.ensureLoaded() }.fold({ "ok" }, ::describe))
        println("dispatcher: " + runCatching { AppFunctionDispatcher().close() }.fold({ "ok" }, ::describe))
    }
}

package dev.appfunctions

import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import org.junit.jupiter.api.Test

/** What the child JVM of [StdioServeTest] runs: the notes app served with the one call. */
object StdioServeMain {
    @JvmStatic
    fun main(args: Array<String>) {
        AppFunctionDispatcher().use { d ->
            d.register(NoteFunctions(NoteRepository()))
            d.serveMcpStdio()
        }
    }
}

/**
 * `dispatcher.serveMcpStdio()` serves the process's own stdin/stdout, so the test runs it in a
 * child JVM (same classpath, same native library) and speaks MCP to it over pipes, as a desktop
 * MCP client does.
 */
class StdioServeTest {
    @Test
    fun `serveMcpStdio serves MCP on the process's stdin and stdout until stdin ends`() {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val cmd = buildList {
            add(java)
            if (Runtime.version().feature() >= 22) add("--enable-native-access=ALL-UNNAMED")
            System.getProperty("appfunctions.library.path")?.let { add("-Dappfunctions.library.path=$it") }
            add("-cp")
            add(System.getProperty("java.class.path"))
            add(StdioServeMain::class.java.name)
        }
        val p = ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val input = p.outputStream.bufferedWriter()
        val output = p.inputStream.bufferedReader()
        fun send(line: String) {
            input.write(line)
            input.write("\n")
            input.flush()
        }
        send("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"kotlin-test","version":"1"}}}""")
        val init = output.readLine()
        assertTrue(init.contains("\"protocolVersion\":\"2025-11-25\"") && init.contains("\"id\":1"), init)
        send("""{"jsonrpc":"2.0","method":"notifications/initialized"}""")
        send("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""")
        val list = output.readLine()
        assertTrue(list.contains("\"create_note\"") && list.contains("\"id\":2"), list)
        send("""{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"From stdio","content":"hi"}}}""")
        val call = output.readLine()
        assertTrue(call.contains("\"id\":3") && call.contains("From stdio") && call.contains("\"isError\":false"), call)
        send("""{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}""")
        val unknown = output.readLine()
        assertTrue(unknown.contains("-32602"), unknown)
        input.close() // stdin ends: the server returns
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the server did not exit when stdin ended")
        assertEquals(0, p.exitValue())
        assertEquals(null, output.readLine(), "nothing but MCP messages on stdout")
    }
}

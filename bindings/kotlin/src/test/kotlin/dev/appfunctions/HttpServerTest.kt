package dev.appfunctions

import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNotNull
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** MCP over Streamable HTTP through AppFunctionHttpServer: both eras, streams, refusals, lifetimes. */
class HttpServerTest {
    private val d = AppFunctionDispatcher().apply {
        function("create_order") {
            description = "Creates an order for a customer."
            parameter("customer", AppFunctionType.String)
            parameter("quantity", AppFunctionType.Int32)
            result(AppFunctionType.String)
            blockingHandler { _, args -> JsonPrimitive("order for ${args["customer"]!!.jsonPrimitive.content} x${args["quantity"]}") }
        }
    }

    @AfterEach
    fun close() = d.close()

    private val json = listOf("Accept" to "application/json, text/event-stream", "Content-Type" to "application/json")

    private fun AppFunctionHttpServer.post(body: String, headers: List<Pair<String, String>> = json) =
        handle("POST", "/mcp", headers = headers, body = body.toByteArray())

    private fun AppFunctionHttpStream.frames(): List<String> {
        val out = mutableListOf<String>()
        while (true) {
            when (val n = next(10_000)) {
                is AppFunctionHttpStream.Next.Frame -> out += n.text
                AppFunctionHttpStream.Next.End -> return out
                AppFunctionHttpStream.Next.Idle -> error("no frame in 10 s")
            }
        }
    }

    @Test
    fun `a handshake-era session - initialize, list, a call answered as a stream, delete`() {
        AppFunctionHttpServer(d, """{"mcp":{"serverName":"orders-http"}}""").use { s ->
            val init = s.post("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""")
            assertEquals(200, init.status, init.bodyText)
            assertContains(init.bodyText, "orders-http")
            val sid = assertNotNull(init.header("mcp-session-id"), init.headers.toString())
            assertEquals(32, sid.length)
            val session = json + listOf("Mcp-Session-Id" to sid, "MCP-Protocol-Version" to "2025-11-25")
            assertEquals(202, s.post("""{"jsonrpc":"2.0","method":"notifications/initialized"}""", session).status)
            val list = s.post("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""", session)
            assertEquals(200, list.status)
            assertContains(list.bodyText, "\"create_order\"")

            val call = s.post("""{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_order","arguments":{"customer":"acme","quantity":2}}}""", session)
            assertEquals(200, call.status)
            assertEquals("text/event-stream", call.header("Content-Type"))
            val stream = assertNotNull(call.stream)
            assertEquals(0, call.body.size)
            val frames = stream.use { it.frames() }
            assertEquals(1, frames.size, frames.toString())
            assertTrue(frames[0].startsWith("event: message\ndata: "), frames[0])
            assertContains(frames[0], "order for acme x2")
            assertContains(frames[0], "\"isError\":false")

            assertEquals(204, s.handle("DELETE", "/mcp", headers = session).status)
            assertEquals(404, s.post("""{"jsonrpc":"2.0","id":4,"method":"tools/list"}""", session).status)
        }
    }

    @Test
    fun `the server stream hears list_changed, and ends when the server is closed`() {
        val s = AppFunctionHttpServer(d)
        val sid = s.post("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""")
            .header("Mcp-Session-Id")!!
        val session = json + listOf("Mcp-Session-Id" to sid, "MCP-Protocol-Version" to "2025-11-25")
        assertEquals(202, s.post("""{"jsonrpc":"2.0","method":"notifications/initialized"}""", session).status)
        assertEquals(200, s.post("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""", session).status)
        val get = s.handle("GET", "/mcp", headers = listOf("Accept" to "text/event-stream", "Mcp-Session-Id" to sid))
        assertEquals(200, get.status)
        val stream = assertNotNull(get.stream)
        assertIs<AppFunctionHttpStream.Next.Idle>(stream.next(10))
        d.function("ping") { kind = "output" }
        val changed = assertIs<AppFunctionHttpStream.Next.Frame>(stream.next(10_000))
        assertContains(changed.text, "notifications/tools/list_changed")
        s.close()
        assertTrue(s.isClosed)
        assertEquals(AppFunctionHttpStream.Next.End, stream.next(10_000), "the session's stream ended with the server")
        stream.close()
        assertEquals(AppFunctionHttpStream.Next.End, stream.next(0), "a closed stream reads as ended")
        assertThrows<IllegalStateException> { s.post("{}") }
    }

    @Test
    fun `the stateless revision and its header checks`() {
        AppFunctionHttpServer(d).use { s ->
            val body = """{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"""
            val ok = s.post(body, json + listOf("MCP-Protocol-Version" to "2026-07-28", "Mcp-Method" to "server/discover"))
            assertEquals(200, ok.status, ok.bodyText)
            assertContains(ok.bodyText, "\"supportedVersions\":[\"2026-07-28\"]")
            assertNull(ok.header("Mcp-Session-Id"))
            val noVersion = s.post(body)
            assertEquals(400, noVersion.status)
            assertContains(noVersion.bodyText, "-32020")
        }
    }

    @Test
    fun `refusals - bad configuration, origin, bearer token, body limit, unknown path`() {
        val bad = assertThrows<IllegalArgumentException> { AppFunctionHttpServer(d, """{"maxBodyBytes":"big"}""") }
        assertContains(bad.message!!, "config_json.maxBodyBytes")
        val unknown = assertThrows<IllegalArgumentException> { AppFunctionHttpServer(d, """{"port":8080}""") }
        assertContains(unknown.message!!, "config_json.port: unknown key")

        AppFunctionHttpServer(d, """{"bearerToken":"s3cret","maxBodyBytes":64}""").use { s ->
            assertEquals(64, s.maxBodyBytes)
            val init = """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"""
            assertEquals(401, s.post(init).status, "no bearer token")
            val auth = json + ("Authorization" to "Bearer s3cret")
            assertEquals(403, s.post(init, auth + ("Origin" to "https://evil.example")).status, "a foreign origin")
            assertEquals(413, s.post("{\"pad\":\"" + "x".repeat(100) + "\"}", auth).status, "over maxBodyBytes")
            assertEquals(404, s.handle("POST", "/elsewhere", headers = auth, body = init.toByteArray()).status)
        }
        AppFunctionHttpServer(d).use { s -> assertEquals(8L * 1024 * 1024, s.maxBodyBytes) }
    }

    @Test
    fun `a header cannot add a header line or hide the ones after it`() {
        AppFunctionHttpServer(d, """{"bearerToken":"s3cret"}""").use { s ->
            // the token smuggled on a line of its own in another header's value stays that value
            val r = s.post(
                """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}""",
                json + ("X-Note" to "hi\nAuthorization: Bearer s3cret"),
            )
            assertEquals(401, r.status)
        }
        AppFunctionHttpServer(d).use { s ->
            // a NUL (in a value or a name) would end the block the core reads, hiding the Origin after it
            for (note in listOf("X-Note" to "hi\u0000", "X-Note\u0000" to "hi", "X-Note" to "hi\r\nOrigin: http://localhost")) {
                val r = s.post("{}", json + note + ("Origin" to "https://evil.example"))
                assertEquals(403, r.status, note.toString())
            }
        }
    }

    @Test
    fun `many threads handle requests at once, and a stream read races its close`() {
        AppFunctionHttpServer(d).use { s ->
            val body = """{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"""
            val headers = json + listOf("MCP-Protocol-Version" to "2026-07-28", "Mcp-Method" to "server/discover")
            val threads = (1..8).map { thread { repeat(50) { assertEquals(200, s.post(body, headers).status) } } }
            threads.forEach { it.join() }

            val sid = s.post("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""")
                .header("Mcp-Session-Id")!!
            val stream = s.handle("GET", "/mcp", headers = listOf("Accept" to "text/event-stream", "Mcp-Session-Id" to sid)).stream!!
            val reading = CountDownLatch(1)
            var last: AppFunctionHttpStream.Next? = null
            val reader = thread {
                reading.countDown()
                last = stream.next(500) // returns after 0.5 s (nothing comes); the free waits for it
            }
            assertTrue(reading.await(5, TimeUnit.SECONDS))
            Thread.sleep(20)
            stream.close()
            reader.join()
            assertFalse(last is AppFunctionHttpStream.Next.Frame, "nothing was sent on the stream")
            assertEquals(AppFunctionHttpStream.Next.End, stream.next(0))
        }
    }
}

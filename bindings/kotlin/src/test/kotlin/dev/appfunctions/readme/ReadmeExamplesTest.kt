// The README's agent loop and MCP session, as written there (the kotlin lane checks that each
// block marked `<!-- kotlin-lane: ReadmeExamplesTest.kt -->` in README.md appears here verbatim),
// run against a scripted model and a scripted MCP client.
package dev.appfunctions.readme

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionKind
import dev.appfunctions.AppFunctionToolFormat
import dev.appfunctions.AppFunctionToolkit
import dev.appfunctions.metadataOf
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import com.sun.net.httpserver.HttpServer
import dev.appfunctions.AppFunctionHttpServer
import dev.appfunctions.AppFunctionHttpStream
import org.junit.jupiter.api.Test
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.Executors
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.seconds

// --- the README's agent loop ---------------------------------------------------------------------

@AppFunctionToolkit(name = "weather", description = "Weather lookups", systemPrompt = "Temperatures are in Celsius.")
class Weather {
    @AppFunction(description = "The temperature in a city now")
    fun temperature(city: String): Double = if (city == "Oslo") -3.0 else 21.5

    @AppFunction(description = "Report the weather", kind = AppFunctionKind.Output)
    fun report(city: String, tempCelsius: Double): Unit = error("never runs: the arguments are the result")
}

interface Model { // your LLM client
    suspend fun next(tools: JsonArray, instructions: String): ToolCall? // null: it answered in text
    suspend fun toolResult(id: String, outcomeJson: String)
}

data class ToolCall(val id: String, val name: String, val argumentsJson: String)

suspend fun agentLoop(dispatcher: AppFunctionDispatcher, model: Model): JsonObject? =
    dispatcher.view(metadataOf("units" to "metric")).use { view -> // one conversation
        while (true) {
            val call = model.next(view.tools(AppFunctionToolFormat.OpenAi), view.instructions) ?: return null
            val outcome = view.execute(call.name, call.argumentsJson) // cancelled with the coroutine
            if (outcome.isFinal) return outcome.result.jsonObject // an output tool ended the run
            model.toolResult(call.id, outcome.json)
        }
        @Suppress("UNREACHABLE_CODE")
        null
    }

// --- the README's MCP session --------------------------------------------------------------------

suspend fun serve(dispatcher: AppFunctionDispatcher, incoming: ReceiveChannel<String>, send: suspend (String) -> Unit) =
    dispatcher.mcpSession().use { session -> // one connection, with its own view
        coroutineScope {
            val notifications = launch(start = CoroutineStart.UNDISPATCHED) { session.notifications.collect(send) } // list_changed
            coroutineScope { for (message in incoming) launch { session.handle(message)?.let { send(it) } } }
            notifications.cancel()
        }
    }

// --- the README's MCP over HTTP ------------------------------------------------------------------

/** Serves [dispatcher]'s MCP endpoint at http://127.0.0.1:PORT/mcp with the JDK's own HTTP server. */
fun serveMcpOverHttp(dispatcher: AppFunctionDispatcher, port: Int): AutoCloseable {
    val mcp = AppFunctionHttpServer(dispatcher) // sessions, versions, Origin, bounds: the core's
    val server = HttpServer.create(InetSocketAddress("127.0.0.1", port), 0)
    server.executor = Executors.newCachedThreadPool() // a tools/call stream holds its thread
    server.createContext("/") { exchange ->
        val headers = exchange.requestHeaders.flatMap { (name, values) -> values.map { name to it } }
        val body = exchange.requestBody.readNBytes((mcp.maxBodyBytes + 1).toInt())
        val uri = exchange.requestURI
        val r = mcp.handle(exchange.requestMethod, uri.path, uri.rawQuery, headers, body)
        r.headers.forEach { (name, value) -> exchange.responseHeaders.add(name, value) }
        val stream = r.stream
        exchange.sendResponseHeaders(r.status, if (stream != null) 0 else if (r.body.isEmpty()) -1 else r.body.size.toLong())
        exchange.responseBody.use { out ->
            if (stream == null) return@use out.write(r.body)
            stream.use { // closed when the client goes away (a write fails) or the stream ends
                while (true) {
                    when (val next = it.next(15_000)) {
                        is AppFunctionHttpStream.Next.Frame -> out.write(next.bytes)
                        AppFunctionHttpStream.Next.Idle -> out.write(":\n\n".toByteArray()) // keep-alive
                        AppFunctionHttpStream.Next.End -> break
                    }
                    out.flush()
                }
            }
        }
    }
    server.start()
    return AutoCloseable { server.stop(0); mcp.close() }
}

/** A model that calls the container, the function it revealed, then the output tool. */
private class ScriptedModel : Model {
    val seen = CopyOnWriteArrayList<String>()
    val results = CopyOnWriteArrayList<String>()
    private val script = ArrayDeque(
        listOf(
            ToolCall("1", "weather", "{}"),
            ToolCall("2", "temperature", """{"city":"Oslo"}"""),
            ToolCall("3", "report", """{"city":"Oslo","tempCelsius":-3}"""),
        ),
    )

    override suspend fun next(tools: JsonArray, instructions: String): ToolCall? {
        seen += tools.joinToString(",") { it.jsonObject["name"]!!.jsonPrimitive.content } + " | " + instructions
        return script.removeFirstOrNull()
    }

    override suspend fun toolResult(id: String, outcomeJson: String) {
        results += outcomeJson
    }
}

class ReadmeExamplesTest {
    @Test
    fun `the README's MCP over HTTP serves a client over a real socket`() {
        AppFunctionDispatcher().use { dispatcher ->
            dispatcher.register(Weather())
            val port = ServerSocket(0).use { it.localPort }
            serveMcpOverHttp(dispatcher, port).use {
                val client = HttpClient.newHttpClient()
                fun post(body: String, vararg headers: String): HttpResponse<String> = client.send(
                    HttpRequest.newBuilder(URI("http://127.0.0.1:$port/mcp"))
                        .header("Accept", "application/json, text/event-stream")
                        .header("Content-Type", "application/json")
                        .apply { headers.toList().chunked(2).forEach { (n, v) -> header(n, v) } }
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString(),
                )
                val init = post("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""")
                assertEquals(200, init.statusCode(), init.body())
                val sid = init.headers().firstValue("Mcp-Session-Id").get()
                val session = arrayOf("Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
                assertEquals(202, post("""{"jsonrpc":"2.0","method":"notifications/initialized"}""", *session).statusCode())
                val list = post("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""", *session)
                assertTrue(list.body().contains("\"weather\""), list.body())
                val call = post("""{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{}}}""", *session)
                assertEquals(200, call.statusCode())
                assertEquals("text/event-stream", call.headers().firstValue("Content-Type").get())
                assertTrue(call.body().startsWith("event: message\ndata: ") && call.body().contains("\"id\":3"), call.body())
                val foreign = post("""{"jsonrpc":"2.0","id":4,"method":"tools/list"}""", *session, "Origin", "https://evil.example")
                assertEquals(403, foreign.statusCode(), "the core's Origin check, through the JDK's server")
            }
        }
    }

    @Test
    fun `the README's agent loop runs a conversation to its output tool`() = runBlocking {
        AppFunctionDispatcher().use { dispatcher ->
            dispatcher.register(Weather())
            val model = ScriptedModel()
            val result = agentLoop(dispatcher, model)!!
            assertEquals("Oslo", result["city"]!!.jsonPrimitive.content)
            assertEquals(
                // the output tool is a member of the toolkit too: it appears with the expansion
                listOf("weather | ", "report,temperature | Temperatures are in Celsius.", "report,temperature | Temperatures are in Celsius."),
                model.seen,
            )
            assertTrue(model.results[1].contains("-3.0") || model.results[1].contains("-3"), model.results.toString())
        }
    }

    @Test
    fun `the README's MCP session answers a client and tells it when the tools change`() = runBlocking {
        AppFunctionDispatcher().use { dispatcher ->
            dispatcher.register(Weather())
            val incoming = Channel<String>()
            val sent = Channel<String>(Channel.UNLIMITED)
            val server = launch { serve(dispatcher, incoming) { sent.send(it) } }
            val unread = ArrayList<String>()
            suspend fun awaitSent(what: (String) -> Boolean): String = withTimeout(5.seconds) {
                unread.firstOrNull(what)?.let { unread.remove(it); return@withTimeout it }
                while (true) {
                    val m = sent.receive()
                    if (what(m)) return@withTimeout m
                    unread += m
                }
                @Suppress("UNREACHABLE_CODE")
                ""
            }
            suspend fun request(id: Int, method: String, params: String = "{}"): String {
                incoming.send("""{"jsonrpc":"2.0","id":$id,"method":"$method","params":$params}""")
                return awaitSent { it.contains("\"id\":$id") }
            }
            request(1, "initialize", """{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}""")
            incoming.send("""{"jsonrpc":"2.0","method":"notifications/initialized"}""")
            assertTrue(request(2, "tools/list").contains("\"weather\""))
            assertTrue(request(3, "tools/call", """{"name":"weather","arguments":{}}""").contains("temperature"))
            assertTrue(awaitSent { it.contains("list_changed") }.contains("notifications/tools/list_changed"))
            assertTrue(request(4, "tools/list").contains("\"temperature\""))
            incoming.close()
            withTimeout(5.seconds) { server.join() }
        }
    }
}

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
import org.junit.jupiter.api.Test
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

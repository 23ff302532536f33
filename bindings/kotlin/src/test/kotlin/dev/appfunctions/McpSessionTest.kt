package dev.appfunctions

import dev.appfunctions.scenario.AgentMetadata
import dev.appfunctions.scenario.AssistantFunctions
import dev.appfunctions.scenario.DatabaseToolkit
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.seconds

/** MCP sessions served from Kotlin: per-session views and metadata, list_changed to the host, cancellation. */
class McpSessionTest {
    private val assistant = AssistantFunctions()
    private val d = AppFunctionDispatcher().apply {
        setMetadataSchema(AgentMetadata::class)
        register(DatabaseToolkit())
        register(assistant)
    }

    @AfterEach
    fun close() = d.close()

    private fun AppFunctionMcpSession.request(id: Int, method: String, params: String = "{}"): JsonObject =
        AppJsonForTests.parse(handleBlocking("""{"jsonrpc":"2.0","id":$id,"method":"$method","params":$params}""")!!)

    private fun AppFunctionMcpSession.open() {
        val init = request(1, "initialize", """{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}""")
        assertEquals(true, init["result"]!!.jsonObject["capabilities"]!!.jsonObject["tools"]!!.jsonObject["listChanged"]!!.jsonPrimitive.content.toBoolean(), init.toString())
        assertNull(handleBlocking("""{"jsonrpc":"2.0","method":"notifications/initialized"}"""))
    }

    private fun AppFunctionMcpSession.toolNames(id: Int): List<String> =
        request(id, "tools/list")["result"]!!.jsonObject["tools"]!!.jsonArray.map { it.jsonObject["name"]!!.jsonPrimitive.content }

    private fun listChanged(m: String) = m.contains("notifications/tools/list_changed")

    @Test
    fun `a session has its own view - the container call expands it, and the host hears list_changed`() = runBlocking {
        val heard = CopyOnWriteArrayList<String>()
        d.mcpSession(onNotification = { heard += it }).use { s ->
            s.open()
            assertTrue("database" in s.toolNames(2) && "query" !in s.toolNames(3))
            val next = async(start = CoroutineStart.UNDISPATCHED) { withTimeout(5.seconds) { s.notifications.first(::listChanged) } }
            val call = s.request(4, "tools/call", """{"name":"database","arguments":{}}""")
            assertTrue(call.toString().contains("Always use transactions"), call.toString())
            assertTrue(listChanged(next.await()))
            assertTrue(heard.any(::listChanged), heard.toString())
            assertTrue("query" in s.toolNames(5))
            // another connection is another conversation: still collapsed
            d.mcpSession().use { other ->
                other.open()
                assertFalse("query" in other.toolNames(2))
            }
        }
    }

    @Test
    fun `per-session metadata flips a condition, and the client is told`() = runBlocking {
        d.mcpSession(metadataOf("HasAdvancedFeatures" to false)).use { s ->
            s.open()
            assertFalse("advanced_search" in s.toolNames(2))
            val next = async(start = CoroutineStart.UNDISPATCHED) { withTimeout(5.seconds) { s.notifications.first(::listChanged) } }
            s.setMetadata(metadataOf("HasAdvancedFeatures" to true))
            next.await()
            assertTrue("advanced_search" in s.toolNames(3))
            val call = s.request(4, "tools/call", """{"name":"advanced_search","arguments":{"query":"x"}}""")
            assertTrue(call.toString().contains("advanced results for x"), call.toString())
        }
    }

    @Test
    fun `a registration reaches every open session as list_changed`() = runBlocking {
        d.mcpSession().use { s ->
            s.open()
            val next = async(start = CoroutineStart.UNDISPATCHED) { withTimeout(5.seconds) { s.notifications.first(::listChanged) } }
            d.function("late_one") { blockingHandler { _, _ -> null } }
            next.await()
            assertTrue("late_one" in s.toolNames(2))
        }
    }

    @Test
    fun `cancelling handle's coroutine cancels the tool call and its handler`() = runBlocking {
        d.mcpSession().use { s ->
            s.open()
            val call = async(Dispatchers.Default) { s.handle("""{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}""") }
            withTimeout(5.seconds) { while (d.inFlight == 0) delay(5) }
            call.cancelAndJoin()
            assertTrue(call.isCancelled)
            withTimeout(5.seconds) { while (assistant.slowCancelled.get() == 0 || d.inFlight != 0) delay(5) }
            // the session goes on
            assertTrue(s.handle("""{"jsonrpc":"2.0","id":10,"method":"ping"}""")!!.contains("\"id\":10"))
        }
    }

    @Test
    fun `the notification sink is released with the session, and the dispatcher's own session has one too`() {
        val released = d.userDataReleased
        d.mcpSession().close()
        assertEquals(released + 1, d.userDataReleased)
        val heard = CopyOnWriteArrayList<String>()
        d.setMcpNotificationHandler { heard += it }
        d.mcpHandle("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""")
        d.mcpHandle("""{"jsonrpc":"2.0","method":"notifications/initialized"}""")
        d.function("another") { blockingHandler { _, _ -> JsonPrimitive(1) }; result(AppFunctionType.Int32) }
        assertTrue(heard.any(::listChanged), heard.toString())
    }

    @Test
    fun `in the 2026-07-28 revision a subscriptions-listen stream reaches the host through the same sink`() {
        val heard = CopyOnWriteArrayList<String>()
        d.mcpSession(onNotification = { heard += it }).use { s ->
            val envelope = """"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"""
            val listen = """{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},$envelope}}"""
            assertNull(s.handleBlocking(listen), "a stream, not a response")
            // acknowledged first, from inside that handle call
            assertTrue(heard.single().contains("notifications/subscriptions/acknowledged"), heard.toString())
            d.function("late_one") { blockingHandler { _, _ -> null } }
            assertTrue(heard.last().contains("notifications/tools/list_changed") && heard.last().contains("sub-1"), heard.toString())
        }
    }
}

package dev.appfunctions

import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class McpTest {
    private val d = AppFunctionDispatcher().apply { register(NoteFunctions(NoteRepository())) }

    @AfterEach
    fun close() = d.close()

    @Test
    fun `mcpHandle answers initialize, tools-list and tools-call`() {
        d.mcpConfigure("""{"serverName":"notes-app"}""")
        val init = AppJsonForTests.parse(
            d.mcpHandle("""{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}""")!!,
        )
        assertEquals("notes-app", init["result"]!!.jsonObject["serverInfo"]!!.jsonObject["name"]!!.jsonPrimitive.content, init.toString())
        assertNull(d.mcpHandle("""{"jsonrpc":"2.0","method":"notifications/initialized"}"""))
        val tools = AppJsonForTests.parse(d.mcpHandle("""{"jsonrpc":"2.0","id":2,"method":"tools/list"}""")!!)
        assertEquals(
            listOf("create_note", "edit_note", "list_notes"),
            tools["result"]!!.jsonObject["tools"]!!.jsonArray.map { it.jsonObject["name"]!!.jsonPrimitive.content },
        )
        val call = d.mcpHandle("""{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"Hi","content":"there"}}}""")!!
        assertTrue(call.contains("\"id\":3") && call.contains("Hi"), call)
        val bad = d.mcpHandle("{nope")!!
        assertTrue(bad.contains("\"error\""), bad)
    }

    @Test
    fun `exports name every function`() {
        assertTrue(d.export("openai").contains("edit_note"))
        assertTrue(d.export("android-xml").trimStart().startsWith("<"))
    }
}

package dev.appfunctions.scenario

import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionPlatform
import dev.appfunctions.AppFunctionStatus
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class NotesScenarioTest {
    private val repo = NoteRepository()
    private val dispatcher = AppFunctionDispatcher().apply { register(NoteFunctions(repo)) }

    @AfterEach
    fun close() = dispatcher.close()

    private fun run(id: String, args: String) =
        runBlocking { dispatcher.execute(AppFunctionInvocation(id, AppFunctionPlatform.Android, callerPackage = "com.google.android.apps.gemini"), args) }

    @Test
    fun `list_notes is null when there are no notes`() {
        val outcome = run("list_notes", "{}")
        assertEquals(AppFunctionStatus.Success, outcome.status, outcome.json)
        assertEquals(JsonNull, outcome.result)
    }

    @Test
    fun `create_note then list_notes returns the records`() {
        val created = run("create_note", """{"title":"Groceries","content":"milk, eggs"}""").result.jsonObject
        assertEquals(JsonPrimitive(1), created["id"])
        run("create_note", """{"title":"Ideas","content":"…"}""")
        val list = run("list_notes", "{}").result.jsonArray
        assertEquals(listOf("Groceries", "Ideas"), list.map { it.jsonObject["title"]!!.jsonPrimitive.content })
    }

    @Test
    fun `edit_note's nullable title is optional, and a missing note is null`() {
        run("create_note", """{"title":"Groceries","content":"milk"}""")
        val kept = run("edit_note", """{"noteId":"1","content":"milk, bread"}""")
        assertEquals(AppFunctionStatus.Success, kept.status, kept.json)
        assertEquals("Groceries", kept.result.jsonObject["title"]!!.jsonPrimitive.content)
        assertEquals("milk, bread", kept.result.jsonObject["content"]!!.jsonPrimitive.content)
        val renamed = run("edit_note", """{"noteId":"1","title":"Shopping","content":"bread"}""")
        assertEquals("Shopping", renamed.result.jsonObject["title"]!!.jsonPrimitive.content)
        val explicitNull = run("edit_note", """{"noteId":"1","title":null,"content":"eggs"}""")
        assertEquals("Shopping", explicitNull.result.jsonObject["title"]!!.jsonPrimitive.content, explicitNull.json)
        assertEquals(JsonNull, run("edit_note", """{"noteId":"99","content":"x"}""").result)
    }

    @Test
    fun `the registry describes the notes functions, ordered by method name, with their schemas`() {
        val functions = dispatcher.registry.functions
        assertEquals(listOf("create_note", "edit_note", "list_notes"), functions.map { it.id })
        val edit = functions.single { it.id == "edit_note" }
        assertEquals("Edits a single note.", edit.description)
        assertEquals(listOf("noteId", "title", "content"), edit.parameters.map { it.name })
        assertEquals(listOf(false, true, false), edit.parameters.map { it.isOptional })
        assertEquals("The new title if it should be updated.", edit.parameters[1].description)
        val schema = dev.appfunctions.AppJsonForTests.parse(edit.parametersJsonSchema())
        assertEquals(setOf("noteId", "content"), schema["required"]!!.jsonArray.map { it.jsonPrimitive.content }.toSet())
        assertFalse("title" in schema["required"]!!.jsonArray.map { it.jsonPrimitive.content })
        val note = dispatcher.registry.types["records"]!!.jsonArray.single().jsonObject
        assertEquals("A note.", note["description"]!!.jsonPrimitive.content)
        assertTrue(edit.resultJsonSchema().contains("Note"))
    }
}

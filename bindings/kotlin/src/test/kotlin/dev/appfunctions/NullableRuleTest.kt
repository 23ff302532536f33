package dev.appfunctions

import dev.appfunctions.internal.readFunctions
import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

@AppFunctionSerializable(description = "A memo")
data class Memo(val text: String, val title: String?)

class Memos {
    var lastTitle: String? = "unset"

    @AppFunction(description = "Saves a memo")
    fun saveMemo(memo: Memo, title: String?): Memo {
        lastTitle = title
        return memo
    }
}

/** The core's one nullable rule (seed 002's `editNote(title: String?)`), as Kotlin hosts see it. */
class NullableRuleTest {
    private val d = AppFunctionDispatcher()

    @AfterEach
    fun close() = d.close()

    @Test
    fun `a nullable parameter is described without optional, and the core makes it optional`() {
        val edit = readFunctions(d.state, NoteFunctions(NoteRepository())).first { it.id == "edit_note" }
        val title = edit.descriptor["parameters"]!!.jsonArray.map { it.jsonObject }.first { it["name"]!!.jsonPrimitive.content == "title" }
        assertEquals(JsonObject(mapOf("nullable" to JsonPrimitive("string"))), title["type"])
        assertNull(title["optional"], "the rule, not the binding, makes it optional: $title")

        d.register(NoteFunctions(NoteRepository()))
        val registered = d.registry["edit_note"]!!
        assertEquals(listOf(false, true, false), registered.parameters.map { it.isOptional })
        val schema = AppJsonForTests.parse(registered.parametersJsonSchema())
        assertEquals(buildJsonArray { add(JsonPrimitive("noteId")); add(JsonPrimitive("content")) }, schema["required"])
    }

    @Test
    fun `an omitted nullable parameter binds as null, like an explicit null`() {
        val memos = Memos()
        d.register(memos)
        for (args in listOf("""{"memo":{"text":"a"}}""", """{"memo":{"text":"a","title":null},"title":null}""")) {
            memos.lastTitle = "unset"
            val o = d.executeBlocking(AppFunctionInvocation("save_memo"), args)
            assertTrue(o.isSuccess, o.json)
            assertNull(memos.lastTitle, args)
            // a nullable record field likewise: omitted, it binds (and comes back) as null
            assertEquals(JsonNull, o.result.jsonObject["title"], o.json)
        }
        val o = d.executeBlocking(AppFunctionInvocation("save_memo"), """{"memo":{"text":"a"},"title":"t"}""")
        assertEquals("t", memos.lastTitle, o.json)
        val schema = AppJsonForTests.parse(d.parametersJsonSchema("save_memo"))
        assertEquals(buildJsonArray { add(JsonPrimitive("memo")) }, schema["required"])
        val memo = schema["\$defs"]!!.jsonObject["Memo"]!!.jsonObject
        assertEquals(buildJsonArray { add(JsonPrimitive("text")) }, memo["required"])
    }

    @Test
    fun `the DSL follows the same rule`() {
        d.function("rename") {
            parameter("title", AppFunctionType.nullable(AppFunctionType.String))
            result(AppFunctionType.String)
            blockingHandler { _, args -> JsonPrimitive(args["title"].toString()) }
        }
        val o = d.executeBlocking(AppFunctionInvocation("rename"), "{}")
        assertTrue(o.isSuccess, o.json)
        assertEquals("null", o.result.jsonPrimitive.content)
        assertTrue(d.registry["rename"]!!.parameters.single().isOptional)
    }
}

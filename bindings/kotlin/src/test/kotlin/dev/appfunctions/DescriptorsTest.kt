package dev.appfunctions

import dev.appfunctions.internal.UnsupportedTypeException
import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import dev.appfunctions.scenario.Order
import dev.appfunctions.scenario.OrderFunctions
import dev.appfunctions.scenario.OrderProvider
import dev.appfunctions.scenario.OrderStore
import dev.appfunctions.scenario.Priority
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Instant
import java.time.LocalDate
import java.time.OffsetDateTime
import java.util.UUID
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

@AppFunctionSerializable(description = "A postal address")
data class Address(val street: String, @Description("Postal code") val zip: String? = null)

@AppFunctionSerializable(name = "Everything", description = "One field of every supported type")
data class AllFields(
    val text: String,
    val flag: Boolean,
    val small: Int,
    val big: Long,
    val ratio: Double,
    val at: OffsetDateTime,
    val instant: Instant,
    val day: LocalDate,
    val uid: UUID,
    val priority: Priority,
    val tags: List<String>,
    val numbers: Set<Int>,
    val address: Address,
    val previous: List<Address>? = null,
)

class AllTypes {
    @AppFunction(description = "Echoes a record of every type")
    fun echo(value: AllFields): AllFields = value

    @AppFunction(id = "narrow_numbers", title = "Narrow numbers")
    fun narrow(short: Short, byte: Byte, float: Float): Double = short + byte + float.toDouble()

    @AppFunction
    fun nothing(context: AppFunctionContext) {
        context.say("done")
    }

    @AppFunction(opensApp = true, requiresPermission = true, toolkit = "admin", deprecated = true)
    suspend fun manyFlags(ids: List<Long>?, day: LocalDate = LocalDate.EPOCH): List<String> = ids.orEmpty().map { "$it@$day" }
}

class Unsupported {
    @AppFunction
    fun bad(options: Map<String, String>): String = options.toString()
}

class NotAnnotated(val x: Int)

class HalfBad {
    @AppFunction
    fun aGood(): Int = 1

    @AppFunction(toolkit = "undefined")
    fun bBad(): Int = 2
}

class UnsupportedRecord {
    @AppFunction
    fun bad(value: NotAnnotated): Int = value.x
}

class DescriptorsTest {
    private val d = AppFunctionDispatcher()

    @AfterEach
    fun close() = d.close()

    private val draft = "https://json-schema.org/draft/2020-12/schema"

    private fun registerEverything() {
        val store = OrderStore()
        d.registerEntity(Order::class, OrderProvider(store))
        d.register(OrderFunctions(store))
        d.register(NoteFunctions(NoteRepository()))
        d.defineToolkit("""{"name":"admin","description":"Administration"}""")
        d.register(AllTypes())
        DslTest.declareOrdersWithDsl(d, prefix = "dsl_", withTypes = false)
    }

    @Test
    fun `every generated descriptor is accepted by the core and every schema is draft 2020-12`() {
        registerEverything() // throws AppFunctionRegistrationException on any refused descriptor
        val functions = d.registry.functions
        assertEquals(
            listOf(
                "cancel_order", "create_order", "explode", "refuse", "schedule_delivery", "slow_report",
                "create_note", "edit_note", "list_notes",
                "echo", "many_flags", "narrow_numbers", "nothing",
                "dsl_create_order", "dsl_cancel_order", "dsl_final_answer",
                "search_order", "search_dsl_order",
            ),
            functions.map { it.id },
        )
        for (f in functions) {
            val params = AppJsonForTests.parse(f.parametersJsonSchema())
            assertEquals(draft, params["\$schema"]?.jsonPrimitive?.content, "${f.id} parameters")
            assertEquals("object", params["type"]?.jsonPrimitive?.content, "${f.id} parameters")
            val result = f.resultJsonSchema()
            if (result != "null") assertEquals(draft, AppJsonForTests.parse(result)["\$schema"]?.jsonPrimitive?.content, "${f.id} result")
        }
        assertEquals("null", d.resultJsonSchema("nothing"))
    }

    @Test
    fun `the descriptor read from annotations`() {
        registerEverything()
        val create = d.registry["create_order"]!!
        assertEquals("Create order", create.title)
        assertEquals("Creates an order for a customer.", create.description)
        assertEquals(listOf("customer", "quantity", "priority"), create.parameters.map { it.name })
        assertEquals("Customer name", create.parameters[0].description)
        assertEquals(JsonPrimitive("int32"), create.parameters[1].type)
        assertEquals("""{"enum":"Priority"}""", create.parameters[2].type.toString())
        assertEquals("""{"entity":"order"}""", create.resultType.toString())
        val flags = d.registry["many_flags"]!!
        assertTrue(flags.opensApp && flags.requiresPermission)
        assertEquals(listOf(true, true), flags.parameters.map { it.isOptional })
        val types = d.registry.types
        val priority = types["enums"].toString()
        assertTrue(priority.contains(""""name":"Normal","description":"The default""""), priority)
        assertTrue(types["records"].toString().contains("Postal code"))
    }

    @Test
    fun `values of every type round trip`() {
        registerEverything()
        val args = """{"value":{"text":"é","flag":true,"small":-3,"big":9007199254740993,"ratio":0.5,""" +
            """"at":"2026-01-02T03:04:05+05:30","instant":"2026-01-02T03:04:05Z","day":"2026-02-28",""" +
            """"uid":"123e4567-e89b-12d3-a456-426614174000","priority":"Low","tags":["a","b"],"numbers":[1,2],""" +
            """"address":{"street":"Main St"},"previous":[{"street":"Old Rd","zip":"12345"}]}}"""
        val o = d.executeBlocking(AppFunctionInvocation("echo"), args)
        assertTrue(o.isSuccess, o.json)
        val v = o.result.jsonObject
        assertEquals("9007199254740993", v["big"].toString())
        assertEquals("2026-01-02T03:04:05+05:30", v["at"]!!.jsonPrimitive.content)
        assertEquals("2026-01-02T03:04:05Z", v["instant"]!!.jsonPrimitive.content)
        assertEquals("""{"street":"Main St","zip":null}""", v["address"].toString())
        assertEquals(5.5, d.executeBlocking(AppFunctionInvocation("narrow_numbers"), """{"short":2,"byte":3,"float":0.5}""").result.jsonPrimitive.content.toDouble())
        val nothing = d.executeBlocking(AppFunctionInvocation("nothing"))
        assertEquals("done", nothing.dialog)
    }

    @Test
    fun `unsupported Kotlin types are refused with the path`() {
        val e = assertFailsWith<UnsupportedTypeException> { d.register(Unsupported()) }
        assertTrue(e.message!!.startsWith("bad.parameters.options: kotlin.collections.Map is not supported"), e.message)
        val r = assertFailsWith<UnsupportedTypeException> { d.register(UnsupportedRecord()) }
        assertTrue(r.message!!.contains("annotate it with @AppFunctionSerializable"), r.message)
        assertEquals(0, d.registry.functions.size)
    }

    @Test
    fun `an entity used before its provider is registered is a clear error`() {
        val e = assertFailsWith<IllegalStateException> { d.register(OrderFunctions(OrderStore())) }
        assertTrue(e.message!!.contains("registerEntity(Order::class, provider) first"), e.message)
    }

    @Test
    fun `descriptors the core refuses give its message naming the path`() {
        val e = assertFailsWith<AppFunctionRegistrationException> {
            d.function("create_order") {
                parameter("priority", AppFunctionType.enum("Priorty"))
                blockingHandler { _, _ -> null }
            }
        }
        assertTrue(e.message!!.contains("create_order.parameters.priority.type"), e.message)
        assertTrue(e.message!!.contains("Priorty"), e.message)
        d.register(NoteFunctions(NoteRepository()))
        val dup = assertFailsWith<AppFunctionRegistrationException> { d.register(NoteFunctions(NoteRepository())) }
        assertTrue(dup.message!!.contains("already registered"), dup.message)
        assertEquals(listOf("create_note", "edit_note", "list_notes"), d.registry.functions.map { it.id })
    }

    @Test
    fun `registering a class is all or nothing`() {
        val e = assertFailsWith<AppFunctionRegistrationException> { d.register(HalfBad()) }
        assertTrue(e.message!!.contains("b_bad.toolkit"), e.message)
        assertEquals(emptyList(), d.registry.functions.map { it.id })
    }

    @Suppress("unused")
    private fun unused(o: JsonObject) = o
}

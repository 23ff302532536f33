package dev.appfunctions

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

@AppFunctionSerializable(description = "A line of an order")
data class OrderLine(@Constraints(pattern = "^[A-Z]{2}-\\d{3}$") val sku: String, @Constraints(minimum = 1.0, maximum = 99.0) val quantity: Int)

class ConstrainedFunctions {
    @AppFunction(description = "Orders some lines")
    fun placeOrder(
        @Constraints(minLength = 2, maxLength = 40) customer: String,
        @Constraints(minItems = 1, maxItems = 3) lines: List<OrderLine>,
        @Constraints(exclusiveMinimum = 0.0, maximum = 0.5) discount: Double = 0.1,
    ): String = "$customer ordered ${lines.size} lines at $discount"

    @AppFunction(description = "Counts, but too far")
    @Constraints(maximum = 10.0)
    fun countTooFar(): Int = 11
}

/** Value constraints (docs/descriptors.md) declared from Kotlin: stated in the schema, enforced by the core. */
class ConstraintsTest {
    private val d = AppFunctionDispatcher().apply { register(ConstrainedFunctions()) }

    @AfterEach
    fun close() = d.close()

    private fun run(id: String, args: String) = d.executeBlocking(AppFunctionInvocation(id), args)

    @Test
    fun `annotated parameters, fields and results carry their constraints into the schema`() {
        val schema = AppJsonForTests.parse(d.parametersJsonSchema("place_order"))
        val props = schema["properties"]!!.jsonObject
        assertEquals(2, props["customer"]!!.jsonObject["minLength"]!!.jsonPrimitive.content.toInt())
        assertEquals(3, props["lines"]!!.jsonObject["maxItems"]!!.jsonPrimitive.content.toInt())
        assertEquals("0.5", props["discount"]!!.jsonObject["maximum"]!!.jsonPrimitive.content)
        val line = schema["\$defs"]!!.jsonObject["OrderLine"]!!.jsonObject["properties"]!!.jsonObject
        assertEquals("^[A-Z]{2}-\\d{3}$", line["sku"]!!.jsonObject["pattern"]!!.jsonPrimitive.content)
        assertEquals("1", line["quantity"]!!.jsonObject["minimum"]!!.jsonPrimitive.content, "an integral bound is an integer")
        assertTrue(d.resultJsonSchema("count_too_far").contains("\"maximum\":10") || d.resultJsonSchema("count_too_far").contains("\"maximum\": 10"))
    }

    @Test
    fun `the core enforces them, naming the parameter and the rule`() {
        val ok = run("place_order", """{"customer":"acme","lines":[{"sku":"AB-123","quantity":2}]}""")
        assertTrue(ok.isSuccess, ok.json)
        for ((args, words) in listOf(
            """{"customer":"a","lines":[{"sku":"AB-123","quantity":2}]}""" to listOf("customer", "minLength 2"),
            """{"customer":"acme","lines":[]}""" to listOf("lines", "minItems 1"),
            """{"customer":"acme","lines":[{"sku":"ab-1","quantity":2}]}""" to listOf("sku", "pattern"),
            """{"customer":"acme","lines":[{"sku":"AB-123","quantity":0}]}""" to listOf("quantity", "minimum 1"),
            """{"customer":"acme","lines":[{"sku":"AB-123","quantity":1}],"discount":0}""" to listOf("discount", "exclusiveMinimum"),
        )) {
            val o = run("place_order", args)
            assertEquals(AppFunctionErrorCode.InvalidArgument, o.errorCode, o.json)
            for (w in words) assertTrue(o.message!!.contains(w), "$w in ${o.message}")
        }
        val tooFar = run("count_too_far", "{}")
        assertEquals(AppFunctionErrorCode.HandlerFailed, tooFar.errorCode, tooFar.json)
    }

    @Test
    fun `the DSL states them on parameters, fields and results`() {
        d.types { record("Tag") { field("name", AppFunctionType.String, constraints = AppFunctionConstraints(maxLength = 8)) } }
        d.function("tag") {
            parameter("tags", AppFunctionType.array(AppFunctionType.record("Tag")), constraints = AppFunctionConstraints(uniqueItems = true))
            parameter("limit", AppFunctionType.Int64, default = JsonPrimitive(10), constraints = AppFunctionConstraints(minimum = 1, maximum = 100))
            result(AppFunctionType.Int32, AppFunctionConstraints(minimum = 0))
            blockingHandler { _, args -> JsonPrimitive((args["tags"] as JsonArray).size) }
        }
        assertTrue(run("tag", """{"tags":[{"name":"a"},{"name":"b"}]}""").isSuccess)
        assertTrue(run("tag", """{"tags":[{"name":"a"},{"name":"a"}]}""").message!!.contains("unique"))
        assertTrue(run("tag", """{"tags":[],"limit":101}""").message!!.contains("maximum 100"))
        assertTrue(run("tag", """{"tags":[{"name":"much too long"}]}""").message!!.contains("maxLength 8"))
        // a default that breaks them is refused at registration, naming the path
        val e = runCatching {
            d.function("bad") {
                parameter("n", AppFunctionType.Int32, default = JsonPrimitive(0), constraints = AppFunctionConstraints(minimum = 1))
                blockingHandler { _, _ -> null }
            }
        }.exceptionOrNull()
        assertTrue(e is AppFunctionRegistrationException && e.message!!.contains("bad.parameters.n"), e.toString())
    }
}

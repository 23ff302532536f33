package dev.appfunctions

import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class DslTest {
    private val d = AppFunctionDispatcher()

    @AfterEach
    fun close() = d.close()

    companion object {
        /** The orders app without reflection. */
        fun declareOrdersWithDsl(d: AppFunctionDispatcher, prefix: String = "", withTypes: Boolean = true) {
            val orders = ConcurrentHashMap<String, JsonObject>()
            val next = AtomicInteger(1)
            if (withTypes) d.types { enum("Priority", "Low", "Normal" to "The default", "High", description = "How urgent an order is") }
            d.entity("${prefix}order") {
                description = "An order of the shop"
                field("id", AppFunctionType.String)
                field("customer", AppFunctionType.String)
                field("quantity", AppFunctionType.Int32)
                field("priority", AppFunctionType.enum("Priority"))
                lookup { _, ids -> JsonArray(ids.mapNotNull { orders[it] }) }
                search { _, query, limit -> JsonArray(orders.values.filter { query in it["customer"]!!.jsonPrimitive.content }.take(limit ?: 100)) }
            }
            d.function("${prefix}create_order") {
                title = "Create order"
                description = "Creates an order for a customer."
                parameter("customer", AppFunctionType.String, "Customer name")
                parameter("quantity", AppFunctionType.Int32)
                parameter("priority", AppFunctionType.enum("Priority"), default = JsonPrimitive("Normal"))
                result(AppFunctionType.entity("${prefix}order"))
                blockingHandler { ctx, args ->
                    val order = buildJsonObject {
                        put("id", "o-${next.getAndIncrement()}")
                        put("customer", args["customer"]!!)
                        put("quantity", args["quantity"]!!)
                        put("priority", args["priority"]!!)
                    }
                    orders[order["id"]!!.jsonPrimitive.content] = order
                    ctx.say("created")
                    order
                }
            }
            d.function("${prefix}cancel_order") {
                description = "Cancels an order."
                parameter("order", AppFunctionType.entity("${prefix}order"))
                result(AppFunctionType.String)
                handler { _, args ->
                    delay(1)
                    val order = args["order"]!!.jsonObject
                    orders.remove(order["id"]!!.jsonPrimitive.content)
                    JsonPrimitive("cancelled ${order["id"]!!.jsonPrimitive.content}")
                }
            }
            d.function("${prefix}final_answer") {
                kind = "output"
                description = "The structured answer"
                parameter("answer", AppFunctionType.String)
                parameter("confidence", AppFunctionType.Double, optional = true)
            }
        }
    }

    private fun exec(id: String, args: String) = runBlocking { d.execute(AppFunctionInvocation(id), args) }

    @Test
    fun `the orders app declared with the builder DSL`() {
        declareOrdersWithDsl(d)
        val created = exec("create_order", """{"customer":"acme","quantity":2}""")
        assertEquals(AppFunctionStatus.Success, created.status, created.json)
        assertEquals("Normal", created.result.jsonObject["priority"]!!.jsonPrimitive.content)
        assertEquals("created", created.dialog)
        assertEquals(1, exec("search_order", """{"query":"acme"}""").result.jsonArray.size)
        assertEquals("cancelled o-1", exec("cancel_order", """{"order":"o-1"}""").result.jsonPrimitive.content)
        assertEquals(AppFunctionErrorCode.EntityNotFound, exec("cancel_order", """{"order":"o-1"}""").errorCode)
        assertEquals(2, exec("create_order", """{"customer":"x","quantity":2}""").result.jsonObject["quantity"]!!.jsonPrimitive.int)
    }

    @Test
    fun `an output function has no handler, its arguments are the final result`() {
        declareOrdersWithDsl(d)
        val o = exec("final_answer", """{"answer":"42","confidence":0.9}""")
        assertEquals(AppFunctionStatus.Success, o.status, o.json)
        assertTrue(o.isFinal, o.json)
        assertEquals("42", o.result.jsonObject["answer"]!!.jsonPrimitive.content)
    }

    @Test
    fun `a function without a handler is refused unless it is an output`() {
        val e = assertFailsWith<IllegalArgumentException> { d.function("nothing") { description = "x" } }
        assertTrue(e.message!!.contains("needs a handler"))
    }
}

package dev.appfunctions

import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import dev.appfunctions.scenario.Order
import dev.appfunctions.scenario.OrderFunctions
import dev.appfunctions.scenario.OrderProvider
import dev.appfunctions.scenario.OrderStore
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Test
import java.util.UUID
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertTrue
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/** Published dispatchers (a cold-start platform call waits for the app) and descriptor bundles. */
class PublicationTest {
    private fun app(): AppFunctionDispatcher {
        val store = OrderStore()
        val d = AppFunctionDispatcher()
        d.registerEntity(Order::class, OrderProvider(store))
        d.register(OrderFunctions(store))
        d.register(NoteFunctions(NoteRepository()))
        return d
    }

    private fun uniqueName() = "kotlin-tests-" + UUID.randomUUID()

    @Test
    fun `a call that arrives before the app publishes waits then runs the app's handler`() {
        val name = uniqueName()
        val waiting = CompletableFuture.supplyAsync { PublishedAppFunctionDispatcher.wait(name, 10.seconds) }
        Thread.sleep(30)
        assertFalse(waiting.isDone)
        app().use { d ->
            d.publish(name)
            waiting.get(10, TimeUnit.SECONDS).use { published ->
                assertEquals(name, published.name)
                val out = Json.parseToJsonElement(
                    published.executeBlockingJson(
                        AppFunctionInvocation("create_order", platform = AppFunctionPlatform.Android),
                        """{"customer":"acme","quantity":2}""",
                    ),
                ).jsonObject
                assertEquals("success", out["status"]!!.jsonPrimitive.content, out.toString())
                assertEquals(d.export("mcp"), published.export("mcp"))
            }
            assertTrue(PublishedAppFunctionDispatcher.unpublish(name))
            assertFalse(PublishedAppFunctionDispatcher.unpublish(name))
        }
    }

    @Test
    fun `nothing published times out naming what was not ready`() {
        val name = uniqueName()
        val e = assertFailsWith<TimeoutException> { PublishedAppFunctionDispatcher.wait(name, 20.milliseconds) }
        assertTrue(e.message!!.contains(name) && e.message!!.contains("20 ms"), e.message)
        assertFailsWith<TimeoutException> { PublishedAppFunctionDispatcher.wait(name, Duration.ZERO) }
    }

    @Test
    fun `closing the publisher withdraws it while a second handle's close does not`() {
        val name = uniqueName()
        val d = app()
        d.publish(name)
        PublishedAppFunctionDispatcher.wait(name, Duration.ZERO).close()
        PublishedAppFunctionDispatcher.wait(name, Duration.ZERO).use { assertTrue(it.export("mcp").contains("create_order")) }
        d.close()
        assertFailsWith<TimeoutException> { PublishedAppFunctionDispatcher.wait(name, Duration.ZERO) }
        assertFailsWith<IllegalArgumentException> { d.publish("") }
    }

    @Test
    fun `a bundle exports what the dispatcher exports without a running app`() {
        app().use { d ->
            val bundle = d.bundleJson()
            for (format in listOf("mcp", "openai", "openai-chat", "anthropic", "gemini", "android-xml")) {
                assertEquals(d.export(format), AppFunctionBundle.export(bundle, format), format)
            }
            val e = assertFailsWith<IllegalArgumentException> { AppFunctionBundle.export("""{"functions":[{"id":"Bad"}]}""", "mcp") }
            assertTrue(e.message!!.contains("functions[0]"), e.message)
        }
    }
}

package dev.appfunctions.scenario

import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionLogger
import dev.appfunctions.AppFunctionPlatform
import dev.appfunctions.AppFunctionStatus
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.test.fail
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

class OrdersScenarioTest {
    private val logs: MutableList<String> = Collections.synchronizedList(ArrayList())
    private val store = OrderStore()
    private val functions = OrderFunctions(store)
    private val provider = OrderProvider(store)
    private val signIn = SignInDelegate(AtomicBoolean(false))
    private val telemetry = TelemetryDelegate()
    private val dispatcher = AppFunctionDispatcher(logger = { level, msg -> logs += "$level $msg" }).apply {
        registerEntity(Order::class, provider)
        register(functions)
        addDelegate(signIn)
        addDelegate(telemetry)
    }

    @AfterEach
    fun close() = dispatcher.close()

    private fun run(id: String, args: String, platform: AppFunctionPlatform = AppFunctionPlatform.Other, foreground: Boolean = false) =
        runBlocking { dispatcher.execute(AppFunctionInvocation(id, platform, foreground), args) }

    private fun newOrder(customer: String = "acme") =
        run("create_order", """{"customer":"$customer","quantity":2}""").result.jsonObject["id"]!!.jsonPrimitive.content

    @Test
    fun `create_order binds camelCase keys and enums by member name, as in seed 000`() {
        val outcome = run("create_order", """{"customer":"acme","quantity":2,"priority":"High"}""")
        assertEquals(AppFunctionStatus.Success, outcome.status, outcome.json)
        val order = outcome.result.jsonObject
        assertEquals("acme", order["customer"]!!.jsonPrimitive.content)
        assertEquals(2, order["quantity"]!!.jsonPrimitive.int)
        assertEquals("High", order["priority"]!!.jsonPrimitive.content)
        assertEquals("Order ${order["id"]!!.jsonPrimitive.content} for acme created.", outcome.dialog)
        assertNull(outcome.errorCode)
    }

    @Test
    fun `an omitted enum parameter gets its default Normal`() {
        val outcome = run("create_order", """{"customer":"acme","quantity":2}""")
        assertEquals("Normal", outcome.result.jsonObject["priority"]!!.jsonPrimitive.content, outcome.json)
        val param = dispatcher.registry["create_order"]!!.parameters.single { it.name == "priority" }
        assertTrue(param.isOptional)
        assertEquals("\"Normal\"", param.default.toString())
    }

    @Test
    fun `bad arguments are InvalidArgument naming the parameter`() {
        for ((args, name) in listOf(
            """{"customer":"acme","quantity":"two"}""" to "quantity",
            """{"customer":"acme","quantity":2,"priority":"Urgent"}""" to "priority",
            """{"quantity":2}""" to "customer",
            """{"customer":"acme","quantity":2,"colour":"red"}""" to "colour",
        )) {
            val outcome = run("create_order", args)
            assertEquals(AppFunctionErrorCode.InvalidArgument, outcome.errorCode, outcome.json)
            assertTrue(outcome.message!!.contains(name), "${outcome.message} should name $name")
        }
        assertTrue(store.orders.isEmpty())
    }

    @Test
    fun `date-time arguments are ISO 8601 strings`() {
        val id = newOrder()
        val outcome = run("schedule_delivery", """{"order":"$id","at":"2026-05-04T18:00:00+02:00"}""")
        assertEquals("$id at 2026-05-04T16:00:00Z (offset +02:00)", outcome.result.jsonPrimitive.content, outcome.json)
        val bad = run("schedule_delivery", """{"order":"$id","at":"next Monday"}""")
        assertEquals(AppFunctionErrorCode.InvalidArgument, bad.errorCode, bad.json)
        assertTrue(bad.message!!.contains("at"), bad.json)
    }

    @Test
    fun `not in the foreground the sign-in gate asks for the app on apple and is refused with its message on android and other`() {
        val id = newOrder()
        val args = """{"order":"$id"}"""
        val apple = run("cancel_order", args, AppFunctionPlatform.Apple)
        assertEquals(AppFunctionStatus.OpenApp, apple.status, apple.json)
        assertEquals("Sign in to cancel orders.", apple.message)

        val android = run("cancel_order", args, AppFunctionPlatform.Android)
        assertEquals(AppFunctionErrorCode.Denied, android.errorCode, android.json)
        assertEquals("Sign in to cancel orders.", android.message)

        val other = run("cancel_order", args)
        assertEquals(AppFunctionErrorCode.Denied, other.errorCode, other.json)
        assertEquals("open", store.orders[id]!!.status)

        // rerun in the foreground (after the user signed in in the app) passes the gate
        val foreground = run("cancel_order", args, AppFunctionPlatform.Apple, foreground = true)
        assertEquals(AppFunctionStatus.Success, foreground.status, foreground.json)
        assertEquals("cancelled", store.orders[id]!!.status)

        // every refusal reached onInvoked as Denied (openApp as itself)
        val statuses = telemetry.seen.filter { it.first == "cancel_order" }.map { it.second.errorCode ?: it.second.status }
        assertEquals(listOf(AppFunctionStatus.OpenApp, AppFunctionErrorCode.Denied, AppFunctionErrorCode.Denied, AppFunctionStatus.Success), statuses)
        // and onInvoked tells the app being asked for from a refusal
        val asked = telemetry.seen.filter { it.first == "cancel_order" }.map { it.second.appRequested }
        assertEquals(listOf(true, false, false, false), asked)
    }

    @Test
    fun `in the foreground the sign-in gate passes on every platform, and the app's own view calls in the foreground`() {
        for (platform in AppFunctionPlatform.entries) {
            val id = newOrder()
            val o = run("cancel_order", """{"order":"$id"}""", platform, foreground = true)
            assertEquals(AppFunctionStatus.Success, o.status, "$platform: ${o.json}")
            assertEquals("cancelled", store.orders[id]!!.status)
        }
        dispatcher.view().use { view ->
            val id = newOrder()
            val inApp = runBlocking { view.execute("cancel_order", """{"order":"$id"}""") }
            assertEquals(AppFunctionStatus.Success, inApp.status, inApp.json)
            val other = newOrder()
            val outside = runBlocking { view.execute("cancel_order", """{"order":"$other"}""", isForeground = false) }
            assertEquals(AppFunctionErrorCode.Denied, outside.errorCode, outside.json)
            assertEquals("open", store.orders[other]!!.status)
        }
    }

    @Test
    fun `items are shared between delegate and handler, and the handler's dialog is returned`() {
        signIn.signedIn.set(true)
        val id = newOrder()
        val outcome = run("cancel_order", """{"order":"$id"}""", AppFunctionPlatform.Android)
        assertEquals(AppFunctionStatus.Success, outcome.status, outcome.json)
        assertEquals("Order $id cancelled by alice.", outcome.dialog)
        assertEquals("cancelled", outcome.result.jsonObject["status"]!!.jsonPrimitive.content)
    }

    @Test
    fun `an entity parameter is resolved by id, unknown ids are EntityNotFound, and search_order finds orders`() {
        signIn.signedIn.set(true)
        val a = newOrder("acme")
        newOrder("globex")
        newOrder("Acme Ltd")
        val before = provider.lookups.get()
        val ok = run("cancel_order", """{"order":"$a"}""")
        assertEquals(AppFunctionStatus.Success, ok.status, ok.json)
        assertEquals(before + 1, provider.lookups.get())

        val missing = run("cancel_order", """{"order":"o-404"}""")
        assertEquals(AppFunctionErrorCode.EntityNotFound, missing.errorCode, missing.json)

        val found = run("search_order", """{"query":"acme"}""")
        assertEquals(2, found.result.jsonArray.size, found.json)
        val limited = run("search_order", """{"query":"acme","limit":1}""")
        assertEquals(listOf(a), limited.result.jsonArray.map { it.jsonObject["id"]!!.jsonPrimitive.content })
        val generated = dispatcher.registry.functions.last()
        assertEquals("search_order", generated.id)
        assertTrue(generated.isGenerated)
    }

    @Test
    fun `cancelling the coroutine that awaits execute cancels the suspended handler`() = runBlocking {
        val started = functions.slowStarted.getOrPut("c1") { CompletableDeferred() }
        val cancelled = functions.slowCancelled.getOrPut("c1") { CompletableDeferred() }
        val job = launch(Dispatchers.Default) {
            dispatcher.execute(AppFunctionInvocation("slow_report"), """{"tag":"c1"}""")
            error("execute should not return normally")
        }
        withTimeout(5.seconds) { started.await() }
        job.cancel()
        withTimeout(5.seconds) { cancelled.await() }
        job.join()
        withTimeout(5.seconds) {
            while (telemetry.seen.none { it.first == "slow_report" }) yield()
        }
        assertEquals(AppFunctionErrorCode.Cancelled, telemetry.seen.single { it.first == "slow_report" }.second.errorCode)
    }

    @Test
    fun `a timeout ends the call TimedOut and cancels the suspended handler`() = runBlocking {
        // On a loaded machine the deadline can pass before the call reaches its handler: it
        // ends TimedOut all the same, but there is no suspended handler to cancel. Then the
        // test tries again with twice the timeout, until the handler started in time.
        var timeout = 50.milliseconds
        for (attempt in 1..8) {
            val tag = "t1-$attempt"
            val cancelled = functions.slowCancelled.getOrPut(tag) { CompletableDeferred() }
            val outcome = dispatcher.execute(AppFunctionInvocation("slow_report", timeout = timeout), """{"tag":"$tag"}""")
            assertEquals(AppFunctionErrorCode.TimedOut, outcome.errorCode, outcome.json)
            // the handler starts inline, before execute suspends, or never
            if (functions.slowStarted[tag]?.isCompleted == true) {
                withTimeout(5.seconds) { cancelled.await() }
                return@runBlocking
            }
            timeout *= 2
        }
        fail("the handler never started before its deadline, up to ${timeout / 2}")
    }

    @Test
    fun `a suspend handler that finishes returns its result`() {
        val outcome = run("slow_report", """{"tag":"quick","millis":5}""")
        assertEquals("report quick", outcome.result.jsonPrimitive.content, outcome.json)
    }

    @Test
    fun `100 concurrent coroutines`() = runBlocking {
        signIn.signedIn.set(true)
        val outcomes = (1..100).map { i ->
            async(Dispatchers.Default) {
                if (i % 2 == 0) {
                    dispatcher.execute(AppFunctionInvocation("create_order"), """{"customer":"c$i","quantity":$i}""")
                } else {
                    dispatcher.execute(AppFunctionInvocation("slow_report"), """{"tag":"p$i","millis":10}""")
                }
            }
        }.awaitAll()
        assertTrue(outcomes.all { it.status == AppFunctionStatus.Success }, outcomes.filter { !it.isSuccess }.joinToString())
        assertEquals(50, store.orders.size)
        assertEquals((1..100).filter { it % 2 == 1 }.map { "report p$it" }.toSet(), outcomes.filterIndexed { i, _ -> i % 2 == 0 }.map { it.result.jsonPrimitive.content }.toSet())
    }

    @Test
    fun `a throwing handler is HandlerFailed with its message`() {
        val outcome = run("explode", """{"reason":"boom"}""")
        assertEquals(AppFunctionStatus.Error, outcome.status)
        assertEquals(AppFunctionErrorCode.HandlerFailed, outcome.errorCode, outcome.json)
        assertEquals("exploded: boom", outcome.message)
        assertEquals(JsonNull, outcome.result)
    }

    @Test
    fun `an AppFunctionException chooses the error code`() {
        val outcome = run("refuse", """{"code":"NotSupported"}""")
        assertEquals(AppFunctionErrorCode.NotSupported, outcome.errorCode, outcome.json)
        assertEquals("refused with NotSupported", outcome.message)
    }

    @Test
    fun `exceptions in onInvoked are logged and ignored`() {
        dispatcher.addDelegate(ThrowingTelemetryDelegate())
        val outcome = run("create_order", """{"customer":"acme","quantity":1}""")
        assertEquals(AppFunctionStatus.Success, outcome.status, outcome.json)
        assertTrue(logs.any { it.contains("telemetry is down") }, logs.toString())
        assertEquals("create_order", telemetry.seen.last().first)
    }

    @Test
    fun `unknown functions are FunctionNotFound and execute never throws`() {
        assertEquals(AppFunctionErrorCode.FunctionNotFound, run("nope", "{}").errorCode)
        assertEquals(AppFunctionErrorCode.InvalidArgument, run("create_order", "{not json").errorCode)
        assertEquals(AppFunctionErrorCode.InvalidArgument, run("create_order", "[1,2]").errorCode)
    }

    @Test
    fun `the context reports platform, foreground and caller package`() {
        val seen = Collections.synchronizedList(ArrayList<String>())
        dispatcher.addDelegate(object : dev.appfunctions.AppFunctionDelegate {
            override suspend fun onInvoking(context: dev.appfunctions.AppFunctionContext): dev.appfunctions.AppFunctionGate {
                if (!context.isEntityLookup) {
                    seen += "${context.functionId} ${context.platform} ${context.isForeground} '${context.callerPackage}'"
                    seen += context.descriptor!!["title"]!!.jsonPrimitive.content
                }
                return dev.appfunctions.AppFunctionGate.Allow
            }
        })
        runBlocking {
            dispatcher.execute(AppFunctionInvocation("create_order", AppFunctionPlatform.Android, callerPackage = "com.google.android.apps.gemini"), """{"customer":"a","quantity":1}""")
            dispatcher.execute(AppFunctionInvocation("create_order", AppFunctionPlatform.Apple, isForeground = true), """{"customer":"a","quantity":1}""")
        }
        assertEquals(
            listOf("create_order Android false 'com.google.android.apps.gemini'", "Create order", "create_order Apple true ''", "Create order"),
            seen.toList(),
        )
    }

    @Test
    fun `UTF-8 text survives the round trip whatever the locale`() {
        val name = "Zoë 東京 🚀"
        val outcome = run("create_order", """{"customer":"$name","quantity":1}""")
        assertEquals(name, outcome.result.jsonObject["customer"]!!.jsonPrimitive.content, outcome.json)
        assertEquals("Order ${outcome.result.jsonObject["id"]!!.jsonPrimitive.content} for $name created.", outcome.dialog)
    }

    @Test
    fun `the blocking variant runs from a plain thread, and its token cancels`() {
        val ok = dispatcher.executeBlocking(AppFunctionInvocation("create_order"), """{"customer":"b","quantity":1}""")
        assertEquals(AppFunctionStatus.Success, ok.status, ok.json)
        dev.appfunctions.AppFunctionCancellationToken().use { token ->
            val started = functions.slowStarted.getOrPut("b1") { CompletableDeferred() }
            val t = Thread { runBlocking { withTimeout(5.seconds) { started.await() } }; token.cancel() }
            t.start()
            val outcome = dispatcher.executeBlocking(AppFunctionInvocation("slow_report"), """{"tag":"b1"}""", token)
            t.join()
            assertEquals(AppFunctionErrorCode.Cancelled, outcome.errorCode, outcome.json)
            assertTrue(token.isCancelled)
        }
    }

    @Test
    fun `search results are arrays of full entities`() {
        newOrder("initech")
        val result = run("search_order", """{"query":"initech"}""").result
        assertTrue(result is JsonArray)
        assertEquals(setOf("id", "customer", "quantity", "priority", "status"), result.jsonArray.single().jsonObject.keys)
    }

    @Suppress("unused")
    private val keepLogger: AppFunctionLogger? = null
}

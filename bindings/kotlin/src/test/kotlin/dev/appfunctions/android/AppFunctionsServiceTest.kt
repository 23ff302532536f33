package dev.appfunctions.android

import android.app.appfunctions.AppFunctionException
import android.app.appfunctions.ExecuteAppFunctionRequest
import android.app.appfunctions.ExecuteAppFunctionResponse
import android.app.appsearch.GenericDocument
import android.content.pm.SigningInfo
import android.os.CancellationSignal
import android.os.OutcomeReceiver
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.scenario.Order
import dev.appfunctions.scenario.OrderFunctions
import dev.appfunctions.scenario.OrderProvider
import dev.appfunctions.scenario.OrderStore
import dev.appfunctions.scenario.SignInDelegate
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * The service driven as the platform drives it, against the stand-ins of the platform classes
 * (src/test/kotlin/android/): documents in, the callback answered once.
 */
class AppFunctionsServiceTest {
    private val store = OrderStore()
    private val functions = OrderFunctions(store)
    private val signIn = SignInDelegate()
    private val dispatcher = AppFunctionDispatcher().apply {
        registerEntity(Order::class, OrderProvider(store))
        register(functions)
        addDelegate(signIn)
    }

    /** Each test publishes under its own name, so tests never see each other's dispatchers. */
    private val name = "android-test-${next.incrementAndGet()}"

    @AfterEach
    fun close() = dispatcher.close()

    private fun service(timeout: Duration = 5.seconds) = object : AppFunctionsService() {
        override val publishedName get() = name
        override val publishTimeout get() = timeout
    }

    /** Records what the service answers, and how often. */
    private class Receiver : OutcomeReceiver<ExecuteAppFunctionResponse, AppFunctionException> {
        val calls = AtomicInteger()
        val result = CompletableFuture<Any>()
        val thread = CompletableFuture<Thread>()

        override fun onResult(result: ExecuteAppFunctionResponse) {
            calls.incrementAndGet()
            thread.complete(Thread.currentThread())
            this.result.complete(result)
        }

        override fun onError(error: AppFunctionException) {
            calls.incrementAndGet()
            thread.complete(Thread.currentThread())
            result.complete(error)
        }

        fun response(): ExecuteAppFunctionResponse = result.get(10, TimeUnit.SECONDS) as? ExecuteAppFunctionResponse
            ?: throw AssertionError("expected a response, got ${result.get()}")

        fun error(): AppFunctionException = result.get(10, TimeUnit.SECONDS) as? AppFunctionException
            ?: throw AssertionError("expected an AppFunctionException, got ${result.get()}")
    }

    private fun doc(build: GenericDocument.Builder<GenericDocument.Builder<*>>.() -> Unit): GenericDocument =
        GenericDocument.Builder<GenericDocument.Builder<*>>("", "", "").apply(build).build()

    private fun call(
        service: AppFunctionsService,
        functionId: String,
        parameters: GenericDocument = doc {},
        signal: CancellationSignal = CancellationSignal(),
    ): Receiver {
        val r = Receiver()
        service.onExecuteFunction(
            ExecuteAppFunctionRequest("com.example.shop", functionId, parameters),
            "com.google.android.apps.gemini",
            SigningInfo(),
            signal,
            r,
        )
        return r
    }

    private fun createOrderDoc() = doc {
        setPropertyString("customer", "acme")
        setPropertyLong("quantity", 2)
    }

    @Test
    fun `a call answers the result document, the return value a nested document and the dialog in the extras`() {
        dispatcher.publish(name)
        val r = call(service(), "create_order", createOrderDoc())
        val response = r.response()
        @Suppress("UNCHECKED_CAST")
        val orders = response.resultDocument.getProperty(ExecuteAppFunctionResponse.PROPERTY_RETURN_VALUE) as Array<GenericDocument>
        val order = orders.single()
        assertEquals("acme", (order.getProperty("customer") as Array<*>).single())
        assertEquals(2L, (order.getProperty("quantity") as LongArray).single())
        assertEquals("Normal", (order.getProperty("priority") as Array<*>).single(), "the default")
        val id = (order.getProperty("id") as Array<*>).single()
        assertEquals("Order $id for acme created.", response.extras.getString("dev.appfunctions.extra.DIALOG"))
        assertEquals(1, r.calls.get())
        assertTrue(store.orders.containsKey(id))
    }

    @Test
    fun `each outcome answers its AppFunctionException code`() {
        dispatcher.publish(name)
        val s = service()
        fun code(id: String, parameters: GenericDocument = doc {}) = call(s, id, parameters).error().errorCode
        assertEquals(AppFunctionException.ERROR_FUNCTION_NOT_FOUND, code("no_such_function"))
        assertEquals(AppFunctionException.ERROR_INVALID_ARGUMENT, code("create_order", doc { setPropertyString("customer", "acme") }))
        assertEquals(AppFunctionException.ERROR_INVALID_ARGUMENT, code("create_order", doc { setPropertyString("colour", "red") }))
        // the sign-in gate asks for the app: an Android call is refused
        val orderId = (call(s, "create_order", createOrderDoc()).response().resultDocument
            .getProperty(ExecuteAppFunctionResponse.PROPERTY_RETURN_VALUE) as Array<*>).let {
            ((it.single() as GenericDocument).getProperty("id") as Array<*>).single() as String
        }
        assertEquals(AppFunctionException.ERROR_DENIED, code("cancel_order", doc { setPropertyString("order", orderId) }))
        signIn.signedIn.set(true)
        assertEquals(1500, code("cancel_order", doc { setPropertyString("order", "o-404") }), "EntityNotFound")
        assertEquals(AppFunctionException.ERROR_APP_UNKNOWN_ERROR, code("explode", doc { setPropertyString("reason", "x") }))
        dispatcher.setEnabled("explode", false)
        assertEquals(AppFunctionException.ERROR_DISABLED, code("explode", doc { setPropertyString("reason", "x") }))
        val expected = mapOf(
            AppFunctionErrorCode.FunctionNotFound to 1003, AppFunctionErrorCode.Disabled to 1002,
            AppFunctionErrorCode.InvalidArgument to 1001, AppFunctionErrorCode.EntityNotFound to 1500,
            AppFunctionErrorCode.Denied to 1000, AppFunctionErrorCode.PermissionDenied to 3500,
            AppFunctionErrorCode.Cancelled to 2001, AppFunctionErrorCode.TimedOut to 2001,
            AppFunctionErrorCode.HandlerFailed to 3000, AppFunctionErrorCode.LimitExceeded to 1501,
            AppFunctionErrorCode.NotSupported to 3501, AppFunctionErrorCode.InternalError to 2000,
        )
        assertEquals(AppFunctionErrorCode.entries.toSet(), expected.keys, "every code is listed")
        for ((c, android) in expected) {
            val e = call(s, "refuse", doc { setPropertyString("code", c.name) }).error()
            assertEquals(android, e.errorCode, "$c: ${e.errorMessage}")
            assertEquals("refused with ${c.name}", e.errorMessage)
        }
    }

    @Test
    fun `the CancellationSignal cancels the call, which answers ERROR_CANCELLED once`() {
        dispatcher.publish(name)
        val signal = CancellationSignal()
        val r = call(service(), "slow_report", doc { setPropertyString("tag", "c1") }, signal)
        runBlocking { withTimeout(10_000) { functions.slowStarted.computeIfAbsent("c1") { kotlinx.coroutines.CompletableDeferred() }.await() } }
        assertEquals(0, r.calls.get(), "still running")
        signal.cancel()
        assertEquals(AppFunctionException.ERROR_CANCELLED, r.error().errorCode)
        runBlocking { withTimeout(10_000) { functions.slowCancelled.computeIfAbsent("c1") { kotlinx.coroutines.CompletableDeferred() }.await() } }
        Thread.sleep(100)
        assertEquals(1, r.calls.get(), "the callback is answered exactly once")
    }

    @Test
    fun `a call made before the dispatcher is published waits for it, off the calling thread, then succeeds`() {
        val caller = Thread.currentThread()
        val started = System.nanoTime()
        val r = call(service(timeout = 10.seconds), "create_order", createOrderDoc())
        val returnedAfter = (System.nanoTime() - started) / 1_000_000
        assertTrue(returnedAfter < 1_000, "onExecuteFunction returned at once (${returnedAfter} ms), not after the wait")
        assertEquals(0, r.calls.get())
        Thread.sleep(300)
        assertEquals(0, r.calls.get(), "waiting for the publication")
        dispatcher.publish(name)
        val response = r.response()
        assertNotNull(response.resultDocument.getProperty(ExecuteAppFunctionResponse.PROPERTY_RETURN_VALUE))
        assertTrue(r.thread.get() != caller, "answered off the main thread")
        assertEquals(1, r.calls.get())
    }

    @Test
    fun `a call past the wait fails with ERROR_SYSTEM_ERROR naming what was not ready`() {
        val e = call(service(timeout = 200.milliseconds), "create_order", createOrderDoc()).error()
        assertEquals(AppFunctionException.ERROR_SYSTEM_ERROR, e.errorCode)
        assertTrue(e.errorMessage!!.contains(name), e.errorMessage)
        assertTrue(e.errorMessage!!.contains("not ready"), e.errorMessage)
    }

    @Test
    fun `a call cancelled while it waits for the dispatcher answers ERROR_CANCELLED at once`() {
        val signal = CancellationSignal()
        val r = call(service(timeout = 10.seconds), "create_order", createOrderDoc(), signal)
        signal.cancel()
        assertEquals(AppFunctionException.ERROR_CANCELLED, r.error().errorCode)
        dispatcher.publish(name)
        Thread.sleep(200)
        assertEquals(1, r.calls.get())
        assertTrue(store.orders.isEmpty(), "the call never ran")
    }

    private companion object {
        val next = AtomicLong()
    }
}

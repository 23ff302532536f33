package dev.appfunctions

import dev.appfunctions.internal.DispatcherState
import dev.appfunctions.internal.Handles
import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import dev.appfunctions.scenario.Order
import dev.appfunctions.scenario.OrderFunctions
import dev.appfunctions.scenario.OrderProvider
import dev.appfunctions.scenario.OrderStore
import dev.appfunctions.scenario.SignInDelegate
import dev.appfunctions.scenario.TelemetryDelegate
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import java.lang.ref.WeakReference
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNotNull
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

class LifecycleTest {
    private fun fullApp(): Triple<AppFunctionDispatcher, OrderFunctions, OrderStore> {
        val store = OrderStore()
        val functions = OrderFunctions(store)
        val d = AppFunctionDispatcher()
        d.registerEntity(Order::class, OrderProvider(store))
        d.register(functions)
        d.register(NoteFunctions(NoteRepository()))
        d.addDelegate(SignInDelegate(AtomicBoolean(true)))
        d.addDelegate(TelemetryDelegate())
        return Triple(d, functions, store)
    }

    private fun gc() {
        repeat(3) {
            System.gc()
            @Suppress("DEPRECATION")
            System.runFinalization()
            ByteArray(8 shl 20) // pressure
            Thread.sleep(20)
        }
    }

    @Test
    fun `a duplicate id is reported as a duplicate, with the core's status name`() {
        AppFunctionDispatcher().use { d ->
            val store = OrderStore()
            d.registerEntity(Order::class, OrderProvider(store))
            d.register(OrderFunctions(store))
            val e = assertFailsWith<AppFunctionRegistrationException> { d.register(OrderFunctions(store)) }
            assertEquals("AF_ERR_DUPLICATE", e.status)
            assertTrue(e.message!!.contains("(AF_ERR_DUPLICATE)"), e.message)
        }
    }

    @Test
    fun `user data is released when the dispatcher closes, counted`() {
        val handlesBefore = Handles.size
        val (d, _, _) = fullApp()
        // 1 log sink + 1 entity provider + 6 order functions + 3 note functions + 2 delegates
        assertEquals(13, d.userDataHandedOver)
        assertEquals(0, d.userDataReleased)
        assertEquals(handlesBefore + 13, Handles.size)
        assertTrue(d.executeBlocking(AppFunctionInvocation("create_order"), """{"customer":"a","quantity":1}""").isSuccess)
        d.close()
        assertEquals(13, d.userDataReleased)
        assertEquals(handlesBefore, Handles.size)
        d.close() // idempotent
        assertEquals(13, d.userDataReleased)
    }

    @Test
    fun `a call in flight keeps its handler until it ends, then everything is released`() = runBlocking {
        val (d, functions, _) = fullApp()
        val started = functions.slowStarted.getOrPut("f1") { CompletableDeferred() }
        val outcome = async(Dispatchers.Default) { d.execute(AppFunctionInvocation("slow_report"), """{"tag":"f1","millis":300}""") }
        withTimeout(5.seconds) { started.await() }
        d.close()
        assertTrue(d.userDataReleased < d.userDataHandedOver, "slow_report's handler is still in use")
        assertEquals("report f1", outcome.await().result.toString().trim('"'))
        withTimeout(5.seconds) { while (d.userDataReleased < d.userDataHandedOver) kotlinx.coroutines.delay(5) }
        assertEquals(d.userDataHandedOver, d.userDataReleased)
    }

    private fun registerAndDropReferences(d: AppFunctionDispatcher): WeakReference<Any> {
        val store = OrderStore()
        val functions = OrderFunctions(store)
        d.registerEntity(Order::class, OrderProvider(store))
        d.register(functions)
        d.addDelegate(TelemetryDelegate())
        return WeakReference(functions)
    }

    @Test
    fun `registrations survive System gc between registration and calls, and are collectable after close`() {
        val d = AppFunctionDispatcher()
        val weak = registerAndDropReferences(d)
        gc()
        assertNotNull(weak.get(), "the dispatcher keeps the registered instance reachable")
        repeat(1000) { i ->
            val o = d.executeBlocking(AppFunctionInvocation("create_order"), """{"customer":"c$i","quantity":1}""")
            assertTrue(o.isSuccess, o.json)
            if (i % 250 == 0) gc()
        }
        val id = d.executeBlocking(AppFunctionInvocation("search_order"), """{"query":"c999"}""")
        assertTrue(id.isSuccess, id.json)
        d.close()
        gc()
        assertNull(weak.get(), "after close nothing holds the instance")
    }

    private fun forgottenDispatcher(): DispatcherState {
        val d = AppFunctionDispatcher()
        d.register(NoteFunctions(NoteRepository()))
        return d.state
    }

    @Test
    fun `a dispatcher that is never closed is freed by its Cleaner`() {
        val state = forgottenDispatcher()
        assertEquals(4, state.handedOver.get())
        val deadline = System.nanoTime() + 10_000_000_000
        while (state.released.get() < 4 && System.nanoTime() < deadline) gc()
        assertEquals(4, state.released.get())
    }

    @Test
    fun `after close, execute answers an error outcome and registration throws`() {
        val d = AppFunctionDispatcher()
        d.close()
        assertTrue(d.isClosed)
        val o = d.executeBlocking(AppFunctionInvocation("x"))
        // the code and words every binding uses (LimitExceeded, as after shutdown)
        assertEquals(AppFunctionErrorCode.LimitExceeded, o.errorCode)
        assertEquals("\"x\": the dispatcher was disposed", o.message)
        val async = runBlocking { d.execute(AppFunctionInvocation("x")) }
        assertEquals(AppFunctionErrorCode.LimitExceeded, async.errorCode)
        assertEquals("\"x\": the dispatcher was disposed", async.message)
        val e = assertFailsWith<IllegalStateException> { d.register(NoteFunctions(NoteRepository())) }
        assertTrue(e.message!!.contains("the dispatcher was disposed"), e.message)
    }

    @Test
    fun `the library is checked at load`() {
        assertTrue(AppFunctionsLibrary.version.matches(Regex("""\d+\.\d+\.\d+.*""")), AppFunctionsLibrary.version)
        val e = assertFailsWith<AppFunctionsLibraryException> { AppFunctionsLibrary.checkAbi(2) }
        assertEquals(
            "libappfunctions has C ABI version 2 but this Kotlin binding was written for version 1: " +
                "use the native library and the binding of the same release",
            e.message,
        )
        AppFunctionsLibrary.checkAbi(1)
    }

    @Test
    fun `the v1 structs carry their size and the error code names come from the core`() {
        // the C compiler's layout, as the shim reports it (abi/v1.txt gives the 64-bit one)
        val layout = dev.appfunctions.internal.Layout
        val p = layout.POINTER_SIZE
        assertEquals(if (p == 8) 48 else 32, dev.appfunctions.internal.InvocationLayout.SIZE)
        assertEquals(if (p == 8) 40 else 28, dev.appfunctions.internal.InvocationLayout.HOST_CONTEXT)
        assertEquals(if (p == 8) 32 else 20, layout.DELEGATE_SIZE)
        if (p == 8) assertEquals(56, layout.HTTP_REQUEST_SIZE)
        for (code in AppFunctionErrorCode.entries) {
            assertEquals(code.name, dev.appfunctions.internal.NativeCalls.errorCodeName(code.code))
        }
    }

    @Test
    fun `shutdown drains the calls in flight and refuses new ones`() = runBlocking {
        val (d, functions, _) = fullApp()
        val started = functions.slowStarted.getOrPut("s1") { CompletableDeferred() }
        val outcome = async(Dispatchers.Default) { d.execute(AppFunctionInvocation("slow_report"), """{"tag":"s1","millis":300}""") }
        withTimeout(5.seconds) { started.await() }
        assertEquals(1, d.inFlight)
        assertEquals(1, d.shutdown(kotlin.time.Duration.ZERO))
        val refused = d.executeBlocking(AppFunctionInvocation("create_order"), """{"customer":"a","quantity":1}""")
        assertEquals(AppFunctionErrorCode.LimitExceeded, refused.errorCode, refused.json)
        assertTrue(refused.message!!.contains("shutting down"), refused.json)
        assertEquals(0, d.shutdown(10.seconds))
        assertEquals("report s1", outcome.await().result.toString().trim('"'))
        assertEquals(0, d.inFlight)
        d.close()
        withTimeout(5.seconds) { while (d.userDataReleased < d.userDataHandedOver) kotlinx.coroutines.delay(5) }
        assertEquals(d.userDataHandedOver, d.userDataReleased)
    }

    @Test
    fun `the default timeout ends a suspended handler and releases its cancel registration`() = runBlocking {
        val handlesBefore = Handles.size
        val (d, _, _) = fullApp()
        val registered = Handles.size
        d.setDefaultTimeout(50.milliseconds)
        val o = d.execute(AppFunctionInvocation("slow_report"), """{"tag":"t1","millis":5000}""")
        assertEquals(AppFunctionErrorCode.TimedOut, o.errorCode, o.json)
        assertTrue(o.message!!.contains("50 ms"), o.json)
        // the job's cancel registration and the call's handles are all released
        withTimeout(5.seconds) { while (Handles.size > registered) kotlinx.coroutines.delay(5) }
        // an explicit timeout wins over the default; INFINITE is none
        d.setDefaultTimeout(null)
        val ok = d.execute(AppFunctionInvocation("slow_report", timeout = kotlin.time.Duration.INFINITE), """{"tag":"t2","millis":100}""")
        assertTrue(ok.isSuccess, ok.json)
        d.close()
        // the completing thread lets go of the call (and the registrations) just after the outcome
        withTimeout(5.seconds) { while (Handles.size > handlesBefore) kotlinx.coroutines.delay(5) }
        assertEquals(handlesBefore, Handles.size)
    }

    @Test
    fun `a view keeps the registry alive past close, and its toolkit texts are released after it`() = runBlocking {
        val d = AppFunctionDispatcher()
        d.toolkit("mail") {
            description = "Mail operations"
            functionResult { "dynamic" }
        }
        d.function("send_mail") {
            toolkit = "mail"
            blockingHandler { _, _ -> null }
        }
        val v = d.view()
        val session = d.mcpSession()
        assertEquals(4, d.userDataHandedOver) // the log sink, the texts, the handler, the session's sink
        d.close()
        // the view and the session hold the core's registry: the view still works
        assertEquals("dynamic", v.execute("mail").result.toString().trim('"'))
        assertTrue(d.userDataReleased < d.userDataHandedOver)
        session.close()
        v.close()
        withTimeout(5.seconds) { while (d.userDataReleased < d.userDataHandedOver) kotlinx.coroutines.delay(5) }
        assertEquals(d.userDataHandedOver, d.userDataReleased)
        val closed = v.execute("mail")
        assertEquals(AppFunctionErrorCode.LimitExceeded, closed.errorCode, "a closed view answers an outcome")
        assertEquals("\"mail\": the view was disposed", closed.message)
    }

    @Test
    fun `a forgotten view and session are freed by their Cleaner`() {
        val d = AppFunctionDispatcher()
        d.function("f") { blockingHandler { _, _ -> null } }
        var v: AppFunctionView? = d.view()
        var s: AppFunctionMcpSession? = d.mcpSession()
        val vRef = WeakReference(v)
        val sRef = WeakReference(s)
        @Suppress("UNUSED_VALUE")
        v = null
        @Suppress("UNUSED_VALUE")
        s = null
        d.close()
        var tries = 0
        while ((vRef.get() != null || sRef.get() != null || d.userDataReleased < d.userDataHandedOver) && tries++ < 50) gc()
        assertNull(vRef.get())
        assertNull(sRef.get())
        assertEquals(d.userDataHandedOver, d.userDataReleased, "the session's sink and the handler, once the view let go of the registry")
    }
}

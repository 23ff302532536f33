package dev.appfunctions

import dev.appfunctions.internal.Handles
import dev.appfunctions.internal.afterSuspendForTest
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.builtins.serializer
import org.junit.jupiter.api.Test
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.resume
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.seconds

/**
 * The suspend `execute`: an outcome that is there when `af_execute_async` returns (the handler
 * answered inline) is answered without suspending; a later one resumes the caller, from whatever
 * thread finishes the call; the caller's cancellation reaches the core; and the outcome is read
 * from the core's fixed shape with its result parsed on first read. The kotlin lane runs this
 * class on the JNI shim (whose nativeExecuteAsync keeps an inline outcome)
 * and with the shim under AddressSanitizer.
 */
class SuspendExecuteTest {
    private val handlerRuns = AtomicInteger()
    private val handlerCancelled = CompletableDeferred<Unit>()
    private val handlerStarted = CompletableDeferred<Unit>()
    private var between = CompletableDeferred<JsonElement>()

    private fun app(d: AppFunctionDispatcher) {
        d.function("inline") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args ->
                handlerRuns.incrementAndGet()
                args["text"]
            }
        }
        d.function("inline_suspend") {
            result(AppFunctionType.String)
            handler { _, _ -> JsonPrimitive("not suspended") }
        }
        d.function("later") {
            result(AppFunctionType.String)
            handler { _, _ ->
                delay(5)
                JsonPrimitive("late")
            }
        }
        d.function("from_thread") {
            result(AppFunctionType.String)
            handler { _, _ ->
                suspendCancellableCoroutine { c ->
                    Thread {
                        Thread.sleep(10)
                        handlerRuns.incrementAndGet()
                        c.resume(JsonPrimitive("thread"))
                    }.start()
                }
            }
        }
        d.function("between") {
            result(AppFunctionType.String)
            handler { _, _ -> between.await() }
        }
        d.function("never") {
            handler { _, _ ->
                try {
                    handlerStarted.complete(Unit)
                    awaitCancellation()
                } finally {
                    handlerCancelled.complete(Unit)
                }
            }
        }
        d.function("cancels_its_caller") {
            result(AppFunctionType.String)
            blockingHandler { _, _ ->
                handlerRuns.incrementAndGet()
                caller!!.cancel()
                JsonPrimitive("answered")
            }
        }
    }

    @Volatile
    private var caller: Job? = null

    @Test
    fun `a handler answering inline is answered without suspending, leaving nothing behind`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val before = Handles.size
            for (id in listOf("inline", "inline_suspend")) {
                var o: AppFunctionOutcome? = null
                // started undispatched: it runs here until it first suspends, so done means it never did
                val job = launch(start = CoroutineStart.UNDISPATCHED) { o = d.execute(AppFunctionInvocation(id), if (id == "inline") """{"text":"t"}""" else "{}") }
                assertTrue(job.isCompleted, "$id: execute suspended")
                assertEquals(AppFunctionStatus.Success, o!!.status, o!!.json)
            }
            repeat(1000) { i ->
                val o = d.execute(AppFunctionInvocation("inline"), """{"text":"t$i"}""")
                assertEquals("t$i", o.result.jsonPrimitive.content, o.json)
            }
            assertEquals(1001, handlerRuns.get())
            delay(50)
            assertEquals(before, Handles.size, "no per-call handle left")
            assertEquals(0, d.inFlight)
        }
    }

    @Test
    fun `a late answer resumes the caller, from a coroutine or from a plain thread`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val before = Handles.size
            var o: AppFunctionOutcome? = null
            val job = launch(start = CoroutineStart.UNDISPATCHED) { o = d.execute(AppFunctionInvocation("from_thread")) }
            assertFalse(job.isCompleted, "the handler has not answered yet")
            job.join()
            assertEquals("\"thread\"", o!!.resultJson, o!!.json)
            assertEquals(1, handlerRuns.get())
            val late = (1..20).map { async(Dispatchers.Default) { d.execute(AppFunctionInvocation("later")) } }.map { it.await() }
            assertTrue(late.all { it.resultJson == "\"late\"" }, late.first().json)
            delay(50) // the suspended handlers' cancel registrations are released as their calls end
            assertEquals(before, Handles.size, "no per-call handle left")
        }
    }

    @Test
    fun `an answer from another thread while the handler's callback runs is the caller's at once`() = runBlocking {
        // Unconfined: the handler resumes on the thread that completes `between`, and answers the call there
        AppFunctionDispatcher(coroutineContext = Dispatchers.Unconfined).use { d ->
            app(d)
            val before = Handles.size
            repeat(3) { round ->
                between = CompletableDeferred()
                // the handler has suspended; its callback has not returned to the core: another thread answers now
                afterSuspendForTest = Runnable {
                    val t = Thread { between.complete(JsonPrimitive("between $round")) }
                    t.start()
                    t.join()
                }
                var o: AppFunctionOutcome? = null
                val job = try {
                    launch(start = CoroutineStart.UNDISPATCHED) { o = d.execute(AppFunctionInvocation("between")) }
                } finally {
                    afterSuspendForTest = null
                }
                // the core finishes the call on the thread that drives it, once the callback returns
                assertTrue(job.isCompleted, "the outcome was there when af_execute_async returned")
                assertEquals("\"between $round\"", o!!.resultJson, o!!.json)
            }
            delay(50)
            assertEquals(before, Handles.size, "no per-call handle left")
        }
    }

    @Test
    fun `answers racing the return of af_execute_async each reach their caller once`() = runBlocking {
        // Unconfined: a handler resumed by the pool's thread answers there at once, racing the caller's return
        val pool = java.util.concurrent.Executors.newFixedThreadPool(2)
        try {
            AppFunctionDispatcher(coroutineContext = Dispatchers.Unconfined).use { d ->
                d.function("raced") {
                    parameter("n", AppFunctionType.Int32)
                    result(AppFunctionType.Int32)
                    handler { _, args -> suspendCancellableCoroutine { c -> pool.execute { c.resume(args["n"]) } } }
                }
                val before = Handles.size
                val callers = (1..2).map { k ->
                    async(Dispatchers.Default) {
                        (0 until 2000).map { i -> d.execute(AppFunctionInvocation("raced"), """{"n":${k * 10_000 + i}}""").result.jsonPrimitive.int }
                    }
                }
                for ((k, got) in callers.map { it.await() }.withIndex()) assertEquals((0 until 2000).map { (k + 1) * 10_000 + it }, got)
                withTimeout(5.seconds) { while (d.inFlight != 0) delay(5) }
                delay(50)
                assertEquals(before, Handles.size, "no per-call handle left")
            }
        } finally {
            pool.shutdown()
        }
    }

    @Test
    fun `cancelling the caller before the answer cancels the call in the core`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val before = Handles.size
            val job = async(Dispatchers.Default) { d.execute(AppFunctionInvocation("never")) }
            handlerStarted.await()
            assertEquals(1, d.inFlight)
            job.cancel()
            assertFailsWith<CancellationException> { job.await() }
            withTimeout(5.seconds) { handlerCancelled.await() } // the core cancelled the handler's coroutine
            withTimeout(5.seconds) { while (d.inFlight != 0) delay(5) }
            // a caller cancelled before it calls: the call is cancelled as soon as it would wait
            val pre = async(Dispatchers.Default) {
                cancel()
                d.execute(AppFunctionInvocation("later"))
            }
            assertFailsWith<CancellationException> { pre.await() }
            withTimeout(5.seconds) { while (d.inFlight != 0) delay(5) }
            delay(20)
            assertEquals(before, Handles.size, "no per-call handle left")
            assertEquals("\"late\"", d.execute(AppFunctionInvocation("later")).resultJson, "the next call runs")
        }
    }

    @Test
    fun `cancelling the caller after the answer arrived still ends it with its CancellationException`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val before = Handles.size
            // inline: the answer is there when af_execute_async returns, the caller cancelled meanwhile
            val inline = launch(start = CoroutineStart.UNDISPATCHED) {
                caller = coroutineContext[Job]
                d.execute(AppFunctionInvocation("cancels_its_caller"))
                error("execute returned to a cancelled caller")
            }
            assertTrue(inline.isCancelled)
            assertEquals(1, handlerRuns.get(), "the handler ran once and answered")
            // late: the outcome resumed the caller, which is cancelled before it runs again
            val late = launch { d.execute(AppFunctionInvocation("from_thread")) }
            yield() // it starts and waits
            while (handlerRuns.get() < 2) Thread.sleep(5) // this thread busy: the caller cannot run yet
            Thread.sleep(50) // the outcome arrives and resumes it (dispatched to this busy thread)
            late.cancel()
            late.join()
            assertTrue(late.isCancelled)
            assertEquals(0, d.inFlight)
            delay(50)
            assertEquals(before, Handles.size, "no per-call handle left")
        }
    }

    @Test
    fun `the result is parsed on its first read and kept`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            d.types {
                record("Order") {
                    field("id", AppFunctionType.String)
                    field("n", AppFunctionType.Int32)
                    field("tags", AppFunctionType.array(AppFunctionType.String))
                }
            }
            d.function("order") {
                result(AppFunctionType.record("Order"))
                blockingHandler { _, _ -> buildJsonObject { put("id", "o-1"); put("n", 2); put("tags", buildJsonArray { add(JsonPrimitive("a")) }) } }
            }
            for (o in listOf(d.execute(AppFunctionInvocation("order")), d.executeBlocking(AppFunctionInvocation("order")))) {
                val first = o.result
                assertSame(first, o.result, "read twice: the same tree")
                assertEquals("o-1", first.jsonObject["id"]!!.jsonPrimitive.content)
                assertEquals(2, first.jsonObject["n"]!!.jsonPrimitive.int)
                assertEquals("""{"id":"o-1","n":2,"tags":["a"]}""", o.resultJson)
                assertEquals(AppFunctionOutcome.parse(o.json).result, o.result)
            }
            // from two threads at once: one tree
            val o = d.execute(AppFunctionInvocation("order"))
            val seen = (1..2).map { async(Dispatchers.Default) { o.result } }.map { it.await() }
            assertSame(seen[0], seen[1])
        }
    }

    private fun assertSameOutcome(expected: AppFunctionOutcome, actual: AppFunctionOutcome) {
        assertEquals(expected.json, actual.json)
        assertEquals(expected.status, actual.status, actual.json)
        assertEquals(expected.result, actual.result, actual.json)
        assertEquals(expected.resultJson, actual.resultJson, actual.json)
        assertEquals(expected.dialog, actual.dialog, actual.json)
        assertEquals(expected.errorCode, actual.errorCode, actual.json)
        assertEquals(expected.message, actual.message, actual.json)
        assertEquals(expected.isFinal, actual.isFinal, actual.json)
        assertEquals(expected.isSuccess, actual.isSuccess, actual.json)
        assertEquals(expected.appRequested, actual.appRequested, actual.json)
    }

    @Test
    fun `every field of the core's outcome reads as a full parse reads it`() = runBlocking {
        val tricky = "a \"quoted\" \\ back } brace ] bracket, comma: Åsa 日本 😀 \u0001 \t tab\nline"
        AppFunctionDispatcher().use { d ->
            d.types {
                record("Rich") {
                    field("text", AppFunctionType.String)
                    field("items", AppFunctionType.array(AppFunctionType.nullable(AppFunctionType.String)))
                    field("n", AppFunctionType.Double)
                }
            }
            d.function("rich") {
                result(AppFunctionType.record("Rich"))
                blockingHandler { ctx, _ ->
                    ctx.say("said: $tricky")
                    buildJsonObject {
                        put("text", tricky)
                        put("items", buildJsonArray { add(JsonPrimitive("]}")); add(JsonNull); add(JsonPrimitive("{[\\\"")) })
                        put("n", 1.5)
                    }
                }
            }
            d.function("scalar") { result(AppFunctionType.Int32); blockingHandler { _, _ -> JsonPrimitive(-42) } }
            d.function("text") { result(AppFunctionType.String); blockingHandler { _, _ -> JsonPrimitive(tricky) } }
            d.function("void") { blockingHandler { _, _ -> null } }
            d.function("fails") { blockingHandler { _, _ -> throw AppFunctionException(AppFunctionErrorCode.InvalidArgument, "bad: $tricky") } }
            d.function("signed_in") { blockingHandler { _, _ -> JsonPrimitive(1) } }
            d.function("final_answer") {
                kind = "output"
                parameter("answer", AppFunctionType.String)
            }
            d.addDelegate(object : AppFunctionDelegate {
                override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate =
                    if (context.functionId == "signed_in") AppFunctionGate.OpenApp("Sign in \"first\".") else AppFunctionGate.Allow
            })
            val apple = AppFunctionInvocation("signed_in", platform = AppFunctionPlatform.Apple)
            val outcomes = listOf(
                d.execute(AppFunctionInvocation("rich")),
                d.execute(AppFunctionInvocation("scalar")),
                d.execute(AppFunctionInvocation("text")),
                d.execute(AppFunctionInvocation("void")),
                d.execute(AppFunctionInvocation("fails")),
                d.execute(AppFunctionInvocation("nope")),
                d.execute(apple),
                d.executeBlocking(AppFunctionInvocation("rich")),
                d.executeBlocking(apple),
                d.view().use { it.execute("final_answer", buildJsonObject { put("answer", tricky) }.toString()) },
            )
            for (o in outcomes) assertSameOutcome(AppFunctionOutcome.parse(o.json), o)
            val (rich, scalar, text, void, fails) = outcomes
            val nope = outcomes[5]
            val openApp = outcomes[6]
            assertEquals("said: $tricky", rich.dialog)
            assertEquals(tricky, rich.result.jsonObject["text"]!!.jsonPrimitive.content)
            assertEquals(-42, scalar.result.jsonPrimitive.int)
            assertEquals(tricky, text.decodeResult(String.serializer()))
            assertEquals(JsonNull, void.result)
            assertTrue(void.isSuccess)
            assertEquals(AppFunctionErrorCode.InvalidArgument, fails.errorCode)
            assertEquals("bad: $tricky", fails.message)
            assertEquals(AppFunctionErrorCode.FunctionNotFound, nope.errorCode)
            assertEquals(AppFunctionStatus.OpenApp, openApp.status)
            assertTrue(openApp.appRequested)
            assertEquals("Sign in \"first\".", openApp.message ?: openApp.dialog)
            val final = outcomes.last()
            assertTrue(final.isFinal, final.json)
            assertEquals(tricky, final.result.jsonObject["answer"]!!.jsonPrimitive.content)
        }
    }

    @Test
    fun `an outcome not in the core's exact shape is read by a full parse`() {
        val shapes = listOf(
            """{"status":"success","result":{"a":1},"dialog":null,"errorCode":null,"message":null}""",
            """{ "status": "success", "result": {"a": 1}, "dialog": null, "errorCode": null, "message": null }""",
            """{"result":[1,2],"status":"success","dialog":"d","errorCode":null,"message":null}""",
            """{"status":"success","result":true,"dialog":null,"errorCode":null,"message":null,"final":false}""",
            """{"status":"success","result":"x","dialog":null,"errorCode":null,"message":null,"final":true}""",
            """{"status":"maybe","result":null,"dialog":null,"errorCode":"NoSuchCode","message":"m"}""",
            """{"status":"error","result":null,"dialog":null,"errorCode":"Denied","message":"\u00e9\ud83d\ude00\/"}""",
            """{"status":"success","result":null,"dialog":null,"errorCode":null,"message":null,"extra":1}""",
            """{"status":"success"}""",
            // the three statuses the scanner takes without making a string, and texts beside them
            """{"status":"openApp","result":null,"dialog":"Open the app","errorCode":null,"message":null}""",
            """{"status":"error","result":null,"dialog":null,"errorCode":"Denied","message":"no"}""",
            """{"status":"successful","result":1,"dialog":null,"errorCode":null,"message":null}""",
            """{"status":"succ\u0065ss","result":[{"b":"}"}],"dialog":null,"errorCode":null,"message":null}""",
        )
        for (json in shapes) assertSameOutcome(AppFunctionOutcome.parse(json), AppFunctionOutcome.fromCore(json))
        assertEquals("é😀/", AppFunctionOutcome.fromCore(shapes[6]).message)
        assertNull(AppFunctionOutcome.fromCore(shapes[5]).errorCode)
        assertEquals(AppFunctionStatus.OpenApp, AppFunctionOutcome.fromCore(shapes[9]).status)
        assertEquals(AppFunctionStatus.Error, AppFunctionOutcome.fromCore(shapes[11]).status)
        val escaped = AppFunctionOutcome.fromCore(shapes[12])
        assertEquals(AppFunctionStatus.Success, escaped.status)
        assertEquals("""[{"b":"}"}]""", escaped.resultJson) // the result's text cut out of the outcome on first read
        // malformed text still fails as a parse fails (the core never writes it)
        assertTrue(runCatching { AppFunctionOutcome.fromCore("""{"status":"success","result":""") }.isFailure)
    }
}

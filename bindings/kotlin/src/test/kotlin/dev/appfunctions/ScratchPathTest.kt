package dev.appfunctions

import dev.appfunctions.internal.Scratch
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * Text crossing the JNI shim through the thread's scratch memory ([Scratch]: execute's
 * arguments, its outcome, a handler's result) and, past its capacity, as Java arrays: every size
 * around the capacity gives the same answers on both paths, through every execute form; a call
 * nested in a handler (the same thread, the same scratch) leaves the outer call's text whole;
 * NULL and empty results cross as before. The kotlin lane runs this class again with the shim
 * under AddressSanitizer.
 */
class ScratchPathTest {
    private fun app(d: AppFunctionDispatcher) {
        d.function("echo") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args -> args["text"] }
        }
        d.function("sized") {
            parameter("bytes", AppFunctionType.Int32)
            result(AppFunctionType.String)
            // a result of exactly `bytes` bytes of JSON: a string of bytes - 2 characters and its quotes
            blockingHandler { _, args -> JsonPrimitive("r".repeat(args["bytes"]!!.jsonPrimitive.int - 2)) }
        }
        d.function("nothing") {
            blockingHandler { _, _ -> null }
        }
        d.function("empty") {
            result(AppFunctionType.String)
            blockingHandler { _, _ -> JsonPrimitive("") }
        }
        d.function("nested") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            // a call inside the handler, on this thread: it writes its own arguments and outcome
            // into the scratch while the outer call is in flight
            blockingHandler { _, args ->
                val text = args["text"]!!.jsonPrimitive.content
                val inner = d.executeBlocking(AppFunctionInvocation("echo"), """{"text":${JsonPrimitive(text.reversed())}}""")
                JsonPrimitive(text + "|" + inner.result.jsonPrimitive.content)
            }
        }
    }

    private fun args(text: String) = """{"text":${JsonPrimitive(text)}}"""

    @Test
    fun everySizeAroundTheScratchsCapacityCrossesWhole() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            d.view().use { v ->
                val echo = AppFunctionInvocation("echo")
                // arguments of CAPACITY - 150 to CAPACITY + 60 bytes (an 'é' is two): each side of
                // the capacity for the arguments, and for the outcome, which is about 80 bytes longer
                val room = Scratch.CAPACITY - """{"text":""}""".length
                for (n in room - 150..room + 60) {
                    val text = if (n % 2 == 0) "x".repeat(n) else "é" + "x".repeat(n - 2)
                    assertEquals(text, d.executeBlocking(echo, args(text)).result.jsonPrimitive.content, "$n bytes, blocking")
                    assertTrue(d.executeBlockingJson(echo, args(text)).contains(text), "$n bytes, blocking JSON")
                    assertEquals(text, d.execute(echo, args(text)).result.jsonPrimitive.content, "$n bytes, suspend")
                    assertEquals(text, v.execute(echo, args(text)).result.jsonPrimitive.content, "$n bytes, view suspend")
                    assertEquals(text, v.executeBlocking(echo, args(text)).result.jsonPrimitive.content, "$n bytes, view blocking")
                }
            }
        }
    }

    @Test
    fun handlerResultsOnBothSidesOfTheCapacityAreAnsweredWhole() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val sized = AppFunctionInvocation("sized")
            for (bytes in listOf(2, 3, 511, 512, 513, Scratch.CAPACITY - 1, Scratch.CAPACITY, Scratch.CAPACITY + 1, 3 * Scratch.CAPACITY)) {
                val expected = "r".repeat(bytes - 2)
                assertEquals(expected, d.executeBlocking(sized, """{"bytes":$bytes}""").result.jsonPrimitive.content, "$bytes bytes")
                assertEquals(expected, d.execute(sized, """{"bytes":$bytes}""").result.jsonPrimitive.content, "$bytes bytes, suspend")
            }
        }
    }

    @Test
    fun aCallNestedInAHandlerLeavesTheOuterCallsTextWhole() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val nested = AppFunctionInvocation("nested")
            for (text in listOf("abc", "é".repeat(1_000), "y".repeat(Scratch.CAPACITY))) {
                val expected = text + "|" + text.reversed()
                assertEquals(expected, d.executeBlocking(nested, args(text)).result.jsonPrimitive.content)
                assertEquals(expected, d.execute(nested, args(text)).result.jsonPrimitive.content)
            }
        }
    }

    @Test
    fun theCallsStringsReadThroughTheScratchOrAroundIt() = runBlocking {
        AppFunctionDispatcher().use { d ->
            d.function("seen") {
                parameter("text", AppFunctionType.String)
                result(AppFunctionType.String)
                // what a delegate or handler reads of its call: each of the shim's two paths
                blockingHandler { ctx, _ ->
                    JsonPrimitive("${ctx.functionId}|${ctx.callerPackage.length}|${ctx.callerPackage.take(3)}|${ctx.argumentsJson!!.length}")
                }
            }
            for (callerLength in listOf(0, 11, Scratch.SIZE, Scratch.SIZE + 1, 3 * Scratch.SIZE)) {
                for (textLength in listOf(1, Scratch.SIZE, 2 * Scratch.SIZE)) {
                    val caller = "com.example".repeat(1 + callerLength / 11).take(callerLength).takeIf { it.isNotEmpty() }
                    val invocation = AppFunctionInvocation("seen", callerPackage = caller)
                    val arguments = args("t".repeat(textLength))
                    val expected = "seen|$callerLength|${caller.orEmpty().take(3)}|${arguments.length}"
                    assertEquals(expected, d.executeBlocking(invocation, arguments).result.jsonPrimitive.content, "caller $callerLength, text $textLength")
                    assertEquals(expected, d.execute(invocation, arguments).result.jsonPrimitive.content, "caller $callerLength, text $textLength, suspend")
                }
            }
        }
    }

    @Test
    fun nullAndEmptyResultsCrossAsBefore() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val nothing = d.execute(AppFunctionInvocation("nothing"))
            assertTrue(nothing.isSuccess, nothing.json)
            assertEquals(JsonNull, nothing.result)
            assertEquals("\"\"", d.execute(AppFunctionInvocation("empty")).resultJson)
            assertEquals("\"\"", d.executeBlocking(AppFunctionInvocation("empty")).resultJson)
        }
    }
}

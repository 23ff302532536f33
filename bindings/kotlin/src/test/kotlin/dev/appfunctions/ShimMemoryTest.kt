package dev.appfunctions

import dev.appfunctions.internal.JniShim
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/**
 * The JNI shim's copies when no memory can be had (its test hook, JniShim.nativeFailForTest,
 * makes them fail): an inline outcome whose C copy fails is the handler's true outcome, kept in
 * a Java array instead; with no memory at all, and for the arguments' copy, the call throws
 * OutOfMemoryError; never a refusal carrying another call's af_last_error. The kotlin lane runs
 * this class as built and again with the shim under AddressSanitizer.
 */
class ShimMemoryTest {
    private val runs = AtomicInteger()
    private val long = "é".repeat(200) + " the handler's own answer" // over the shim's 240 bytes of inline outcome

    @BeforeEach
    fun loaded() = AppFunctionsLibrary.ensureLoaded()

    @AfterEach
    fun memoryBack() {
        JniShim.nativeFailForTest(0)
    }

    private fun app(d: AppFunctionDispatcher) {
        d.function("echo") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args ->
                runs.incrementAndGet()
                args["text"]
            }
        }
        // a failing call first, so that af_last_error holds a text no later outcome may carry
        assertTrue(runCatching { d.function("") { blockingHandler { _, _ -> null } } }.isFailure)
    }

    private fun args(text: String) = """{"text":${JsonPrimitive(text)}}"""

    @Test
    fun anInlineOutcomeWhoseCopyFindsNoMemoryIsStillTheHandlersOwn() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            JniShim.nativeFailForTest(1)
            val o = d.execute(AppFunctionInvocation("echo"), args(long))
            assertTrue(o.isSuccess, o.json)
            assertEquals(long, o.result.jsonPrimitive.content)
            // through a view too, and a short outcome (kept in the rendezvous, no copy) as before
            d.view().use { v ->
                val ov = v.execute(AppFunctionInvocation("echo"), args(long))
                assertEquals(long, ov.result.jsonPrimitive.content, ov.json)
            }
            assertEquals("hi", d.execute(AppFunctionInvocation("echo"), args("hi")).result.jsonPrimitive.content)
            assertEquals(3, runs.get())
        }
    }

    @Test
    fun withNoMemoryAtAllTheCallThrowsOutOfMemoryError() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            JniShim.nativeFailForTest(1 or 2)
            val e = assertFailsWith<OutOfMemoryError> { d.execute(AppFunctionInvocation("echo"), args(long)) }
            assertEquals("Kotlin binding: no memory for the call's outcome", e.message)
            assertEquals(1, runs.get()) // the handler ran; its outcome was what found no memory
            JniShim.nativeFailForTest(0)
            // the binding is whole afterwards: the next calls (and the per-call token) work
            repeat(3) { assertEquals(long, d.execute(AppFunctionInvocation("echo"), args(long)).result.jsonPrimitive.content) }
        }
    }

    @Test
    fun argumentsWhoseCopyFindsNoMemoryThrowBeforeAnythingRuns() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            JniShim.nativeFailForTest(4)
            val big = args("x".repeat(300)) // over the shim's 255 bytes on the stack
            val blocking = assertFailsWith<OutOfMemoryError> { d.executeBlockingJson(AppFunctionInvocation("echo"), big) }
            assertEquals("Kotlin binding: no memory for the copy of the arguments", blocking.message)
            // the suspend form's rendezvous is its first allocation, whatever the arguments' size
            val async = assertFailsWith<OutOfMemoryError> { d.execute(AppFunctionInvocation("echo"), args("short")) }
            assertEquals("Kotlin binding: no memory to start the call", async.message)
            assertEquals(0, runs.get())
            // short arguments need no copy in the blocking form
            assertEquals("\"ok\"", d.executeBlocking(AppFunctionInvocation("echo"), args("ok")).result.toString())
            JniShim.nativeFailForTest(0)
            assertEquals("x".repeat(300), d.execute(AppFunctionInvocation("echo"), big).result.jsonPrimitive.content)
        }
    }
}

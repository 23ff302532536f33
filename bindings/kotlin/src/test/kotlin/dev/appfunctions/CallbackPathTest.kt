package dev.appfunctions

import dev.appfunctions.internal.Handles
import dev.appfunctions.internal.JniCallbacks
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds

/**
 * How the core calls back into Kotlin: the trampolines of the binding's JNI library
 * (libappfunctions_jni), on threads the JVM knows and on the core's own. The kotlin lane runs
 * this class as built and again with the JNI library under AddressSanitizer
 * (`appfunctions.expectShimFrom` says where that run's library must come from).
 */
class CallbackPathTest {
    @Test
    fun `the libraries come from where the run expects, and say so`() {
        val from = AppFunctionsLibrary.loadedFrom
        assertTrue(from.startsWith("libappfunctions_jni from ") && ", libappfunctions from " in from, from)
        // the lane's AddressSanitizer run: the instrumented JNI library, found first on java.library.path
        System.getProperty("appfunctions.expectShimFrom").orEmpty().takeIf { it.isNotEmpty() }?.let {
            assertTrue(from.startsWith("libappfunctions_jni from $it,"), from)
        }
    }

    private fun app(d: AppFunctionDispatcher) {
        d.function("echo") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args -> args["text"] }
        }
        d.function("nothing") { blockingHandler { _, _ -> null } }
        d.function("later") {
            result(AppFunctionType.String)
            handler { _, _ ->
                delay(5)
                JsonPrimitive("late")
            }
        }
        d.function("never") {
            result(AppFunctionType.String)
            handler { _, _ -> awaitCancellation() }
        }
    }

    @Test
    fun `results of every size and encoding cross both ways`() {
        AppFunctionDispatcher().use { d ->
            app(d)
            for (text in listOf("", "a", "Åsa – 日本 – 😀", "x".repeat(511), "y".repeat(512), "z".repeat(100_000))) {
                val o = d.executeBlocking(AppFunctionInvocation("echo"), buildString { append("{\"text\":"); append(JsonPrimitive(text)); append('}') })
                assertEquals(AppFunctionStatus.Success, o.status, o.json)
                assertEquals(text, o.result.jsonPrimitive.content)
            }
            val none = d.executeBlocking(AppFunctionInvocation("nothing"), "{}")
            assertEquals(AppFunctionStatus.Success, none.status, none.json)
        }
    }

    @Test
    fun `outcomes arrive from other threads and from the core's own, many at once`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            val before = Handles.size
            val late = (1..50).map { async(Dispatchers.Default) { d.execute(AppFunctionInvocation("later"), "{}") } }.awaitAll()
            assertTrue(late.all { it.status == AppFunctionStatus.Success && it.resultJson == "\"late\"" }, late.first().json)
            // a timeout's outcome comes on a completion thread of the library: attached to the JVM once
            repeat(5) {
                val o = d.execute(AppFunctionInvocation("never", timeout = 20.milliseconds), "{}")
                assertEquals(AppFunctionErrorCode.TimedOut, o.errorCode, o.json)
            }
            val threads = (1..4).map { Thread { repeat(200) { d.executeBlockingJson(AppFunctionInvocation("echo"), """{"text":"t"}""") } } }
            threads.forEach { it.start() }
            threads.forEach { it.join() }
            delay(50)
            assertEquals(before, Handles.size, "every per-call handle released")
        }
    }

    @Test
    fun `a cancelled call's token is never used again`() = runBlocking {
        AppFunctionDispatcher().use { d ->
            app(d)
            repeat(3) {
                // the suspend execute keeps one token for the next call: never a cancelled one
                val job = async(Dispatchers.Default) { d.execute(AppFunctionInvocation("never"), "{}") }
                delay(20)
                job.cancel()
                assertTrue(runCatching { job.await() }.exceptionOrNull() is kotlinx.coroutines.CancellationException)
                val o = d.execute(AppFunctionInvocation("later"), "{}")
                assertEquals(AppFunctionStatus.Success, o.status, o.json)
                assertEquals("\"late\"", d.execute(AppFunctionInvocation("later"), "{}").resultJson)
            }
        }
    }

    @Test
    fun `an exception escaping a handler upcall fails the call and leaves nothing pending`() {
        AppFunctionDispatcher().use { d ->
            app(d)
            JniCallbacks.throwFromHandlerForTest = StackOverflowError("test")
            val o = try {
                d.executeBlocking(AppFunctionInvocation("echo"), """{"text":"x"}""")
            } finally {
                JniCallbacks.throwFromHandlerForTest = null
            }
            assertEquals(AppFunctionErrorCode.InternalError, o.errorCode, o.json)
            assertEquals("Kotlin binding: an exception escaped the handler", o.message)
            // the thread is fine afterwards
            assertEquals("\"x\"", d.executeBlocking(AppFunctionInvocation("echo"), """{"text":"x"}""").resultJson)
        }
    }
}

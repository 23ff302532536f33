package dev.appfunctions

import dev.appfunctions.internal.beforeNativeCallForTest
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/**
 * Every pointer the binding hands to the core outlives the native call that reads it: a
 * function id or caller package the id cache does not hold (it is full) is written into the
 * invocation block as a raw address, and a collection between writing the block and
 * `af_execute_*` must not free it (issue 28, item 1).
 */
class PointerLifetimeTest {
    private val d = AppFunctionDispatcher()

    @AfterEach
    fun close() {
        beforeNativeCallForTest = null
        d.close()
    }

    private fun collect() {
        System.gc()
        ByteArray(1 shl 20) // pressure
        System.gc()
        Thread.sleep(5) // a collected direct ByteBuffer's memory is freed by its Cleaner's thread
    }

    private fun fillTheIdCache() {
        // every id executed once is cached up to the cache's bound (4,096); past it, the C
        // string of a new id is held only by the call that made it
        for (i in 0 until 4_200) d.executeBlockingJson(AppFunctionInvocation("not_registered_$i"))
    }

    @Test
    fun `an uncached function id and caller package survive a collection before the native call`() {
        val seen = mutableListOf<String>()
        d.function("gc_probe_function_with_a_long_identifier") {
            parameter("n", AppFunctionType.Int32)
            result(AppFunctionType.String)
            blockingHandler { ctx, _ ->
                synchronized(seen) { seen += ctx.callerPackage }
                JsonPrimitive(ctx.functionId)
            }
        }
        fillTheIdCache()
        beforeNativeCallForTest = Runnable { collect() }
        val caller = "com.example.a.caller.package.long.enough.to.matter"
        repeat(25) { n ->
            val inv = AppFunctionInvocation("gc_probe_function_with_a_long_identifier", callerPackage = caller)
            val blocking = d.executeBlocking(inv, """{"n":$n}""")
            assertEquals(true, blocking.isSuccess, "blocking call $n: ${blocking.json}")
            assertEquals("\"gc_probe_function_with_a_long_identifier\"", blocking.resultJson)
            val suspended = runBlocking { d.execute(inv, """{"n":$n}""") }
            assertEquals(true, suspended.isSuccess, "suspend call $n: ${suspended.json}")
        }
        assertEquals(List(50) { caller }, seen)
    }
}

package dev.appfunctions

import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class HooksTest {
    private val logs: MutableList<String> = Collections.synchronizedList(ArrayList())
    private val d = AppFunctionDispatcher(logger = { _, m -> logs += m })

    @AfterEach
    fun close() = d.close()

    class Scope(val id: Int, private val closed: AtomicInteger) : AutoCloseable {
        override fun close() {
            closed.incrementAndGet()
        }
    }

    private fun exec(id: String, args: String = "{}") = runBlocking { d.execute(AppFunctionInvocation(id), args) }

    @Test
    fun `scope hooks open a host scope per call that the handler sees, closed exactly once`() {
        val opened = AtomicInteger()
        val closed = AtomicInteger()
        d.setScopeHooks(begin = { Scope(opened.incrementAndGet(), closed) })
        d.function("whoami") {
            result(AppFunctionType.Int32)
            blockingHandler { ctx, _ -> JsonPrimitive(ctx.scope<Scope>().id) }
        }
        d.function("refused") {
            enabled = false
            blockingHandler { _, _ -> null }
        }
        assertEquals(1, exec("whoami").result.jsonPrimitive.int)
        assertEquals(2, exec("whoami").result.jsonPrimitive.int)
        assertEquals(AppFunctionErrorCode.Disabled, exec("refused").errorCode)
        assertEquals(3, opened.get())
        assertEquals(3, closed.get())
    }

    @Test
    fun `requiresPermission asks the permission hook, which may suspend`() {
        d.function("wipe") {
            requiresPermission = true
            blockingHandler { _, _ -> null }
        }
        assertEquals(AppFunctionErrorCode.PermissionDenied, exec("wipe").errorCode, "no hook: refused")
        var answer = false
        d.setPermissionHook { ctx ->
            delay(5)
            ctx.functionId == "wipe" && answer
        }
        assertEquals(AppFunctionErrorCode.PermissionDenied, exec("wipe").errorCode)
        answer = true
        assertEquals(AppFunctionStatus.Success, exec("wipe").status)
    }

    @Test
    fun `a delegate answering later, and a delegate that throws refuses the call and is logged`() {
        d.function("ping") { blockingHandler { _, _ -> JsonPrimitive(1) }; result(AppFunctionType.Int32) }
        d.addDelegate(object : AppFunctionDelegate {
            override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate {
                delay(5)
                return AppFunctionGate.Allow
            }
        })
        assertEquals(AppFunctionStatus.Success, exec("ping").status)
        d.addDelegate(object : AppFunctionDelegate {
            override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate = error("flags unavailable")
        })
        val o = exec("ping")
        assertEquals(AppFunctionErrorCode.Denied, o.errorCode, o.json)
        assertEquals("flags unavailable", o.message)
        assertTrue(logs.any { it.contains("flags unavailable") }, logs.toString())
    }

    @Test
    fun `items can carry typed values`() {
        d.addDelegate(object : AppFunctionDelegate {
            override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate {
                context.items.put("user", mapOf("name" to "alice"))
                return AppFunctionGate.Allow
            }
        })
        d.function("greet") {
            result(AppFunctionType.String)
            blockingHandler { ctx, _ -> JsonPrimitive("hi " + ctx.items.getAs<Map<String, String>>("user")!!["name"]) }
        }
        assertEquals("hi alice", exec("greet").result.jsonPrimitive.content)
    }
}

package dev.appfunctions

import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import dev.appfunctions.internal.Handles
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertNull
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
    @Test
    fun `the invocation's host context reaches every callback of the call and its lookups, and is let go after the outcome`() {
        class Session(val user: String)
        val seen: MutableList<String> = Collections.synchronizedList(ArrayList())
        fun note(where: String, ctx: AppFunctionContext) {
            seen += "$where:${(ctx.invocationContext as? Session)?.user}"
        }
        d.setScopeHooks(begin = { ctx -> note("scope", ctx) })
        d.addDelegate(object : AppFunctionDelegate {
            override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate {
                note("invoking", context)
                return AppFunctionGate.Allow
            }
            override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) = note("invoked", context)
        })
        d.setPermissionHook { ctx -> note("permission", ctx); true }
        d.entity("box") {
            field("id", AppFunctionType.String)
            lookup { ctx, ids -> note("lookup", ctx); JsonArray(ids.map { buildJsonObject { put("id", it) } }) }
            search { _, _, _ -> JsonArray(emptyList()) }
        }
        d.function("open") {
            requiresPermission = true
            parameter("box", AppFunctionType.entity("box"))
            result(AppFunctionType.String)
            blockingHandler { ctx, _ -> note("handler", ctx); JsonPrimitive("opened") }
        }
        val handles = Handles.size
        val o = runBlocking { d.execute(AppFunctionInvocation("open", hostContext = Session("alice")), """{"box":"b1"}""") }
        assertEquals("opened", o.result.jsonPrimitive.content, o.json)
        assertEquals(setOf("scope", "invoking", "permission", "lookup", "handler", "invoked").map { "$it:alice" }.toSet(), seen.toSet())
        assertEquals(handles, Handles.size, "the host context's handle is let go after the outcome")
        seen.clear()
        d.executeBlocking(AppFunctionInvocation("open", hostContext = Session("bob")), """{"box":"b1"}""")
        assertTrue(seen.isNotEmpty() && seen.all { it.endsWith(":bob") }, seen.toString())
        seen.clear()
        runBlocking { d.lookupEntities("box", listOf("b2"), AppFunctionInvocation("", hostContext = Session("carol"))) }
        assertTrue("lookup:carol" in seen, seen.toString())
        seen.clear()
        d.executeBlocking(AppFunctionInvocation("open"), """{"box":"b1"}""")
        assertTrue(seen.isNotEmpty() && seen.all { it.endsWith(":null") }, "no host context: null everywhere; $seen")
        assertEquals(handles, Handles.size)
    }

    @Test
    fun `context dialog shows what any layer said so far in the call`() {
        var inHandler: String? = "unset"
        var before: String? = "unset"
        d.addDelegate(object : AppFunctionDelegate {
            override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate {
                before = context.dialog
                context.say("Checked your sign-in.")
                return AppFunctionGate.Allow
            }
        })
        d.function("greet") {
            result(AppFunctionType.String)
            blockingHandler { ctx, _ ->
                inHandler = ctx.dialog
                ctx.say("Hello.")
                JsonPrimitive(ctx.dialog)
            }
        }
        val o = exec("greet")
        assertNull(before, "nothing said yet")
        assertEquals("Checked your sign-in.", inHandler, "the delegate's text, seen by the handler")
        assertEquals("Hello.", o.result.jsonPrimitive.content, "the last one wins")
        assertEquals("Hello.", o.dialog)
    }
    @Test
    fun `a function's caller policy refuses callers of that function only, and limits bound the arguments`() {
        d.function("ping") { result(AppFunctionType.Int32); blockingHandler { _, _ -> JsonPrimitive(1) } }
        d.function("echo") {
            parameter("text", AppFunctionType.String)
            result(AppFunctionType.String)
            blockingHandler { _, args -> args["text"]!! }
        }
        d.setCallerPolicy("ping", deny = listOf("com.evil"))
        val evil = AppFunctionInvocation("ping", AppFunctionPlatform.Android, callerPackage = "com.evil")
        assertEquals(AppFunctionErrorCode.Denied, exec2(evil).errorCode)
        assertEquals(AppFunctionStatus.Success, exec2(evil.copy(functionId = "echo"), """{"text":"hi"}""").status)
        val e = kotlin.runCatching { d.setCallerPolicy("nope", deny = listOf("x")) }.exceptionOrNull()
        assertTrue(e != null && "nope" in e.message.orEmpty(), "$e")

        d.setLimits(maxInputBytes = 32, maxDepth = 4)
        assertEquals(AppFunctionErrorCode.InvalidArgument, exec("echo", """{"text":"longer than thirty-two bytes of input"}""").errorCode)
        assertEquals("hi", exec("echo", """{"text":"hi"}""").result.jsonPrimitive.content)
        d.setLimits(maxInputBytes = 1 shl 20, maxDepth = 1)
        assertEquals(AppFunctionErrorCode.InvalidArgument, exec("echo", """{"text":[["deep"]]}""").errorCode)
        assertTrue(kotlin.runCatching { d.setLimits(0, 4) }.exceptionOrNull() is IllegalArgumentException)
    }

    private fun exec2(inv: AppFunctionInvocation, args: String = "{}") = runBlocking { d.execute(inv, args) }

    open class InvokingOnly : AppFunctionDelegate {
        override suspend fun onInvoking(context: AppFunctionContext) = AppFunctionGate.Allow
    }

    class InvokedOnly : AppFunctionDelegate {
        override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {}
    }

    class Both : InvokingOnly() {
        override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {}
    }

    class Neither : AppFunctionDelegate

    @Test
    fun `the core is told to call only the delegate methods a class implements, not the compiler's bridges to the defaults`() {
        assertEquals(true to false, delegateOverrides(InvokingOnly::class.java))
        assertEquals(false to true, delegateOverrides(InvokedOnly::class.java))
        assertEquals(true to true, delegateOverrides(Both::class.java))
        assertEquals(false to false, delegateOverrides(Neither::class.java))
        val anonymous = object : AppFunctionDelegate {
            override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {}
        }
        assertEquals(false to true, delegateOverrides(anonymous.javaClass))
    }

    @Test
    fun `a delegate that throws after it suspended refuses the call`() {
        for (id in listOf("add", "pick")) d.function(id) { blockingHandler { _, _ -> JsonPrimitive(1) }; result(AppFunctionType.Int32) }
        d.addDelegate(object : AppFunctionDelegate {
            override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate {
                delay(2)
                if (context.functionId == "add") error("flags unavailable later")
                return AppFunctionGate.Deny("no ${context.functionId}")
            }
        })
        val o = d.executeBlocking(AppFunctionInvocation("add"), "{}")
        assertEquals(AppFunctionErrorCode.Denied, o.errorCode, o.json)
        assertEquals("flags unavailable later", o.message)
        val p = runBlocking { d.execute(AppFunctionInvocation("pick"), "{}") }
        assertEquals("no pick", p.message, p.json)
    }

    @Test
    fun `every call's scope box is forgotten, whichever thread ends it and whatever its hooks do`() {
        val ends = Collections.synchronizedList(ArrayList<Any?>())
        val began = AtomicInteger()
        d.setScopeHooks(
            begin = { ctx ->
                val n = began.incrementAndGet()
                when {
                    ctx.functionId == "boom" -> error("no scope today")
                    n % 3 == 0 -> null // a null scope: the end hook still runs, with null
                    else -> "scope-$n"
                }
            },
            end = { ctx, scope ->
                ends += scope
                // a call made from the end hook, on the thread ending this one: its own scope's
                // end and release run inside this end, before this call's release
                if (ctx.functionId == "outer") d.executeBlockingJson(AppFunctionInvocation("inline"), "{}")
            },
        )
        d.function("inline") { result(AppFunctionType.String); blockingHandler { ctx, _ -> JsonPrimitive("${ctx.scope}") } }
        d.function("outer") { result(AppFunctionType.String); blockingHandler { ctx, _ -> JsonPrimitive("${ctx.scope}") } }
        d.function("boom") { result(AppFunctionType.String); blockingHandler { ctx, _ -> JsonPrimitive("${ctx.scope}") } }
        d.function("later") {
            result(AppFunctionType.String)
            handler { ctx, _ ->
                val mine = ctx.scope
                delay(2) // ends on the dispatcher's thread: the scope's end and release there
                JsonPrimitive("$mine")
            }
        }
        val handles = Handles.size
        repeat(30) {
            for (id in listOf("inline", "outer", "boom", "later")) {
                val o = exec(id)
                assertEquals(AppFunctionStatus.Success, o.status, o.json)
                if (id == "boom") assertEquals("null", o.result.jsonPrimitive.content, "a begin that threw: no scope")
            }
            assertEquals(AppFunctionStatus.Success, d.executeBlocking(AppFunctionInvocation("later"), "{}").status)
        }
        // every begin that did not throw got its end once (the outer calls' inline ones included)
        assertEquals(began.get() - 30, ends.size, ends.toString())
        assertTrue(ends.any { it == null } && ends.any { it is String }, ends.toString())
        assertTrue(logs.any { it.contains("no scope today") }, logs.toString())
        assertEquals(handles, Handles.size, "every scope box is forgotten")
    }
}

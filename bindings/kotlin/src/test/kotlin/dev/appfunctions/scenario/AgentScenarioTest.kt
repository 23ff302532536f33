package dev.appfunctions.scenario

import dev.appfunctions.AppFunctionCancellationToken
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionToolFormat
import dev.appfunctions.AppFunctionView
import dev.appfunctions.AppFunctionType
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.double
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * Seed 004 (agent-side function features), sentence by sentence, through Kotlin agent views:
 * the Kotlin twin of tests/views.rs and tests/c/test_views_seed.c. One test per sentence,
 * named after it; the last ones walk an agent loop end to end.
 */
class AgentScenarioTest {
    private val files = FileSystemToolkit()
    private val database = DatabaseToolkit()
    private val search = SearchToolkit()
    private val assistant = AssistantFunctions()
    private val approve = AtomicBoolean(true)
    private val dispatcher = AppFunctionDispatcher().apply {
        setMetadataSchema(AgentMetadata::class)
        register(files)
        register(database)
        register(search)
        register(assistant)
        setPermissionHook { approve.get() }
    }
    private val views = ArrayList<AppFunctionView>()

    private fun view(metadata: AgentMetadata = AgentMetadata()) = dispatcher.view(metadata).also { views += it }

    @AfterEach
    fun close() {
        views.forEach { it.close() }
        dispatcher.close()
    }

    private fun AppFunctionView.run(tool: String, args: String = "{}") = runBlocking { execute(tool, args) }

    // --- The Collapse Attribute -----------------------------------------------------------------

    @Test
    fun `collapse - a toolkit's functions are grouped under one container, in every format`() {
        val v = view()
        val names = v.toolNames
        assertTrue("file_system" in names && "database" in names && "search" in names, names.toString())
        for (hidden in listOf("read_file", "write_file", "delete_file", "query", "web_search")) assertFalse(hidden in names, "$hidden in $names")
        val container = v.tools().first { it.jsonObject["name"]!!.jsonPrimitive.content == "file_system" }.jsonObject
        assertEquals("File operations for reading, writing, and managing files", container["description"]!!.jsonPrimitive.content)
        for (format in AppFunctionToolFormat.entries) {
            val text = v.toolsJson(format)
            assertTrue("file_system" in text && "read_file" !in text, "$format: $text")
        }
        // the registry's export is not a view: it lists every function
        assertTrue("read_file" in dispatcher.export("mcp"))
    }

    @Test
    fun `collapse - calling the container expands it, and its functions become tools`() {
        val v = view()
        val hidden = v.run("read_file", """{"path":"a.txt"}""")
        assertEquals(AppFunctionErrorCode.FunctionNotFound, hidden.errorCode, hidden.json)
        assertTrue(hidden.message!!.contains("call file_system first"), hidden.json)

        val expanded = v.run("file_system")
        assertTrue(expanded.isSuccess, expanded.json)
        assertEquals("The file_system tools are now available: delete_file, read_file, write_file.", expanded.result.jsonPrimitive.content)
        val names = v.toolNames
        assertTrue(names.containsAll(listOf("delete_file", "read_file", "write_file")), names.toString())
        assertFalse("file_system" in names, names.toString())
        assertTrue("database" in names, "the other toolkit stays collapsed: $names")

        files.files["a.txt"] = "hello"
        assertEquals("hello", v.run("read_file", """{"path":"a.txt"}""").result.jsonPrimitive.content)
        // expansion belongs to the conversation: another view starts collapsed, a reset collapses again
        assertFalse("read_file" in view().toolNames)
        v.reset()
        assertTrue("file_system" in v.toolNames && "read_file" !in v.toolNames)
    }

    @Test
    fun `collapse - a class naming a toolkit the builder defined joins it and leaves its texts`() {
        // toolkit(name) { } records its name without parsing the JSON it wrote (issue 30's cold
        // start); defineToolkit(json) reads the name from the JSON: both are known to register()
        AppFunctionDispatcher().use { d ->
            d.toolkit("search") { description = "Searches, as the builder put it" }
            d.defineToolkit("""{"name":"file_system","description":"Files, as the JSON put it"}""")
            d.register(SearchToolkit())
            d.register(FileSystemToolkit())
            d.view(JsonObject(emptyMap())).use { v ->
                val tools = v.tools().associate { it.jsonObject["name"]!!.jsonPrimitive.content to it.jsonObject }
                assertEquals(setOf("search", "file_system"), tools.keys)
                assertEquals("Searches, as the builder put it", tools["search"]!!["description"]!!.jsonPrimitive.content)
                assertEquals("Files, as the JSON put it", tools["file_system"]!!["description"]!!.jsonPrimitive.content)
            }
        }
    }

    @Test
    fun `collapse - without a description the toolkit's functions are always visible`() {
        dispatcher.toolkit("plain")
        dispatcher.function("ungrouped_helper") {
            toolkit = "plain"
            result(AppFunctionType.String)
            blockingHandler { _, _ -> JsonPrimitive("ok") }
        }
        val names = view().toolNames
        for (plain in listOf("ungrouped_helper", "add", "log_message", "report")) assertTrue(plain in names, "$plain in $names")
        assertFalse("plain" in names, "no container for it: $names")
        assertEquals("ok", view().run("ungrouped_helper").result.jsonPrimitive.content)
        assertEquals(5, view().run("add", """{"a":2,"b":3}""").result.jsonPrimitive.content.toInt())
    }

    @Test
    fun `custom function names - the agent sees search_web, not PerformWebSearch`() {
        val names = view().toolNames
        assertTrue("search_web" in names && names.none { it.contains("perform", ignoreCase = true) }, names.toString())
        assertEquals("AssistantFunctions.performWebSearch", dispatcher.registry["search_web"]!!.descriptor["symbol"]!!.jsonPrimitive.content)
        assertEquals(AppFunctionErrorCode.FunctionNotFound, view().run("perform_web_search", """{"query":"q"}""").errorCode)
    }

    // --- Collapse with Instructions -----------------------------------------------------------

    @Test
    fun `collapse with instructions - FunctionResult once on expansion, SystemPrompt every turn while expanded`() {
        val v = view()
        assertEquals("", v.instructions, "collapsed: nothing injected")
        val first = v.run("database")
        assertEquals(DB_RESULT, first.result.jsonPrimitive.content)
        assertFalse(first.json.contains(DB_PROMPT), "the system prompt is not the tool result")
        repeat(3) {
            assertEquals(DB_PROMPT, v.instructions, "every turn")
            assertTrue(v.run("query", """{"sql":"SELECT 1"}""").isSuccess)
        }
        val again = v.run("database")
        assertTrue(again.isSuccess && !again.json.contains("transactions") && again.json.contains("already available"), again.json)
        v.reset()
        assertEquals("", v.instructions)
        assertEquals(DB_RESULT, v.run("database").result.jsonPrimitive.content, "a new expansion: once more")
    }

    // --- Dynamic Instructions with Expressions ------------------------------------------------

    @Test
    fun `dynamic instructions - the texts come from the host, from the view's metadata, when needed`() {
        val v = view(AgentMetadata(searchers = "web, news"))
        assertEquals("", v.instructions)
        assertEquals(0, search.asked.get(), "collapsed: the host is not asked")
        assertEquals("Available: web, news", v.run("search").result.jsonPrimitive.content)
        assertEquals("Always prefer exact matches over fuzzy matches.", v.instructions)
        val asked = search.asked.get()
        v.instructions
        assertTrue(search.asked.get() > asked, "asked again every turn")
        v.setMetadata(AgentMetadata(searchers = "web, news, images"))
        v.reset()
        assertEquals("Available: web, news, images", v.run("search").result.jsonPrimitive.content)
        assertEquals("Available: none", view().run("search").result.jsonPrimitive.content)
    }

    @Test
    fun `dynamic instructions - the DSL answers texts per view, and an unanswered text is the static one`() {
        val d = AppFunctionDispatcher()
        try {
            d.toolkit("mail") {
                description = "Mail operations"
                functionResult = "static result"
                systemPrompt = "Never send mail without asking."
                functionResult { metadata -> (metadata["mailbox"] as? JsonPrimitive)?.let { "Mailbox: ${it.content}" } }
            }
            d.function("send_mail") {
                toolkit = "mail"
                blockingHandler { _, _ -> null }
            }
            d.view(JsonObject(mapOf("mailbox" to JsonPrimitive("inbox")))).use { v ->
                assertEquals("Mailbox: inbox", runBlocking { v.execute("mail") }.result.jsonPrimitive.content)
                assertEquals("Never send mail without asking.", v.instructions)
            }
            d.view().use { v -> assertEquals("static result", runBlocking { v.execute("mail") }.result.jsonPrimitive.content) }
        } finally {
            d.close()
        }
    }

    // --- Conditional Functions and the generic form -------------------------------------------

    @Test
    fun `conditional functions - shown only while the condition holds, flipping with the metadata`() {
        val v = view(AgentMetadata(HasAdvancedFeatures = false))
        assertFalse("advanced_search" in v.toolNames)
        val hidden = v.run("advanced_search", """{"query":"x"}""")
        assertEquals(AppFunctionErrorCode.FunctionNotFound, hidden.errorCode)
        assertTrue(hidden.message!!.contains("HasAdvancedFeatures"), hidden.json)
        v.setMetadata(AgentMetadata(HasAdvancedFeatures = true))
        assertTrue("advanced_search" in v.toolNames)
        assertEquals("advanced results for x", v.run("advanced_search", """{"query":"x"}""").result.jsonPrimitive.content)
        v.setMetadata(AgentMetadata(HasAdvancedFeatures = false))
        assertFalse("advanced_search" in v.toolNames)
        // each conversation decides with its own metadata
        assertTrue("advanced_search" in view(AgentMetadata(HasAdvancedFeatures = true)).toolNames)
    }

    @Test
    fun `generic form - a template is rendered with the view's metadata, and follows it`() {
        val v = view(AgentMetadata(ProviderName = "Bing"))
        fun description(format: AppFunctionToolFormat) = v.toolsJson(format)
        assertTrue(description(AppFunctionToolFormat.OpenAi).contains("Search using Bing"))
        v.setMetadata(AgentMetadata(ProviderName = "Kagi"))
        val anthropic = description(AppFunctionToolFormat.Anthropic)
        assertTrue(anthropic.contains("Search using Kagi") && !anthropic.contains("Bing"), anthropic)
        // the generic form's check: a placeholder naming no metadata property is refused
        val e = runCatching { dispatcher.function("bad") { description = "Uses {metadata.Provider}"; blockingHandler { _, _ -> null } } }.exceptionOrNull()
        assertTrue(e?.message.orEmpty().contains("{metadata.Provider}"), e.toString())
    }

    // --- ToolKind — Structured Output ------------------------------------------------------------

    @Test
    fun `output tool - its arguments are the final, structured result and the method never runs`() {
        val v = view()
        val o = v.run("report", """{"city":"Paris","tempCelsius":21.5,"condition":"sunny"}""")
        assertTrue(o.isSuccess && o.isFinal, o.json)
        assertEquals(WeatherReportJson("Paris", 21.5, "sunny"), o.decodeResult(WeatherReportJson.serializer()))
        assertEquals(21.5, o.result.jsonObject["tempCelsius"]!!.jsonPrimitive.double)
        assertEquals(0, assistant.logged.size)
        val bad = v.run("report", """{"city":"Paris","tempCelsius":"warm","condition":"sunny"}""")
        assertEquals(AppFunctionErrorCode.InvalidArgument, bad.errorCode)
        assertFalse(bad.isFinal, "the model may try again")
        assertFalse(v.run("add", """{"a":1,"b":1}""").isFinal, "a normal tool is not final")
    }

    // --- Return Types and Requiring Permission ----------------------------------------------------

    @Test
    fun `return types - a void function returns a confirmation, a complex type is JSON`() {
        val v = view()
        val o = v.run("log_message", """{"message":"hi"}""")
        assertTrue(o.isSuccess, o.json)
        assertEquals(kotlinx.serialization.json.JsonNull, o.result)
        assertEquals("Done: the function completed successfully.", o.dialog)
        assertEquals(listOf("hi"), assistant.logged)
        v.setConfirmation("Logged.")
        assertEquals("Logged.", v.run("log_message", """{"message":"again"}""").dialog)
        // outside a view (the dispatcher) there is no confirmation
        assertNull(runBlocking { dispatcher.execute(AppFunctionInvocation("log_message"), """{"message":"x"}""") }.dialog)
        v.run("search")
        val results = v.run("web_search", """{"query":"rust"}""")
        assertEquals(listOf("rust result 1", "rust result 2"), results.result.jsonArray.map { it.jsonPrimitive.content })
    }

    @Test
    fun `requiring permission - the user approves or denies the call`() {
        val v = view()
        files.files["a.txt"] = "x"
        v.run("file_system")
        approve.set(false)
        val denied = v.run("delete_file", """{"path":"a.txt"}""")
        assertEquals(AppFunctionErrorCode.PermissionDenied, denied.errorCode, denied.json)
        assertTrue("a.txt" in files.files)
        approve.set(true)
        assertTrue(v.run("delete_file", """{"path":"a.txt"}""").isSuccess)
        assertFalse("a.txt" in files.files)
    }

    // --- cancellation, timeouts, the change counter -------------------------------------------

    @Test
    fun `cancelling the coroutine cancels the view call and its handler`() = runBlocking {
        val v = view()
        val call = async(Dispatchers.Default, start = CoroutineStart.UNDISPATCHED) { v.execute("slow") }
        withTimeout(5.seconds) { while (dispatcher.inFlight == 0) delay(5) }
        call.cancelAndJoin()
        assertTrue(call.isCancelled)
        withTimeout(5.seconds) { while (assistant.slowCancelled.get() == 0 || dispatcher.inFlight != 0) delay(5) }
        assertEquals(1, assistant.slowCancelled.get())
    }

    @Test
    fun `the blocking form takes a cancellation token, and an invocation's timeout applies`() {
        val v = view()
        AppFunctionCancellationToken().use { token ->
            val canceller = thread {
                while (dispatcher.inFlight == 0) Thread.sleep(5)
                token.cancel()
            }
            val o = v.executeBlocking(AppFunctionInvocation("slow"), "{}", token)
            canceller.join()
            assertEquals(AppFunctionErrorCode.Cancelled, o.errorCode, o.json)
        }
        val timedOut = runBlocking { v.execute(AppFunctionInvocation("slow", timeout = 50.milliseconds)) }
        assertEquals(AppFunctionErrorCode.TimedOut, timedOut.errorCode, timedOut.json)
    }

    @Test
    fun `the change counter is a flow that moves with expansion, metadata, reset and registration`() = runBlocking {
        val v = view()
        val start = v.generations.value
        assertEquals(start, v.generation, "reading does not change it")
        val seen = async(start = CoroutineStart.UNDISPATCHED) { v.changes.take(4).toList() }
        var last = start
        suspend fun step(what: String, change: () -> Unit) {
            change()
            assertNotEquals(last, v.generations.value, what)
            last = v.generations.value
            yield() // let the collector see it (a StateFlow is conflated)
        }
        step("an expansion") { v.run("database") }
        step("a metadata change") { v.setMetadata(AgentMetadata(HasAdvancedFeatures = true)) }
        step("a reset") { v.reset() }
        step("a registration") { dispatcher.function("late_one") { blockingHandler { _, _ -> null } } }
        val changes = withTimeout(5.seconds) { seen.await() }
        assertEquals(4, changes.toSet().size, changes.toString())
        assertFalse(start in changes)
        assertEquals(v.generation, changes.last())
        assertTrue("late_one" in v.toolNames)
        // a disabled function leaves the tool list, and the counter says so
        val before = v.generation
        dispatcher.setEnabled("late_one", false)
        assertNotEquals(before, withTimeout(5.seconds) { v.generations.first { it != before } })
        assertFalse("late_one" in v.toolNames)
    }

    // --- an agent loop ------------------------------------------------------------------------------

    /**
     * A scripted model drives the loop: it sees the tools and the instructions each turn, calls
     * the container, then a function it revealed, then the output tool, which ends the run.
     */
    @Test
    fun `an agent loop - collapse, container call, expanded list, instructions, final result`() = runBlocking {
        val v = view(AgentMetadata(ProviderName = "Bing"))
        val script = ArrayDeque(
            listOf(
                "database" to "{}",
                "query" to """{"sql":"SELECT city FROM weather"}""",
                "report" to """{"city":"Oslo","tempCelsius":-3,"condition":"snow"}""",
            ),
        )
        val transcript = ArrayList<String>()
        var seenGeneration = -1L
        var tools = emptyList<String>()
        var result: JsonObject? = null
        while (result == null) {
            if (v.generation != seenGeneration) { // re-fetch only when the view changed
                seenGeneration = v.generation
                tools = v.toolNames
            }
            val (name, args) = script.removeFirst()
            assertTrue(name in tools, "the model only calls what it sees: $name in $tools")
            val outcome = v.execute(name, args)
            transcript += "$name -> ${outcome.status} ${v.instructions}"
            if (outcome.isFinal) result = outcome.result.jsonObject
        }
        assertEquals("Oslo", result["city"]!!.jsonPrimitive.content)
        assertEquals(listOf("SELECT city FROM weather"), database.statements)
        assertEquals(
            listOf("database -> Success $DB_PROMPT", "query -> Success $DB_PROMPT", "report -> Success $DB_PROMPT"),
            transcript,
        )
    }

    @Test
    fun `a closed view answers an outcome, not a crash`() {
        val v = view()
        v.close()
        assertTrue(v.isClosed)
        assertEquals(AppFunctionErrorCode.LimitExceeded, v.run("add", """{"a":1,"b":1}""").errorCode)
        assertEquals(0L, v.generation)
        assertTrue(runCatching { v.toolsJson() }.isFailure)
    }

    @Test
    fun `the DSL declares output tools and types that views show`() {
        dispatcher.function("final_answer") {
            kind = "output"
            parameter("answer", AppFunctionType.String)
        }
        val v = view()
        val o = v.run("final_answer", """{"answer":"42"}""")
        assertTrue(o.isFinal, o.json)
        assertEquals("42", o.result.jsonObject["answer"]!!.jsonPrimitive.content)
    }
}

@kotlinx.serialization.Serializable
data class WeatherReportJson(val city: String, val tempCelsius: Double, val condition: String)

package dev.appfunctions

import dev.appfunctions.internal.Arguments
import dev.appfunctions.internal.resultUtf8
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.JsonUnquotedLiteral
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import java.util.concurrent.CountDownLatch
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.atomic.AtomicReference
import kotlin.random.Random
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * The DSL's arguments (internal/Arguments.kt): the core's compact text scanned before the handler
 * runs and made into entries on first read, equal in every way to kotlinx's parse of the same
 * text; any text the scanner does not expect parsed by kotlinx, failing as kotlinx fails, before
 * the handler. And the DSL's results written straight to bytes, as kotlinx writes them.
 */
class ArgumentsTest {
    private fun kotlinx(text: String): JsonObject = AppJson.parseToJsonElement(text).jsonObject

    /** Both readers of [text] agree: the same entries (same order, same kinds, same texts) or the same failure. */
    private fun agree(text: String, bytes: ByteArray = text.toByteArray(), read: (ByteArray) -> JsonObject = Arguments::of) {
        val k = runCatching { kotlinx(bytes.toString(Charsets.UTF_8)) }
        // toString first: ofCore's object scans on its first read, and fails there if it fails
        val a = runCatching { read(bytes).also { it.toString() } }
        val ke = k.exceptionOrNull()
        if (ke != null) {
            val ae = a.exceptionOrNull()
            assertNotNull(ae, "kotlinx rejects ${show(bytes)} ($ke) but the scanner answered ${a.getOrNull()}")
            assertEquals(ke.javaClass, ae.javaClass, show(bytes))
            assertEquals(ke.message, ae.message, show(bytes))
            return
        }
        val want = k.getOrThrow()
        val got = a.getOrThrow()
        assertEquals(want.toString(), got.toString(), show(bytes))
        assertEquals(want, got, show(bytes))
        assertEquals(got, want, show(bytes))
        assertEquals(want.hashCode(), got.hashCode(), show(bytes))
        assertEquals(want.keys.toList(), got.keys.toList(), show(bytes))
        for ((key, v) in want) same(v, got[key]!!, show(bytes))
    }

    /** The same element, kind for kind (a JsonLiteral's isString and content, not only equality). */
    private fun same(want: JsonElement, got: JsonElement, what: String) {
        assertEquals(want.javaClass, got.javaClass, what)
        when (want) {
            is JsonPrimitive -> {
                got as JsonPrimitive
                assertEquals(want.isString, got.isString, what)
                assertEquals(want.content, got.content, what)
            }
            is JsonObject -> {
                got as JsonObject
                assertEquals(want.keys.toList(), got.keys.toList(), what)
                for ((k, v) in want) same(v, got[k]!!, what)
            }
            is JsonArray -> {
                got as JsonArray
                assertEquals(want.size, got.size, what)
                for (i in want.indices) same(want[i], got[i], what)
            }
        }
    }

    private fun show(b: ByteArray) = b.joinToString("") { val c = it.toInt() and 0xFF; if (c in 0x20..0x7E) c.toChar().toString() else "\\x%02x".format(c) }

    @Test
    fun everyKindTheCoreWritesReadsAsKotlinxParsesIt() {
        for (text in listOf(
            """{}""",
            """{"customer":"acme","quantity":2,"priority":"Normal"}""",
            """{"s":"a \"quoted\" \\ back\/slash \b\f\n\r\t end","u":"\u00e9\u4e2d\ud83d\ude00 \u0000\u001f"}""",
            """{"raw":"é中😀 ünïcödé","empty":"","key with space":1}""",
            """{"é":"non-ASCII key","a\"b":"escaped key","\u0041":"escaped A"}""",
            """{"i":0,"n":-7,"big":9007199254740993,"huge":123456789012345678901234567890,"neg0":-0}""",
            """{"d":1.5,"e":1e300,"E":-2.5E-7,"p":1e+2,"z":0.0,"zz":-0.0}""",
            """{"t":true,"f":false,"n":null}""",
            """{"o":{"a":{"b":[1,2,{"c":null}]},"s":"x"},"a":[],"ao":{},"arr":[true,false,null,"s",1.5,[[]]]}""",
            """{"dup":1,"x":2,"dup":3}""",
            """{"long":"${"x".repeat(5000)}","many":[${(1..300).joinToString(",")}]}""",
        )) {
            agree(text)
            assertTrue(Arguments.scans(text.toByteArray()), text) // not kotlinx's fallback
        }
    }

    @Test
    fun anythingTheScannerDoesNotExpectGoesToKotlinxAndFailsAsItFails() {
        for (text in listOf(
            "", "{", "}", "[]", "[1]", "\"s\"", "1", "null", "{}x", "{} ", " {}", "{ }",
            """{"a":1,}""", """{,"a":1}""", """{"a" :1}""", """{"a": 1}""", """{"a":1 }""", """{ "a":1}""",
            """{"a":01}""", """{"a":1.}""", """{"a":.5}""", """{"a":-}""", """{"a":1e}""", """{"a":+1}""",
            """{"a":tru}""", """{"a":nul}""", """{"a":True}""", """{"a":abc}""", """{"a":"x\q"}""", """{"a":"\u12"}""",
            """{"a":"unterminated}""", """{"a"}""", """{"a":}""", """{a:1}""", """{"a":[1,]}""", """{"a":[1 2]}""",
            """{"a":{"b"}}""", """{"a":{"b":1,}}""", "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nhere\"}",
            "{\"a\":" + "[".repeat(Arguments.MAX_DEPTH + 5) + "]".repeat(Arguments.MAX_DEPTH + 5) + "}",
        )) {
            agree(text)
            assertFalse(Arguments.scans(text.toByteArray()), text)
        }
        // bytes that are not UTF-8 (a lone continuation, a cut sequence, an overlong form, a surrogate)
        for (bad in listOf(byteArrayOf(0x80.toByte()), byteArrayOf(0xE2.toByte(), 0x82.toByte()), byteArrayOf(0xC0.toByte(), 0xAF.toByte()),
            byteArrayOf(0xED.toByte(), 0xA0.toByte(), 0x80.toByte()), byteArrayOf(0xF5.toByte(), 0x80.toByte(), 0x80.toByte(), 0x80.toByte()))) {
            for (b in listOf("""{"k":"""".toByteArray() + bad + """"}""".toByteArray(), """{"""".toByteArray() + bad + """":1}""".toByteArray())) {
                agree("", b)
                assertFalse(Arguments.scans(b), show(b))
            }
        }
    }

    private val coreTexts = listOf(
        """{}""",
        """{"customer":"acme","quantity":2,"priority":"Normal"}""",
        """{"s":"a \"quoted\" \\ back\/slash \b\f\n\r\t end","u":"\u00e9\u4e2d\ud83d\ude00 \u0000\u001f"}""",
        """{"raw":"é中😀 ünïcödé","empty":"","key with space":1}""",
        """{"i":0,"n":-7,"big":9007199254740993,"huge":123456789012345678901234567890,"neg0":-0}""",
        """{"d":1.5,"e":1e300,"E":-2.5E-7,"p":1e+2,"z":0.0,"zz":-0.0}""",
        """{"t":true,"f":false,"n":null}""",
        """{"o":{"a":{"b":[1,2,{"c":null}]},"s":"x"},"a":[],"ao":{},"arr":[true,false,null,"s",1.5,[[]]]}""",
        """{"dup":1,"x":2,"dup":3}""",
    )

    @Test
    fun theCoresTextIsScannedOnFirstReadAndReadsAsKotlinxParsesIt() {
        for (text in coreTexts) {
            agree(text, read = Arguments::ofCore)
            val args = Arguments.ofCore(text.toByteArray())
            assertEquals(text == "{}", Arguments.made(args), text) // nothing scanned or made before the first read
            assertEquals(kotlinx(text).keys.toList(), args.keys.toList(), text)
            assertTrue(Arguments.made(args), text)
        }
        assertTrue(Arguments.ofCore(null).isEmpty())
        // a nesting deeper than the scanner takes (a host's setLimits allows it) is kotlinx's, on first read
        val deep = "{\"a\":" + "[".repeat(Arguments.MAX_DEPTH + 5) + "]".repeat(Arguments.MAX_DEPTH + 5) + "}"
        assertFalse(Arguments.scans(deep.toByteArray()))
        agree(deep, read = Arguments::ofCore)
        // random texts of the core's kinds
        val r = Random(30)
        repeat(500) {
            val text = buildString { obj(r, 0) }
            agree(text, read = Arguments::ofCore)
        }
    }

    @Test
    fun aTextNotTheCoresFailsOnFirstReadWithOfCoreAndBeforeWithOf() {
        // why only the core's own text goes to ofCore: another text fails where it is first read
        val bad = """{"a":1,}""".toByteArray()
        val args = Arguments.ofCore(bad)
        val want = runCatching { kotlinx("""{"a":1,}""") }.exceptionOrNull()!!
        repeat(2) { // and again on the next read: nothing is made of it
            val e = runCatching { args["a"] }.exceptionOrNull()
            assertNotNull(e)
            assertEquals(want.javaClass, e.javaClass)
            assertEquals(want.message, e.message)
        }
        assertNotNull(runCatching { Arguments.of(bad) }.exceptionOrNull())
    }

    @Test
    fun aBadTextFailsBeforeAnythingReadsIt() {
        // at the point kotlinx failed: before the handler runs, not on its first read
        val e = runCatching { Arguments.of("""{"a":1,}""".toByteArray()) }.exceptionOrNull()
        assertNotNull(e)
        assertEquals(runCatching { kotlinx("""{"a":1,}""") }.exceptionOrNull()!!.message, e.message)
    }

    @Test
    fun randomTextsAndTheirMutationsAgree() {
        val r = Random(30)
        var mutantsScanned = 0
        repeat(3000) {
            val text = buildString { obj(r, 0) }
            agree(text)
            assertTrue(Arguments.scans(text.toByteArray()), text)
            // one byte changed, dropped or added: both accept it alike or fail alike
            val b = text.toByteArray()
            val at = r.nextInt(b.size)
            val pick = "{}[]\",:\\0123456789-+.eEtfnulr aé\u0001".toByteArray()
            val mutant = when (r.nextInt(3)) {
                0 -> b.copyOf().also { it[at] = pick[r.nextInt(pick.size)] }
                1 -> b.copyOfRange(0, at) + b.copyOfRange(at + 1, b.size)
                else -> b.copyOfRange(0, at) + pick[r.nextInt(pick.size)] + b.copyOfRange(at, b.size)
            }
            agree("", mutant)
            if (Arguments.scans(mutant)) mutantsScanned++
        }
        // both sides of the scanner were taken by the mutants
        assertTrue(mutantsScanned in 100..2900, "$mutantsScanned of 3000 mutants scanned")
    }

    private fun StringBuilder.obj(r: Random, depth: Int) {
        append('{')
        repeat(r.nextInt(if (depth == 0) 6 else 3)) { i ->
            if (i > 0) append(',')
            str(r)
            append(':')
            value(r, depth)
        }
        append('}')
    }

    private fun StringBuilder.value(r: Random, depth: Int) {
        when (r.nextInt(if (depth > 3) 6 else 8)) {
            0 -> str(r)
            1 -> append(r.nextInt(-1000, 1000))
            2 -> append(listOf("1.5", "-0.25", "1e10", "2E-3", "0", "-0", "123456789012345678901", "9223372036854775807", "0.1e+5").random(r))
            3 -> append(listOf("true", "false").random(r))
            4 -> append("null")
            5 -> str(r)
            6 -> obj(r, depth + 1)
            else -> {
                append('[')
                repeat(r.nextInt(4)) { i -> if (i > 0) append(','); value(r, depth + 1) }
                append(']')
            }
        }
    }

    private fun StringBuilder.str(r: Random) {
        append('"')
        repeat(r.nextInt(8)) {
            append(listOf("a", "Z", " ", "é", "中", "😀", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\u0000", "~", "\u007f").random(r))
        }
        append('"')
    }

    @Test
    fun resultsAreWrittenAsKotlinxWritesThem() {
        val elements = listOf<JsonElement?>(
            null, JsonNull, JsonPrimitive("ok"), JsonPrimitive(""), JsonPrimitive("a \"q\" \\ /"), JsonPrimitive("tab\tnl\n\u0001"),
            JsonPrimitive("é中😀"), JsonPrimitive("\u007f~ "), JsonPrimitive(1), JsonPrimitive(-2L), JsonPrimitive(1.5), JsonPrimitive(Double.NaN),
            JsonPrimitive(true), JsonPrimitive(false), JsonUnquotedLiteral("1e300"), JsonUnquotedLiteral(""), JsonUnquotedLiteral("ü"),
            buildJsonObject { put("a", 1); put("s", "x\"y") }, buildJsonArray { add(JsonPrimitive(1)); add(JsonNull) },
        )
        for (e in elements) assertContentEquals(resultUtf8(e?.toString()), resultUtf8(e), "$e")
    }

    // --- through a dispatcher: what the core hands a DSL handler --------------------------------

    private fun orders(d: AppFunctionDispatcher, handler: (AppFunctionContext, JsonObject) -> JsonElement?) {
        d.types {
            enum("Priority", "Low", "Normal", "High")
            record("Line", description = null) {
                field("sku", AppFunctionType.String)
                field("count", AppFunctionType.Int32)
            }
        }
        d.function("order") {
            parameter("customer", AppFunctionType.String)
            parameter("quantity", AppFunctionType.Int32)
            parameter("total", AppFunctionType.Int64)
            parameter("weight", AppFunctionType.Double)
            parameter("gift", AppFunctionType.Boolean)
            parameter("note", AppFunctionType.nullable(AppFunctionType.String))
            parameter("priority", AppFunctionType.enum("Priority"))
            parameter("lines", AppFunctionType.array(AppFunctionType.record("Line")))
            parameter("first", AppFunctionType.record("Line"))
            parameter("tags", AppFunctionType.array(AppFunctionType.String), optional = true, default = JsonArray(emptyList()))
            result(AppFunctionType.String, null)
            blockingHandler(handler)
        }
    }

    private val request = """{"customer":"A \"co\" \\ é中😀\n\u0001","quantity":2,"total":9007199254740993,"weight":1.5e300,"gift":true,""" +
        """"note":null,"priority":"Normal","lines":[{"sku":"x","count":1},{"sku":"y/z","count":-3}],"first":{"sku":"f","count":0}}"""

    @Test
    fun aHandlerSeesWhatKotlinxParsesFromTheCoresText() {
        AppFunctionDispatcher().use { d ->
            val seen = AtomicReference<Pair<String?, JsonObject>>()
            orders(d) { ctx, args ->
                seen.set(ctx.argumentsJson to args)
                JsonPrimitive("ok")
            }
            val outcome = d.executeBlocking(AppFunctionInvocation("order"), request)
            assertTrue(outcome.isSuccess, outcome.json)
            val (text, args) = seen.get()
            assertTrue(Arguments.scans(text!!.toByteArray()), text) // the core's text takes the scanner's path
            // read after the call ended: the entries are the handler's to keep
            assertEquals(kotlinx(text!!), args)
            assertEquals(kotlinx(text).toString(), args.toString())
            for ((k, v) in kotlinx(text)) same(v, args[k]!!, k)
            assertEquals(listOf("customer", "quantity", "total", "weight", "gift", "note", "priority", "lines", "first", "tags"), args.keys.toList())
            assertEquals(JsonNull, args["note"])
            assertEquals("A \"co\" \\ é中😀\n\u0001", (args["customer"] as JsonPrimitive).content)
            // a text longer than the shim's per-thread scratch memory takes its other crossing
            val long = "é".repeat(3000)
            val o2 = d.executeBlocking(AppFunctionInvocation("order"), request.replace("\"A \\\"co", "\"$long\\\"co"))
            assertTrue(o2.isSuccess, o2.json)
            val (text2, args2) = seen.get()
            assertTrue(text2!!.toByteArray().size > 6000)
            assertEquals(kotlinx(text2), args2)
            assertTrue((args2["customer"] as JsonPrimitive).content.startsWith(long))
        }
    }

    @Test
    fun argumentsReadOrNotReadTwiceOrFromTwoThreads() {
        AppFunctionDispatcher().use { d ->
            val results = ArrayList<Any?>()
            var mode = 0
            orders(d) { _, args ->
                when (mode) {
                    0 -> Unit // not read
                    1 -> { // read twice: the same entries, made once
                        val a = args["lines"]
                        val b = args["lines"]
                        assertSame(a, b)
                        results += args.toString()
                        results += args.toString()
                    }
                    else -> { // first read from two threads at once
                        val barrier = CyclicBarrier(2)
                        val got = arrayOfNulls<JsonElement>(2)
                        val done = CountDownLatch(2)
                        repeat(2) { i ->
                            Thread {
                                barrier.await()
                                got[i] = args["first"]
                                done.countDown()
                            }.start()
                        }
                        done.await()
                        assertSame(got[0], got[1])
                        results += got[0]
                    }
                }
                JsonPrimitive("ok")
            }
            for (m in 0..2) {
                mode = m
                repeat(if (m == 2) 50 else 1) {
                    val o = d.executeBlocking(AppFunctionInvocation("order"), request)
                    assertTrue(o.isSuccess, o.json)
                }
            }
            assertEquals(2 + 50, results.size)
            assertEquals(results[0], results[1])
            assertTrue(results.drop(2).all { it == kotlinx("""{"f":{"sku":"f","count":0}}""")["f"] })
        }
    }

    @Test
    fun aHandlerThatNeverReadsItsArgumentsLeavesThemUnscannedAndTheyReadLater() {
        AppFunctionDispatcher().use { d ->
            val kept = AtomicReference<Pair<String?, JsonObject>>()
            orders(d) { ctx, args ->
                kept.set(ctx.argumentsJson to args)
                JsonPrimitive("ok")
            }
            val o = d.executeBlocking(AppFunctionInvocation("order"), request)
            assertTrue(o.isSuccess, o.json)
            val (text, args) = kept.get()
            assertFalse(Arguments.made(args)) // not scanned, not made: the handler never read them
            // read after the call ended, from the copy the handler was given
            assertEquals(kotlinx(text!!), args)
            for ((k, v) in kotlinx(text)) same(v, args[k]!!, k)
            assertTrue(Arguments.made(args))
        }
    }

    @Test
    fun argumentsNestedDeeperThanTheScannerTakesReachTheHandler() {
        AppFunctionDispatcher().use { d ->
            d.setLimits(1L shl 20, Arguments.MAX_DEPTH + 10)
            var t: AppFunctionType = AppFunctionType.Int32
            repeat(Arguments.MAX_DEPTH + 2) { t = AppFunctionType.array(t) }
            val seen = AtomicReference<Pair<String?, JsonObject>>()
            d.function("deep") {
                parameter("a", t)
                result(AppFunctionType.Int32, null)
                blockingHandler { ctx, args -> seen.set(ctx.argumentsJson to args); JsonPrimitive(args.size) }
            }
            val value = "[".repeat(Arguments.MAX_DEPTH + 2) + "1" + "]".repeat(Arguments.MAX_DEPTH + 2)
            val o = d.executeBlocking(AppFunctionInvocation("deep"), """{"a":$value}""")
            assertTrue(o.isSuccess, o.json)
            assertEquals("1", o.result.toString())
            val (text, args) = seen.get()
            assertFalse(Arguments.scans(text!!.toByteArray()), text) // kotlinx's path
            assertEquals(kotlinx(text), args)
        }
    }

    @Test
    fun aFunctionWithoutParametersGetsNoArguments() {
        AppFunctionDispatcher().use { d ->
            var seen: JsonObject? = null
            d.function("ping") {
                result(AppFunctionType.Int32)
                blockingHandler { _, args -> seen = args; JsonPrimitive(1) }
            }
            assertEquals("1", d.executeBlocking(AppFunctionInvocation("ping")).result.toString())
            assertTrue(seen!!.isEmpty())
            assertFalse(seen!!.containsKey("x"))
        }
    }
}

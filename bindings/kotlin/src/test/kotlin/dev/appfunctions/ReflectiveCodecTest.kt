package dev.appfunctions

import dev.appfunctions.internal.ArgumentSpans
import dev.appfunctions.internal.Shape
import dev.appfunctions.internal.Shapes
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Instant
import java.time.LocalDate
import java.time.OffsetDateTime
import java.time.ZoneOffset
import java.util.UUID
import kotlin.random.Random
import kotlin.reflect.typeOf
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

enum class CodecColor { Red, Green, Blue }

@AppFunctionSerializable
data class CodecInner(val label: String, val tags: List<String>, val color: CodecColor?)

@AppFunctionSerializable
data class CodecAll(
    val s: String,
    val b: Boolean,
    val i: Int,
    val sh: Short,
    val by: Byte,
    val l: Long,
    val d: Double,
    val f: Float,
    val at: OffsetDateTime,
    val instant: Instant,
    val day: LocalDate,
    val id: UUID,
    val color: CodecColor,
    val set: Set<Int>,
    val maybe: String?,
    val inner: CodecInner,
    val inners: List<CodecInner>,
)

/** The reflective functions' own codec: what an @AppFunction method's arguments are read with and its result written with. */
class CodecFunctions {
    @AppFunction(description = "Echoes a record.")
    fun echoAll(value: CodecAll): CodecAll = value

    @AppFunction(description = "Adds.")
    fun add(a: Int, b: Long, c: Short = 1): Long = a + b + c

    @AppFunction(description = "Greets, suspending or not.")
    suspend fun greet(name: String, pause: Boolean, fail: String? = null): String {
        if (pause) delay(1)
        if (fail != null) throw AppFunctionException(AppFunctionErrorCode.valueOf(fail), "refused $name")
        return "hi $name"
    }

    @AppFunction(description = "Says nothing.")
    suspend fun nothing(pause: Boolean) {
        if (pause) delay(1)
    }

    @AppFunction(description = "Picks a color.")
    fun pick(color: CodecColor, note: String?): String = "$color ${note ?: "-"}"
}

/**
 * The reflective path's codec (internal/Shapes.kt, Reflective.kt): [Shape.write] writes the text
 * kotlinx prints of [Shape.encode]'s tree, [Shape.decodeAt] reads from the bytes what
 * [Shape.decode] reads from kotlinx's element, and the functions called through them answer as
 * before.
 */
class ReflectiveCodecTest {
    private val d = AppFunctionDispatcher().apply { register(CodecFunctions()) }

    @AfterEach
    fun close() = d.close()

    private val rnd = Random(30)

    /** Strings that exercise every escape kotlinx writes, and characters it does not escape. */
    private fun tricky(): String = buildString {
        repeat(rnd.nextInt(0, 12)) {
            when (rnd.nextInt(6)) {
                0 -> append(rnd.nextInt(0, 0x20).toChar())
                1 -> append("\"\\/".random(rnd))
                2 -> append(rnd.nextInt(0x20, 0x80).toChar())
                3 -> append("é€\u2028\u007f")
                4 -> append("\uD83D\uDE00")
                else -> append("plain")
            }
        }
    }

    private fun inner() = CodecInner(tricky(), List(rnd.nextInt(3)) { tricky() }, CodecColor.entries.random(rnd).takeIf { rnd.nextBoolean() })

    private fun all() = CodecAll(
        s = tricky(), b = rnd.nextBoolean(), i = rnd.nextInt(), sh = rnd.nextInt().toShort(), by = rnd.nextInt().toByte(),
        l = rnd.nextLong(), d = rnd.nextDouble() * 1e12, f = rnd.nextFloat(),
        at = OffsetDateTime.of(2026, 12, 6, 17, rnd.nextInt(60), 0, 123_000, ZoneOffset.ofHours(rnd.nextInt(-12, 13))),
        instant = Instant.ofEpochSecond(rnd.nextLong(0, 4_000_000_000)), day = LocalDate.of(2026, 1 + rnd.nextInt(12), 1 + rnd.nextInt(28)),
        id = UUID(rnd.nextLong(), rnd.nextLong()), color = CodecColor.entries.random(rnd), set = List(rnd.nextInt(4)) { rnd.nextInt() }.toSet(),
        maybe = tricky().takeIf { rnd.nextBoolean() }, inner = inner(), inners = List(rnd.nextInt(3)) { inner() },
    )

    @Test
    fun `write makes the characters kotlinx prints of encode's tree, for every shape`() {
        val shape = Shapes.of(typeOf<CodecAll>(), "test")
        repeat(500) {
            val v = all()
            val written = StringBuilder().also { shape.write(it, v) }.toString()
            assertEquals(shape.encode(v).toString(), written)
        }
        val list = Shapes.of(typeOf<List<CodecColor?>>(), "test")
        val colors = listOf(CodecColor.Red, null, CodecColor.Blue)
        assertEquals(list.encode(colors).toString(), StringBuilder().also { list.write(it, colors) }.toString())
        assertEquals("null", StringBuilder().also { Shapes.of(typeOf<Unit>(), "test").write(it, Unit) }.toString())
    }

    /** [decodeAt] of [text] (the value alone) answers what [decode] of kotlinx's element answers, or fails with the same message. */
    private fun agree(shape: Shape, text: String) {
        val expected = runCatching { shape.decode(AppJson.parseToJsonElement(text)) }
        val bytes = "{\"v\":$text}".toByteArray()
        val actual = runCatching { shape.decodeAt(bytes, 5, bytes.size - 1) }
        assertEquals(expected.getOrNull(), actual.getOrNull(), text)
        assertEquals(expected.exceptionOrNull()?.message, actual.exceptionOrNull()?.message, text)
    }

    @Test
    fun `decodeAt reads from the bytes what decode reads from kotlinx's element`() {
        val int = Shapes.of(typeOf<Int>(), "t")
        val short = Shapes.of(typeOf<Short>(), "t")
        val long = Shapes.of(typeOf<Long>(), "t")
        for (t in listOf("0", "-0", "7", "-7", "2147483647", "2147483648", "-2147483648", "-2147483649", "2.0", "1e3", "\"5\"", "true", "null",
            "999999999999999999", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "00")) {
            agree(int, t); agree(short, t); agree(long, t)
        }
        val str = Shapes.of(typeOf<String>(), "t")
        repeat(300) { agree(str, JsonPrimitive(tricky()).toString()) }
        for (t in listOf("\"a\\u0041\\n\"", "\"\\ud83d\\ude00\"", "5", "null")) agree(str, t)
        val color = Shapes.of(typeOf<CodecColor>(), "t")
        for (t in listOf("\"Red\"", "\"Blue\"", "\"\\u0052ed\"", "\"red\"", "\"Re\"", "\"Redd\"", "\"\"", "3")) agree(color, t)
        val maybe = Shapes.of(typeOf<CodecColor?>(), "t")
        for (t in listOf("null", "\"Green\"", "\"nul\"")) agree(maybe, t)
        val bool = Shapes.of(typeOf<Boolean>(), "t")
        for (t in listOf("true", "false", "\"true\"")) agree(bool, t)
        val record = Shapes.of(typeOf<CodecAll>(), "t")
        repeat(50) { agree(record, record.encode(all()).toString()) }
    }

    @Test
    fun `argument spans find the last of equal keys, and leave escaped keys to kotlinx`() {
        val text = """{"a":1,"bb":"x","a":[2,3]}""".toByteArray()
        val spans = ArgumentSpans.of(text)!!
        val a = spans.find("a".toByteArray())
        assertEquals("[2,3]", String(text, (a ushr 32).toInt(), a.toInt() - (a ushr 32).toInt()))
        assertEquals(-1L, spans.find("b".toByteArray()))
        assertNull(ArgumentSpans.of("""{"\u0061":1}""".toByteArray()))
        assertNull(ArgumentSpans.of("""{"a": 1}""".toByteArray()), "whitespace: not the core's compact text")
    }

    /** A random JSON value, compact as the core writes it: strings over every escape, numbers, literals, nesting. */
    private fun randomJson(depth: Int = 0): kotlinx.serialization.json.JsonElement = when (if (depth > 3) rnd.nextInt(4) else rnd.nextInt(6)) {
        0 -> JsonPrimitive(tricky())
        1 -> JsonPrimitive(rnd.nextLong(-1_000_000_000_000, 1_000_000_000_000))
        2 -> JsonPrimitive(rnd.nextDouble() * 1e6)
        3 -> listOf(JsonPrimitive(true), JsonPrimitive(false), kotlinx.serialization.json.JsonNull).random(rnd)
        4 -> kotlinx.serialization.json.JsonArray(List(rnd.nextInt(4)) { randomJson(depth + 1) })
        else -> kotlinx.serialization.json.JsonObject((0 until rnd.nextInt(4)).associate { "k$it${tricky()}" to randomJson(depth + 1) })
    }

    @Test
    fun `the core's text is split by skipping its values, into the entries the checking scanner finds`() {
        repeat(2_000) {
            val keys = List(rnd.nextInt(0, 6)) { "p$it" + "_x".repeat(rnd.nextInt(2)) }
            val obj = kotlinx.serialization.json.JsonObject(keys.associateWith { randomJson() })
            val text = obj.toString().toByteArray()
            val core = ArgumentSpans.ofCore(text)!!
            val checked = ArgumentSpans.of(text)!!
            for (k in keys + listOf("absent", "p")) assertEquals(checked.find(k.toByteArray()), core.find(k.toByteArray()), "$k in ${obj}")
        }
        for (t in listOf("""{"a": 1}""", """{"a":1} """, """{"\u0061":1}""", """[1]""", """{"a":"x""", "{}x")) {
            val core = ArgumentSpans.ofCore(t.toByteArray())
            if (core != null) assertEquals(ArgumentSpans.of(t.toByteArray())?.find("a".toByteArray()), core.find("a".toByteArray()), t)
        }
        assertNull(ArgumentSpans.ofCore("""{"\u0061":1}""".toByteArray()), "an escaped key: left to kotlinx")
        assertEquals(-1L, ArgumentSpans.ofCore("{}".toByteArray())!!.find("a".toByteArray()))
    }

    @Test
    fun `reflective functions bind and answer through the codec, defaults and suspension included`() {
        val v = all()
        val shape = Shapes.of(typeOf<CodecAll>(), "t")
        val o = d.executeBlocking(AppFunctionInvocation("echo_all"), "{\"value\":${shape.encode(v)}}")
        assertEquals(AppFunctionStatus.Success, o.status, o.json)
        // (the core writes the outcome's numbers its own way: 8.96E10 comes back as 89609129742.9)
        assertEquals(v, shape.decode(o.result))
        assertEquals(6, d.executeBlocking(AppFunctionInvocation("add"), """{"a":2,"b":3}""").result.jsonPrimitive.int, "a Kotlin default (callBy)")
        assertEquals(-1, d.executeBlocking(AppFunctionInvocation("add"), """{"a":2,"b":-5,"c":2}""").result.jsonPrimitive.int)
        val overflow = d.executeBlocking(AppFunctionInvocation("add"), """{"a":2147483648,"b":1}""")
        assertEquals(AppFunctionErrorCode.InvalidArgument, overflow.errorCode, overflow.json)
        assertEquals("Green -", d.executeBlocking(AppFunctionInvocation("pick"), """{"color":"Green"}""").result.jsonPrimitive.content)
        assertEquals("Blue x", d.executeBlocking(AppFunctionInvocation("pick"), """{"color":"Blue","note":"x"}""").result.jsonPrimitive.content)
        runBlocking {
            for (pause in listOf(false, true)) {
                assertEquals("hi ann", d.execute(AppFunctionInvocation("greet"), """{"name":"ann","pause":$pause}""").result.jsonPrimitive.content)
                val refused = d.execute(AppFunctionInvocation("greet"), """{"name":"bo","pause":$pause,"fail":"Denied"}""")
                assertEquals(AppFunctionErrorCode.Denied, refused.errorCode, refused.json)
                assertEquals("refused bo", refused.message)
                val none = d.execute(AppFunctionInvocation("nothing"), """{"pause":$pause}""")
                assertEquals(AppFunctionStatus.Success, none.status, none.json)
                assertTrue(none.json.contains("\"result\":null") || !none.json.contains("\"result\""), none.json)
            }
        }
        assertEquals("hi cy", d.executeBlocking(AppFunctionInvocation("greet"), """{"name":"cy","pause":true}""").result.jsonPrimitive.content)
    }
}

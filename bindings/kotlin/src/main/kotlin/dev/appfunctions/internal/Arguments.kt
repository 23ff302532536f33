// The bound arguments a DSL handler gets, as the JsonObject kotlinx.serialization would parse
// from af_call_args, without kotlinx's general parse on the hot path: the core writes them
// compact (no whitespace; docs/abi.md, af_call_args), so a scanner checks the UTF-8 once and
// records where each entry is, and the entries are made on first read. The DSL's handlers get
// [Arguments.ofCore]: the core's own text, scanned on first read too (a handler that never reads
// its arguments pays for their copy only).
package dev.appfunctions.internal

import dev.appfunctions.AppJson
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonObject

internal object Arguments {
    private val EMPTY = JsonObject(emptyMap())

    /**
     * [utf8] (af_call_args' text; null: none) as the DSL's arguments: what
     * `AppJson.parseToJsonElement(text).jsonObject` answers, equal in every way (the entries,
     * their order, equality, hashCode, toString). A text the scanner accepts is made into
     * entries only when first read ([LazyArguments]); any other (whitespace, a nesting deeper
     * than [MAX_DEPTH], bytes that are not UTF-8, anything not JSON) goes to kotlinx's parse
     * here, which answers it or throws, as it did before the scanner.
     */
    fun of(utf8: ByteArray?): JsonObject {
        if (utf8 == null) return EMPTY
        val scanner = Scanner(utf8)
        if (!scanner.scanObject()) return AppJson.parseToJsonElement(utf8.toString(Charsets.UTF_8)).jsonObject
        return if (scanner.n == 0) EMPTY else JsonObject(LazyArguments(utf8, scanner.spans, scanner.n))
    }

    /**
     * [of] for the text the core itself wrote for a call it dispatched (af_call_args, read during
     * the call): not scanned until first read, so a handler that never reads its arguments pays
     * for their copy only. Checking it before the handler would be redundant: the core writes
     * that text itself (src/model/binding.rs writes every byte of it while it binds the request,
     * into a Rust String: compact RFC 8259 in well-formed UTF-8, an object, the entities spliced
     * in as the same binder wrote them, src/engine/pipeline.rs), so [of]'s check cannot fail on
     * it. A text the scanner does not take (nesting deeper than [MAX_DEPTH], which a host's
     * af_dispatcher_set_limits allows) is parsed by kotlinx on first read instead; any other
     * text would fail there too, on first read rather than before the handler, which is why
     * only the core's own text comes here ([of] keeps the check for every other).
     */
    fun ofCore(utf8: ByteArray?): JsonObject {
        if (utf8 == null || (utf8.size == 2 && utf8[0] == '{'.code.toByte() && utf8[1] == '}'.code.toByte())) return EMPTY
        return JsonObject(LazyArguments(utf8, null, 0))
    }

    /** Whether [args] (from [ofCore] or [of]) has made its entries yet: for tests. */
    internal fun made(args: JsonObject): Boolean =
        (JsonObject::class.java.getDeclaredField("content").apply { isAccessible = true }.get(args) as? LazyArguments)?.isMade ?: true

    /** True when [utf8] takes the scanner's path (not kotlinx's): for tests. */
    internal fun scans(utf8: ByteArray): Boolean = Scanner(utf8).scanObject()

    /** Nesting deeper than this goes to kotlinx (the scanner recurses; kotlinx does not overflow). */
    const val MAX_DEPTH = 64
}

/**
 * The scanner of one text: [scanObject] answers whether it accepts it, and records the top-level
 * entries' [spans] (four per entry: key start and end without the quotes, value start and end;
 * [n] of them used). What it accepts is JSON (RFC 8259) without whitespace, in well-formed UTF-8: kotlinx
 * parses all of it, and the entries [LazyArguments] makes are what kotlinx makes.
 */
private class Scanner(private val b: ByteArray) {
    var spans = IntArray(16)
        private set
    var n = 0
        private set

    fun scanObject(): Boolean {
        if (b.isEmpty() || b[0] != '{'.code.toByte()) return false
        var p = 1
        if (p < b.size && b[p] == '}'.code.toByte()) return p + 1 == b.size
        while (true) {
            if (p >= b.size || b[p] != '"'.code.toByte()) return false
            val keyEnd = string(p)
            if (keyEnd < 0 || keyEnd >= b.size || b[keyEnd] != ':'.code.toByte()) return false
            val v = keyEnd + 1
            val end = value(v, 1)
            if (end < 0) return false
            add(p + 1, keyEnd - 1, v, end)
            if (end >= b.size) return false
            when (b[end]) {
                ','.code.toByte() -> p = end + 1
                '}'.code.toByte() -> return end + 1 == b.size
                else -> return false
            }
        }
    }

    private fun add(ks: Int, ke: Int, vs: Int, ve: Int) {
        if (n + 4 > spans.size) spans = spans.copyOf(spans.size * 2)
        spans[n] = ks
        spans[n + 1] = ke
        spans[n + 2] = vs
        spans[n + 3] = ve
        n += 4
    }

    /** The end (exclusive) of the value at [p], or -1. */
    private fun value(p: Int, depth: Int): Int {
        if (p >= b.size) return -1
        return when (b[p].toInt().toChar()) {
            '"' -> string(p)
            '{' -> container(p, depth, '}', true)
            '[' -> container(p, depth, ']', false)
            't' -> word(p, TRUE)
            'f' -> word(p, FALSE)
            'n' -> word(p, NULL)
            '-', in '0'..'9' -> number(p)
            else -> -1
        }
    }

    private fun word(p: Int, w: ByteArray): Int {
        if (p + w.size > b.size) return -1
        for (i in w.indices) if (b[p + i] != w[i]) return -1
        return p + w.size
    }

    /** An object's or an array's end, its members checked (not recorded). */
    private fun container(p: Int, depth: Int, close: Char, keyed: Boolean): Int {
        if (depth >= Arguments.MAX_DEPTH) return -1
        var q = p + 1
        if (q < b.size && b[q] == close.code.toByte()) return q + 1
        while (true) {
            if (keyed) {
                if (q >= b.size || b[q] != '"'.code.toByte()) return -1
                q = string(q)
                if (q < 0 || q >= b.size || b[q] != ':'.code.toByte()) return -1
                q++
            }
            q = value(q, depth + 1)
            if (q < 0 || q >= b.size) return -1
            when (b[q]) {
                ','.code.toByte() -> q++
                close.code.toByte() -> return q + 1
                else -> return -1
            }
        }
    }

    /** A string's end (after its closing quote), or -1: valid escapes, no control characters, well-formed UTF-8. */
    private fun string(p: Int): Int {
        var i = p + 1
        while (i < b.size) {
            val c = b[i].toInt() and 0xFF
            when {
                c == '"'.code -> return i + 1
                c == '\\'.code -> {
                    if (i + 1 >= b.size) return -1
                    when (b[i + 1].toInt().toChar()) {
                        '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> i += 2
                        'u' -> {
                            if (i + 6 > b.size) return -1
                            for (k in i + 2 until i + 6) if (hex(b[k]) < 0) return -1
                            i += 6
                        }
                        else -> return -1
                    }
                }
                c < 0x20 -> return -1
                c < 0x80 -> i++
                else -> {
                    i = utf8(i, c)
                    if (i < 0) return -1
                }
            }
        }
        return -1
    }

    /** After the well-formed UTF-8 sequence led by [c] at [i], or -1 (overlong forms, surrogates and values past U+10FFFF are not). */
    private fun utf8(i: Int, c: Int): Int {
        val more: Int
        var lo = 0x80
        var hi = 0xBF
        when (c) {
            in 0xC2..0xDF -> more = 1
            in 0xE0..0xEF -> {
                more = 2
                if (c == 0xE0) lo = 0xA0
                if (c == 0xED) hi = 0x9F
            }
            in 0xF0..0xF4 -> {
                more = 3
                if (c == 0xF0) lo = 0x90
                if (c == 0xF4) hi = 0x8F
            }
            else -> return -1
        }
        if (i + more >= b.size) return -1
        val c1 = b[i + 1].toInt() and 0xFF
        if (c1 < lo || c1 > hi) return -1
        for (k in i + 2..i + more) {
            val ck = b[k].toInt() and 0xFF
            if (ck < 0x80 || ck > 0xBF) return -1
        }
        return i + more + 1
    }

    /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: its end, or -1. */
    private fun number(p: Int): Int {
        var i = p
        if (b[i] == '-'.code.toByte()) i++
        if (i >= b.size) return -1
        if (b[i] == '0'.code.toByte()) i++ else {
            if (!digit(i)) return -1
            while (digit(i)) i++
        }
        if (i < b.size && b[i] == '.'.code.toByte()) {
            i++
            if (!digit(i)) return -1
            while (digit(i)) i++
        }
        if (i < b.size && (b[i] == 'e'.code.toByte() || b[i] == 'E'.code.toByte())) {
            i++
            if (i < b.size && (b[i] == '+'.code.toByte() || b[i] == '-'.code.toByte())) i++
            if (!digit(i)) return -1
            while (digit(i)) i++
        }
        return i
    }

    private fun digit(i: Int) = i < b.size && b[i] >= '0'.code.toByte() && b[i] <= '9'.code.toByte()

    companion object {
        val TRUE = "true".toByteArray()
        val FALSE = "false".toByteArray()
        val NULL = "null".toByteArray()

        fun hex(x: Byte): Int = when (val c = x.toInt().toChar()) {
            in '0'..'9' -> c - '0'
            in 'a'..'f' -> c - 'a' + 10
            in 'A'..'F' -> c - 'A' + 10
            else -> -1
        }
    }
}

/**
 * The entries of a text [Scanner] accepted, made on first read (by any member: a handler that
 * never reads its arguments never pays for them) into the LinkedHashMap kotlinx would have made,
 * in the text's order, which then answers every member. A first read from two threads at once
 * makes them once (under the lock); later reads take no lock.
 */
private class LazyArguments(private val utf8: ByteArray, private var spans: IntArray?, private var used: Int) : Map<String, JsonElement> {
    @Volatile
    private var made: Map<String, JsonElement>? = null

    val isMade: Boolean get() = made != null

    private fun map(): Map<String, JsonElement> = made ?: synchronized(this) { made ?: make().also { made = it } }

    private fun make(): Map<String, JsonElement> {
        if (spans == null) {
            // Arguments.ofCore: scanned now, on first read; a text the scanner does not take is kotlinx's
            val scanner = Scanner(utf8)
            if (!scanner.scanObject()) return AppJson.parseToJsonElement(utf8.toString(Charsets.UTF_8)).jsonObject
            spans = scanner.spans
            used = scanner.n
        }
        val spans = spans!!
        val m = LinkedHashMap<String, JsonElement>(used / 4 * 4 / 3 + 1)
        var i = 0
        while (i < used) {
            // the last of two equal keys wins, in the first one's place: kotlinx's own put
            m[Utf8Json.text(utf8, spans[i], spans[i + 1])] = Utf8Json.element(utf8, spans[i + 2], spans[i + 3])
            i += 4
        }
        return m
    }

    override val size: Int get() = map().size
    override fun isEmpty(): Boolean = map().isEmpty()
    override fun containsKey(key: String): Boolean = map().containsKey(key)
    override fun containsValue(value: JsonElement): Boolean = map().containsValue(value)
    override fun get(key: String): JsonElement? = map()[key]
    override val keys: Set<String> get() = map().keys
    override val values: Collection<JsonElement> get() = map().values
    override val entries: Set<Map.Entry<String, JsonElement>> get() = map().entries
    override fun equals(other: Any?): Boolean = other === this || map() == other
    override fun hashCode(): Int = map().hashCode()
    override fun toString(): String = map().toString()
}

/**
 * Values read from compact JSON's UTF-8 at a span, as kotlinx makes them: of a text [Scanner]
 * checked, or of the core's own text ([ArgumentSpans.ofCore]).
 */
internal object Utf8Json {
    private val TRUE = JsonPrimitive(true)
    private val FALSE = JsonPrimitive(false)

    /** The value at [s, e) of [utf8] as the JsonElement kotlinx's parse makes of it. */
    fun element(utf8: ByteArray, s: Int, e: Int): JsonElement = when (utf8[s].toInt().toChar()) {
        '"' -> JsonPrimitive(text(utf8, s + 1, e - 1))
        't' -> TRUE
        'f' -> FALSE
        'n' -> JsonNull
        // an integer as written ("-0" and long ones excepted): kotlinx keeps the text, which is the Long's
        '-', in '0'..'9' -> plainLong(utf8, s, e)?.let { JsonPrimitive(it) } ?: AppJson.parseToJsonElement(String(utf8, s, e - s, Charsets.ISO_8859_1))
        // objects and arrays: kotlinx's own parse of the value's text (checked by the scanner)
        else -> AppJson.parseToJsonElement(String(utf8, s, e - s, Charsets.UTF_8))
    }

    /** The integer at [s, e) when it has no fraction or exponent and its text is the Long's own. */
    fun plainLong(utf8: ByteArray, s: Int, e: Int): Long? {
        val neg = utf8[s] == '-'.code.toByte()
        val d = if (neg) s + 1 else s
        if (d >= e || e - d > 18 || (utf8[d] == '0'.code.toByte() && (e - d > 1 || neg))) return null
        var v = 0L
        for (i in d until e) {
            val c = utf8[i] - '0'.code.toByte()
            if (c < 0 || c > 9) return null
            v = v * 10 + c
        }
        return if (neg) -v else v
    }

    /** A string's contents at [s, e) (between its quotes), its escapes read. */
    fun text(utf8: ByteArray, s: Int, e: Int): String {
        var esc = s
        while (esc < e && utf8[esc] != '\\'.code.toByte()) esc++
        if (esc == e) return String(utf8, s, e - s, Charsets.UTF_8)
        val sb = StringBuilder(e - s)
        var from = s
        var i = esc
        while (i < e) {
            if (utf8[i] != '\\'.code.toByte()) {
                i++
                continue
            }
            if (i > from) sb.append(String(utf8, from, i - from, Charsets.UTF_8))
            when (val c = utf8[i + 1].toInt().toChar()) {
                'b' -> sb.append('\b')
                'f' -> sb.append('\u000C')
                'n' -> sb.append('\n')
                'r' -> sb.append('\r')
                't' -> sb.append('\t')
                'u' -> {
                    var v = 0
                    for (k in i + 2 until i + 6) v = v * 16 + Scanner.hex(utf8[k])
                    sb.append(v.toChar())
                    i += 4
                }
                else -> sb.append(c) // " \ /
            }
            i += 2
            from = i
        }
        if (e > from) sb.append(String(utf8, from, e - from, Charsets.UTF_8))
        return sb.toString()
    }
}

/**
 * The top-level entries of an arguments text the scanner takes, found by one scan: what a
 * reflective function binds its parameters from, each value read at its span by its
 * [Shape.decodeAt] with no map and no JsonElement between.
 */
internal class ArgumentSpans private constructor(val utf8: ByteArray, private val spans: IntArray, private val n: Int) {
    /**
     * The span of the value whose key is [key] (UTF-8): its start in the high 32 bits, its end in
     * the low ones; -1 when no key is. Of two equal keys the last one's, as kotlinx's parse keeps.
     */
    fun find(key: ByteArray): Long {
        var found = -1L
        var i = 0
        while (i < n) {
            val ks = spans[i]
            if (spans[i + 1] - ks == key.size && java.util.Arrays.equals(utf8, ks, ks + key.size, key, 0, key.size)) {
                found = (spans[i + 2].toLong() shl 32) or spans[i + 3].toLong()
            }
            i += 4
        }
        return found
    }

    companion object {
        /** [utf8]'s entries; null when the scanner does not take it or a key has an escape (then kotlinx's parse reads it). */
        fun of(utf8: ByteArray): ArgumentSpans? {
            val scanner = Scanner(utf8)
            if (!scanner.scanObject()) return null
            val spans = scanner.spans
            var i = 0
            while (i < scanner.n) {
                for (k in spans[i] until spans[i + 1]) if (utf8[k] == '\\'.code.toByte()) return null
                i += 4
            }
            return ArgumentSpans(utf8, spans, scanner.n)
        }

        /**
         * [of] for the text the core itself wrote for a call it dispatched (af_call_args): its
         * entries found by skipping each value (a string to its closing quote, an object or an
         * array to its closing bracket, anything else to the next `,`, `}` or `]`) without
         * checking them, for the core writes every byte of that text (compact RFC 8259 in
         * well-formed UTF-8: [Arguments.ofCore] says how). Null for what is not an object of
         * such entries, or a key with an escape; then [of]'s answer is taken.
         */
        fun ofCore(utf8: ByteArray): ArgumentSpans? {
            val b = utf8
            if (b.size < 2 || b[0] != '{'.code.toByte()) return null
            var spans = IntArray(16)
            var n = 0
            var p = 1
            if (b[p] == '}'.code.toByte()) return if (b.size == 2) ArgumentSpans(b, spans, 0) else null
            while (true) {
                if (p >= b.size || b[p] != '"'.code.toByte()) return null
                val keyEnd = skipString(b, p) // after the closing quote
                if (keyEnd < 0 || keyEnd >= b.size || b[keyEnd] != ':'.code.toByte()) return null
                for (k in p + 1 until keyEnd - 1) if (b[k] == '\\'.code.toByte()) return null
                val v = keyEnd + 1
                val end = skipValue(b, v)
                if (end <= v || end >= b.size) return null
                if (n + 4 > spans.size) spans = spans.copyOf(spans.size * 2)
                spans[n] = p + 1
                spans[n + 1] = keyEnd - 1
                spans[n + 2] = v
                spans[n + 3] = end
                n += 4
                when (b[end]) {
                    ','.code.toByte() -> p = end + 1
                    '}'.code.toByte() -> return if (end + 1 == b.size) ArgumentSpans(b, spans, n) else null
                    else -> return null
                }
            }
        }

        /** After the string whose quote is at [p] (-1: unterminated). */
        private fun skipString(b: ByteArray, p: Int): Int {
            var i = p + 1
            while (i < b.size) {
                when (b[i]) {
                    '"'.code.toByte() -> return i + 1
                    '\\'.code.toByte() -> i += 2
                    else -> i++
                }
            }
            return -1
        }

        /** After the value at [p] (-1: none there, or unterminated). */
        private fun skipValue(b: ByteArray, p: Int): Int {
            if (p >= b.size) return -1
            return when (b[p]) {
                '"'.code.toByte() -> skipString(b, p)
                '{'.code.toByte(), '['.code.toByte() -> {
                    var depth = 0
                    var i = p
                    while (i < b.size) {
                        when (b[i]) {
                            '"'.code.toByte() -> {
                                i = skipString(b, i)
                                if (i < 0) return -1
                                continue
                            }
                            '{'.code.toByte(), '['.code.toByte() -> depth++
                            '}'.code.toByte(), ']'.code.toByte() -> if (--depth == 0) return i + 1
                        }
                        i++
                    }
                    -1
                }
                '-'.code.toByte(), in '0'.code.toByte()..'9'.code.toByte(), 't'.code.toByte(), 'f'.code.toByte(), 'n'.code.toByte() -> {
                    var i = p
                    while (i < b.size && b[i] != ','.code.toByte() && b[i] != '}'.code.toByte() && b[i] != ']'.code.toByte()) i++
                    i
                }
                else -> -1 // whitespace, or not JSON: not the core's compact text
            }
        }
    }
}

package dev.appfunctions

import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonObject
import kotlin.time.Duration

/** Who is calling: Siri/Shortcuts (`Apple`), an Android AppFunctions caller (`Android`), or in-process (`Other`). */
enum class AppFunctionPlatform(val code: Int) {
    Other(0), Apple(1), Android(2);

    companion object {
        fun of(code: Int): AppFunctionPlatform = entries.firstOrNull { it.code == code } ?: Other
    }
}

enum class AppFunctionStatus { Success, Error, OpenApp }

/** The closed list of error codes (`AF_CODE_*`), the same in every binding. */
enum class AppFunctionErrorCode(val code: Int) {
    FunctionNotFound(1),
    Disabled(2),
    InvalidArgument(3),
    EntityNotFound(4),
    Denied(5),
    PermissionDenied(6),
    Cancelled(7),
    TimedOut(8),
    HandlerFailed(9),
    LimitExceeded(10),
    NotSupported(11),
    InternalError(12);

    companion object {
        private val BY_NAME: Map<String, AppFunctionErrorCode> = entries.associateBy { it.name }

        /** The code of this name (`AF_CODE_*`'s, e.g. "InvalidArgument"); null for null or an unknown name. */
        fun of(name: String?): AppFunctionErrorCode? = name?.let { BY_NAME[it] }
    }
}

/**
 * Throw from a handler or entity provider to fail the call with a specific code (any other
 * exception is `HandlerFailed` with its message).
 */
open class AppFunctionException(val errorCode: AppFunctionErrorCode, message: String) : RuntimeException(message)

/** A request to run a function. Defaults: in-process (`Other`), not in the foreground. */
data class AppFunctionInvocation(
    val functionId: String,
    val platform: AppFunctionPlatform = AppFunctionPlatform.Other,
    val isForeground: Boolean = false,
    /** Android: the calling package (null is "", in-process). */
    val callerPackage: String? = null,
    /** Ends the call `TimedOut` after this long; null is the dispatcher's default (30 s unless [AppFunctionDispatcher.setDefaultTimeout] changed it); [Duration.INFINITE] is none. */
    val timeout: Duration? = null,
    /**
     * A value of the caller's that the call carries (`af_invocation.host_context`), never read by
     * the library: every delegate, the permission hook, the scope hooks, the handler and the
     * call's entity lookups read it back as [AppFunctionContext.invocationContext].
     */
    val hostContext: Any? = null,
)

/** What a delegate's `onInvoking` answers. */
sealed class AppFunctionGate {
    data object Allow : AppFunctionGate()
    data class Deny(val message: String) : AppFunctionGate()
    /** In the foreground it passes, on every platform. Not in the foreground: apple continues in the app (`OpenApp`); android and other refuse the call with [message] (`Denied`). */
    data class OpenApp(val message: String) : AppFunctionGate()
}

/**
 * The outcome of one call, exactly as the core reports it. `execute` never throws: every
 * failure is an outcome. An outcome from the core is read in one pass over the fields of its
 * fixed shape; [result] is parsed to a [JsonElement] on its first read (and kept).
 */
class AppFunctionOutcome private constructor(
    /** The outcome JSON as the core wrote it. */
    val json: String,
    val status: AppFunctionStatus,
    /** [result] when it is already a tree (a parsed outcome; JSON null), else null: parsed from its text at [resultAt] on first read. */
    @Volatile private var parsedResult: JsonElement?,
    /**
     * Where the result's JSON text is in [json] (the shape scanner's: its start and end packed
     * as `start shl 32 or end`), when [parsedResult] is not there yet; cut out on the first read.
     */
    private val resultAt: Long,
    val dialog: String?,
    val errorCode: AppFunctionErrorCode?,
    val message: String?,
    /** True for output tools: the arguments are the final, structured result. */
    val isFinal: Boolean,
) {
    internal constructor(json: String, element: JsonObject) : this(
        json,
        statusOf((element["status"] as? JsonPrimitive)?.contentOrNull),
        element["result"] ?: JsonNull,
        0L,
        (element["dialog"] as? JsonPrimitive)?.contentOrNull,
        AppFunctionErrorCode.of((element["errorCode"] as? JsonPrimitive)?.contentOrNull),
        (element["message"] as? JsonPrimitive)?.contentOrNull,
        (element["final"] as? JsonPrimitive)?.contentOrNull == "true",
    )

    /** The result value (JSON null for void functions and failures), parsed on the first read. */
    val result: JsonElement
        get() {
            parsedResult?.let { return it }
            return synchronized(this) {
                parsedResult ?: AppJson.parseToJsonElement(json.substring((resultAt ushr 32).toInt(), resultAt.toInt()))
                    .also { parsedResult = it }
            }
        }

    /** The result as JSON text. */
    val resultJson: String get() = result.toString()

    val isSuccess: Boolean get() = status == AppFunctionStatus.Success

    /**
     * The call asked for the app ([AppFunctionStatus.OpenApp]: apple, not in the foreground) instead
     * of being refused: it has not run and may yet run when it is rerun in the foreground. What
     * `onInvoked` receives says so; for a refusal (`Denied`) it is false.
     */
    val appRequested: Boolean get() = status == AppFunctionStatus.OpenApp

    /** Decodes [result] with a kotlinx.serialization serializer. */
    fun <T> decodeResult(serializer: KSerializer<T>): T = AppJson.decodeFromJsonElement(serializer, result)

    override fun toString(): String = json

    companion object {
        /** Parses any outcome JSON (kotlinx.serialization over the whole text: malformed JSON throws). */
        fun parse(json: String): AppFunctionOutcome = AppFunctionOutcome(json, AppJson.parseToJsonElement(json).jsonObject)

        /**
         * An outcome the core wrote (`af_execute_async`'s callback, `af_execute_json`, `on_invoked`):
         * read by [OutcomeScanner] when it has the core's fixed shape (valid JSON, the core's), else [parse]d.
         */
        internal fun fromCore(json: String): AppFunctionOutcome = OutcomeScanner(json).read() ?: parse(json)

        internal fun error(code: AppFunctionErrorCode, message: String): AppFunctionOutcome = parse(
            buildString {
                append("{\"status\":\"error\",\"result\":null,\"dialog\":null,\"errorCode\":\"")
                append(code.name).append("\",\"message\":").append(JsonPrimitive(message).toString()).append('}')
            },
        )

        private fun statusOf(s: String?): AppFunctionStatus = when (s) {
            "success" -> AppFunctionStatus.Success
            "openApp" -> AppFunctionStatus.OpenApp
            else -> AppFunctionStatus.Error
        }
    }

    /**
     * Reads the core's outcome shape, `{"status":"…","result":<JSON>,"dialog":<string|null>,
     * "errorCode":<string|null>,"message":<string|null>}` with `,"final":true` before the brace for
     * output tools (src/model/outcome.rs writes exactly that, no whitespace), in one pass: the
     * result's text is skipped (strings and nesting followed), not parsed. Anything else: null.
     */
    private class OutcomeScanner(private val s: String) {
        private var i = 0

        fun read(): AppFunctionOutcome? {
            if (!lit("{\"status\":")) return null
            // the core's three statuses without a string made for them (any other text: read, Error)
            val status = when {
                lit("\"success\"") -> AppFunctionStatus.Success
                lit("\"error\"") -> AppFunctionStatus.Error
                lit("\"openApp\"") -> AppFunctionStatus.OpenApp
                else -> statusOf(str() ?: return null)
            }
            if (!lit(",\"result\":")) return null
            val r0 = i
            if (!skipValue()) return null
            val r1 = i
            if (!lit(",\"dialog\":")) return null
            val dialog = strOrNull() ?: return null
            if (!lit(",\"errorCode\":")) return null
            val code = strOrNull() ?: return null
            if (!lit(",\"message\":")) return null
            val message = strOrNull() ?: return null
            val final = lit(",\"final\":true")
            if (!lit("}") || i != s.length) return null
            val nullResult = r1 - r0 == 4 && s.startsWith("null", r0)
            return AppFunctionOutcome(
                s,
                status,
                if (nullResult) JsonNull else null,
                if (nullResult) 0L else (r0.toLong() shl 32) or r1.toLong(),
                dialog.value,
                AppFunctionErrorCode.of(code.value),
                message.value,
                final,
            )
        }

        private fun lit(t: String): Boolean {
            if (!s.startsWith(t, i)) return false
            i += t.length
            return true
        }

        /** A string or null, boxed (null: not one of those). */
        private class Opt(val value: String?)

        private fun strOrNull(): Opt? = if (lit("null")) NONE else str()?.let { Opt(it) }

        /** A JSON string at [i], unescaped. */
        private fun str(): String? {
            if (i >= s.length || s[i] != '"') return null
            val start = ++i
            while (i < s.length) {
                when (s[i]) {
                    '"' -> return s.substring(start, i++)
                    '\\' -> return unescape(start)
                    else -> i++
                }
            }
            return null
        }

        private fun unescape(start: Int): String? {
            val b = StringBuilder(s.length - start).append(s, start, i)
            while (i < s.length) {
                val c = s[i++]
                when (c) {
                    '"' -> return b.toString()
                    '\\' -> {
                        if (i >= s.length) return null
                        when (val e = s[i++]) {
                            '"', '\\', '/' -> b.append(e)
                            'b' -> b.append('\b')
                            'f' -> b.append('\u000C')
                            'n' -> b.append('\n')
                            'r' -> b.append('\r')
                            't' -> b.append('\t')
                            'u' -> {
                                if (i + 4 > s.length) return null
                                val v = s.substring(i, i + 4).toIntOrNull(16) ?: return null
                                b.append(v.toChar())
                                i += 4
                            }
                            else -> return null
                        }
                    }
                    else -> b.append(c)
                }
            }
            return null
        }

        /** Skips one JSON value at [i] (the core's, so valid): a string, an object or array with what it nests, or a literal or number. */
        private fun skipValue(): Boolean {
            if (i >= s.length) return false
            when (s[i]) {
                '"' -> return skipString()
                '{', '[' -> {
                    var depth = 0
                    while (i < s.length) {
                        when (s[i]) {
                            '"' -> if (!skipString()) return false else continue
                            '{', '[' -> depth++
                            '}', ']' -> if (--depth == 0) {
                                i++
                                return true
                            }
                        }
                        i++
                    }
                    return false
                }
                else -> {
                    val start = i
                    while (i < s.length && s[i] != ',' && s[i] != '}') i++
                    return i > start
                }
            }
        }

        private fun skipString(): Boolean {
            i++
            while (i < s.length) {
                when (s[i]) {
                    '"' -> {
                        i++
                        return true
                    }
                    '\\' -> i += 2
                    else -> i++
                }
            }
            return false
        }

        private companion object {
            val NONE = Opt(null)
        }
    }
}

@PublishedApi
internal val AppJson: Json = Json { encodeDefaults = true; explicitNulls = true }

/** A log line from the core or from the binding (a failing `onInvoked`, a late completion). */
fun interface AppFunctionLogger {
    /** [level]: 0 debug, 1 info, 2 warn, 3 error. */
    fun log(level: Int, message: String)

    companion object {
        val JavaUtilLogging = AppFunctionLogger { level, message ->
            val jul = java.util.logging.Logger.getLogger("dev.appfunctions")
            val l = when (level) {
                0 -> java.util.logging.Level.FINE
                1 -> java.util.logging.Level.INFO
                2 -> java.util.logging.Level.WARNING
                else -> java.util.logging.Level.SEVERE
            }
            jul.log(l, message)
        }
    }
}


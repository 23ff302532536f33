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
        fun of(name: String?): AppFunctionErrorCode? = entries.firstOrNull { it.name == name }
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
 * failure is an outcome.
 */
class AppFunctionOutcome internal constructor(
    /** The outcome JSON as the core wrote it. */
    val json: String,
    element: JsonObject,
) {
    val status: AppFunctionStatus = when ((element["status"] as? JsonPrimitive)?.contentOrNull) {
        "success" -> AppFunctionStatus.Success
        "openApp" -> AppFunctionStatus.OpenApp
        else -> AppFunctionStatus.Error
    }

    /** The result value (JSON null for void functions and failures). */
    val result: JsonElement = element["result"] ?: JsonNull

    /** The result as JSON text. */
    val resultJson: String get() = result.toString()
    val dialog: String? = (element["dialog"] as? JsonPrimitive)?.contentOrNull
    val errorCode: AppFunctionErrorCode? = AppFunctionErrorCode.of((element["errorCode"] as? JsonPrimitive)?.contentOrNull)
    val message: String? = (element["message"] as? JsonPrimitive)?.contentOrNull

    /** True for output tools: the arguments are the final, structured result. */
    val isFinal: Boolean = (element["final"] as? JsonPrimitive)?.contentOrNull == "true"

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
        fun parse(json: String): AppFunctionOutcome = AppFunctionOutcome(json, AppJson.parseToJsonElement(json).jsonObject)

        internal fun error(code: AppFunctionErrorCode, message: String): AppFunctionOutcome = parse(
            buildString {
                append("{\"status\":\"error\",\"result\":null,\"dialog\":null,\"errorCode\":\"")
                append(code.name).append("\",\"message\":").append(JsonPrimitive(message).toString()).append('}')
            },
        )
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


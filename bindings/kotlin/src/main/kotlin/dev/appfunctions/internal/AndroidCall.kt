package dev.appfunctions.internal

import dev.appfunctions.AppFunctionCancellationToken
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionPlatform
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put

/**
 * An Android call waiting for its response (docs/android.md): the token it holds and what to
 * answer. `af_android_execute_async` answers through the shim's outcome trampoline
 * ([Trampolines.outcome]), which removes it from [Handles] and calls [respond].
 */
internal class PendingAndroid(val token: AppFunctionCancellationToken, val onResponse: (String) -> Unit) {
    fun respond(responseJson: String?) {
        token.releaseUse()
        onResponse(responseJson ?: systemErrorJson("the library answered no response"))
    }
}

/** `{"errorCode": 2000, "message": …}`: the response of a call the service could not start. */
internal fun systemErrorJson(message: String): String = buildJsonObject {
    put("errorCode", 2000)
    put("message", JsonPrimitive(message))
}.toString()

/**
 * `af_android_execute_async` on [native]: the function [functionId] for [callerPackage] with the
 * image of the request's parameters document; [token] is cancelled from the request's
 * `CancellationSignal`. [onResponse] gets the response JSON exactly once, on the thread that
 * finishes the call (this one when it answers inline).
 */
internal fun executeAndroid(
    native: NativeDispatcher,
    functionId: String,
    callerPackage: String,
    parametersJson: String,
    token: AppFunctionCancellationToken,
    onResponse: (String) -> Unit,
) {
    if (!native.enter()) return onResponse(systemErrorJson("the dispatcher handle is closed"))
    try {
        val tokenPtr = token.acquire()
        val key = Handles.put(PendingAndroid(token, onResponse))
        // af_android_execute_async copies the invocation before any host code runs
        val inv = InvocationLayout.threadBlock()
        val invocation = AppFunctionInvocation(functionId, AppFunctionPlatform.Android, callerPackage = callerPackage)
        val s = withInvocation(native, inv, invocation, tokenPtr, 0L) {
            NativeCalls.androidExecuteAsync(native.ptr, inv.address, parametersJson, key)
        }
        if (s != AfNative.AF_OK && Handles.remove(key) != null) {
            token.releaseUse()
            onResponse(systemErrorJson("af_android_execute_async ($s): ${lastError()}"))
        }
    } finally {
        native.exit()
    }
}

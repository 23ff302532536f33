package dev.appfunctions

/**
 * What cuts across every function: sign-in checks, feature flags, telemetry. Both methods
 * have defaults, so implement only what you need (an unimplemented method costs nothing: the
 * core is told not to call it).
 */
interface AppFunctionDelegate {
    /**
     * Runs after the arguments are bound, before the handler; delegates run in the order added
     * and the first that does not return [AppFunctionGate.Allow] decides. Entity lookups go
     * through delegates as well ([AppFunctionContext.isEntityLookup]). An exception here
     * refuses the call (`Denied`, with the exception's message) and is logged.
     */
    suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate = AppFunctionGate.Allow

    /** Sees every outcome, refusals included (as `Denied`). Exceptions thrown here are logged and ignored. */
    fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {}
}

/**
 * Looks entities up for an [AppFunctionEntity] class: by id when a function's argument names one
 * (unknown ids are left out, and the caller gets `EntityNotFound`), and by text for the generated
 * `search_{entity}` function.
 */
interface AppFunctionEntityProvider<T : Any> {
    suspend fun lookup(context: AppFunctionContext, ids: List<String>): List<T>
    suspend fun search(context: AppFunctionContext, query: String, limit: Int?): List<T>
}

/**
 * Which of [AppFunctionDelegate]'s methods [cls] implements (`onInvoking`, `onInvoked`): the core
 * is told to call only those. A method a class inherits is the interface's default, or a bridge
 * to it: the Kotlin compiler writes one into a class that implements the interface without
 * overriding the method (the interface's `DefaultImpls`, kept for callers compiled against
 * them), marked `ACC_BRIDGE` (JVMS §4.6) like every bridge, which no override is.
 */
internal fun delegateOverrides(cls: Class<*>): Pair<Boolean, Boolean> {
    fun implements(m: java.lang.reflect.Method) = !m.declaringClass.isInterface && !m.isBridge
    val invoking = cls.getMethod("onInvoking", AppFunctionContext::class.java, kotlin.coroutines.Continuation::class.java)
    val invoked = cls.getMethod("onInvoked", AppFunctionContext::class.java, AppFunctionOutcome::class.java)
    return implements(invoking) to implements(invoked)
}

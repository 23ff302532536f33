// The realistic call in Kotlin (issue 30's .NET row, seed 000's app as one of its calls feels):
// create_order with the seed's arguments to a function that takes its store from the call's
// host scope (scope hooks opening one per call), through the seed's two delegates: SignIn's
// onInvoking reading the function id, Telemetry's onInvoked logging the id, the platform and the
// outcome to a logger that writes nowhere (what writing the line costs is its handler's, not the call's).
// Bench.kt runs realisticBench; alone, main splits the call into its parts.
package dev.appfunctions.bench

import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionDelegate
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionGate
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionOutcome
import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionSerializable
import dev.appfunctions.DefaultValue
import kotlinx.coroutines.runBlocking
import java.util.concurrent.atomic.AtomicBoolean
import java.util.logging.Level
import java.util.logging.Logger

enum class RealisticPriority { Low, Normal, High }

@AppFunctionSerializable
data class RealisticOrder(val id: String, val customer: String, val quantity: Int, val priority: RealisticPriority)

/** The app's service, a singleton of its container. */
class RealisticOrderStore {
    fun create(customer: String, quantity: Int, priority: RealisticPriority) = RealisticOrder("o-1", customer, quantity, priority)
}

/** The function's class: its store comes from the call's scope. */
class RealisticOrders {
    @AppFunction(description = "Creates an order for a customer.")
    fun createOrderInApp(
        context: AppFunctionContext,
        customer: String,
        quantity: Int,
        @DefaultValue("\"Normal\"") priority: RealisticPriority = RealisticPriority.Normal,
    ): RealisticOrder = context.scope<RealisticScope>().store.create(customer, quantity, priority)
}

/** One call's DI scope: what its services resolve from. */
class RealisticScope(val store: RealisticOrderStore) : AutoCloseable {
    var closed = false
    override fun close() {
        closed = true
    }
}

/** Seed 000's SignInDelegate: cancelling orders needs a signed-in user. */
class RealisticSignIn(private val signedIn: AtomicBoolean) : AppFunctionDelegate {
    override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate =
        if (context.functionId == "cancel_order" && !signedIn.get()) AppFunctionGate.OpenApp("Sign in to cancel orders.") else AppFunctionGate.Allow
}

/** Seed 000's TelemetryDelegate: logs every outcome. */
class RealisticTelemetry(private val logger: Logger) : AppFunctionDelegate {
    override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {
        logger.log(Level.INFO, "{0} from {1}: {2}", arrayOf<Any?>(context.functionId, context.platform, outcome.message ?: "ok"))
    }
}

/** The seed's app with the realistic call's function, scope hooks and delegates ([delegates]: both, or none). */
fun realisticApp(delegates: Boolean = true): AppFunctionDispatcher {
    val logger = silentLogger()
    val store = RealisticOrderStore()
    return AppFunctionDispatcher().apply {
        register(RealisticOrders())
        setScopeHooks(begin = { RealisticScope(store) })
        if (delegates) {
            addDelegate(RealisticSignIn(AtomicBoolean(false)))
            addDelegate(RealisticTelemetry(logger))
        }
    }
}

val REALISTIC = AppFunctionInvocation("create_order_in_app")
const val REALISTIC_ARGS = """{"customer":"acme","quantity":2,"priority":"Normal"}"""

/** A logger through which nothing is written: what writing the line costs is its handler's, not the call's. */
private fun silentLogger(): Logger = Logger.getAnonymousLogger().apply {
    useParentHandlers = false
    level = Level.OFF
}

/**
 * The realistic call (Bench.kt runs it after the floor): blocking and `suspend`, beside the same
 * call in a C loop of this JVM (floor_jni.c: the scope hooks, the two delegates and the handler
 * reading what these read, in C), the loops in turn.
 */
fun realisticBench(n: Int) {
    realisticApp().use { d ->
        val check = d.executeBlocking(REALISTIC, REALISTIC_ARGS)
        require(check.json.contains("\"success\"")) { check.json }
        val c = FloorJni.loaded.isSuccess && FloorJni.cRealisticSetup(C_REALISTIC_FUNCTIONS.map { functionAddress(it) }.toLongArray()) == 0
        measureAll(n, listOfNotNull(
            Loop("realistic call: executeBlockingJson") { d.executeBlockingJson(REALISTIC, REALISTIC_ARGS).length },
            if (c) Loop("C af_execute_json, the realistic call (same JVM)", per = C_PER) { FloorJni.cRealistic(C_PER) } else null,
        ))
        // as Bench.kt times the suspend execute: its calls in one runBlocking
        suspendMeasure("realistic call: suspend execute (in runBlocking)", n) { d.execute(REALISTIC, REALISTIC_ARGS).json.length }
    }
}

/** A suspend loop, best of [rounds], its calls made from one coroutine; reported as [measureAll] reports. */
private fun suspendMeasure(label: String, n: Int, rounds: Int = 5, body: suspend () -> Int) = runBlocking {
    var sink = 0
    repeat(n) { sink += body() } // warm up (JIT)
    var best = Long.MAX_VALUE
    var bestCpu = Long.MAX_VALUE
    val mx = java.lang.management.ManagementFactory.getThreadMXBean()
    repeat(rounds) {
        val c0 = mx.currentThreadCpuTime
        val t0 = System.nanoTime()
        repeat(n) { sink += body() }
        best = minOf(best, System.nanoTime() - t0)
        bestCpu = minOf(bestCpu, mx.currentThreadCpuTime - c0)
    }
    println("bench %-44s %9.0f ns/call  (%d calls x %d rounds, best round; cpu %.0f ns/call; sink=%d)"
        .format(label, best.toDouble() / n, n, rounds, bestCpu.toDouble() / n, sink and 1))
}

/**
 * Alone (`java ... dev.appfunctions.bench.RealisticKt [N [K]]`): the realistic call beside its
 * parts taken away one at a time (loop K alone, for a profiler).
 */
fun main(args: Array<String>) {
    val n = args.firstOrNull()?.toIntOrNull() ?: 200_000
    val only = args.getOrNull(1)?.toIntOrNull()
    val apps = listOf(
        realisticApp(),
        realisticApp(delegates = false),
        AppFunctionDispatcher().apply { register(BareOrders()) },
        realisticApp(delegates = false).apply { addDelegate(RealisticSignIn(AtomicBoolean(false))) },
        realisticApp(delegates = false).apply { addDelegate(RealisticTelemetry(silentLogger())) },
    )
    val (d, plain, bare, signIn, telemetry) = apps
    val loops = listOf(
        Loop("realistic: executeBlockingJson, scope and two delegates") { d.executeBlockingJson(REALISTIC, REALISTIC_ARGS).length },
        Loop("realistic: executeBlockingJson, scope, no delegate") { plain.executeBlockingJson(REALISTIC, REALISTIC_ARGS).length },
        Loop("realistic: executeBlockingJson, no scope, no delegate") { bare.executeBlockingJson(BARE, REALISTIC_ARGS).length },
        Loop("realistic: executeBlockingJson, SignIn only") { signIn.executeBlockingJson(REALISTIC, REALISTIC_ARGS).length },
        Loop("realistic: executeBlockingJson, Telemetry only") { telemetry.executeBlockingJson(REALISTIC, REALISTIC_ARGS).length },
    )
    measureAll(n, if (only == null) loops else listOf(loops[only]))
    if (only == null) suspendMeasure("realistic: suspend execute, scope and two delegates", n) { d.execute(REALISTIC, REALISTIC_ARGS).json.length }
    apps.forEach { it.close() }
}

/** The function without its scope: the store is its own. */
class BareOrders {
    @AppFunction(description = "Creates an order for a customer.")
    fun createOrderBare(customer: String, quantity: Int, @DefaultValue("\"Normal\"") priority: RealisticPriority = RealisticPriority.Normal): RealisticOrder =
        RealisticOrder("o-1", customer, quantity, priority)
}

val BARE = AppFunctionInvocation("create_order_bare")

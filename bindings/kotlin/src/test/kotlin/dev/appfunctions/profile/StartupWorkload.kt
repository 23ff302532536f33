// What a process started for one call runs of the binding, for its baseline profile
// (src/main/baseline-prof.txt): bindings/kotlin/scripts/baseline-profile.sh runs this program
// under a JVMTI agent (src/test/c/touched_agent.c) that records which of dev.appfunctions' classes
// load, which of their methods run and which of kotlin's and kotlinx's methods run for them, and
// writes them as the profile's rules. On Android, ART
// compiles the methods a profile names ahead of time when the app is installed, so a process the
// OS starts for Gemini's call registers and answers in compiled code instead of its interpreter.
//
// The steps are the README's Android app and the DSL's: the app's Application.onCreate (an
// entity provider, the annotated functions, delegates, the metadata schema, a toolkit, DSL types,
// an entity and functions with blocking and suspending handlers, publish), then the OS's call
// through AppFunctionsService (against the platform stand-ins of src/test/kotlin/android), then
// calls from inside the app (suspend execute, executeBlocking, executeBlockingJson, an agent
// view). Every call
// must succeed; the program says which did not and exits 1.
package dev.appfunctions.profile

import android.app.appfunctions.AppFunctionException
import android.app.appfunctions.ExecuteAppFunctionRequest
import android.app.appfunctions.ExecuteAppFunctionResponse
import android.app.appsearch.GenericDocument
import android.content.pm.SigningInfo
import android.os.CancellationSignal
import android.os.OutcomeReceiver
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionPlatform
import dev.appfunctions.AppFunctionStatus
import dev.appfunctions.AppFunctionType
import dev.appfunctions.DslTest
import dev.appfunctions.android.AppFunctionsService
import dev.appfunctions.scenario.Order
import dev.appfunctions.scenario.OrderFunctions
import dev.appfunctions.scenario.OrderProvider
import dev.appfunctions.scenario.OrderStore
import dev.appfunctions.scenario.SignInDelegate
import dev.appfunctions.scenario.TelemetryDelegate
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.system.exitProcess

private val failures = ArrayList<String>()

private fun expect(what: String, ok: Boolean, detail: () -> String) {
    if (!ok) failures += "$what: ${detail()}"
}

fun main() {
    // Application.onCreate: the README's Android app (annotations) ...
    val store = OrderStore()
    val app = AppFunctionDispatcher()
    app.registerEntity(Order::class, OrderProvider(store))
    app.register(OrderFunctions(store))
    app.addDelegate(SignInDelegate(AtomicBoolean(true)))
    app.addDelegate(TelemetryDelegate())
    // ... and the builder DSL's (no reflection)
    val dsl = AppFunctionDispatcher()
    dsl.setMetadataSchema("""{"type":"object","properties":{"signedIn":{"type":"boolean"}}}""")
    dsl.toolkit("shop") {
        description = "The shop's orders"
        functionResult = "Order functions are available."
    }
    dsl.types {
        record("Address", "Where an order goes") {
            field("street", AppFunctionType.String)
            field("city", AppFunctionType.String, "The city", optional = true)
        }
    }
    DslTest.declareOrdersWithDsl(dsl)
    dsl.function("ship") {
        description = "Ships an order to an address."
        toolkit = "shop"
        parameter("orderId", AppFunctionType.String)
        parameter("to", AppFunctionType.record("Address"))
        result(AppFunctionType.Boolean)
        blockingHandler { _, args -> JsonPrimitive(args["orderId"] != null) }
    }
    app.publish(PUBLISHED)

    // The OS's call: AppFunctionsService.onExecuteFunction, as Android delivers it
    val response = CompletableFuture<Any>()
    val service = object : AppFunctionsService() {
        override val publishedName get() = PUBLISHED
    }
    val parameters = GenericDocument.Builder<GenericDocument.Builder<*>>("", "", "").apply {
        setPropertyString("customer", "acme")
        setPropertyLong("quantity", 2)
    }.build()
    service.onExecuteFunction(
        ExecuteAppFunctionRequest("com.example.shop", "create_order", parameters),
        "com.google.android.apps.gemini",
        SigningInfo(),
        CancellationSignal(),
        object : OutcomeReceiver<ExecuteAppFunctionResponse, AppFunctionException> {
            override fun onResult(result: ExecuteAppFunctionResponse) {
                response.complete(result)
            }

            override fun onError(error: AppFunctionException) {
                response.complete(error)
            }
        },
    )
    val answer = response.get(30, TimeUnit.SECONDS)
    expect("the service's create_order", answer is ExecuteAppFunctionResponse) { "$answer" }

    // Calls from inside the app
    val blocking = dsl.executeBlockingJson(AppFunctionInvocation("create_order"), """{"customer":"delta","quantity":4}""")
    expect("executeBlockingJson create_order", blocking.contains("\"status\":\"success\"")) { blocking }
    runBlocking {
        val created = app.execute(AppFunctionInvocation("create_order", AppFunctionPlatform.Android), """{"customer":"beta","quantity":1}""")
        expect("execute create_order", created.status == AppFunctionStatus.Success) { created.json }
        val cancelled = app.execute(AppFunctionInvocation("cancel_order"), """{"order":"o-2"}""")
        expect("execute cancel_order", cancelled.status == AppFunctionStatus.Success) { cancelled.json }
        val dslCancel = dsl.execute(AppFunctionInvocation("cancel_order"), """{"order":"o-1"}""")
        expect("the DSL's cancel_order", dslCancel.status == AppFunctionStatus.Success) { dslCancel.json }
        val viewed = dsl.view().execute("create_order", """{"customer":"gamma","quantity":3}""")
        expect("a view's create_order", viewed.status == AppFunctionStatus.Success) { viewed.json }
    }
    val shipped = dsl.executeBlocking(AppFunctionInvocation("ship"), """{"orderId":"o-1","to":{"street":"Main St"}}""")
    expect("executeBlocking ship", shipped.status == AppFunctionStatus.Success) { shipped.json }

    if (failures.isNotEmpty()) {
        System.err.println("StartupWorkload: ${failures.size} call(s) did not answer as expected:")
        failures.forEach { System.err.println("  $it") }
        exitProcess(1)
    }
    println("StartupWorkload: every call answered")
    exitProcess(0)
}

private const val PUBLISHED = "startup-workload"

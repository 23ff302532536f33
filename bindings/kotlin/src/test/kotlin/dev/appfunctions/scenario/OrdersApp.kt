// The shared scenario's orders app (seed 000), declared with annotations.
package dev.appfunctions.scenario

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionDelegate
import dev.appfunctions.AppFunctionEntity
import dev.appfunctions.AppFunctionEntityProvider
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionException
import dev.appfunctions.AppFunctionGate
import dev.appfunctions.AppFunctionOutcome
import dev.appfunctions.DefaultValue
import dev.appfunctions.Description
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.delay
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import java.time.OffsetDateTime
import java.util.Collections
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.cancellation.CancellationException

@Description("How urgent an order is")
enum class Priority {
    Low,

    @Description("The default")
    Normal,
    High,
}

@AppFunctionEntity(name = "order", title = "Order", description = "An order of the shop")
data class Order(
    val id: String,
    @Description("Customer name") val customer: String,
    val quantity: Int,
    val priority: Priority,
    val status: String,
)

class OrderStore {
    private val next = AtomicInteger(1)
    val orders = ConcurrentHashMap<String, Order>()

    fun create(customer: String, quantity: Int, priority: Priority): Order {
        val o = Order("o-${next.getAndIncrement()}", customer, quantity, priority, "open")
        orders[o.id] = o
        return o
    }
}

class OrderFunctions(private val store: OrderStore) {
    /** Seen by the cancellation tests: a suspended handler that started, and whether it was cancelled. */
    val slowStarted = ConcurrentHashMap<String, CompletableDeferred<Unit>>()
    val slowCancelled = ConcurrentHashMap<String, CompletableDeferred<Unit>>()

    @AppFunction(title = "Create order", description = "Creates an order for a customer.")
    fun createOrder(
        context: AppFunctionContext,
        @Description("Customer name") customer: String,
        @Description("How many items") quantity: Int,
        @DefaultValue("\"Normal\"") priority: Priority = Priority.Normal,
    ): Order {
        val order = store.create(customer, quantity, priority)
        context.say("Order ${order.id} for $customer created.")
        return order
    }

    @AppFunction(description = "Cancels an order.")
    suspend fun cancelOrder(context: AppFunctionContext, @Description("The order to cancel") order: Order): Order {
        val user = (context.items["signedInUser"] as? JsonPrimitive)?.contentOrNull ?: "nobody"
        delay(1) // really suspend: the result is completed from another thread
        val cancelled = order.copy(status = "cancelled")
        store.orders[order.id] = cancelled
        context.say("Order ${order.id} cancelled by $user.")
        return cancelled
    }

    @AppFunction(description = "Schedules the delivery of an order.")
    fun scheduleDelivery(order: Order, @Description("When, ISO 8601") at: OffsetDateTime): String =
        "${order.id} at ${at.toInstant()} (offset ${at.offset})"

    @AppFunction(description = "Builds a slow report; used to test cancellation.")
    suspend fun slowReport(tag: String, millis: Long = 60_000): String {
        slowStarted.getOrPut(tag) { CompletableDeferred() }.complete(Unit)
        try {
            delay(millis)
        } catch (e: CancellationException) {
            slowCancelled.getOrPut(tag) { CompletableDeferred() }.complete(Unit)
            throw e
        }
        return "report $tag"
    }

    @AppFunction(description = "Always fails.")
    fun explode(reason: String): String = throw IllegalStateException("exploded: $reason")

    @AppFunction(description = "Fails with a chosen code.")
    suspend fun refuse(code: String): Int {
        delay(1)
        throw AppFunctionException(AppFunctionErrorCode.valueOf(code), "refused with $code")
    }
}

class OrderProvider(private val store: OrderStore) : AppFunctionEntityProvider<Order> {
    val lookups = AtomicInteger()

    override suspend fun lookup(context: AppFunctionContext, ids: List<String>): List<Order> {
        lookups.incrementAndGet()
        return ids.mapNotNull { store.orders[it] }
    }

    override suspend fun search(context: AppFunctionContext, query: String, limit: Int?): List<Order> =
        store.orders.values.filter { query.isEmpty() || it.customer.contains(query, ignoreCase = true) }
            .sortedBy { it.id }.take(limit ?: Int.MAX_VALUE)
}

/** Seed 000's SignInDelegate: cancelling orders needs a signed-in user. */
class SignInDelegate(val signedIn: AtomicBoolean = AtomicBoolean(false)) : AppFunctionDelegate {
    override suspend fun onInvoking(context: AppFunctionContext): AppFunctionGate {
        if (context.isEntityLookup) return AppFunctionGate.Allow
        if (signedIn.get()) context.items["signedInUser"] = JsonPrimitive("alice")
        return if (context.functionId == "cancel_order" && !signedIn.get()) {
            AppFunctionGate.OpenApp("Sign in to cancel orders.")
        } else {
            AppFunctionGate.Allow
        }
    }
}

/** Seed 000's TelemetryDelegate: sees every outcome. */
class TelemetryDelegate : AppFunctionDelegate {
    val seen: MutableList<Pair<String, AppFunctionOutcome>> = Collections.synchronizedList(ArrayList())

    override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {
        seen += context.functionId to outcome
    }
}

class ThrowingTelemetryDelegate : AppFunctionDelegate {
    override fun onInvoked(context: AppFunctionContext, outcome: AppFunctionOutcome) {
        throw IllegalStateException("telemetry is down")
    }
}

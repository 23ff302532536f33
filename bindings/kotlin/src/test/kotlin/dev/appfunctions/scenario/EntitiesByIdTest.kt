package dev.appfunctions.scenario

import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.AppFunctionEntityProvider
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionException
import dev.appfunctions.AppFunctionInvocation
import dev.appfunctions.AppFunctionStatus
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CancellationException
import java.util.concurrent.ConcurrentHashMap
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/** `lookupEntities` (af_entities_async / af_entities_json): entities by id, in the order asked. */
class EntitiesByIdTest {
    private val store = OrderStore()
    private val provider = OrderProvider(store)
    private val dispatcher = AppFunctionDispatcher().apply {
        registerEntity(Order::class, provider)
        register(OrderFunctions(store))
    }

    @AfterEach
    fun close() = dispatcher.close()

    private fun ids(json: String?): List<String> =
        kotlinx.serialization.json.Json.parseToJsonElement(json!!).jsonArray.map { it.jsonObject["id"]!!.jsonPrimitive.content }

    @Test
    fun `the entities come in the order of the ids, an unknown id left out, each once`() = runBlocking {
        val a = store.create("acme", 1, Priority.Low)
        val b = store.create("globex", 2, Priority.High)
        val o = dispatcher.lookupEntities("order", listOf(b.id, "nope", a.id, b.id))
        assertEquals(AppFunctionStatus.Success, o.status, o.json)
        assertEquals(listOf(b.id, a.id), ids(o.resultJson))
        assertEquals("globex", o.result.jsonArray[0].jsonObject["customer"]!!.jsonPrimitive.content)
        assertEquals(1, provider.lookups.get())
        // the blocking form answers the same
        val blocking = dispatcher.lookupEntitiesBlocking("order", listOf(a.id, b.id))
        assertEquals(listOf(a.id, b.id), ids(blocking.resultJson))
        // no ids: [] without a lookup
        assertEquals("[]", dispatcher.lookupEntities("order", emptyList()).resultJson)
        assertEquals(2, provider.lookups.get())
    }

    @Test
    fun `an unknown entity and a failing lookup are outcomes naming them`() = runBlocking {
        val unknown = dispatcher.lookupEntities("ordr", listOf("o-1"))
        assertEquals(AppFunctionErrorCode.InvalidArgument, unknown.errorCode)
        assertEquals("no entity named \"ordr\" (did you mean \"order\"?)", unknown.message)
        val failing = AppFunctionDispatcher().apply {
            registerEntity(Order::class, object : AppFunctionEntityProvider<Order> {
                override suspend fun lookup(context: AppFunctionContext, ids: List<String>): List<Order> =
                    throw AppFunctionException(AppFunctionErrorCode.HandlerFailed, "the database is down")
                override suspend fun search(context: AppFunctionContext, query: String, limit: Int?): List<Order> = emptyList()
            })
        }
        failing.use {
            val o = it.lookupEntities("order", listOf("o-1"))
            assertEquals(AppFunctionErrorCode.HandlerFailed, o.errorCode)
            assertEquals("looking up order failed: the database is down", o.message)
        }
    }

    @Test
    fun `a timeout, a cancelled coroutine and a closed dispatcher end the lookup`() = runBlocking {
        val started = ConcurrentHashMap<String, CompletableDeferred<Unit>>()
        val cancelled = ConcurrentHashMap<String, CompletableDeferred<Unit>>()
        fun of(m: ConcurrentHashMap<String, CompletableDeferred<Unit>>, id: String) = m.getOrPut(id) { CompletableDeferred() }
        val slow = AppFunctionDispatcher().apply {
            registerEntity(Order::class, object : AppFunctionEntityProvider<Order> {
                override suspend fun lookup(context: AppFunctionContext, ids: List<String>): List<Order> {
                    of(started, ids[0]).complete(Unit)
                    try {
                        awaitCancellation()
                    } finally {
                        of(cancelled, ids[0]).complete(Unit)
                    }
                }
                override suspend fun search(context: AppFunctionContext, query: String, limit: Int?): List<Order> = emptyList()
            })
        }
        val timedOut = slow.lookupEntities("order", listOf("o-1"), AppFunctionInvocation("ignored", timeout = 30.milliseconds))
        assertEquals(AppFunctionErrorCode.TimedOut, timedOut.errorCode, timedOut.json)
        assertEquals("looking up order by id did not finish within 30 ms", timedOut.message)
        val call = async { slow.lookupEntities("order", listOf("o-2")) }
        withTimeout(10.seconds) { of(started, "o-2").await() }
        call.cancel()
        assertFailsWith<CancellationException> { call.await() }
        // the core cancelled the lookup: its coroutine was cancelled too
        withTimeout(10.seconds) { of(cancelled, "o-2").await() }
        slow.close()
        val closed = slow.lookupEntities("order", listOf("o-1"))
        assertEquals(AppFunctionErrorCode.LimitExceeded, closed.errorCode)
        assertTrue(closed.message!!.contains("the dispatcher was disposed"), closed.message)
    }
}

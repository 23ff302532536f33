// PLACEHOLDER (scaffold proof). Delete this file once the real binding and its tests exist.
//
// It proves that the Maven toolchain works end to end, without the appfunctions C ABI:
//   - JNA direct mapping (Native.register + `external fun`) against libc
//   - a JNA Callback passed to C in direct mode (qsort), and a callback made on a
//     thread that C created (pthread_create), which JNA attaches to the JVM itself
//   - kotlinx.serialization (compiler plugin) round trip
//   - kotlin-reflect reading annotations, as registration will
//   - kotlinx-coroutines via runBlocking
package dev.appfunctions.scaffold

import com.sun.jna.Callback
import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.NativeLibrary
import com.sun.jna.Platform
import com.sun.jna.Pointer
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.serializer
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import java.io.File
import kotlin.reflect.full.declaredMemberFunctions
import kotlin.reflect.full.findAnnotation
import kotlin.reflect.full.instanceParameter
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/** int (*)(const void*, const void*) */
fun interface Compar : Callback {
    fun invoke(a: Pointer, b: Pointer): Int
}

/** void* (*)(void*) */
fun interface StartRoutine : Callback {
    fun invoke(arg: Pointer?): Pointer?
}

/**
 * Direct mapping on a Kotlin `object`: Native.register("c") inside init registers every
 * `external fun` of the calling class (here the object's class). The externals are instance
 * methods of the singleton; JNI/JNA do not care. size_t / pthread_t are Long on LP64.
 */
object LibC {
    init {
        Native.register("c")
    }

    external fun getpid(): Int
    external fun strlen(s: String): Long
    external fun qsort(base: Pointer, count: Long, size: Long, compar: Compar)
    external fun pthread_create(thread: Pointer, attr: Pointer?, start: StartRoutine, arg: Pointer?): Int
    external fun pthread_join(thread: Long, retval: Pointer?): Int
}

@Serializable
data class Descriptor(
    val name: String,
    val description: String = "",
    val params: List<Param> = emptyList(),
    @SerialName("read_only") val readOnly: Boolean = false,
    val timeoutMs: Long? = null,
)

@Serializable
data class Param(val name: String, val type: String, val required: Boolean = true)

@Target(AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
annotation class ScaffoldFn(val name: String, val description: String = "")

class Sample {
    @ScaffoldFn("add", "adds two ints")
    fun add(a: Int, b: Int): Int = a + b

    @ScaffoldFn("describe")
    fun describe(p: Param, times: Int = 1): List<Descriptor> = List(times) { Descriptor(p.name, params = listOf(p)) }

    fun notExported(): Int = 0
}

class ScaffoldSmokeTest {

    @Test
    fun `direct mapped getpid matches the JVM pid`() {
        assertEquals(ProcessHandle.current().pid(), LibC.getpid().toLong())
        assertEquals(5L, LibC.strlen("hello"))
    }

    @Test
    fun `libappfunctions is found via jna library path or classpath resources`() {
        val libPath = System.getProperty("jna.library.path").orEmpty()
        val file = File(libPath, System.mapLibraryName("appfunctions"))
        val resource = "${Platform.RESOURCE_PREFIX}/${System.mapLibraryName("appfunctions")}"
        val inResources = javaClass.classLoader.getResource(resource) != null
        assumeTrue(file.isFile || inResources, "native library not built ($file, classpath:$resource)")
        val lib = NativeLibrary.getInstance("appfunctions")
        println("libappfunctions loaded from ${lib.file}")
    }

    @Test
    fun `callback in direct mode - qsort with a Kotlin comparator`() {
        val values = intArrayOf(42, -7, 3, 19, 0, 3, 1000, -1)
        val mem = Memory(values.size * 4L)
        mem.write(0, values, 0, values.size)
        var calls = 0
        // Keep a strong reference to the callback for as long as C may call it.
        val cmp = Compar { a, b -> calls++; a.getInt(0).compareTo(b.getInt(0)) }
        LibC.qsort(mem, values.size.toLong(), 4L, cmp)
        assertContentEquals(values.sorted().toIntArray(), mem.getIntArray(0, values.size))
        assertTrue(calls > 0)
    }

    @Test
    fun `callback on a thread created by C is attached by JNA`() {
        var seenOn: Thread? = null
        val start = StartRoutine { arg ->
            seenOn = Thread.currentThread()
            arg!!.setInt(0, arg.getInt(0) * 2)
            null
        }
        val arg = Memory(4).apply { setInt(0, 21) }
        val tid = Memory(8)
        assertEquals(0, LibC.pthread_create(tid, null, start, arg))
        assertEquals(0, LibC.pthread_join(tid.getLong(0), null))
        assertEquals(42, arg.getInt(0))
        assertNotNull(seenOn)
        assertTrue(seenOn !== Thread.currentThread())
    }

    @Test
    fun `kotlinx serialization round trip`() {
        val json = Json { ignoreUnknownKeys = true; encodeDefaults = false }
        val d = Descriptor(
            name = "notes.create",
            description = "Create a note",
            params = listOf(Param("title", "string"), Param("body", "string", required = false)),
            readOnly = true,
        )
        val text = json.encodeToString(Descriptor.serializer(), d)
        assertTrue("\"read_only\":true" in text, text)
        assertEquals(d, json.decodeFromString(Descriptor.serializer(), text))
        // Unknown keys are ignored; dynamic arguments stay a JsonObject.
        val back = json.decodeFromString(Descriptor.serializer(), """{"name":"x","extra":1}""")
        assertEquals(Descriptor("x"), back)
        val args: JsonObject = json.parseToJsonElement("""{"a":2,"b":3}""").jsonObject
        assertEquals(3, args["b"]!!.jsonPrimitive.int)
    }

    @Test
    fun `kotlin-reflect finds annotated functions, JSON args decode by KType`() {
        val target = Sample()
        val exported = Sample::class.declaredMemberFunctions
            .mapNotNull { f -> f.findAnnotation<ScaffoldFn>()?.let { it.name to f } }
            .toMap()
        assertEquals(setOf("add", "describe"), exported.keys)

        // What a reflective dispatcher does: JSON object -> parameters (by name, KType) -> call -> JSON.
        val json = Json
        fun dispatch(name: String, argsJson: String): String {
            val fn = exported.getValue(name)
            val args = json.parseToJsonElement(argsJson).jsonObject
            val bound = buildMap {
                put(fn.instanceParameter!!, target)
                for (p in fn.parameters.drop(1)) {
                    val el = args[p.name!!]
                    if (el == null && p.isOptional) continue // default value applies
                    put(p, json.decodeFromJsonElement(serializer(p.type), el!!))
                }
            }
            return json.encodeToString(serializer(fn.returnType), fn.callBy(bound))
        }

        assertEquals("42", dispatch("add", """{"a":2,"b":40}"""))
        val out = dispatch("describe", """{"p":{"name":"q","type":"string"}}""")
        assertEquals(
            listOf(Descriptor("q", params = listOf(Param("q", "string")))),
            json.decodeFromString(serializer<List<Descriptor>>(), out),
        )
        assertEquals(listOf("p", "times"), exported.getValue("describe").parameters.drop(1).map { it.name })
    }

    @Test
    fun `coroutines - runBlocking and native calls from the Default dispatcher`() = runBlocking {
        val pids = (1..8).map { async(Dispatchers.Default) { LibC.getpid() } }.awaitAll()
        assertEquals(setOf(ProcessHandle.current().pid().toInt()), pids.toSet())
        val len = withContext(Dispatchers.IO) { LibC.strlen("coroutine") }
        assertEquals(9L, len)
    }
}

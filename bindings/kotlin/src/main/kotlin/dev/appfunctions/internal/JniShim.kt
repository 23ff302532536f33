// The binding's native library, libappfunctions_jni (src/main/c/appfunctions_jni.c): it is loaded
// first, opens the core (libappfunctions) wherever the binding finds it, registers AfNative's
// natives (every downcall of the C ABI), and carries the C trampolines of every callback, which
// call JniCallbacks' static methods. Nothing else: no JNA, no fallback. A missing or mismatched
// file fails the load with AppFunctionsLibraryException naming it and where it was looked for.
package dev.appfunctions.internal

import dev.appfunctions.AppFunctionsLibraryException
import java.io.File
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/** The natives of libappfunctions_jni beside AfNative's, and the loading of both libraries. */
internal object JniShim {
    const val LIBRARY = "appfunctions_jni"

    /** A directory (or several, the path separator between them) searched for both libraries before java.library.path. */
    const val PATH_PROPERTY = "appfunctions.library.path"

    // the trampolines' numbers (the enum of appfunctions_jni.c)
    const val HANDLER = 0
    const val OUTCOME = 1
    const val SCOPE_BEGIN = 2
    const val SCOPE_END = 3
    const val FREE = 4
    const val RELEASE = 5
    const val CANCEL = 6
    const val PERMISSION = 9
    const val LOG = 10
    const val NOTIFY = 11
    const val TOOLKIT_TEXT = 12

    /** dlopen()s the core at [library] (a path, or a name the system's search resolves) and looks up its functions: null when done, else why not (UTF-8). */
    external fun nativeOpen(library: ByteArray): ByteArray?

    /** Caches [callbacks]' upcall methods and registers [natives]' native methods: null when done, else why not (UTF-8). */
    external fun nativeInit(callbacks: Class<*>, natives: Class<*>): ByteArray?

    /** Trampoline [which]'s address (0: none). */
    external fun nativeAddress(which: Int): Long

    /** The shim's af_delegate table with on_invoking (bit 0) and on_invoked (bit 1), release always. */
    external fun nativeDelegate(flags: Int): Long

    /** What the C compiler makes of the header's structs ([Layout]). */
    external fun nativeLayout(): IntArray

    /** A direct ByteBuffer's address. */
    external fun nativeBufferAddress(buffer: ByteBuffer): Long

    /** The loaded core's function [name] (NUL-free UTF-8), 0 when it has none: for the benchmark's C loops. */
    external fun nativeFunctionAddress(name: ByteArray): Long

    /**
     * `af_execute_json` ([view] 0, [target] a dispatcher) or `af_view_execute_json` ([view] 1, a
     * view) with [args] (UTF-8 without a NUL): the outcome's UTF-8, read and freed in C. Throws
     * OutOfMemoryError when no memory could be had for the arguments' copy (nothing was called).
     */
    external fun nativeExecuteJson(view: Int, target: Long, inv: Long, args: ByteArray?): ByteArray?

    /**
     * `af_execute_async` ([view] 0, [target] a dispatcher) or `af_view_execute_async` ([view] 1)
     * with [args] (UTF-8 without a NUL) and the shim's own outcome callback: the outcome's UTF-8
     * when it came before the call returned (a handler answering inline; no upcall), null when it
     * comes later (then [JniCallbacks.asyncOutcome] delivers it to [pending]), an empty array when
     * the call was refused (its outcome never comes; `af_last_error` says why). Throws
     * OutOfMemoryError when no memory could be had to start the call, or to keep its inline
     * outcome (then the outcome came, and nothing more will).
     */
    external fun nativeExecuteAsync(view: Int, target: Long, inv: Long, args: ByteArray?, pending: PendingExecute): ByteArray?

    /**
     * [nativeExecuteJson] with the arguments' UTF-8 ([argsLength] bytes; -1: NULL) in the thread's
     * [Scratch] at [scratch], and the outcome written back into it when it fits in [capacity]
     * bytes: then the answer is [marker] (else the outcome's UTF-8; null for NULL). No JNI
     * function is called on that path.
     */
    external fun nativeExecuteJsonAt(view: Int, target: Long, inv: Long, scratch: Long, argsLength: Int, capacity: Int, marker: ByteArray): ByteArray?

    /** [nativeExecuteAsync] the same way: an inline outcome that fits comes back in the [Scratch] as [marker]. */
    external fun nativeExecuteAsyncAt(
        view: Int, target: Long, inv: Long, scratch: Long, argsLength: Int, capacity: Int, pending: PendingExecute, marker: ByteArray,
    ): ByteArray?

    /** `af_call_args(call)` as UTF-8 (null for NULL). */
    external fun nativeCallArgs(call: Long): ByteArray?

    /**
     * Test-only: while a bit is set, the shim's copies it names find no memory (1: an inline
     * outcome's C copy, 2: also its Java one, 4: the arguments' copy and the async rendezvous).
     */
    external fun nativeFailForTest(bits: Int)

    /** `af_call_args(call)`'s UTF-8 copied to the native memory at [to] ([capacity] bytes; no JNI function called): its length, -1 for NULL, -2 when it does not fit. */
    external fun nativeCallArgsTo(call: Long, to: Long, capacity: Int): Int

    /** [nativeCallArgsTo] for `af_call_function_id` ([which] 0) or `af_call_caller_package` (1). */
    external fun nativeCallTextTo(which: Int, call: Long, to: Long, capacity: Int): Int

    /** Where the shim and the core came from, or why they could not be loaded ([AppFunctionsLibraryException]). */
    val loaded: Result<String> by lazy { runCatching { load() } }

    /** Loads both libraries once; throws [AppFunctionsLibraryException] when they cannot be. */
    fun ensureLoaded(): String = loaded.getOrThrow()

    private fun load(): String {
        val shim = loadShim()
        val core = openCore()
        nativeInit(JniCallbacks::class.java, AfNative::class.java)?.let {
            throw AppFunctionsLibraryException("lib$LIBRARY ($shim) does not fit this binding's classes (${it.utf8()}): use the shim and the binding of the same release")
        }
        return "lib$LIBRARY from $shim, lib${AfNative.LIBRARY} from $core"
    }

    private val isAndroid: Boolean = System.getProperty("java.vm.name").orEmpty().contains("Dalvik")

    private fun searchPath(): List<File> =
        System.getProperty(PATH_PROPERTY).orEmpty().split(File.pathSeparator).filter { it.isNotEmpty() }.map(::File)

    private fun javaLibraryPath(): List<File> =
        System.getProperty("java.library.path").orEmpty().split(File.pathSeparator).filter { it.isNotEmpty() }.map(::File)

    /** The shim: System.loadLibrary (Android's jniLibs, java.library.path), else appfunctions.library.path, else the class path. */
    private fun loadShim(): String {
        val first = try {
            System.loadLibrary(LIBRARY)
            return "java.library.path"
        } catch (e: UnsatisfiedLinkError) {
            e
        }
        val file = System.mapLibraryName(LIBRARY)
        try {
            searchPath().map { File(it, file) }.firstOrNull { it.isFile }?.let {
                System.load(it.absolutePath)
                return it.absolutePath
            }
            return fromClassPath(file) { System.load(it) }
                ?: throw AppFunctionsLibraryException(
                    "cannot load the binding's JNI library $file: it is not on java.library.path " +
                        "(${System.getProperty("java.library.path")}), in $PATH_PROPERTY (${System.getProperty(PATH_PROPERTY)}) " +
                        "or on the class path (${NativePlatform.resourcePrefix}/$file); on Android ship it in " +
                        "jniLibs/<abi>/$file beside libappfunctions.so (${first.message})",
                )
        } catch (e: UnsatisfiedLinkError) {
            throw AppFunctionsLibraryException("cannot load the binding's JNI library $file: ${e.message}", e)
        }
    }

    /**
     * The core, opened by the shim: on Android loaded by its name (jniLibs); elsewhere from
     * appfunctions.library.path, java.library.path, the class path (the jar's copy, of the
     * binding's own release), then by name through the system's search (LD_LIBRARY_PATH, the
     * linker's cache and folders), its SONAME last.
     */
    private fun openCore(): String {
        val file = System.mapLibraryName(AfNative.LIBRARY)
        val tried = ArrayList<String>()
        fun open(what: String, path: String): Boolean {
            val why = nativeOpen(path.cstr()) ?: return true
            tried += "$what: ${why.utf8()}"
            return false
        }
        if (isAndroid) {
            try {
                System.loadLibrary(AfNative.LIBRARY)
            } catch (e: UnsatisfiedLinkError) {
                throw AppFunctionsLibraryException(
                    "cannot load the native library '${AfNative.LIBRARY}': ship it in jniLibs/<abi>/$file (${e.message})", e,
                )
            }
            if (open(file, file)) return file
        } else {
            for (dir in searchPath() + javaLibraryPath()) {
                val f = File(dir, file)
                if (f.isFile && open(f.path, f.absolutePath)) return f.absolutePath
            }
            val fromJar = fromClassPath(file) { path -> if (!open("the class path", path)) throw UnsatisfiedLinkError(tried.last()) }
            if (fromJar != null) return fromJar
            if (open(file, file)) return "the system's library path ($file)"
            val soname = "$file.${dev.appfunctions.AppFunctionsLibrary.ABI_VERSION}"
            if (open(soname, soname)) return "the system's library path ($soname)"
        }
        throw AppFunctionsLibraryException(
            "cannot load the native library '${AfNative.LIBRARY}' ($file): not in $PATH_PROPERTY " +
                "(${System.getProperty(PATH_PROPERTY)}), java.library.path, on the class path " +
                "(${NativePlatform.resourcePrefix}/$file) or the system's library path; " +
                "on Android ship it in jniLibs/<abi>/$file (${tried.joinToString("; ")})",
        )
    }

    /**
     * [file] under the class path's folder for this platform (the jar's `linux-x86-64/`, ...),
     * given to [load] as a file: as it is, or a private copy out of a jar (deleted once loaded:
     * the mapping stays). The binding's own classes' folder or jar is looked in first, directly
     * (a class loader's resource lookup costs a cold JVM tens of milliseconds the first time),
     * then the whole class path. Null when the class path has no such file; a file that [load]
     * refuses throws what it threw.
     */
    private fun fromClassPath(file: String, load: (String) -> Unit): String? {
        val resource = NativePlatform.resourcePrefix + "/" + file
        val own = try {
            JniShim::class.java.protectionDomain?.codeSource?.location?.takeIf { it.protocol == "file" }?.let { File(it.toURI()) }
        } catch (_: Exception) {
            null // a class source that is not a plain file: the class loader's lookup below
        }
        if (own != null && own.isDirectory) {
            val f = File(own, resource)
            if (f.isFile) {
                load(f.absolutePath)
                return f.absolutePath
            }
        } else if (own != null && own.isFile) {
            java.util.zip.ZipFile(own).use { zip ->
                val entry = zip.getEntry(resource)
                if (entry != null) {
                    extracted(file, "${own.path}!/$resource", { zip.getInputStream(entry) }, load)
                    return "${own.path}!/$resource"
                }
            }
        }
        val url = JniShim::class.java.classLoader?.getResource(resource) ?: return null
        if (url.protocol == "file") {
            val f = File(url.toURI())
            load(f.absolutePath)
            return f.absolutePath
        }
        extracted(file, url.toString(), { url.openStream() }, load)
        return url.toString()
    }

    /** A private copy of [what] ([open]), given to [load], deleted once loaded (the mapping stays). */
    private fun extracted(file: String, what: String, open: () -> java.io.InputStream, load: (String) -> Unit) {
        val copy = Files.createTempFile("appfunctions", file)
        try {
            open().use { Files.copy(it, copy, StandardCopyOption.REPLACE_EXISTING) }
            load(copy.toAbsolutePath().toString())
        } catch (e: UnsatisfiedLinkError) {
            throw AppFunctionsLibraryException("cannot load $what: ${e.message}", e)
        } finally {
            if (!copy.toFile().delete()) copy.toFile().deleteOnExit()
        }
    }
}

/** The class path's folder for this platform's libraries: the names JNA gave them, which the jars keep. */
internal object NativePlatform {
    val resourcePrefix: String = run {
        val os = System.getProperty("os.name").orEmpty().lowercase()
        val arch = when (val a = System.getProperty("os.arch").orEmpty().lowercase()) {
            "amd64", "x86_64" -> "x86-64"
            "i386", "i486", "i586", "i686", "x86" -> "x86"
            "arm64" -> "aarch64"
            else -> a
        }
        when {
            os.startsWith("linux") -> "linux-$arch"
            os.startsWith("mac") || os.startsWith("darwin") -> "darwin-$arch"
            os.startsWith("windows") -> "win32-$arch"
            os.startsWith("freebsd") -> "freebsd-$arch"
            else -> "${os.replace(' ', '-')}-$arch"
        }
    }
}

/**
 * What the C compiler makes of the header's structs (the shim's nativeLayout, read once): the
 * pointer size and the offsets the binding writes `af_invocation` and `af_http_request` at.
 */
internal object Layout {
    private val L: IntArray = run {
        JniShim.ensureLoaded()
        JniShim.nativeLayout()
    }
    val POINTER_SIZE = L[0]
    val INVOCATION_SIZE = L[1]
    val INV_STRUCT_SIZE = L[2]
    val INV_PLATFORM = L[3]
    val INV_FUNCTION_ID = L[4]
    val INV_CALLER_PACKAGE = L[5]
    val INV_CANCEL_TOKEN = L[6]
    val INV_TIMEOUT_MS = L[7]
    val INV_IS_FOREGROUND = L[8]
    val INV_RESERVED = L[9]
    val INV_HOST_CONTEXT = L[10]
    val HTTP_REQUEST_SIZE = L[11]
    val HTTP_STRUCT_SIZE = L[12]
    val HTTP_RESERVED = L[13]
    val HTTP_BODY_LEN = L[14]
    val HTTP_METHOD = L[15]
    val HTTP_PATH = L[16]
    val HTTP_QUERY = L[17]
    val HTTP_HEADERS = L[18]
    val HTTP_BODY = L[19]
    val DELEGATE_SIZE = L[20]

    /** Writes pointer [v] at [at] with the platform's pointer size. */
    fun putPointer(b: ByteBuffer, at: Int, v: Long) {
        if (POINTER_SIZE == 8) b.putLong(at, v) else b.putInt(at, v.toInt())
    }
}

/**
 * Native memory the binding writes itself: a direct ByteBuffer (native byte order) and its
 * address, freed by the collector with the buffer. Hold this object while C reads the memory.
 */
internal open class NativeBlock(size: Int) {
    val buf: ByteBuffer = ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder())
    val address: Long = JniShim.nativeBufferAddress(buf)

    companion object {
        /** [bytes] and a NUL, in native memory: a C string. */
        fun cString(bytes: ByteArray): NativeBlock = NativeBlock(bytes.size + 1).also { it.buf.put(bytes) }
    }
}

/** The trampolines' addresses, handed to the core as function pointers. */
internal object Callbacks {
    private fun address(which: Int): Long {
        JniShim.ensureLoaded()
        val a = JniShim.nativeAddress(which)
        check(a != 0L) { "lib${JniShim.LIBRARY} has no trampoline $which" }
        return a
    }

    val handler = address(JniShim.HANDLER)
    val outcome = address(JniShim.OUTCOME)
    val scopeBegin = address(JniShim.SCOPE_BEGIN)
    val scopeEnd = address(JniShim.SCOPE_END)
    val free = address(JniShim.FREE)
    val release = address(JniShim.RELEASE)
    val cancel = address(JniShim.CANCEL)
    val permission = address(JniShim.PERMISSION)
    val log = address(JniShim.LOG)
    val notify = address(JniShim.NOTIFY)
    val toolkitText = address(JniShim.TOOLKIT_TEXT)

    /** The af_delegate table for a delegate that implements [onInvoking] and/or [onInvoked] (the core calls no NULL entry). */
    fun delegate(onInvoking: Boolean, onInvoked: Boolean): Long =
        JniShim.nativeDelegate((if (onInvoking) 1 else 0) or (if (onInvoked) 2 else 0))
}

/**
 * What the shim's trampolines call (JNI upcalls; the names and signatures are the shim's
 * NAMES and SIGNATURES). Pointers come as their value, C strings as UTF-8 bytes.
 */
internal object JniCallbacks {
    /** Test-only: thrown out of the next handler upcalls, as an Error the binding could not catch would be. */
    @Volatile
    internal var throwFromHandlerForTest: Throwable? = null

    /**
     * What the shim's trampoline answers with af_call_return: the address of this thread's
     * [Scratch] holding the result's UTF-8, -1 for NULL, or 0 when it was answered otherwise (a
     * failure, a suspended body, or a result too long for the scratch, answered here).
     */
    @JvmStatic
    fun handler(userData: Long, call: Long): Long {
        throwFromHandlerForTest?.let { throw it }
        val result = Trampolines.handle(Handles.fromC(userData), call) ?: return 0L
        if (result.isEmpty()) return -1L
        val scratch = Scratch.get()
        if (scratch.put(result)) return scratch.address
        NativeCalls.callReturn(call, result)
        return 0L
    }

    @JvmStatic
    fun outcome(userData: Long, outcomeJson: ByteArray?) = Trampolines.outcome(Handles.fromC(userData), outcomeJson.utf8())

    /** nativeExecuteAsync's outcome when it came after the call returned (on the thread that finished the call). */
    @JvmStatic
    fun asyncOutcome(pending: Any, outcomeJson: ByteArray?) = (pending as PendingExecute).deliver(outcomeJson.utf8())

    @JvmStatic
    fun scopeBegin(userData: Long, call: Long) = Trampolines.scopeBegin(Handles.fromC(userData), call)

    @JvmStatic
    fun scopeEnd(userData: Long, call: Long) = Trampolines.scopeEnd(Handles.fromC(userData), call)

    @JvmStatic
    fun free(userData: Long) = Trampolines.free(Handles.fromC(userData))

    @JvmStatic
    fun release(userData: Long) {
        Handles.remove(Handles.fromC(userData))
    }

    @JvmStatic
    fun cancel(userData: Long) = Trampolines.cancel(Handles.fromC(userData))

    @JvmStatic
    fun onInvoking(userData: Long, call: Long, gate: Long) = Trampolines.onInvoking(Handles.fromC(userData), call, gate)

    @JvmStatic
    fun onInvoked(userData: Long, call: Long, outcomeJson: ByteArray?) =
        Trampolines.onInvoked(Handles.fromC(userData), call, outcomeJson.utf8())

    @JvmStatic
    fun permission(userData: Long, call: Long, gate: Long) = Trampolines.permission(Handles.fromC(userData), call, gate)

    @JvmStatic
    fun log(userData: Long, level: Int, message: ByteArray?) = Trampolines.log(Handles.fromC(userData), level, message.utf8().orEmpty())

    @JvmStatic
    fun notify(userData: Long, messageJson: ByteArray?) = Trampolines.notify(Handles.fromC(userData), messageJson.utf8())

    /** The text to set (UTF-8), or null for the toolkit's static one. */
    @JvmStatic
    fun toolkitText(userData: Long, toolkit: ByteArray?, which: Int, metadataJson: ByteArray?): ByteArray? =
        Trampolines.toolkitText(Handles.fromC(userData), toolkit.utf8().orEmpty(), which, metadataJson.utf8())?.cstr()
}

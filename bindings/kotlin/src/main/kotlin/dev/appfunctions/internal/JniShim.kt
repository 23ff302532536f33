// The binding's JNI shim (src/main/c/appfunctions_jni.c, libappfunctions_jni): C trampolines for
// the hot callbacks (handlers, outcomes, delegates, scope hooks, the permission hook, releases)
// that call JniCallbacks' static methods, where a JNA callback costs about 500 ns. Loaded once;
// when it cannot be, every callback stays a JNA one (Trampolines) and nothing else changes.
package dev.appfunctions.internal

import com.sun.jna.CallbackReference
import com.sun.jna.Platform
import com.sun.jna.Pointer
import java.io.File
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/** The natives of libappfunctions_jni. */
internal object JniShim {
    const val LIBRARY = "appfunctions_jni"

    /** `-Dappfunctions.callbacks=jna` keeps the JNA callbacks even when the shim is there. */
    const val PROPERTY = "appfunctions.callbacks"

    // the trampolines' numbers (the enum of appfunctions_jni.c)
    const val HANDLER = 0
    const val OUTCOME = 1
    const val SCOPE_BEGIN = 2
    const val SCOPE_END = 3
    const val FREE = 4
    const val RELEASE = 5
    const val CANCEL = 6
    const val ON_INVOKING = 7
    const val ON_INVOKED = 8
    const val PERMISSION = 9

    /** The ABI functions the shim calls, in the order of its AFJ_FN_* (handed over at init). */
    private val FUNCTIONS = arrayOf(
        "af_call_return", "af_call_fail", "af_gate_deny", "af_execute_json", "af_view_execute_json", "af_string_free",
        "af_execute_async", "af_view_execute_async", "af_call_args",
    )

    /** Caches [callbacks]' upcall methods and the addresses of [FUNCTIONS]: 0 when done. */
    external fun nativeInit(callbacks: Class<*>, functions: LongArray): Int

    /** Trampoline [which]'s address (0: none). */
    external fun nativeAddress(which: Int): Long

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

    /** `af_call_args(call)` as UTF-8 (null for NULL): one crossing where JNA takes two (the call, the read). */
    external fun nativeCallArgs(call: Long): ByteArray?

    /**
     * Test-only: while a bit is set, the shim's copies it names find no memory (1: an inline
     * outcome's C copy, 2: also its Java one, 4: the arguments' copy and the async rendezvous).
     */
    external fun nativeFailForTest(bits: Int)

    /** `af_call_args(call)`'s UTF-8 copied to the native memory at [to] ([capacity] bytes; no JNI function called): its length, -1 for NULL, -2 when it does not fit. */
    external fun nativeCallArgsTo(call: Long, to: Long, capacity: Int): Int

    /** Where the shim was loaded from, or why not: `Result.failure` keeps the JNA callbacks. */
    val loaded: Result<String> by lazy { runCatching { load() } }

    private fun load(): String {
        val wanted = System.getProperty(PROPERTY, "auto")
        if (wanted == "jna") throw IllegalStateException("-D$PROPERTY=jna")
        val from = loadLibrary()
        val status = nativeInit(JniCallbacks::class.java, LongArray(FUNCTIONS.size) { NativeCalls.functionAddress(FUNCTIONS[it]) })
        check(status == 0) { "its nativeInit answered $status" }
        return from
    }

    /** System.loadLibrary (Android's jniLibs, java.library.path), else jna.library.path, else the jar's resources. */
    private fun loadLibrary(): String {
        val first = try {
            System.loadLibrary(LIBRARY)
            return "java.library.path"
        } catch (e: UnsatisfiedLinkError) {
            e
        }
        val file = System.mapLibraryName(LIBRARY)
        for (dir in System.getProperty("jna.library.path").orEmpty().split(File.pathSeparator)) {
            val f = File(dir, file)
            if (dir.isNotEmpty() && f.isFile) {
                System.load(f.absolutePath)
                return f.absolutePath
            }
        }
        // the class path: under JNA's resource folder (linux-x86-64/...), as the jar carries it
        val resource = "${Platform.RESOURCE_PREFIX}/$file"
        val url = JniShim::class.java.classLoader?.getResource(resource)
            ?: throw IllegalStateException("$file is not on java.library.path, jna.library.path or the class path ($resource): ${first.message}")
        if (url.protocol == "file") {
            val f = File(url.toURI())
            System.load(f.absolutePath)
            return f.absolutePath
        }
        // inside a jar: a private copy, loaded, then deleted (the mapping stays)
        val copy = Files.createTempFile("appfunctions_jni", file)
        try {
            url.openStream().use { Files.copy(it, copy, StandardCopyOption.REPLACE_EXISTING) }
            System.load(copy.toAbsolutePath().toString())
        } finally {
            if (!copy.toFile().delete()) copy.toFile().deleteOnExit()
        }
        return url.toString()
    }

    private fun address(which: Int): Pointer {
        val a = nativeAddress(which)
        check(a != 0L) { "libappfunctions_jni has no trampoline $which" }
        return Pointer(a)
    }

    /** The function pointers the binding hands the core: the shim's trampolines, or JNA's. */
    internal class Fns(private val jni: Boolean) {
        private fun pick(which: Int, jna: com.sun.jna.Callback): Pointer =
            if (jni) address(which) else CallbackReference.getFunctionPointer(jna)

        val handler = pick(HANDLER, Trampolines.Handler)
        val outcome = pick(OUTCOME, Trampolines.Outcome)
        val scopeBegin = pick(SCOPE_BEGIN, Trampolines.ScopeBegin)
        val scopeEnd = pick(SCOPE_END, Trampolines.ScopeEnd)
        val free = pick(FREE, Trampolines.Free)
        val release = pick(RELEASE, Trampolines.Release)
        val cancel = pick(CANCEL, Trampolines.CancelJob)
        val onInvoking = pick(ON_INVOKING, Trampolines.OnInvoking)
        val onInvoked = pick(ON_INVOKED, Trampolines.OnInvoked)
        val permission = pick(PERMISSION, Trampolines.Permission)
    }
}

/** The function pointers in use: the shim's when it loaded, else JNA's. */
internal object Callbacks {
    val jni: Boolean = JniShim.loaded.isSuccess
    val fns: JniShim.Fns = JniShim.Fns(jni)
}

/**
 * What the shim's trampolines call (JNI upcalls; the names and signatures are the shim's
 * NAMES and SIGNATURES). Pointers come as their value, C strings as UTF-8 bytes.
 */
internal object JniCallbacks {
    private fun ptr(v: Long): Pointer? = if (v == 0L) null else Pointer(v)

    /** Test-only: thrown out of the next handler upcalls, as an Error the binding could not catch would be. */
    @Volatile
    internal var throwFromHandlerForTest: Throwable? = null

    /** The result to answer with af_call_return (empty: NULL), or null when answered otherwise. */
    @JvmStatic
    fun handler(userData: Long, call: Long): ByteArray? {
        throwFromHandlerForTest?.let { throw it }
        return Trampolines.handle(Handles.fromC(userData), ptr(call))
    }

    @JvmStatic
    fun outcome(userData: Long, outcomeJson: ByteArray?) = Trampolines.outcome(Handles.fromC(userData), outcomeJson?.toString(Charsets.UTF_8))

    /** nativeExecuteAsync's outcome when it came after the call returned (on the thread that finished the call). */
    @JvmStatic
    fun asyncOutcome(pending: Any, outcomeJson: ByteArray?) = (pending as PendingExecute).deliver(outcomeJson?.toString(Charsets.UTF_8))

    @JvmStatic
    fun scopeBegin(userData: Long, call: Long) = Trampolines.scopeBegin(Handles.fromC(userData), ptr(call))

    @JvmStatic
    fun scopeEnd(userData: Long, call: Long) = Trampolines.scopeEnd(Handles.fromC(userData), ptr(call))

    @JvmStatic
    fun free(userData: Long) = Trampolines.free(Handles.fromC(userData))

    @JvmStatic
    fun release(userData: Long) {
        Handles.remove(Handles.fromC(userData))
    }

    @JvmStatic
    fun cancel(userData: Long) = Trampolines.cancel(Handles.fromC(userData))

    @JvmStatic
    fun onInvoking(userData: Long, call: Long, gate: Long) = Trampolines.onInvoking(Handles.fromC(userData), ptr(call), ptr(gate))

    @JvmStatic
    fun onInvoked(userData: Long, call: Long, outcomeJson: ByteArray?) =
        Trampolines.onInvoked(Handles.fromC(userData), ptr(call), outcomeJson?.toString(Charsets.UTF_8))

    @JvmStatic
    fun permission(userData: Long, call: Long, gate: Long) = Trampolines.permission(Handles.fromC(userData), ptr(call), ptr(gate))
}

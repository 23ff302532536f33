/*
 * The Kotlin binding's native half: every call between Kotlin and the C ABI crosses here,
 * through JNI, both ways.
 *
 * Downcalls: each ABI function the binding calls is a native method of
 * dev.appfunctions.internal.AfNative (internal/AfNative.kt), implemented below as j_<name>
 * and registered with RegisterNatives at init (AFJ_NATIVES: name, JNI signature, function),
 * so a signature that does not match the Kotlin declaration fails the load, naming the
 * function. Pointers and handles cross as jlong, C strings in as byte[] (UTF-8, copied here and
 * NUL-terminated), C strings out as byte[] (an owned one read and freed here). The round trips
 * (JniShim.nativeExecuteJson, nativeExecuteAsync) and the arguments' read (nativeCallArgsTo)
 * are JniShim's natives: one crossing each where the plain functions would take several. The
 * round trips' common form (nativeExecuteJsonAt, nativeExecuteAsyncAt) takes the arguments from
 * the thread's scratch memory and writes the outcome back into it (AFJ_SCRATCH_*): no JNI
 * function is called for either, nor for a handler's result, which comes down the same way.
 *
 * Upcalls: a C trampoline per callback type of the ABI calls one static method of
 * dev.appfunctions.internal.JniCallbacks through a method id cached at init.
 *
 * The core: this library does not link against libappfunctions. JniShim.nativeOpen gets the
 * path the binding found (the class path's copy, appfunctions.library.path, java.library.path,
 * Android's jniLibs, or the system's search by name) and dlopens it; every ABI function used
 * here is looked up then (AFJ_CORE), and one the library lacks fails the load, naming it.
 * It includes only jni.h, the POSIX headers and the public header appfunctions.h.
 *
 * Threads: a callback on a thread the JVM knows (the caller of af_execute_json) uses it as it
 * is; one on a thread of the core (a completion thread, an async timeout, an MCP worker)
 * attaches it as a daemon once, and a pthread key's destructor detaches it when the thread ends.
 * Exceptions: the Kotlin side catches what it can; should one still escape an upcall, it is
 * cleared here and the call (or gate) is answered with an error, never left pending in the JVM.
 * A downcall that finds no memory for its copies throws OutOfMemoryError before it calls the core.
 */
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "appfunctions.h"

/* --------------------------------------------------------------------------------- the core */

/* Every ABI function this library calls, looked up in the core at nativeOpen. */
#define AFJ_CORE(X)                                                                                                         \
  X(af_abi_version) X(af_add_delegate) X(af_android_execute_async) X(af_bundle_export_copy) X(af_call_args)                  \
  X(af_call_caller_package) X(af_call_descriptor_json) X(af_call_dialog_copy) X(af_call_fail) X(af_call_function_id)         \
  X(af_call_host_data) X(af_call_invocation_context) X(af_call_is_cancelled) X(af_call_is_foreground)                        \
  X(af_call_item_get_json) X(af_call_item_set) X(af_call_kind) X(af_call_log) X(af_call_lookup_request) X(af_call_on_cancel) \
  X(af_call_platform) X(af_call_return) X(af_call_say) X(af_call_set_host_data) X(af_cancel_token_cancel)                    \
  X(af_cancel_token_free) X(af_cancel_token_is_cancelled) X(af_cancel_token_new) X(af_define_toolkit) X(af_define_types)     \
  X(af_dispatcher_bundle_json) X(af_dispatcher_free) X(af_dispatcher_in_flight) X(af_dispatcher_new)                         \
  X(af_dispatcher_publish) X(af_dispatcher_published_new) X(af_dispatcher_set_default_timeout) X(af_dispatcher_shutdown)     \
  X(af_dispatcher_unpublish) X(af_entities_async) X(af_entities_json) X(af_error_code_name) X(af_execute_async)              \
  X(af_execute_json) X(af_export_copy) X(af_gate_allow) X(af_gate_deny) X(af_gate_open_app) X(af_http_handle)               \
  X(af_http_response_body) X(af_http_response_free) X(af_http_response_headers_copy) X(af_http_response_status)              \
  X(af_http_response_take_stream) X(af_http_server_free) X(af_http_server_max_body_bytes) X(af_http_server_new)              \
  X(af_http_stream_free) X(af_http_stream_next_copy) X(af_last_error) X(af_mcp_configure) X(af_mcp_handle_json)             \
  X(af_mcp_serve_stdio) X(af_mcp_session_free) X(af_mcp_session_handle_json) X(af_mcp_session_new)                          \
  X(af_mcp_session_set_metadata) X(af_mcp_session_set_notify) X(af_mcp_set_notify) X(af_parameters_schema_json)             \
  X(af_register_entity) X(af_register_function) X(af_registry_json) X(af_result_schema_json) X(af_set_caller_policy)        \
  X(af_set_function_caller_policy) X(af_set_function_enabled) X(af_set_limits) X(af_set_log_callback)                       \
  X(af_set_metadata_schema) X(af_set_permission_hook) X(af_set_scope_hooks) X(af_status_name) X(af_string_free)             \
  X(af_text_set) X(af_unregister_function) X(af_version) X(af_view_execute_async) X(af_view_execute_json) X(af_view_free)    \
  X(af_view_generation) X(af_view_instructions_copy) X(af_view_new) X(af_view_reset) X(af_view_set_confirmation)            \
  X(af_view_set_metadata) X(af_view_tools_json)

/* The core's functions, each typed from its declaration in the header (a mismatch does not compile). */
static struct {
#define AFJ_MEMBER(name) __typeof__(&name) name;
  AFJ_CORE(AFJ_MEMBER)
#undef AFJ_MEMBER
} core;
static void *g_core_handle;

/* --------------------------------------------------------------------------------- JNI state */

/* The upcalls, in the order JniShim.kt's trampoline constants name the first ten. */
enum {
  AFJ_HANDLER,       /* af_handler_fn: handlers and entity lookups */
  AFJ_OUTCOME,       /* af_outcome_fn: af_entities_async, af_android_execute_async */
  AFJ_SCOPE_BEGIN,   /* af_scope_fn */
  AFJ_SCOPE_END,     /* af_scope_fn */
  AFJ_FREE,          /* af_free_fn: a registration's user data, counted */
  AFJ_RELEASE,       /* af_free_fn: a plain handle (cancel registrations, host data) */
  AFJ_CANCEL,        /* af_cancel_fn: a suspended handler's coroutine */
  AFJ_ON_INVOKING,   /* af_delegate.on_invoking */
  AFJ_ON_INVOKED,    /* af_delegate.on_invoked */
  AFJ_PERMISSION,    /* af_permission_fn */
  AFJ_LOG,           /* af_log_fn: the dispatcher's log sink */
  AFJ_NOTIFY,        /* af_mcp_notify_fn: MCP notifications */
  AFJ_TOOLKIT_TEXT,  /* af_toolkit_text_fn: a toolkit's dynamic texts */
  AFJ_ASYNC_OUTCOME, /* not a trampoline: the upcall of nativeExecuteAsync's outcome when it comes late */
  AFJ_COUNT
};

static const char *const NAMES[AFJ_COUNT] = {
  "handler", "outcome", "scopeBegin", "scopeEnd", "free", "release", "cancel", "onInvoking", "onInvoked", "permission",
  "log", "notify", "toolkitText", "asyncOutcome",
};
static const char *const SIGNATURES[AFJ_COUNT] = {
  "(JJ)J", "(J[B)V", "(JJ)J", "(JJ)J", "(J)V", "(J)V", "(J)V", "(JJJ)V", "(JJ[B)V", "(JJJ)V",
  "(JI[B)V", "(J[B)V", "(J[BI[B)[B", "(Ljava/lang/Object;[B)V",
};

static JavaVM *g_vm;
static jclass g_callbacks;
static jclass g_oom; /* java.lang.OutOfMemoryError, for the copies that find no memory */
static jmethodID g_method[AFJ_COUNT];
static pthread_key_t g_detach_key;
static int g_key_made;

static void detach_thread(void *vm) {
  JavaVM *jvm = (JavaVM *)vm;
  (*jvm)->DetachCurrentThread(jvm);
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  g_vm = vm;
  if (pthread_key_create(&g_detach_key, detach_thread) == 0) g_key_made = 1;
  return JNI_VERSION_1_6;
}

/* The calling thread's JNIEnv, attaching a thread of the core (as a daemon) on its first callback. */
static JNIEnv *thread_env(void) {
  JNIEnv *env = NULL;
  jint r = (*g_vm)->GetEnv(g_vm, (void **)&env, JNI_VERSION_1_6);
  if (r == JNI_OK) return env;
  if (r != JNI_EDETACHED || !g_key_made) return NULL;
  JavaVMAttachArgs args;
  args.version = JNI_VERSION_1_6;
  args.name = (char *)"appfunctions";
  args.group = NULL;
#ifdef __ANDROID__
  if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, &env, &args) != JNI_OK) return NULL;
#else
  if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void **)&env, &args) != JNI_OK) return NULL;
#endif
  pthread_setspecific(g_detach_key, g_vm); /* detached by the key's destructor when the thread ends */
  return env;
}

/* True (and the exception cleared) when the upcall threw. */
static int threw(JNIEnv *env) {
  if (!(*env)->ExceptionCheck(env)) return 0;
  (*env)->ExceptionClear(env);
  return 1;
}

#define KEY(p) ((jlong)(intptr_t)(p))
#define PTR(type, v) ((type *)(intptr_t)(v))

/*
 * A test hook (JniShim.nativeFailForTest): while a bit is set, the copies it names act as if no
 * memory could be had. AFJ_FAIL_OUTCOME: the C copy of an inline outcome over 240 bytes;
 * AFJ_FAIL_OUTCOME_JAVA: also the Java array that stands in for it; AFJ_FAIL_ARGS: the C copy
 * of execute's arguments (over 255 bytes) and nativeExecuteAsync's rendezvous. Harmless when
 * unset: one relaxed load on those paths, and only the tests set it.
 */
enum { AFJ_FAIL_OUTCOME = 1, AFJ_FAIL_OUTCOME_JAVA = 2, AFJ_FAIL_ARGS = 4 };
static _Atomic int g_fail_for_test;

static void *alloc(size_t n, int fail_bit) {
  if (atomic_load_explicit(&g_fail_for_test, memory_order_relaxed) & fail_bit) return NULL;
  return malloc(n);
}

/* Throws java.lang.OutOfMemoryError (the JVM's own, should even that find no memory) for the native method to return into. */
static void throw_oom(JNIEnv *env, const char *what) {
  if (!(*env)->ExceptionCheck(env) && (g_oom == NULL || (*env)->ThrowNew(env, g_oom, what) != 0) && !(*env)->ExceptionCheck(env)) {
    /* no class, or ThrowNew failed without an exception: an array too large for any heap throws one */
    (void)(*env)->NewLongArray(env, 0x7fffffff);
  }
}

/* A C string's bytes as a new byte[] (UTF-8, without the NUL); NULL for NULL or (cleared) when out of memory: for upcalls. */
static jbyteArray bytes_of(JNIEnv *env, const char *s) {
  if (s == NULL) return NULL;
  jsize n = (jsize)strlen(s);
  jbyteArray a = (*env)->NewByteArray(env, n);
  if (a == NULL) {
    (*env)->ExceptionClear(env);
    return NULL;
  }
  (*env)->SetByteArrayRegion(env, a, 0, n, (const jbyte *)s);
  return a;
}

/* The same for a downcall's answer: out of memory leaves the OutOfMemoryError pending, for Kotlin to throw. */
static jbyteArray bytes_out(JNIEnv *env, const char *s) {
  if (s == NULL) return NULL;
  jsize n = (jsize)strlen(s);
  jbyteArray a = (*env)->NewByteArray(env, n);
  if (a != NULL) (*env)->SetByteArrayRegion(env, a, 0, n, (const jbyte *)s);
  return a;
}

/*
 * A thread's scratch memory (Kotlin's per-thread Scratch, a direct ByteBuffer): an int32 length at
 * AFJ_SCRATCH_LENGTH and that many bytes from AFJ_SCRATCH_BYTES. Text crosses in it with no JNI
 * function called (an array made in C, or one read here, costs a JNI function each, more than
 * the copy): execute's arguments down, its outcome up, a handler's result down. Each side reads
 * what the other wrote before any other code runs on the thread, so nested calls may reuse it.
 */
enum { AFJ_SCRATCH_LENGTH = 0, AFJ_SCRATCH_BYTES = 8 };

/* The `n` bytes of the scratch at `scratch` as a NUL-terminated copy in `small` (`size` bytes) or malloc'd; NULL without memory. */
static char *scratch_in(jlong scratch, jint length, char *small, size_t size) {
  size_t n = length > 0 ? (size_t)length : 0;
  char *buf = n < size ? small : (char *)alloc(n + 1, AFJ_FAIL_ARGS);
  if (buf == NULL) return NULL;
  memcpy(buf, PTR(const char, scratch) + AFJ_SCRATCH_BYTES, n);
  buf[n] = '\0';
  return buf;
}

/* Writes `s` (NUL-terminated) into the scratch when it fits in `capacity` bytes: 1, else 0. */
static int scratch_out(jlong scratch, jint capacity, const char *s) {
  size_t n = strlen(s);
  if (capacity < 0 || n > (size_t)capacity) return 0;
  int32_t len = (int32_t)n;
  memcpy(PTR(char, scratch) + AFJ_SCRATCH_LENGTH, &len, sizeof len);
  memcpy(PTR(char, scratch) + AFJ_SCRATCH_BYTES, s, n);
  return 1;
}

/* An owned C string (an af_*_json / af_*_copy answer) as a byte[], freed here. */
static jbyteArray owned_out(JNIEnv *env, char *s) {
  if (s == NULL) return NULL;
  jbyteArray a = bytes_out(env, s);
  core.af_string_free(s);
  return a;
}

/*
 * A byte[] argument (UTF-8, with or without a trailing NUL) as a NUL-terminated C string for the
 * length of one downcall: copied (the call may run host code, which a critical region forbids)
 * into `small` or a malloc'd buffer. str_in answers 0 with an OutOfMemoryError pending when no
 * memory could be had; `p` is NULL for a null array.
 */
typedef struct {
  char *p;
  char small[256];
} afj_str;

static int str_in(JNIEnv *env, jbyteArray a, afj_str *s) {
  s->p = NULL;
  if (a == NULL) return 1;
  jsize len = (*env)->GetArrayLength(env, a);
  size_t n = len > 0 ? (size_t)len : 0;
  char *buf = n < sizeof s->small ? s->small : (char *)malloc(n + 1);
  if (buf == NULL) {
    throw_oom(env, "Kotlin binding: no memory for the copy of a string argument");
    return 0;
  }
  if (n > 0) (*env)->GetByteArrayRegion(env, a, 0, (jsize)n, (jbyte *)buf);
  buf[n] = '\0';
  s->p = buf;
  return 1;
}

static void str_done(afj_str *s) {
  if (s->p != NULL && s->p != s->small) free(s->p);
}

/* --------------------------------------------------------------------------------- trampolines */

static void trampoline_handler(void *user_data, struct af_call *call) {
  JNIEnv *env = thread_env();
  if (env == NULL) {
    core.af_call_fail(call, AF_CODE_INTERNAL_ERROR, "Kotlin binding: the thread cannot be attached to the JVM");
    return;
  }
  /* What to answer here (JniCallbacks.handler): 0, nothing (answered already or later); -1, NULL;
     else the address of the thread's scratch (AFJ_SCRATCH_*) holding the result's UTF-8 */
  jlong result = (*env)->CallStaticLongMethod(env, g_callbacks, g_method[AFJ_HANDLER], KEY(user_data), KEY(call));
  if (threw(env)) {
    core.af_call_fail(call, AF_CODE_INTERNAL_ERROR, "Kotlin binding: an exception escaped the handler");
    return;
  }
  if (result == 0) return;
  if (result == -1) {
    core.af_call_return(call, NULL);
    return;
  }
  const char *at = PTR(const char, result);
  int32_t n;
  memcpy(&n, at + AFJ_SCRATCH_LENGTH, sizeof n);
  /* Copied out first: af_call_return may run host code (on_invoked), which may use the scratch. */
  char small[512];
  char *buf = n >= 0 && (size_t)n < sizeof small ? small : (char *)malloc((size_t)(n < 0 ? 0 : n) + 1);
  if (n < 0 || buf == NULL) {
    core.af_call_fail(call, AF_CODE_INTERNAL_ERROR, "Kotlin binding: out of memory for the result");
    return;
  }
  memcpy(buf, at + AFJ_SCRATCH_BYTES, (size_t)n);
  buf[n] = '\0';
  core.af_call_return(call, buf);
  if (buf != small) free(buf);
}

static void trampoline_outcome(void *user_data, const char *outcome_json) {
  JNIEnv *env = thread_env();
  if (env == NULL) return; /* nothing to answer: the awaiting side is the JVM's */
  jbyteArray json = bytes_of(env, outcome_json);
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[AFJ_OUTCOME], KEY(user_data), json);
  threw(env);
  if (json != NULL) (*env)->DeleteLocalRef(env, json);
}

static void user_data_fn(int which, void *user_data) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[which], KEY(user_data));
  threw(env);
}

/*
 * A call's host scope: the scope-begin upcall answers the key of its box in the handle table
 * (0: none), which is attached here as the call's host data, released by trampoline_release_scope.
 * The scope-end upcall takes the box out of the table itself and answers its key: the core runs
 * the host data's release right after the scope-end hook, on the same thread
 * (src/engine/pipeline.rs), and that release then has nothing left to do and makes no upcall.
 * Any other release of a box (the core refusing the host data, a call ending without its scope's
 * end) goes up to JniCallbacks.release as every plain handle's does.
 */
static _Thread_local jlong tls_scope_let_go;

static void trampoline_release_scope(void *user_data) {
  if (user_data != NULL && KEY(user_data) == tls_scope_let_go) {
    tls_scope_let_go = 0;
    return;
  }
  user_data_fn(AFJ_RELEASE, user_data);
}

static void trampoline_scope_begin(void *user_data, struct af_call *call) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  jlong box = (*env)->CallStaticLongMethod(env, g_callbacks, g_method[AFJ_SCOPE_BEGIN], KEY(user_data), KEY(call));
  if (threw(env) || box == 0) return;
  /* on a refusal (a call that has just ended) the core runs the release before this returns */
  core.af_call_set_host_data(call, PTR(void, box), trampoline_release_scope);
}

static void trampoline_scope_end(void *user_data, struct af_call *call) {
  JNIEnv *env = thread_env();
  tls_scope_let_go = 0;
  if (env == NULL) return;
  jlong box = (*env)->CallStaticLongMethod(env, g_callbacks, g_method[AFJ_SCOPE_END], KEY(user_data), KEY(call));
  if (!threw(env)) tls_scope_let_go = box;
}

static void trampoline_free(void *user_data) { user_data_fn(AFJ_FREE, user_data); }
static void trampoline_release(void *user_data) { user_data_fn(AFJ_RELEASE, user_data); }
static void trampoline_cancel(void *user_data) { user_data_fn(AFJ_CANCEL, user_data); }

static void gate_fn(int which, void *user_data, struct af_call *call, struct af_gate *gate) {
  JNIEnv *env = thread_env();
  if (env == NULL) {
    core.af_gate_deny(gate, "Kotlin binding: the thread cannot be attached to the JVM");
    return;
  }
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[which], KEY(user_data), KEY(call), KEY(gate));
  if (threw(env)) core.af_gate_deny(gate, "Kotlin binding: an exception escaped the gate"); /* ignored if answered */
}

static void trampoline_on_invoking(void *user_data, struct af_call *call, struct af_gate *gate) {
  gate_fn(AFJ_ON_INVOKING, user_data, call, gate);
}
static void trampoline_permission(void *user_data, struct af_call *call, struct af_gate *gate) {
  gate_fn(AFJ_PERMISSION, user_data, call, gate);
}

static void trampoline_on_invoked(void *user_data, struct af_call *call, const char *outcome_json) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  jbyteArray json = bytes_of(env, outcome_json);
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[AFJ_ON_INVOKED], KEY(user_data), KEY(call), json);
  threw(env);
  if (json != NULL) (*env)->DeleteLocalRef(env, json);
}

static void trampoline_log(void *user_data, int32_t level, const char *message) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  jbyteArray text = bytes_of(env, message);
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[AFJ_LOG], KEY(user_data), (jint)level, text);
  threw(env);
  if (text != NULL) (*env)->DeleteLocalRef(env, text);
}

static void trampoline_notify(void *user_data, const char *message_json) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  jbyteArray json = bytes_of(env, message_json);
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[AFJ_NOTIFY], KEY(user_data), json);
  threw(env);
  if (json != NULL) (*env)->DeleteLocalRef(env, json);
}

/* A toolkit's text: the upcall answers its UTF-8 (set with af_text_set) or null (the static text stays). */
static void trampoline_toolkit_text(void *user_data, const char *toolkit, int32_t which, const char *metadata_json, struct af_text *out) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  jbyteArray name = bytes_of(env, toolkit);
  jbyteArray metadata = bytes_of(env, metadata_json);
  jbyteArray text = (jbyteArray)(*env)->CallStaticObjectMethod(env, g_callbacks, g_method[AFJ_TOOLKIT_TEXT], KEY(user_data), name,
                                                               (jint)which, metadata);
  if (threw(env)) text = NULL;
  if (name != NULL) (*env)->DeleteLocalRef(env, name);
  if (metadata != NULL) (*env)->DeleteLocalRef(env, metadata);
  if (text == NULL) return;
  afj_str s;
  if (str_in(env, text, &s)) {
    core.af_text_set(out, s.p);
    str_done(&s);
  } else {
    (*env)->ExceptionClear(env); /* no memory: the static text stays */
  }
  (*env)->DeleteLocalRef(env, text);
}

/* The trampolines, each as its callback type of the header (a mismatch does not compile). */
static const af_handler_fn T_HANDLER = trampoline_handler;
static const af_outcome_fn T_OUTCOME = trampoline_outcome;
static const af_scope_fn T_SCOPE_BEGIN = trampoline_scope_begin;
static const af_scope_fn T_SCOPE_END = trampoline_scope_end;
static const af_free_fn T_FREE = trampoline_free;
static const af_free_fn T_RELEASE = trampoline_release;
static const af_cancel_fn T_CANCEL = trampoline_cancel;
static const af_permission_fn T_PERMISSION = trampoline_permission;
static const af_log_fn T_LOG = trampoline_log;
static const af_mcp_notify_fn T_NOTIFY = trampoline_notify;
static const af_toolkit_text_fn T_TOOLKIT_TEXT = trampoline_toolkit_text;

/*
 * The four af_delegate tables a delegate can need (JniShim.nativeDelegate): on_invoking and
 * on_invoked each present or NULL (the core does not call a NULL one), the release always. The
 * core copies the table; these live as long as the library.
 */
static const af_delegate T_DELEGATES[4] = {
  {sizeof(af_delegate), 0, NULL, NULL, trampoline_free},
  {sizeof(af_delegate), 0, trampoline_on_invoking, NULL, trampoline_free},
  {sizeof(af_delegate), 0, NULL, trampoline_on_invoked, trampoline_free},
  {sizeof(af_delegate), 0, trampoline_on_invoking, trampoline_on_invoked, trampoline_free},
};

/* JniShim.nativeAddress(which): the trampoline's address as a function pointer for the C ABI; 0 for no such one. */
JNIEXPORT jlong JNICALL Java_dev_appfunctions_internal_JniShim_nativeAddress(JNIEnv *env, jobject self, jint which) {
  (void)env;
  (void)self;
  switch (which) {
  case AFJ_HANDLER: return (jlong)(intptr_t)T_HANDLER;
  case AFJ_OUTCOME: return (jlong)(intptr_t)T_OUTCOME;
  case AFJ_SCOPE_BEGIN: return (jlong)(intptr_t)T_SCOPE_BEGIN;
  case AFJ_SCOPE_END: return (jlong)(intptr_t)T_SCOPE_END;
  case AFJ_FREE: return (jlong)(intptr_t)T_FREE;
  case AFJ_RELEASE: return (jlong)(intptr_t)T_RELEASE;
  case AFJ_CANCEL: return (jlong)(intptr_t)T_CANCEL;
  case AFJ_PERMISSION: return (jlong)(intptr_t)T_PERMISSION;
  case AFJ_LOG: return (jlong)(intptr_t)T_LOG;
  case AFJ_NOTIFY: return (jlong)(intptr_t)T_NOTIFY;
  case AFJ_TOOLKIT_TEXT: return (jlong)(intptr_t)T_TOOLKIT_TEXT;
  default: return 0;
  }
}

/* JniShim.nativeDelegate(flags): the af_delegate table with on_invoking (bit 0) and on_invoked (bit 1). */
JNIEXPORT jlong JNICALL Java_dev_appfunctions_internal_JniShim_nativeDelegate(JNIEnv *env, jobject self, jint flags) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)&T_DELEGATES[flags & 3];
}

/* ----------------------------------------------------------------------- the execute round trips */

/* af_execute_json (view 0: target is the dispatcher) or af_view_execute_json (view 1: a view). */
static char *execute_json(jint view, jlong target, jlong inv, const char *args) {
  const struct af_invocation *invocation = PTR(const struct af_invocation, inv);
  return view ? core.af_view_execute_json(PTR(struct af_view, target), invocation, args)
              : core.af_execute_json(PTR(struct af_dispatcher, target), invocation, args);
}

/*
 * JniShim.nativeExecuteJson(view, target, inv, args): execute_json with `args`' UTF-8 (without
 * its NUL), the outcome read into a byte[] and freed here: one crossing. NULL when the core
 * answered NULL (never for a live dispatcher).
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeExecuteJson(JNIEnv *env, jobject self, jint view,
                                                                                     jlong target, jlong inv, jbyteArray args) {
  (void)self;
  jsize n = args == NULL ? 0 : (*env)->GetArrayLength(env, args);
  /* copied out: the call runs host code (upcalls), which a critical region forbids */
  char small[256];
  char *buf = (size_t)n < sizeof small ? small : (char *)alloc((size_t)n + 1, AFJ_FAIL_ARGS);
  if (buf == NULL) { /* nothing was called: an error of this call, never af_last_error's text of another */
    throw_oom(env, "Kotlin binding: no memory for the copy of the arguments");
    return NULL;
  }
  if (n > 0) (*env)->GetByteArrayRegion(env, args, 0, n, (jbyte *)buf);
  buf[n] = '\0';
  char *out = execute_json(view, target, inv, args == NULL ? NULL : buf);
  if (buf != small) free(buf);
  return owned_out(env, out); /* NULL with an OutOfMemoryError pending: thrown in Kotlin */
}

/*
 * JniShim.nativeExecuteJsonAt(view, target, inv, scratch, argsLength, capacity, marker): the same
 * with the arguments' UTF-8 in the thread's scratch (`argsLength` bytes; -1: NULL), copied out
 * first (the call runs host code, which may use the scratch), and the outcome written back into
 * it when it fits in `capacity` bytes: then the answer is `marker`. A longer outcome comes as a
 * byte[]; NULL when the core answered NULL. No JNI function is called on the common path.
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeExecuteJsonAt(JNIEnv *env, jobject self, jint view,
                                                                                       jlong target, jlong inv, jlong scratch,
                                                                                       jint argsLength, jint capacity,
                                                                                       jbyteArray marker) {
  (void)self;
  char small[256];
  char *buf = argsLength < 0 ? NULL : scratch_in(scratch, argsLength, small, sizeof small);
  if (argsLength >= 0 && buf == NULL) {
    throw_oom(env, "Kotlin binding: no memory for the copy of the arguments");
    return NULL;
  }
  char *out = execute_json(view, target, inv, buf);
  if (buf != small) free(buf);
  if (out == NULL) return NULL;
  if (scratch_out(scratch, capacity, out)) {
    core.af_string_free(out);
    return marker;
  }
  return owned_out(env, out);
}

/*
 * nativeExecuteAsync's rendezvous with its outcome. The outcome that comes before
 * af_*_execute_async returns (the handler answered inline: the common case) is copied here and
 * becomes nativeExecuteAsync's return value, with no upcall; one that comes after it returned
 * goes up to JniCallbacks.asyncOutcome(pending, json). `state` says which side came first. The
 * kept outcome is bytes, not a Java array: a callback may run inside a nested native frame
 * whose local references end with it, so the array is made in nativeExecuteAsync's own.
 */
enum { AFJ_IN_CALL, AFJ_KEPT, AFJ_RETURNED };
struct afj_async {
  _Atomic int state;
  pthread_t caller;  /* the thread in nativeExecuteAsync */
  char *copy;        /* the kept outcome: `small` or malloc'd; NULL when it is not kept in C */
  jobject java_copy; /* or, when malloc found no memory, a global reference to its UTF-8 as a Java array */
  int kept_null;     /* the outcome was NULL (never, by the ABI): answered as the text null */
  int no_memory;     /* neither copy could be made: nativeExecuteAsync throws OutOfMemoryError */
  jobject pending;   /* set before AFJ_RETURNED: a global reference to the PendingExecute */
  char small[240];
};

/* Keeps the outcome for nativeExecuteAsync: in `small`, else malloc'd, else (no C memory) in a Java array. */
static void keep(struct afj_async *a, const char *outcome_json) {
  if (outcome_json == NULL) {
    a->kept_null = 1;
    return;
  }
  size_t n = strlen(outcome_json) + 1;
  a->copy = n <= sizeof a->small ? a->small : (char *)alloc(n, AFJ_FAIL_OUTCOME);
  if (a->copy != NULL) {
    memcpy(a->copy, outcome_json, n);
    return;
  }
  /* the Java heap instead; a global reference: this may be a nested native frame, or another thread */
  JNIEnv *env = thread_env();
  jbyteArray local = env == NULL || (atomic_load_explicit(&g_fail_for_test, memory_order_relaxed) & AFJ_FAIL_OUTCOME_JAVA)
                         ? NULL
                         : bytes_of(env, outcome_json);
  if (local != NULL) {
    a->java_copy = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
  }
  if (a->java_copy == NULL) a->no_memory = 1;
}

/* Lets go of what keep() kept (the outcome went up by the late path instead). */
static void unkeep(struct afj_async *a) {
  if (a->copy != a->small) free(a->copy);
  a->copy = NULL;
  if (a->java_copy != NULL) {
    JNIEnv *env = thread_env();
    if (env != NULL) (*env)->DeleteGlobalRef(env, a->java_copy);
    a->java_copy = NULL;
  }
  a->no_memory = 0;
}

static void trampoline_async_outcome(void *user_data, const char *outcome_json) {
  struct afj_async *a = (struct afj_async *)user_data;
  if (pthread_equal(pthread_self(), a->caller) && atomic_load(&a->state) == AFJ_IN_CALL) {
    /* inside nativeExecuteAsync on this very thread: nobody else can change the state now */
    keep(a, outcome_json);
    atomic_store(&a->state, AFJ_KEPT);
    return;
  }
  /* another thread: keep it if the caller has not returned yet, else hand it up */
  if (atomic_load(&a->state) == AFJ_IN_CALL) {
    keep(a, outcome_json);
    int expected = AFJ_IN_CALL;
    if (atomic_compare_exchange_strong(&a->state, &expected, AFJ_KEPT)) return; /* the caller takes it */
    unkeep(a);
  }
  JNIEnv *env = thread_env();
  if (env != NULL) {
    jbyteArray json = bytes_of(env, outcome_json == NULL ? "null" : outcome_json);
    (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[AFJ_ASYNC_OUTCOME], a->pending, json);
    threw(env);
    if (json != NULL) (*env)->DeleteLocalRef(env, json);
    (*env)->DeleteGlobalRef(env, a->pending);
  }
  free(a);
}

static const af_outcome_fn T_ASYNC_OUTCOME = trampoline_async_outcome;

/* A new rendezvous (NULL, with an OutOfMemoryError pending, without memory: nothing was started). */
static struct afj_async *async_new(JNIEnv *env) {
  /* no memory before the call: the error is this call's (never af_last_error's text of another) */
  struct afj_async *a = (struct afj_async *)alloc(sizeof *a, AFJ_FAIL_ARGS);
  if (a == NULL) {
    throw_oom(env, "Kotlin binding: no memory to start the call");
    return NULL;
  }
  atomic_init(&a->state, AFJ_IN_CALL);
  a->caller = pthread_self();
  a->copy = NULL;
  a->java_copy = NULL;
  a->kept_null = 0;
  a->no_memory = 0;
  a->pending = NULL;
  return a;
}

/*
 * af_execute_async (view 0: target is the dispatcher) or af_view_execute_async (view 1) with
 * `args` and the rendezvous `a` (freed here), answered as nativeExecuteAsync answers; with a
 * `scratch` (not 0), an inline outcome that fits in `capacity` bytes is written into it and the
 * answer is `marker`.
 */
static jbyteArray execute_async(JNIEnv *env, jint view, jlong target, jlong inv, const char *args, struct afj_async *a,
                                jobject pending, jlong scratch, jint capacity, jbyteArray marker) {
  const struct af_invocation *invocation = PTR(const struct af_invocation, inv);
  af_status s = view ? core.af_view_execute_async(PTR(struct af_view, target), invocation, args, T_ASYNC_OUTCOME, a)
                     : core.af_execute_async(PTR(struct af_dispatcher, target), invocation, args, T_ASYNC_OUTCOME, a);
  if (s != AF_OK) { /* the outcome never comes */
    free(a);
    return (*env)->NewByteArray(env, 0);
  }
  if (atomic_load(&a->state) == AFJ_IN_CALL) {
    /* still running: the late side needs the PendingExecute; made before the state says so */
    a->pending = (*env)->NewGlobalRef(env, pending);
    int expected = AFJ_IN_CALL;
    if (a->pending != NULL && atomic_compare_exchange_strong(&a->state, &expected, AFJ_RETURNED)) return NULL;
    /* it came in between; or no global reference could be made (HotSpot and ART abort before
       that happens): then nothing could hand it up later, so it is waited for here */
    while (atomic_load(&a->state) == AFJ_IN_CALL) sched_yield();
    if (a->pending != NULL) (*env)->DeleteGlobalRef(env, a->pending);
  }
  jbyteArray r = NULL;
  const char *kept = a->kept_null ? "null" : a->copy;
  if (a->java_copy != NULL) {
    r = (jbyteArray)(*env)->NewLocalRef(env, a->java_copy);
    (*env)->DeleteGlobalRef(env, a->java_copy);
  } else if (kept != NULL) {
    r = scratch != 0 && scratch_out(scratch, capacity, kept) ? marker : bytes_of(env, kept);
  }
  if (a->copy != a->small) free(a->copy);
  free(a);
  /* the outcome came and could not be kept or handed up: the call's own error, not a refusal */
  if (r == NULL) throw_oom(env, "Kotlin binding: no memory for the call's outcome");
  return r;
}

/*
 * JniShim.nativeExecuteAsync(view, target, inv, args, pending): execute_async with `args`' UTF-8
 * (without its NUL). Answers the outcome's UTF-8 when it came before the call returned (the
 * handler answered inline); null when it is still to come (then JniCallbacks.asyncOutcome gets
 * it with `pending`); an empty array when the call was refused (an error status: the outcome
 * never comes; af_last_error says why).
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeExecuteAsync(JNIEnv *env, jobject self, jint view,
                                                                                      jlong target, jlong inv, jbyteArray args,
                                                                                      jobject pending) {
  (void)self;
  struct afj_async *a = async_new(env);
  if (a == NULL) return NULL;
  jsize len = args == NULL ? 0 : (*env)->GetArrayLength(env, args);
  size_t n = len > 0 ? (size_t)len : 0;
  char small[256];
  char *buf = n < sizeof small ? small : (char *)alloc(n + 1, AFJ_FAIL_ARGS);
  if (buf == NULL) {
    free(a);
    throw_oom(env, "Kotlin binding: no memory for the copy of the arguments");
    return NULL;
  }
  if (n > 0) (*env)->GetByteArrayRegion(env, args, 0, (jsize)n, (jbyte *)buf);
  buf[n] = '\0';
  jbyteArray r = execute_async(env, view, target, inv, args == NULL ? NULL : buf, a, pending, 0, 0, NULL);
  if (buf != small) free(buf);
  return r;
}

/*
 * JniShim.nativeExecuteAsyncAt(view, target, inv, scratch, argsLength, capacity, pending, marker):
 * the same with the arguments' UTF-8 in the thread's scratch (`argsLength` bytes; -1: NULL),
 * copied out first, and an inline outcome written back into it when it fits in `capacity` bytes:
 * then the answer is `marker`. No JNI function is called on the common path.
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeExecuteAsyncAt(JNIEnv *env, jobject self, jint view,
                                                                                        jlong target, jlong inv, jlong scratch,
                                                                                        jint argsLength, jint capacity,
                                                                                        jobject pending, jbyteArray marker) {
  (void)self;
  struct afj_async *a = async_new(env);
  if (a == NULL) return NULL;
  char small[256];
  char *buf = argsLength < 0 ? NULL : scratch_in(scratch, argsLength, small, sizeof small);
  if (argsLength >= 0 && buf == NULL) {
    free(a);
    throw_oom(env, "Kotlin binding: no memory for the copy of the arguments");
    return NULL;
  }
  jbyteArray r = execute_async(env, view, target, inv, buf, a, pending, scratch, capacity, marker);
  if (buf != small) free(buf);
  return r;
}

/* JniShim.nativeFailForTest(bits): the test hook's bits (AFJ_FAIL_*); 0 ends it. */
JNIEXPORT void JNICALL Java_dev_appfunctions_internal_JniShim_nativeFailForTest(JNIEnv *env, jobject self, jint bits) {
  (void)env;
  (void)self;
  atomic_store(&g_fail_for_test, (int)bits);
}

/* JniShim.nativeCallArgs(call): af_call_args' UTF-8 as a byte[]; null for NULL. */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeCallArgs(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return bytes_out(env, core.af_call_args(PTR(struct af_call, call)));
}

/* `s` copied to the native memory at `to` (`capacity` bytes): its length; -1 for NULL; -2 when it does not fit. */
static jint text_to(const char *s, jlong to, jint capacity) {
  if (s == NULL) return -1;
  size_t n = strlen(s);
  if (capacity < 0 || n > (size_t)capacity) return -2;
  memcpy(PTR(void, to), s, n);
  return (jint)n;
}

/*
 * JniShim.nativeCallArgsTo(call, to, capacity): af_call_args' UTF-8 copied to the native memory
 * at `to` (the caller's per-thread scratch, `capacity` bytes), with no JNI function called: a
 * new array made here, or one copied into, costs more than the copy. Its length; -1 for NULL;
 * -2 when it does not fit (the caller then takes nativeCallArgs).
 */
JNIEXPORT jint JNICALL Java_dev_appfunctions_internal_JniShim_nativeCallArgsTo(JNIEnv *env, jobject self, jlong call, jlong to,
                                                                              jint capacity) {
  (void)env;
  (void)self;
  return text_to(core.af_call_args(PTR(struct af_call, call)), to, capacity);
}

/*
 * JniShim.nativeCallTextTo(which, call, to, capacity): the same for the call's other borrowed
 * strings, read as often as a delegate looks at them: 0 af_call_function_id, 1
 * af_call_caller_package (-1 for another `which`).
 */
JNIEXPORT jint JNICALL Java_dev_appfunctions_internal_JniShim_nativeCallTextTo(JNIEnv *env, jobject self, jint which, jlong call,
                                                                              jlong to, jint capacity) {
  (void)env;
  (void)self;
  struct af_call *c = PTR(struct af_call, call);
  switch (which) {
  case 0: return text_to(core.af_call_function_id(c), to, capacity);
  case 1: return text_to(core.af_call_caller_package(c), to, capacity);
  default: return -1;
  }
}

/* ---------------------------------------------------------------------- memory and layouts */

/* JniShim.nativeBufferAddress(buffer): a direct ByteBuffer's address (0 for another buffer). */
JNIEXPORT jlong JNICALL Java_dev_appfunctions_internal_JniShim_nativeBufferAddress(JNIEnv *env, jobject self, jobject buffer) {
  (void)self;
  return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buffer);
}

/*
 * JniShim.nativeLayout(): what this compiler makes of the header's structs, in the order
 * Layout.kt reads them: the pointer size; af_invocation's size and offsets; af_http_request's.
 */
JNIEXPORT jintArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeLayout(JNIEnv *env, jobject self) {
  (void)self;
  const jint layout[] = {
    (jint)sizeof(void *),
    (jint)sizeof(struct af_invocation),
    (jint)offsetof(struct af_invocation, struct_size),
    (jint)offsetof(struct af_invocation, platform),
    (jint)offsetof(struct af_invocation, function_id),
    (jint)offsetof(struct af_invocation, caller_package),
    (jint)offsetof(struct af_invocation, cancel_token),
    (jint)offsetof(struct af_invocation, timeout_ms),
    (jint)offsetof(struct af_invocation, is_foreground),
    (jint)offsetof(struct af_invocation, reserved),
    (jint)offsetof(struct af_invocation, host_context),
    (jint)sizeof(struct af_http_request),
    (jint)offsetof(struct af_http_request, struct_size),
    (jint)offsetof(struct af_http_request, reserved),
    (jint)offsetof(struct af_http_request, body_len),
    (jint)offsetof(struct af_http_request, method),
    (jint)offsetof(struct af_http_request, path),
    (jint)offsetof(struct af_http_request, query),
    (jint)offsetof(struct af_http_request, headers),
    (jint)offsetof(struct af_http_request, body),
    (jint)sizeof(struct af_delegate),
    (jint)offsetof(struct af_delegate, struct_size),
    (jint)offsetof(struct af_delegate, reserved),
    (jint)offsetof(struct af_delegate, on_invoking),
    (jint)offsetof(struct af_delegate, on_invoked),
    (jint)offsetof(struct af_delegate, free_user_data),
  };
  jsize n = (jsize)(sizeof layout / sizeof layout[0]);
  jintArray r = (*env)->NewIntArray(env, n);
  if (r != NULL) (*env)->SetIntArrayRegion(env, r, 0, n, layout);
  return r;
}

/* JniShim.nativeFunctionAddress(name): the loaded core's function `name` (0: none), for the benchmark's C loops. */
JNIEXPORT jlong JNICALL Java_dev_appfunctions_internal_JniShim_nativeFunctionAddress(JNIEnv *env, jobject self, jbyteArray name) {
  (void)self;
  afj_str s;
  if (g_core_handle == NULL || !str_in(env, name, &s) || s.p == NULL) return 0;
  jlong a = (jlong)(intptr_t)dlsym(g_core_handle, s.p);
  str_done(&s);
  return a;
}

/* ------------------------------------------------------------------- AfNative: the downcalls */

/* A string argument for one call: `afj_str NAME` made from the byte[] NAME##_, answering FAIL when no memory. */
#define STR(name, FAIL)         \
  afj_str name;                 \
  if (!str_in(env, name##_, &name)) return FAIL

static jint JNICALL j_af_abi_version(JNIEnv *env, jobject self) {
  (void)env;
  (void)self;
  return (jint)core.af_abi_version();
}
static jbyteArray JNICALL j_af_version(JNIEnv *env, jobject self) {
  (void)self;
  return bytes_out(env, core.af_version());
}
static jbyteArray JNICALL j_af_last_error(JNIEnv *env, jobject self) {
  (void)self;
  return bytes_out(env, core.af_last_error());
}
static jbyteArray JNICALL j_af_error_code_name(JNIEnv *env, jobject self, jint code) {
  (void)self;
  return bytes_out(env, core.af_error_code_name(code));
}
static jbyteArray JNICALL j_af_status_name(JNIEnv *env, jobject self, jint status) {
  (void)self;
  return bytes_out(env, core.af_status_name(status));
}

/* the call context */
static jbyteArray JNICALL j_af_call_function_id(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return bytes_out(env, core.af_call_function_id(PTR(struct af_call, call)));
}
static jint JNICALL j_af_call_kind(JNIEnv *env, jobject self, jlong call) {
  (void)env;
  (void)self;
  return core.af_call_kind(PTR(struct af_call, call));
}
static jbyte JNICALL j_af_call_is_cancelled(JNIEnv *env, jobject self, jlong call) {
  (void)env;
  (void)self;
  return (jbyte)core.af_call_is_cancelled(PTR(struct af_call, call));
}
static jint JNICALL j_af_call_on_cancel(JNIEnv *env, jobject self, jlong call, jlong cb, jlong user_data, jlong free_user_data,
                                        jlongArray out_id) {
  (void)self;
  uint64_t id = 0;
  af_status s = core.af_call_on_cancel(PTR(struct af_call, call), (af_cancel_fn)(intptr_t)cb, PTR(void, user_data),
                                       (af_free_fn)(intptr_t)free_user_data, out_id == NULL ? NULL : &id);
  if (out_id != NULL && (*env)->GetArrayLength(env, out_id) > 0) {
    jlong v = (jlong)id;
    (*env)->SetLongArrayRegion(env, out_id, 0, 1, &v);
  }
  return s;
}
static jint JNICALL j_af_call_set_host_data(JNIEnv *env, jobject self, jlong call, jlong data, jlong free_data) {
  (void)env;
  (void)self;
  return core.af_call_set_host_data(PTR(struct af_call, call), PTR(void, data), (af_free_fn)(intptr_t)free_data);
}
static jlong JNICALL j_af_call_host_data(JNIEnv *env, jobject self, jlong call) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)core.af_call_host_data(PTR(struct af_call, call));
}
static jint JNICALL j_af_call_return(JNIEnv *env, jobject self, jlong call, jbyteArray result_json_) {
  (void)self;
  STR(result_json, AF_ERR_INTERNAL);
  af_status s = core.af_call_return(PTR(struct af_call, call), result_json.p);
  str_done(&result_json);
  return s;
}
static jint JNICALL j_af_call_fail(JNIEnv *env, jobject self, jlong call, jint code, jbyteArray message_) {
  (void)self;
  STR(message, AF_ERR_INTERNAL);
  af_status s = core.af_call_fail(PTR(struct af_call, call), code, message.p);
  str_done(&message);
  return s;
}
static jbyteArray JNICALL j_af_call_lookup_request(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return bytes_out(env, core.af_call_lookup_request(PTR(struct af_call, call)));
}
static jbyteArray JNICALL j_af_call_descriptor_json(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return owned_out(env, core.af_call_descriptor_json(PTR(struct af_call, call)));
}
static jint JNICALL j_af_call_platform(JNIEnv *env, jobject self, jlong call) {
  (void)env;
  (void)self;
  return core.af_call_platform(PTR(struct af_call, call));
}
static jbyte JNICALL j_af_call_is_foreground(JNIEnv *env, jobject self, jlong call) {
  (void)env;
  (void)self;
  return (jbyte)core.af_call_is_foreground(PTR(struct af_call, call));
}
static jbyteArray JNICALL j_af_call_caller_package(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return bytes_out(env, core.af_call_caller_package(PTR(struct af_call, call)));
}
static jint JNICALL j_af_call_item_set(JNIEnv *env, jobject self, jlong call, jbyteArray key_, jbyteArray json_) {
  (void)self;
  STR(key, AF_ERR_INTERNAL);
  afj_str json;
  if (!str_in(env, json_, &json)) {
    str_done(&key);
    return AF_ERR_INTERNAL;
  }
  af_status s = core.af_call_item_set(PTR(struct af_call, call), key.p, json.p);
  str_done(&key);
  str_done(&json);
  return s;
}
static jbyteArray JNICALL j_af_call_item_get_json(JNIEnv *env, jobject self, jlong call, jbyteArray key_) {
  (void)self;
  STR(key, NULL);
  char *r = core.af_call_item_get_json(PTR(struct af_call, call), key.p);
  str_done(&key);
  return owned_out(env, r);
}
static jint JNICALL j_af_call_say(JNIEnv *env, jobject self, jlong call, jbyteArray text_) {
  (void)self;
  STR(text, AF_ERR_INTERNAL);
  af_status s = core.af_call_say(PTR(struct af_call, call), text.p);
  str_done(&text);
  return s;
}
static jint JNICALL j_af_call_log(JNIEnv *env, jobject self, jlong call, jint level, jbyteArray message_) {
  (void)self;
  STR(message, AF_ERR_INTERNAL);
  af_status s = core.af_call_log(PTR(struct af_call, call), level, message.p);
  str_done(&message);
  return s;
}
static jlong JNICALL j_af_call_invocation_context(JNIEnv *env, jobject self, jlong call) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)core.af_call_invocation_context(PTR(struct af_call, call));
}
static jbyteArray JNICALL j_af_call_dialog_copy(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return owned_out(env, core.af_call_dialog_copy(PTR(struct af_call, call)));
}

/* the dispatcher */
static jlong JNICALL j_af_dispatcher_new(JNIEnv *env, jobject self) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)core.af_dispatcher_new();
}
static void JNICALL j_af_dispatcher_free(JNIEnv *env, jobject self, jlong d) {
  (void)env;
  (void)self;
  core.af_dispatcher_free(PTR(struct af_dispatcher, d));
}
static jint JNICALL j_af_define_types(JNIEnv *env, jobject self, jlong d, jbyteArray json_) {
  (void)self;
  STR(json, AF_ERR_INTERNAL);
  af_status s = core.af_define_types(PTR(struct af_dispatcher, d), json.p);
  str_done(&json);
  return s;
}
static jint JNICALL j_af_register_function(JNIEnv *env, jobject self, jlong d, jbyteArray descriptor_json_, jlong handler,
                                           jlong user_data, jlong free_user_data) {
  (void)self;
  STR(descriptor_json, AF_ERR_INTERNAL);
  af_status s = core.af_register_function(PTR(struct af_dispatcher, d), descriptor_json.p, (af_handler_fn)(intptr_t)handler,
                                          PTR(void, user_data), (af_free_fn)(intptr_t)free_user_data);
  str_done(&descriptor_json);
  return s;
}
static jint JNICALL j_af_register_entity(JNIEnv *env, jobject self, jlong d, jbyteArray descriptor_json_, jlong lookup,
                                         jlong user_data, jlong free_user_data) {
  (void)self;
  STR(descriptor_json, AF_ERR_INTERNAL);
  af_status s = core.af_register_entity(PTR(struct af_dispatcher, d), descriptor_json.p, (af_handler_fn)(intptr_t)lookup,
                                        PTR(void, user_data), (af_free_fn)(intptr_t)free_user_data);
  str_done(&descriptor_json);
  return s;
}
static jint JNICALL j_af_set_log_callback(JNIEnv *env, jobject self, jlong d, jlong cb, jlong user_data, jlong free_user_data) {
  (void)env;
  (void)self;
  return core.af_set_log_callback(PTR(struct af_dispatcher, d), (af_log_fn)(intptr_t)cb, PTR(void, user_data),
                                  (af_free_fn)(intptr_t)free_user_data);
}
static jint JNICALL j_af_define_toolkit(JNIEnv *env, jobject self, jlong d, jbyteArray json_, jlong texts, jlong user_data,
                                        jlong free_user_data) {
  (void)self;
  STR(json, AF_ERR_INTERNAL);
  af_status s = core.af_define_toolkit(PTR(struct af_dispatcher, d), json.p, (af_toolkit_text_fn)(intptr_t)texts,
                                       PTR(void, user_data), (af_free_fn)(intptr_t)free_user_data);
  str_done(&json);
  return s;
}
static jint JNICALL j_af_set_metadata_schema(JNIEnv *env, jobject self, jlong d, jbyteArray json_) {
  (void)self;
  STR(json, AF_ERR_INTERNAL);
  af_status s = core.af_set_metadata_schema(PTR(struct af_dispatcher, d), json.p);
  str_done(&json);
  return s;
}

/* cancellation */
static jlong JNICALL j_af_cancel_token_new(JNIEnv *env, jobject self) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)core.af_cancel_token_new();
}
static jint JNICALL j_af_cancel_token_cancel(JNIEnv *env, jobject self, jlong t) {
  (void)env;
  (void)self;
  return core.af_cancel_token_cancel(PTR(struct af_cancel_token, t));
}
static jbyte JNICALL j_af_cancel_token_is_cancelled(JNIEnv *env, jobject self, jlong t) {
  (void)env;
  (void)self;
  return (jbyte)core.af_cancel_token_is_cancelled(PTR(const struct af_cancel_token, t));
}
static void JNICALL j_af_cancel_token_free(JNIEnv *env, jobject self, jlong t) {
  (void)env;
  (void)self;
  core.af_cancel_token_free(PTR(struct af_cancel_token, t));
}

/* gates */
static jint JNICALL j_af_gate_allow(JNIEnv *env, jobject self, jlong gate) {
  (void)env;
  (void)self;
  return core.af_gate_allow(PTR(struct af_gate, gate));
}
static jint JNICALL j_af_gate_deny(JNIEnv *env, jobject self, jlong gate, jbyteArray message_) {
  (void)self;
  STR(message, AF_ERR_INTERNAL);
  af_status s = core.af_gate_deny(PTR(struct af_gate, gate), message.p);
  str_done(&message);
  return s;
}
static jint JNICALL j_af_gate_open_app(JNIEnv *env, jobject self, jlong gate, jbyteArray message_) {
  (void)self;
  STR(message, AF_ERR_INTERNAL);
  af_status s = core.af_gate_open_app(PTR(struct af_gate, gate), message.p);
  str_done(&message);
  return s;
}

/* the dispatcher's settings and reads */
static jint JNICALL j_af_unregister_function(JNIEnv *env, jobject self, jlong d, jbyteArray function_id_) {
  (void)self;
  STR(function_id, AF_ERR_INTERNAL);
  af_status s = core.af_unregister_function(PTR(struct af_dispatcher, d), function_id.p);
  str_done(&function_id);
  return s;
}
static jint JNICALL j_af_set_function_enabled(JNIEnv *env, jobject self, jlong d, jbyteArray function_id_, jbyte enabled) {
  (void)self;
  STR(function_id, AF_ERR_INTERNAL);
  af_status s = core.af_set_function_enabled(PTR(struct af_dispatcher, d), function_id.p, (uint8_t)enabled);
  str_done(&function_id);
  return s;
}
static jint JNICALL j_af_set_limits(JNIEnv *env, jobject self, jlong d, jlong max_input_bytes, jint max_depth) {
  (void)env;
  (void)self;
  return core.af_set_limits(PTR(struct af_dispatcher, d), (uint64_t)max_input_bytes, (uint32_t)max_depth);
}
static jint JNICALL j_af_set_caller_policy(JNIEnv *env, jobject self, jlong d, jbyteArray policy_json_) {
  (void)self;
  STR(policy_json, AF_ERR_INTERNAL);
  af_status s = core.af_set_caller_policy(PTR(struct af_dispatcher, d), policy_json.p);
  str_done(&policy_json);
  return s;
}
static jint JNICALL j_af_set_function_caller_policy(JNIEnv *env, jobject self, jlong d, jbyteArray function_id_,
                                                    jbyteArray policy_json_) {
  (void)self;
  STR(function_id, AF_ERR_INTERNAL);
  afj_str policy_json;
  if (!str_in(env, policy_json_, &policy_json)) {
    str_done(&function_id);
    return AF_ERR_INTERNAL;
  }
  af_status s = core.af_set_function_caller_policy(PTR(struct af_dispatcher, d), function_id.p, policy_json.p);
  str_done(&function_id);
  str_done(&policy_json);
  return s;
}
static jbyteArray JNICALL j_af_entities_json(JNIEnv *env, jobject self, jlong d, jlong inv, jbyteArray entity_, jbyteArray ids_json_) {
  (void)self;
  STR(entity, NULL);
  afj_str ids_json;
  if (!str_in(env, ids_json_, &ids_json)) {
    str_done(&entity);
    return NULL;
  }
  char *r = core.af_entities_json(PTR(struct af_dispatcher, d), PTR(const struct af_invocation, inv), entity.p, ids_json.p);
  str_done(&entity);
  str_done(&ids_json);
  return owned_out(env, r);
}
static jint JNICALL j_af_entities_async(JNIEnv *env, jobject self, jlong d, jlong inv, jbyteArray entity_, jbyteArray ids_json_,
                                        jlong on_outcome, jlong user_data) {
  (void)self;
  STR(entity, AF_ERR_INTERNAL);
  afj_str ids_json;
  if (!str_in(env, ids_json_, &ids_json)) {
    str_done(&entity);
    return AF_ERR_INTERNAL;
  }
  af_status s = core.af_entities_async(PTR(struct af_dispatcher, d), PTR(const struct af_invocation, inv), entity.p, ids_json.p,
                                       (af_outcome_fn)(intptr_t)on_outcome, PTR(void, user_data));
  str_done(&entity);
  str_done(&ids_json);
  return s;
}
static jint JNICALL j_af_dispatcher_set_default_timeout(JNIEnv *env, jobject self, jlong d, jint timeout_ms) {
  (void)env;
  (void)self;
  return core.af_dispatcher_set_default_timeout(PTR(struct af_dispatcher, d), (uint32_t)timeout_ms);
}
static jint JNICALL j_af_dispatcher_shutdown(JNIEnv *env, jobject self, jlong d, jint timeout_ms, jintArray out_in_flight) {
  (void)self;
  uint32_t left = 0;
  af_status s = core.af_dispatcher_shutdown(PTR(struct af_dispatcher, d), (uint32_t)timeout_ms, out_in_flight == NULL ? NULL : &left);
  if (out_in_flight != NULL && (*env)->GetArrayLength(env, out_in_flight) > 0) {
    jint v = (jint)left;
    (*env)->SetIntArrayRegion(env, out_in_flight, 0, 1, &v);
  }
  return s;
}
static jint JNICALL j_af_dispatcher_in_flight(JNIEnv *env, jobject self, jlong d) {
  (void)env;
  (void)self;
  return (jint)core.af_dispatcher_in_flight(PTR(struct af_dispatcher, d));
}
static jbyteArray JNICALL j_af_registry_json(JNIEnv *env, jobject self, jlong d) {
  (void)self;
  return owned_out(env, core.af_registry_json(PTR(struct af_dispatcher, d)));
}
static jbyteArray JNICALL j_af_parameters_schema_json(JNIEnv *env, jobject self, jlong d, jbyteArray function_id_) {
  (void)self;
  STR(function_id, NULL);
  char *r = core.af_parameters_schema_json(PTR(struct af_dispatcher, d), function_id.p);
  str_done(&function_id);
  return owned_out(env, r);
}
static jbyteArray JNICALL j_af_result_schema_json(JNIEnv *env, jobject self, jlong d, jbyteArray function_id_) {
  (void)self;
  STR(function_id, NULL);
  char *r = core.af_result_schema_json(PTR(struct af_dispatcher, d), function_id.p);
  str_done(&function_id);
  return owned_out(env, r);
}
static jbyteArray JNICALL j_af_export_copy(JNIEnv *env, jobject self, jlong d, jbyteArray format_) {
  (void)self;
  STR(format, NULL);
  char *r = core.af_export_copy(PTR(struct af_dispatcher, d), format.p);
  str_done(&format);
  return owned_out(env, r);
}
static jint JNICALL j_af_add_delegate(JNIEnv *env, jobject self, jlong d, jlong vtable, jlong user_data) {
  (void)env;
  (void)self;
  return core.af_add_delegate(PTR(struct af_dispatcher, d), PTR(const struct af_delegate, vtable), PTR(void, user_data));
}
static jint JNICALL j_af_set_scope_hooks(JNIEnv *env, jobject self, jlong d, jlong begin, jlong end, jlong user_data,
                                         jlong free_user_data) {
  (void)env;
  (void)self;
  return core.af_set_scope_hooks(PTR(struct af_dispatcher, d), (af_scope_fn)(intptr_t)begin, (af_scope_fn)(intptr_t)end,
                                 PTR(void, user_data), (af_free_fn)(intptr_t)free_user_data);
}
static jint JNICALL j_af_set_permission_hook(JNIEnv *env, jobject self, jlong d, jlong hook, jlong user_data, jlong free_user_data) {
  (void)env;
  (void)self;
  return core.af_set_permission_hook(PTR(struct af_dispatcher, d), (af_permission_fn)(intptr_t)hook, PTR(void, user_data),
                                     (af_free_fn)(intptr_t)free_user_data);
}

/* agent views */
static jlong JNICALL j_af_view_new(JNIEnv *env, jobject self, jlong d, jbyteArray metadata_json_) {
  (void)self;
  STR(metadata_json, 0);
  struct af_view *v = core.af_view_new(PTR(struct af_dispatcher, d), metadata_json.p);
  str_done(&metadata_json);
  return (jlong)(intptr_t)v;
}
static void JNICALL j_af_view_free(JNIEnv *env, jobject self, jlong v) {
  (void)env;
  (void)self;
  core.af_view_free(PTR(struct af_view, v));
}
static jbyteArray JNICALL j_af_view_tools_json(JNIEnv *env, jobject self, jlong v, jbyteArray format_) {
  (void)self;
  STR(format, NULL);
  char *r = core.af_view_tools_json(PTR(struct af_view, v), format.p);
  str_done(&format);
  return owned_out(env, r);
}
static jlong JNICALL j_af_view_generation(JNIEnv *env, jobject self, jlong v) {
  (void)env;
  (void)self;
  return (jlong)core.af_view_generation(PTR(struct af_view, v));
}
static jbyteArray JNICALL j_af_view_instructions_copy(JNIEnv *env, jobject self, jlong v) {
  (void)self;
  return owned_out(env, core.af_view_instructions_copy(PTR(struct af_view, v)));
}
static jint JNICALL j_af_view_set_metadata(JNIEnv *env, jobject self, jlong v, jbyteArray metadata_json_) {
  (void)self;
  STR(metadata_json, AF_ERR_INTERNAL);
  af_status s = core.af_view_set_metadata(PTR(struct af_view, v), metadata_json.p);
  str_done(&metadata_json);
  return s;
}
static jint JNICALL j_af_view_reset(JNIEnv *env, jobject self, jlong v) {
  (void)env;
  (void)self;
  return core.af_view_reset(PTR(struct af_view, v));
}
static jint JNICALL j_af_view_set_confirmation(JNIEnv *env, jobject self, jlong v, jbyteArray text_) {
  (void)self;
  STR(text, AF_ERR_INTERNAL);
  af_status s = core.af_view_set_confirmation(PTR(struct af_view, v), text.p);
  str_done(&text);
  return s;
}

/* MCP */
static jint JNICALL j_af_mcp_configure(JNIEnv *env, jobject self, jlong d, jbyteArray config_json_) {
  (void)self;
  STR(config_json, AF_ERR_INTERNAL);
  af_status s = core.af_mcp_configure(PTR(struct af_dispatcher, d), config_json.p);
  str_done(&config_json);
  return s;
}
static jbyteArray JNICALL j_af_mcp_handle_json(JNIEnv *env, jobject self, jlong d, jbyteArray message_json_) {
  (void)self;
  STR(message_json, NULL);
  char *r = core.af_mcp_handle_json(PTR(struct af_dispatcher, d), message_json.p);
  str_done(&message_json);
  return owned_out(env, r);
}
static jint JNICALL j_af_mcp_set_notify(JNIEnv *env, jobject self, jlong d, jlong cb, jlong user_data, jlong free_user_data) {
  (void)env;
  (void)self;
  return core.af_mcp_set_notify(PTR(struct af_dispatcher, d), (af_mcp_notify_fn)(intptr_t)cb, PTR(void, user_data),
                                (af_free_fn)(intptr_t)free_user_data);
}
static jlong JNICALL j_af_mcp_session_new(JNIEnv *env, jobject self, jlong d, jbyteArray metadata_json_) {
  (void)self;
  STR(metadata_json, 0);
  struct af_mcp_session *s = core.af_mcp_session_new(PTR(struct af_dispatcher, d), metadata_json.p);
  str_done(&metadata_json);
  return (jlong)(intptr_t)s;
}
static jbyteArray JNICALL j_af_mcp_session_handle_json(JNIEnv *env, jobject self, jlong s, jbyteArray message_json_) {
  (void)self;
  STR(message_json, NULL);
  char *r = core.af_mcp_session_handle_json(PTR(struct af_mcp_session, s), message_json.p);
  str_done(&message_json);
  return owned_out(env, r);
}
static jint JNICALL j_af_mcp_session_set_notify(JNIEnv *env, jobject self, jlong s, jlong cb, jlong user_data, jlong free_user_data) {
  (void)env;
  (void)self;
  return core.af_mcp_session_set_notify(PTR(struct af_mcp_session, s), (af_mcp_notify_fn)(intptr_t)cb, PTR(void, user_data),
                                        (af_free_fn)(intptr_t)free_user_data);
}
static jint JNICALL j_af_mcp_session_set_metadata(JNIEnv *env, jobject self, jlong s, jbyteArray metadata_json_) {
  (void)self;
  STR(metadata_json, AF_ERR_INTERNAL);
  af_status r = core.af_mcp_session_set_metadata(PTR(struct af_mcp_session, s), metadata_json.p);
  str_done(&metadata_json);
  return r;
}
static void JNICALL j_af_mcp_session_free(JNIEnv *env, jobject self, jlong s) {
  (void)env;
  (void)self;
  core.af_mcp_session_free(PTR(struct af_mcp_session, s));
}
static jint JNICALL j_af_mcp_serve_stdio(JNIEnv *env, jobject self, jlong d) {
  (void)env;
  (void)self;
  return core.af_mcp_serve_stdio(PTR(struct af_dispatcher, d));
}

/* published dispatchers and bundles */
static jint JNICALL j_af_dispatcher_publish(JNIEnv *env, jobject self, jlong d, jbyteArray name_) {
  (void)self;
  STR(name, AF_ERR_INTERNAL);
  af_status s = core.af_dispatcher_publish(PTR(struct af_dispatcher, d), name.p);
  str_done(&name);
  return s;
}
static jint JNICALL j_af_dispatcher_unpublish(JNIEnv *env, jobject self, jbyteArray name_) {
  (void)self;
  STR(name, AF_ERR_INTERNAL);
  af_status s = core.af_dispatcher_unpublish(name.p);
  str_done(&name);
  return s;
}
static jint JNICALL j_af_dispatcher_published_new(JNIEnv *env, jobject self, jbyteArray name_, jint timeout_ms,
                                                  jlongArray out_dispatcher) {
  (void)self;
  STR(name, AF_ERR_INTERNAL);
  struct af_dispatcher *d = NULL;
  af_status s = core.af_dispatcher_published_new(name.p, (uint32_t)timeout_ms, out_dispatcher == NULL ? NULL : &d);
  str_done(&name);
  if (out_dispatcher != NULL && (*env)->GetArrayLength(env, out_dispatcher) > 0) {
    jlong v = (jlong)(intptr_t)d;
    (*env)->SetLongArrayRegion(env, out_dispatcher, 0, 1, &v);
  }
  return s;
}
static jbyteArray JNICALL j_af_dispatcher_bundle_json(JNIEnv *env, jobject self, jlong d) {
  (void)self;
  return owned_out(env, core.af_dispatcher_bundle_json(PTR(struct af_dispatcher, d)));
}
static jbyteArray JNICALL j_af_bundle_export_copy(JNIEnv *env, jobject self, jbyteArray bundle_json_, jbyteArray format_) {
  (void)self;
  STR(bundle_json, NULL);
  afj_str format;
  if (!str_in(env, format_, &format)) {
    str_done(&bundle_json);
    return NULL;
  }
  char *r = core.af_bundle_export_copy(bundle_json.p, format.p);
  str_done(&bundle_json);
  str_done(&format);
  return owned_out(env, r);
}

/* Android's AppFunctions service call */
static jint JNICALL j_af_android_execute_async(JNIEnv *env, jobject self, jlong d, jlong inv, jbyteArray parameters_document_json_,
                                               jlong on_response, jlong user_data) {
  (void)self;
  STR(parameters_document_json, AF_ERR_INTERNAL);
  af_status s = core.af_android_execute_async(PTR(struct af_dispatcher, d), PTR(const struct af_invocation, inv),
                                              parameters_document_json.p, (af_outcome_fn)(intptr_t)on_response, PTR(void, user_data));
  str_done(&parameters_document_json);
  return s;
}

/* MCP over Streamable HTTP */
static jlong JNICALL j_af_http_server_new(JNIEnv *env, jobject self, jlong d, jbyteArray config_json_) {
  (void)self;
  STR(config_json, 0);
  struct af_http_server *s = core.af_http_server_new(PTR(struct af_dispatcher, d), config_json.p);
  str_done(&config_json);
  return (jlong)(intptr_t)s;
}
static void JNICALL j_af_http_server_free(JNIEnv *env, jobject self, jlong s) {
  (void)env;
  (void)self;
  core.af_http_server_free(PTR(struct af_http_server, s));
}
static jlong JNICALL j_af_http_server_max_body_bytes(JNIEnv *env, jobject self, jlong s) {
  (void)env;
  (void)self;
  return (jlong)core.af_http_server_max_body_bytes(PTR(const struct af_http_server, s));
}
static jlong JNICALL j_af_http_handle(JNIEnv *env, jobject self, jlong s, jlong request) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)core.af_http_handle(PTR(struct af_http_server, s), PTR(const struct af_http_request, request));
}
static jint JNICALL j_af_http_response_status(JNIEnv *env, jobject self, jlong r) {
  (void)env;
  (void)self;
  return core.af_http_response_status(PTR(const struct af_http_response, r));
}
static jbyteArray JNICALL j_af_http_response_headers_copy(JNIEnv *env, jobject self, jlong r) {
  (void)self;
  return owned_out(env, core.af_http_response_headers_copy(PTR(const struct af_http_response, r)));
}
/* The body's bytes, copied into a byte[] (the core's stay the response's); `out_len` gets their length too. */
static jbyteArray JNICALL j_af_http_response_body(JNIEnv *env, jobject self, jlong r, jlongArray out_len) {
  (void)self;
  uint64_t len = 0;
  const uint8_t *body = core.af_http_response_body(PTR(const struct af_http_response, r), &len);
  if (out_len != NULL && (*env)->GetArrayLength(env, out_len) > 0) {
    jlong v = (jlong)len;
    (*env)->SetLongArrayRegion(env, out_len, 0, 1, &v);
  }
  if (body == NULL) return NULL;
  if (len > 0x7fffffffu) {
    throw_oom(env, "Kotlin binding: an HTTP body over 2 GiB does not fit a byte[]");
    return NULL;
  }
  jbyteArray a = (*env)->NewByteArray(env, (jsize)len);
  if (a != NULL && len > 0) (*env)->SetByteArrayRegion(env, a, 0, (jsize)len, (const jbyte *)body);
  return a;
}
static jlong JNICALL j_af_http_response_take_stream(JNIEnv *env, jobject self, jlong r) {
  (void)env;
  (void)self;
  return (jlong)(intptr_t)core.af_http_response_take_stream(PTR(struct af_http_response, r));
}
static void JNICALL j_af_http_response_free(JNIEnv *env, jobject self, jlong r) {
  (void)env;
  (void)self;
  core.af_http_response_free(PTR(struct af_http_response, r));
}
/* The next frame into out_frame[0] (its bytes, the frame freed here; null for none). */
static jint JNICALL j_af_http_stream_next_copy(JNIEnv *env, jobject self, jlong st, jint timeout_ms, jobjectArray out_frame) {
  (void)self;
  char *frame = NULL;
  af_status s = core.af_http_stream_next_copy(PTR(struct af_http_stream, st), (uint32_t)timeout_ms, &frame);
  jbyteArray a = owned_out(env, frame);
  if ((*env)->ExceptionCheck(env)) return s; /* no memory for the frame's copy: thrown in Kotlin */
  if (out_frame != NULL && (*env)->GetArrayLength(env, out_frame) > 0) (*env)->SetObjectArrayElement(env, out_frame, 0, a);
  if (a != NULL) (*env)->DeleteLocalRef(env, a);
  return s;
}
static void JNICALL j_af_http_stream_free(JNIEnv *env, jobject self, jlong st) {
  (void)env;
  (void)self;
  core.af_http_stream_free(PTR(struct af_http_stream, st));
}

/*
 * AfNative's native methods: the Kotlin name (the ABI function's), its JNI signature, and the
 * function above. ci/interop_abi.py holds each row to abi/v1.txt, to the C function's
 * parameters and to AfNative.kt's external fun; RegisterNatives holds it to the class at load.
 */
#define AFJ_NATIVES(X)                                               \
  X(af_abi_version, "()I")                                           \
  X(af_version, "()[B")                                              \
  X(af_last_error, "()[B")                                           \
  X(af_error_code_name, "(I)[B")                                     \
  X(af_status_name, "(I)[B")                                         \
  X(af_call_function_id, "(J)[B")                                    \
  X(af_call_kind, "(J)I")                                            \
  X(af_call_is_cancelled, "(J)B")                                    \
  X(af_call_on_cancel, "(JJJJ[J)I")                                  \
  X(af_call_set_host_data, "(JJJ)I")                                 \
  X(af_call_host_data, "(J)J")                                       \
  X(af_call_return, "(J[B)I")                                        \
  X(af_call_fail, "(JI[B)I")                                         \
  X(af_call_lookup_request, "(J)[B")                                 \
  X(af_call_descriptor_json, "(J)[B")                                \
  X(af_call_platform, "(J)I")                                        \
  X(af_call_is_foreground, "(J)B")                                   \
  X(af_call_caller_package, "(J)[B")                                 \
  X(af_call_item_set, "(J[B[B)I")                                    \
  X(af_call_item_get_json, "(J[B)[B")                                \
  X(af_call_say, "(J[B)I")                                           \
  X(af_call_log, "(JI[B)I")                                          \
  X(af_call_invocation_context, "(J)J")                              \
  X(af_call_dialog_copy, "(J)[B")                                    \
  X(af_dispatcher_new, "()J")                                        \
  X(af_dispatcher_free, "(J)V")                                      \
  X(af_define_types, "(J[B)I")                                       \
  X(af_register_function, "(J[BJJJ)I")                               \
  X(af_register_entity, "(J[BJJJ)I")                                 \
  X(af_set_log_callback, "(JJJJ)I")                                  \
  X(af_define_toolkit, "(J[BJJJ)I")                                  \
  X(af_set_metadata_schema, "(J[B)I")                                \
  X(af_cancel_token_new, "()J")                                      \
  X(af_cancel_token_cancel, "(J)I")                                  \
  X(af_cancel_token_is_cancelled, "(J)B")                            \
  X(af_cancel_token_free, "(J)V")                                    \
  X(af_gate_allow, "(J)I")                                           \
  X(af_gate_deny, "(J[B)I")                                          \
  X(af_gate_open_app, "(J[B)I")                                      \
  X(af_unregister_function, "(J[B)I")                                \
  X(af_set_function_enabled, "(J[BB)I")                              \
  X(af_set_limits, "(JJI)I")                                         \
  X(af_set_caller_policy, "(J[B)I")                                  \
  X(af_set_function_caller_policy, "(J[B[B)I")                       \
  X(af_entities_json, "(JJ[B[B)[B")                                  \
  X(af_entities_async, "(JJ[B[BJJ)I")                                \
  X(af_dispatcher_set_default_timeout, "(JI)I")                      \
  X(af_dispatcher_shutdown, "(JI[I)I")                               \
  X(af_dispatcher_in_flight, "(J)I")                                 \
  X(af_registry_json, "(J)[B")                                       \
  X(af_parameters_schema_json, "(J[B)[B")                            \
  X(af_result_schema_json, "(J[B)[B")                                \
  X(af_export_copy, "(J[B)[B")                                       \
  X(af_add_delegate, "(JJJ)I")                                       \
  X(af_set_scope_hooks, "(JJJJJ)I")                                  \
  X(af_set_permission_hook, "(JJJJ)I")                               \
  X(af_view_new, "(J[B)J")                                           \
  X(af_view_free, "(J)V")                                            \
  X(af_view_tools_json, "(J[B)[B")                                   \
  X(af_view_generation, "(J)J")                                      \
  X(af_view_instructions_copy, "(J)[B")                              \
  X(af_view_set_metadata, "(J[B)I")                                  \
  X(af_view_reset, "(J)I")                                           \
  X(af_view_set_confirmation, "(J[B)I")                              \
  X(af_mcp_configure, "(J[B)I")                                      \
  X(af_mcp_handle_json, "(J[B)[B")                                   \
  X(af_mcp_set_notify, "(JJJJ)I")                                    \
  X(af_mcp_session_new, "(J[B)J")                                    \
  X(af_mcp_session_handle_json, "(J[B)[B")                           \
  X(af_mcp_session_set_notify, "(JJJJ)I")                            \
  X(af_mcp_session_set_metadata, "(J[B)I")                           \
  X(af_mcp_session_free, "(J)V")                                     \
  X(af_mcp_serve_stdio, "(J)I")                                      \
  X(af_dispatcher_publish, "(J[B)I")                                 \
  X(af_dispatcher_unpublish, "([B)I")                                \
  X(af_dispatcher_published_new, "([BI[J)I")                         \
  X(af_dispatcher_bundle_json, "(J)[B")                              \
  X(af_bundle_export_copy, "([B[B)[B")                               \
  X(af_android_execute_async, "(JJ[BJJ)I")                           \
  X(af_http_server_new, "(J[B)J")                                    \
  X(af_http_server_free, "(J)V")                                     \
  X(af_http_server_max_body_bytes, "(J)J")                           \
  X(af_http_handle, "(JJ)J")                                         \
  X(af_http_response_status, "(J)I")                                 \
  X(af_http_response_headers_copy, "(J)[B")                          \
  X(af_http_response_body, "(J[J)[B")                                \
  X(af_http_response_take_stream, "(J)J")                            \
  X(af_http_response_free, "(J)V")                                  \
  X(af_http_stream_next_copy, "(JI[[B)I")                            \
  X(af_http_stream_free, "(J)V")

typedef void (*afj_fn)(void);
#define AFJ_NATIVE_NAME(name, sig) #name,
#define AFJ_NATIVE_SIG(name, sig) sig,
#define AFJ_NATIVE_FN(name, sig) (afj_fn)j_##name,
static const char *const NATIVE_NAMES[] = {AFJ_NATIVES(AFJ_NATIVE_NAME)};
static const char *const NATIVE_SIGNATURES[] = {AFJ_NATIVES(AFJ_NATIVE_SIG)};
static const afj_fn NATIVE_FNS[] = {AFJ_NATIVES(AFJ_NATIVE_FN)};
#define NATIVE_COUNT ((jint)(sizeof NATIVE_FNS / sizeof NATIVE_FNS[0]))

/* ------------------------------------------------------------------------------- loading */

/* An error's text as the byte[] JniShim's loaders answer (null: no error); the exception they may leave is cleared. */
static jbyteArray error_out(JNIEnv *env, const char *a, const char *b) {
  char text[1024];
  size_t n = strlen(a);
  if (n >= sizeof text) n = sizeof text - 1;
  memcpy(text, a, n);
  if (b != NULL) {
    size_t m = strlen(b);
    if (m > sizeof text - 1 - n) m = sizeof text - 1 - n;
    memcpy(text + n, b, m);
    n += m;
  }
  text[n] = '\0';
  (*env)->ExceptionClear(env);
  return bytes_of(env, text);
}

/*
 * JniShim.nativeOpen(library): dlopen()s the core at `library` (a path, or a name the system's
 * search resolves) and looks up every function of AFJ_CORE in it. Null when done (then later
 * calls answer null at once); else what went wrong, naming the missing function, and nothing
 * is kept.
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeOpen(JNIEnv *env, jobject self, jbyteArray library_) {
  (void)self;
  if (g_core_handle != NULL) return NULL;
  STR(library, error_out(env, "no memory", NULL));
  if (library.p == NULL) return error_out(env, "no library named", NULL);
  void *h = dlopen(library.p, RTLD_NOW | RTLD_LOCAL);
  str_done(&library);
  if (h == NULL) {
    const char *why = dlerror();
    return error_out(env, "dlopen: ", why != NULL ? why : "failed");
  }
  __typeof__(core) found;
#define AFJ_RESOLVE(name)                                                                 \
  found.name = (__typeof__(found.name))(intptr_t)dlsym(h, #name);                         \
  if (found.name == NULL) {                                                               \
    dlclose(h);                                                                           \
    return error_out(env, "it has no " #name ": a library older than this binding", NULL); \
  }
  AFJ_CORE(AFJ_RESOLVE)
#undef AFJ_RESOLVE
  core = found;
  g_core_handle = h;
  return NULL;
}

/*
 * JniShim.nativeInit(callbacks, natives): caches the upcall methods of `callbacks`
 * (JniCallbacks) and registers `natives`' (AfNative's) native methods. Null when done; else
 * what went wrong (a method missing or of another signature: a shim of another release).
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeInit(JNIEnv *env, jobject self, jclass callbacks,
                                                                              jclass natives) {
  (void)self;
  if (g_vm == NULL || !g_key_made) return error_out(env, "JNI_OnLoad did not run", NULL);
  if (g_core_handle == NULL) return error_out(env, "the core is not open (JniShim.nativeOpen)", NULL);
  jmethodID ids[AFJ_COUNT];
  for (int i = 0; i < AFJ_COUNT; i++) {
    ids[i] = (*env)->GetStaticMethodID(env, callbacks, NAMES[i], SIGNATURES[i]);
    if (ids[i] == NULL) return error_out(env, "JniCallbacks has no upcall ", NAMES[i]);
  }
  for (jint i = 0; i < NATIVE_COUNT; i++) {
    JNINativeMethod m;
    m.name = (char *)NATIVE_NAMES[i];
    m.signature = (char *)NATIVE_SIGNATURES[i];
    m.fnPtr = (void *)(intptr_t)NATIVE_FNS[i];
    if ((*env)->RegisterNatives(env, natives, &m, 1) != 0) return error_out(env, "AfNative has no native method ", NATIVE_NAMES[i]);
  }
  if (g_oom == NULL) {
    jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    if (oom == NULL) return error_out(env, "no java.lang.OutOfMemoryError", NULL);
    g_oom = (jclass)(*env)->NewGlobalRef(env, oom);
    (*env)->DeleteLocalRef(env, oom);
    if (g_oom == NULL) return error_out(env, "no global reference", NULL);
  }
  jclass global = (jclass)(*env)->NewGlobalRef(env, callbacks);
  if (global == NULL) return error_out(env, "no global reference", NULL);
  if (g_callbacks != NULL) (*env)->DeleteGlobalRef(env, g_callbacks);
  g_callbacks = global;
  memcpy(g_method, ids, sizeof ids);
  return NULL;
}

/*
 * The Kotlin binding's JNI shim: C trampolines for the hot callbacks of the C ABI, each calling
 * one static method of dev.appfunctions.internal.JniCallbacks through a method id cached at
 * init. JNA (the binding's downcalls) costs about 60 ns a call, but one JNA callback costs about
 * 500 ns, more than the whole C round trip; a JNI upcall from C costs a small part of that.
 *
 * Part of the Kotlin binding, not of the core: it talks to the core only through the public
 * header, and it does not link against libappfunctions (the binding loads that through JNA):
 * the few ABI functions it calls are handed over at init as the addresses JNA resolved, typed
 * from the header's declarations. When this library is missing the binding keeps working
 * through JNA callbacks (AppFunctionsLibrary.callbackPath says which path it uses).
 *
 * Threads: a callback on a thread the JVM knows (the caller of af_execute_json) uses it as it
 * is; one on a thread of the core (a completion thread, an async timeout) attaches it as a
 * daemon once, and a pthread key's destructor detaches it when the thread ends.
 * Exceptions: the Kotlin side catches what it can; should one still escape, it is cleared here
 * and the call (or gate) is answered with an error, never left pending in the JVM.
 */
#include <jni.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "appfunctions.h"

/* The trampolines, in the order JniShim.kt's constants name them. */
enum {
  AFJ_HANDLER,     /* af_handler_fn: handlers and entity lookups */
  AFJ_OUTCOME,     /* af_outcome_fn: af_execute_async and the other async forms */
  AFJ_SCOPE_BEGIN, /* af_scope_fn */
  AFJ_SCOPE_END,   /* af_scope_fn */
  AFJ_FREE,        /* af_free_fn: a registration's user data, counted */
  AFJ_RELEASE,     /* af_free_fn: a plain handle (cancel registrations, host data) */
  AFJ_CANCEL,      /* af_cancel_fn: a suspended handler's coroutine */
  AFJ_ON_INVOKING, /* af_delegate.on_invoking */
  AFJ_ON_INVOKED,  /* af_delegate.on_invoked */
  AFJ_PERMISSION,  /* af_permission_fn */
  AFJ_ASYNC_OUTCOME, /* not a trampoline: the upcall of nativeExecuteAsync's outcome when it comes late */
  AFJ_COUNT
};

static JavaVM *g_vm;
static jclass g_callbacks;
static jclass g_oom; /* java.lang.OutOfMemoryError, for the copies that find no memory */
static jmethodID g_method[AFJ_COUNT];
static pthread_key_t g_detach_key;
static int g_key_made;

/* The ABI functions the shim calls, as JNA resolved them (typed from the header). */
static __typeof__(&af_call_return) p_call_return;
static __typeof__(&af_call_fail) p_call_fail;
static __typeof__(&af_gate_deny) p_gate_deny;
static __typeof__(&af_execute_json) p_execute_json;
static __typeof__(&af_view_execute_json) p_view_execute_json;
static __typeof__(&af_string_free) p_string_free;
static __typeof__(&af_execute_async) p_execute_async;
static __typeof__(&af_view_execute_async) p_view_execute_async;
static __typeof__(&af_call_args) p_call_args;

static const char *const NAMES[AFJ_COUNT] = {
  "handler", "outcome", "scopeBegin", "scopeEnd", "free", "release", "cancel", "onInvoking", "onInvoked", "permission",
  "asyncOutcome",
};
static const char *const SIGNATURES[AFJ_COUNT] = {
  "(JJ)[B", "(J[B)V", "(JJ)V", "(JJ)V", "(J)V", "(J)V", "(J)V", "(JJJ)V", "(JJ[B)V", "(JJJ)V",
  "(Ljava/lang/Object;[B)V",
};

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

/* A C string's bytes as a new byte[] (UTF-8, without the NUL); NULL for NULL or when out of memory. */
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

static void trampoline_handler(void *user_data, struct af_call *call) {
  JNIEnv *env = thread_env();
  if (env == NULL) {
    p_call_fail(call, AF_CODE_INTERNAL_ERROR, "Kotlin binding: the thread cannot be attached to the JVM");
    return;
  }
  /* The result's UTF-8 (NUL-terminated; empty for NULL) to answer here, or null: answered already or later. */
  jbyteArray result = (jbyteArray)(*env)->CallStaticObjectMethod(env, g_callbacks, g_method[AFJ_HANDLER], KEY(user_data), KEY(call));
  if (threw(env)) {
    if (result != NULL) (*env)->DeleteLocalRef(env, result);
    p_call_fail(call, AF_CODE_INTERNAL_ERROR, "Kotlin binding: an exception escaped the handler");
    return;
  }
  if (result == NULL) return;
  jsize n = (*env)->GetArrayLength(env, result);
  if (n == 0) {
    (*env)->DeleteLocalRef(env, result);
    p_call_return(call, NULL);
    return;
  }
  /* Copied out first: af_call_return may run host code (on_invoked), which a critical region forbids. */
  char small[512];
  char *buf = (size_t)n < sizeof small ? small : (char *)malloc((size_t)n + 1);
  if (buf == NULL) {
    (*env)->DeleteLocalRef(env, result);
    p_call_fail(call, AF_CODE_INTERNAL_ERROR, "Kotlin binding: out of memory for the result");
    return;
  }
  (*env)->GetByteArrayRegion(env, result, 0, n, (jbyte *)buf);
  (*env)->DeleteLocalRef(env, result);
  buf[n] = '\0';
  p_call_return(call, buf);
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

static void call_fn(int which, void *user_data, struct af_call *call) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[which], KEY(user_data), KEY(call));
  threw(env);
}

static void trampoline_scope_begin(void *user_data, struct af_call *call) { call_fn(AFJ_SCOPE_BEGIN, user_data, call); }
static void trampoline_scope_end(void *user_data, struct af_call *call) { call_fn(AFJ_SCOPE_END, user_data, call); }

static void user_data_fn(int which, void *user_data) {
  JNIEnv *env = thread_env();
  if (env == NULL) return;
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[which], KEY(user_data));
  threw(env);
}

static void trampoline_free(void *user_data) { user_data_fn(AFJ_FREE, user_data); }
static void trampoline_release(void *user_data) { user_data_fn(AFJ_RELEASE, user_data); }
static void trampoline_cancel(void *user_data) { user_data_fn(AFJ_CANCEL, user_data); }

static void gate_fn(int which, void *user_data, struct af_call *call, struct af_gate *gate) {
  JNIEnv *env = thread_env();
  if (env == NULL) {
    p_gate_deny(gate, "Kotlin binding: the thread cannot be attached to the JVM");
    return;
  }
  (*env)->CallStaticVoidMethod(env, g_callbacks, g_method[which], KEY(user_data), KEY(call), KEY(gate));
  if (threw(env)) p_gate_deny(gate, "Kotlin binding: an exception escaped the gate"); /* ignored if answered */
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

/* The trampolines, each as its callback type of the header (a mismatch does not compile). */
static const af_handler_fn T_HANDLER = trampoline_handler;
static const af_outcome_fn T_OUTCOME = trampoline_outcome;
static const af_scope_fn T_SCOPE_BEGIN = trampoline_scope_begin;
static const af_scope_fn T_SCOPE_END = trampoline_scope_end;
static const af_free_fn T_FREE = trampoline_free;
static const af_free_fn T_RELEASE = trampoline_release;
static const af_cancel_fn T_CANCEL = trampoline_cancel;
static const af_delegate T_DELEGATE = {sizeof(af_delegate), 0, trampoline_on_invoking, trampoline_on_invoked, trampoline_free};
static const af_permission_fn T_PERMISSION = trampoline_permission;

/*
 * JniShim.nativeInit(callbacks, functions): caches the upcall methods of `callbacks` and the
 * addresses of the ABI functions the shim calls, in the order of AFJ_FN_* (JniShim.FUNCTIONS).
 * 0 on success; -1 when a method is missing (the binding then stays on JNA callbacks), -2 for a
 * missing address, -3 without a JVM.
 */
enum {
  AFJ_FN_CALL_RETURN,
  AFJ_FN_CALL_FAIL,
  AFJ_FN_GATE_DENY,
  AFJ_FN_EXECUTE_JSON,
  AFJ_FN_VIEW_EXECUTE_JSON,
  AFJ_FN_STRING_FREE,
  AFJ_FN_EXECUTE_ASYNC,
  AFJ_FN_VIEW_EXECUTE_ASYNC,
  AFJ_FN_CALL_ARGS,
  AFJ_FN_COUNT
};

JNIEXPORT jint JNICALL Java_dev_appfunctions_internal_JniShim_nativeInit(JNIEnv *env, jobject self, jclass callbacks,
                                                                        jlongArray functions) {
  (void)self;
  if (g_vm == NULL || !g_key_made) return -3;
  jlong fns[AFJ_FN_COUNT];
  if (functions == NULL || (*env)->GetArrayLength(env, functions) != AFJ_FN_COUNT) return -2;
  (*env)->GetLongArrayRegion(env, functions, 0, AFJ_FN_COUNT, fns);
  for (int i = 0; i < AFJ_FN_COUNT; i++) {
    if (fns[i] == 0) return -2;
  }
  jmethodID ids[AFJ_COUNT];
  for (int i = 0; i < AFJ_COUNT; i++) {
    ids[i] = (*env)->GetStaticMethodID(env, callbacks, NAMES[i], SIGNATURES[i]);
    if (ids[i] == NULL) {
      (*env)->ExceptionClear(env);
      return -1;
    }
  }
  if (g_oom == NULL) {
    jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    if (oom == NULL) {
      (*env)->ExceptionClear(env);
      return -1;
    }
    g_oom = (jclass)(*env)->NewGlobalRef(env, oom);
    (*env)->DeleteLocalRef(env, oom);
    if (g_oom == NULL) {
      (*env)->ExceptionClear(env);
      return -1;
    }
  }
  jclass global = (jclass)(*env)->NewGlobalRef(env, callbacks);
  if (global == NULL) {
    (*env)->ExceptionClear(env);
    return -1;
  }
  if (g_callbacks != NULL) (*env)->DeleteGlobalRef(env, g_callbacks);
  g_callbacks = global;
  memcpy(g_method, ids, sizeof ids);
  p_call_return = (__typeof__(p_call_return))(intptr_t)fns[AFJ_FN_CALL_RETURN];
  p_call_fail = (__typeof__(p_call_fail))(intptr_t)fns[AFJ_FN_CALL_FAIL];
  p_gate_deny = (__typeof__(p_gate_deny))(intptr_t)fns[AFJ_FN_GATE_DENY];
  p_execute_json = (__typeof__(p_execute_json))(intptr_t)fns[AFJ_FN_EXECUTE_JSON];
  p_view_execute_json = (__typeof__(p_view_execute_json))(intptr_t)fns[AFJ_FN_VIEW_EXECUTE_JSON];
  p_string_free = (__typeof__(p_string_free))(intptr_t)fns[AFJ_FN_STRING_FREE];
  p_execute_async = (__typeof__(p_execute_async))(intptr_t)fns[AFJ_FN_EXECUTE_ASYNC];
  p_view_execute_async = (__typeof__(p_view_execute_async))(intptr_t)fns[AFJ_FN_VIEW_EXECUTE_ASYNC];
  p_call_args = (__typeof__(p_call_args))(intptr_t)fns[AFJ_FN_CALL_ARGS];
  return 0;
}

/*
 * JniShim.nativeExecuteJson(view, target, inv, args): af_execute_json (view 0: target is the
 * dispatcher) or af_view_execute_json (view 1: a view) with `args`' UTF-8 (without its NUL),
 * the outcome read into a byte[] and freed here: one crossing where JNA takes three (the call,
 * the read, af_string_free). NULL when the core answered NULL (never for a live dispatcher).
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
  const struct af_invocation *invocation = (const struct af_invocation *)(intptr_t)inv;
  char *out = view ? p_view_execute_json((struct af_view *)(intptr_t)target, invocation, args == NULL ? NULL : buf)
                   : p_execute_json((struct af_dispatcher *)(intptr_t)target, invocation, args == NULL ? NULL : buf);
  if (buf != small) free(buf);
  if (out == NULL) return NULL;
  jsize len = (jsize)strlen(out);
  jbyteArray r = (*env)->NewByteArray(env, len); /* NULL with an OutOfMemoryError pending: thrown in Kotlin */
  if (r != NULL) (*env)->SetByteArrayRegion(env, r, 0, len, (const jbyte *)out);
  p_string_free(out);
  return r;
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

/*
 * JniShim.nativeExecuteAsync(view, target, inv, args, pending): af_execute_async (view 0:
 * target is the dispatcher) or af_view_execute_async (view 1: a view) with `args`' UTF-8
 * (without its NUL). Answers the outcome's UTF-8 when it came before the call returned (the
 * handler answered inline); null when it is still to come (then JniCallbacks.asyncOutcome gets
 * it with `pending`); an empty array when the call was refused (an error status: the outcome
 * never comes; af_last_error says why).
 */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeExecuteAsync(JNIEnv *env, jobject self, jint view,
                                                                                      jlong target, jlong inv, jbyteArray args,
                                                                                      jobject pending) {
  (void)self;
  /* no memory before the call: nothing was started, and the error is this call's (never af_last_error's text of another) */
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
  jsize n = args == NULL ? 0 : (*env)->GetArrayLength(env, args);
  char small[256];
  char *buf = (size_t)n < sizeof small ? small : (char *)alloc((size_t)n + 1, AFJ_FAIL_ARGS);
  if (buf == NULL) {
    free(a);
    throw_oom(env, "Kotlin binding: no memory for the copy of the arguments");
    return NULL;
  }
  if (n > 0) (*env)->GetByteArrayRegion(env, args, 0, n, (jbyte *)buf);
  buf[n] = '\0';
  const struct af_invocation *invocation = (const struct af_invocation *)(intptr_t)inv;
  af_status s = view ? p_view_execute_async((struct af_view *)(intptr_t)target, invocation, args == NULL ? NULL : buf, T_ASYNC_OUTCOME, a)
                     : p_execute_async((struct af_dispatcher *)(intptr_t)target, invocation, args == NULL ? NULL : buf, T_ASYNC_OUTCOME, a);
  if (buf != small) free(buf);
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
  if (a->java_copy != NULL) {
    r = (jbyteArray)(*env)->NewLocalRef(env, a->java_copy);
    (*env)->DeleteGlobalRef(env, a->java_copy);
  } else if (a->kept_null || a->copy != NULL) {
    r = bytes_of(env, a->kept_null ? "null" : a->copy);
  }
  if (a->copy != a->small) free(a->copy);
  free(a);
  /* the outcome came and could not be kept or handed up: the call's own error, not a refusal */
  if (r == NULL) throw_oom(env, "Kotlin binding: no memory for the call's outcome");
  return r;
}

/* JniShim.nativeFailForTest(bits): the test hook's bits (AFJ_FAIL_*); 0 ends it. */
JNIEXPORT void JNICALL Java_dev_appfunctions_internal_JniShim_nativeFailForTest(JNIEnv *env, jobject self, jint bits) {
  (void)env;
  (void)self;
  atomic_store(&g_fail_for_test, (int)bits);
}

/* JniShim.nativeCallArgs(call): af_call_args' UTF-8 as a byte[] (one crossing where JNA takes two); null for NULL. */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_internal_JniShim_nativeCallArgs(JNIEnv *env, jobject self, jlong call) {
  (void)self;
  return bytes_of(env, p_call_args((struct af_call *)(intptr_t)call));
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
  const char *s = p_call_args((struct af_call *)(intptr_t)call);
  if (s == NULL) return -1;
  size_t n = strlen(s);
  if (capacity < 0 || n > (size_t)capacity) return -2;
  memcpy((void *)(intptr_t)to, s, n);
  return (jint)n;
}

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
  case AFJ_ON_INVOKING: return (jlong)(intptr_t)T_DELEGATE.on_invoking;
  case AFJ_ON_INVOKED: return (jlong)(intptr_t)T_DELEGATE.on_invoked;
  case AFJ_PERMISSION: return (jlong)(intptr_t)T_PERMISSION;
  default: return 0;
  }
}

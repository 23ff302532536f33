/*
 * The benchmark's JNI floor (bench/Floor.kt): what a JNI downcall costs (strlen), one callback
 * through JNI the way the binding's library (src/main/c/appfunctions_jni.c) makes one (a static
 * Kotlin method with two pointer arguments, the shape of af_handler_fn, through a cached method
 * id: GetEnv, CallStaticVoidMethod, ExceptionCheck), and a C string read into a byte[] (how the
 * binding reads the core's lent strings), without the core.
 *
 * And the C figure in the same JVM (afj_c_*): the round trip ci/bench.sh's C figure times
 * (benches/execute.rs, "plain": create_order with its three arguments, a C handler answering
 * "ok", af_execute_json and af_string_free), run in a C loop here so that it sees the same
 * machine at the same moment as the Kotlin loops beside it, its thread CPU time included. The
 * ABI functions come as the addresses the binding's library looked up in the core. Beside
 * it, the Kotlin bench's trivial call in C (dsl_ping: no parameters, a handler answering 1),
 * through af_execute_json and through af_execute_async with a cancel token and an outcome
 * callback answered inline (what the suspend execute asks of the core), to say which part of a
 * Kotlin figure is the core's.
 *
 * And the realistic call in C (afj_c_realistic_*, bench/Realistic.kt's in Kotlin): the seed's
 * create_order_in_app answering its Order record, its handler reading the arguments and the scope
 * the scope hooks opened (host data with a release), SignIn's on_invoking reading the function id
 * and Telemetry's on_invoked reading the id and the platform: what the Kotlin realistic call asks
 * of the core, with no Kotlin.
 */
#include <jni.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "appfunctions.h"

static JavaVM *g_vm;
static jclass g_cls;
static jmethodID g_upcall;

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  g_vm = vm;
  return JNI_VERSION_1_6;
}

/* FloorJni.nativeInit(cls): caches cls.upcall(JJ)V; 0 when done. */
JNIEXPORT jint JNICALL Java_dev_appfunctions_bench_FloorJni_nativeInit(JNIEnv *env, jobject self, jclass cls) {
  (void)self;
  g_upcall = (*env)->GetStaticMethodID(env, cls, "upcall", "(JJ)V");
  if (g_upcall == NULL) {
    (*env)->ExceptionClear(env);
    return -1;
  }
  g_cls = (jclass)(*env)->NewGlobalRef(env, cls);
  return g_cls == NULL ? -1 : 0;
}

/* FloorJni.strlen(s): a JNI downcall with a trivial body. */
JNIEXPORT jlong JNICALL Java_dev_appfunctions_bench_FloorJni_strlen(JNIEnv *env, jobject self, jlong s) {
  (void)env;
  (void)self;
  return (jlong)strlen((const char *)(intptr_t)s);
}

/* One callback into the JVM through JNI, as the shim's trampolines make it. */
static void call_back_once(void *a, void *b) {
  JNIEnv *env = NULL;
  if ((*g_vm)->GetEnv(g_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) return;
  (*env)->CallStaticVoidMethod(env, g_cls, g_upcall, (jlong)(uintptr_t)a, (jlong)(uintptr_t)b);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
}

/* FloorJni.callBackOnce(a, b): a JNI downcall calling back once. */
JNIEXPORT void JNICALL Java_dev_appfunctions_bench_FloorJni_callBackOnce(JNIEnv *env, jobject self, jlong a, jlong b) {
  (void)env;
  (void)self;
  call_back_once((void *)(intptr_t)a, (void *)(intptr_t)b);
}

/* FloorJni.bytesOf(s): the C string at s as a new byte[], as the binding's library answers a lent string. */
JNIEXPORT jbyteArray JNICALL Java_dev_appfunctions_bench_FloorJni_bytesOf(JNIEnv *env, jobject self, jlong s) {
  (void)self;
  const char *p = (const char *)(intptr_t)s;
  jsize n = (jsize)strlen(p);
  jbyteArray a = (*env)->NewByteArray(env, n);
  if (a != NULL) (*env)->SetByteArrayRegion(env, a, 0, n, (const jbyte *)p);
  return a;
}

static __typeof__(&af_dispatcher_new) c_dispatcher_new;
static __typeof__(&af_define_types) c_define_types;
static __typeof__(&af_register_function) c_register_function;
static __typeof__(&af_execute_json) c_execute_json;
static __typeof__(&af_string_free) c_string_free;
static __typeof__(&af_call_return) c_call_return;
static struct af_dispatcher *c_d;
static struct af_invocation c_inv = AF_INVOCATION_INIT;

static __typeof__(&af_call_args) c_call_args;
static struct af_invocation c_inv_args = AF_INVOCATION_INIT;

static __typeof__(&af_execute_async) c_execute_async;
static __typeof__(&af_cancel_token_new) c_cancel_token_new;
static struct af_invocation c_inv_ping = AF_INVOCATION_INIT;
static struct af_invocation c_inv_ping_async = AF_INVOCATION_INIT;

static void c_handler_ping(void *user_data, struct af_call *call) {
  (void)user_data;
  c_call_return(call, "1");
}

static size_t c_outcomes;
static void c_outcome(void *user_data, const char *outcome_json) {
  (void)user_data;
  c_outcomes += outcome_json != NULL && outcome_json[0] == '{';
}

static void c_handler(void *user_data, struct af_call *call) {
  (void)user_data;
  c_call_return(call, "\"ok\"");
}

/* The same handler reading its arguments first (the bound, normalised request the core writes). */
static size_t c_args_seen;
static void c_handler_args(void *user_data, struct af_call *call) {
  (void)user_data;
  const char *args = c_call_args(call);
  c_args_seen += args != NULL && args[0] == '{';
  c_call_return(call, "\"ok\"");
}

/* FloorJni.cSetup(fns): af_dispatcher_new, af_define_types, af_register_function, af_execute_json, af_string_free,
   af_call_return, af_call_args, af_execute_async, af_cancel_token_new. */
JNIEXPORT jint JNICALL Java_dev_appfunctions_bench_FloorJni_cSetup(JNIEnv *env, jobject self, jlongArray addresses) {
  (void)self;
  jlong fns[9];
  if ((*env)->GetArrayLength(env, addresses) != 9) return -7;
  (*env)->GetLongArrayRegion(env, addresses, 0, 9, fns);
  c_dispatcher_new = (__typeof__(c_dispatcher_new))(intptr_t)fns[0];
  c_define_types = (__typeof__(c_define_types))(intptr_t)fns[1];
  c_register_function = (__typeof__(c_register_function))(intptr_t)fns[2];
  c_execute_json = (__typeof__(c_execute_json))(intptr_t)fns[3];
  c_string_free = (__typeof__(c_string_free))(intptr_t)fns[4];
  c_call_return = (__typeof__(c_call_return))(intptr_t)fns[5];
  c_call_args = (__typeof__(c_call_args))(intptr_t)fns[6];
  c_execute_async = (__typeof__(c_execute_async))(intptr_t)fns[7];
  c_cancel_token_new = (__typeof__(c_cancel_token_new))(intptr_t)fns[8];
  c_d = c_dispatcher_new();
  if (c_d == NULL) return -1;
  if (c_define_types(c_d, "{\"enums\":[{\"name\":\"Priority\",\"members\":[\"Low\",\"Normal\",\"High\"]}]}") != AF_OK) return -2;
  if (c_register_function(c_d,
                          "{\"id\":\"create_order\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},"
                          "{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}],"
                          "\"result\":\"string\"}",
                          c_handler, NULL, NULL) != AF_OK)
    return -3;
  if (c_register_function(c_d,
                          "{\"id\":\"create_order_args\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},"
                          "{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}],"
                          "\"result\":\"string\"}",
                          c_handler_args, NULL, NULL) != AF_OK)
    return -4;
  if (c_register_function(c_d, "{\"id\":\"dsl_ping\",\"result\":\"int32\"}", c_handler_ping, NULL, NULL) != AF_OK) return -5;
  c_inv.function_id = "create_order";
  c_inv_args.function_id = "create_order_args";
  c_inv_ping.function_id = "dsl_ping";
  c_inv_ping_async.function_id = "dsl_ping";
  c_inv_ping_async.cancel_token = c_cancel_token_new(); /* one token for every call, as the binding keeps one */
  return c_inv_ping_async.cancel_token == NULL ? -6 : 0;
}

/*
 * n round trips; mode 0: the C figure's call, 1: the same with its handler reading the
 * arguments, 2: the trivial call (dsl_ping, "{}"), 3: the trivial call through af_execute_async
 * (its token, the outcome callback inline). n when the first outcome was a success.
 */
JNIEXPORT jint JNICALL Java_dev_appfunctions_bench_FloorJni_cExecute(JNIEnv *env, jobject self, jint n, jint mode) {
  (void)env;
  (void)self;
  int32_t ok = 0;
  if (mode == 3) {
    size_t before = c_outcomes;
    for (int32_t i = 0; i < n; i++) {
      if (c_execute_async(c_d, &c_inv_ping_async, "{}", c_outcome, NULL) == AF_OK) ok++;
    }
    return c_outcomes - before == (size_t)n ? ok : 0;
  }
  if (mode == 2) {
    for (int32_t i = 0; i < n; i++) {
      char *out = c_execute_json(c_d, &c_inv_ping, "{}");
      if (i > 0 || (out != NULL && strstr(out, "\"success\"") != NULL)) ok++;
      c_string_free(out);
    }
    return ok;
  }
  const struct af_invocation *inv = mode == 1 ? &c_inv_args : &c_inv;
  for (int32_t i = 0; i < n; i++) {
    char *out = c_execute_json(c_d, inv, "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
    if (i > 0 || (out != NULL && strstr(out, "\"success\"") != NULL)) ok++; /* the first one read */
    c_string_free(out);
  }
  return ok;
}

/* The realistic call (bench/Realistic.kt): its own dispatcher, so that the delegates and scope
   hooks are only on it. */
static __typeof__(&af_add_delegate) c_add_delegate;
static __typeof__(&af_set_scope_hooks) c_set_scope_hooks;
static __typeof__(&af_call_set_host_data) c_call_set_host_data;
static __typeof__(&af_call_host_data) c_call_host_data;
static __typeof__(&af_gate_allow) c_gate_allow;
static __typeof__(&af_gate_open_app) c_gate_open_app;
static __typeof__(&af_call_function_id) c_call_function_id;
static __typeof__(&af_call_platform) c_call_platform;
static struct af_dispatcher *c_dr;
static struct af_invocation c_inv_realistic = AF_INVOCATION_INIT;
struct realistic_scope {
  int open;
  int store;
};
static struct realistic_scope c_scope;
static size_t c_realistic_seen;
static int c_signed_in;
static void c_scope_release(void *data) { ((struct realistic_scope *)data)->open = 0; }
static void c_scope_begin(void *user_data, struct af_call *call) {
  (void)user_data;
  c_scope.open = 1;
  c_call_set_host_data(call, &c_scope, c_scope_release);
}
static void c_scope_end(void *user_data, struct af_call *call) {
  (void)user_data;
  struct realistic_scope *scope = c_call_host_data(call);
  c_realistic_seen += scope != NULL && scope->open;
}
static void c_signin(void *user_data, struct af_call *call, struct af_gate *gate) {
  (void)user_data;
  const char *id = c_call_function_id(call);
  if (id != NULL && strcmp(id, "cancel_order") == 0 && !c_signed_in) {
    c_gate_open_app(gate, "Sign in to cancel orders.");
  } else {
    c_gate_allow(gate);
  }
}
static void c_telemetry(void *user_data, struct af_call *call, const char *outcome_json) {
  (void)user_data;
  const char *id = c_call_function_id(call);
  c_realistic_seen += (id != NULL && id[0] == 'c') + (c_call_platform(call) >= 0) + (outcome_json != NULL);
}
static void c_handler_realistic(void *user_data, struct af_call *call) {
  (void)user_data;
  const char *args = c_call_args(call);
  struct realistic_scope *scope = c_call_host_data(call);
  c_realistic_seen += args != NULL && scope != NULL && scope->open;
  c_call_return(call, "{\"id\":\"o-1\",\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
}
/* FloorJni.cRealisticSetup(fns): af_add_delegate, af_set_scope_hooks, af_call_set_host_data, af_call_host_data,
   af_gate_allow, af_gate_open_app, af_call_function_id, af_call_platform (after cSetup, whose functions it uses). */
JNIEXPORT jint JNICALL Java_dev_appfunctions_bench_FloorJni_cRealisticSetup(JNIEnv *env, jobject self, jlongArray addresses) {
  (void)self;
  jlong fns[8];
  if (c_dispatcher_new == NULL || (*env)->GetArrayLength(env, addresses) != 8) return -7;
  (*env)->GetLongArrayRegion(env, addresses, 0, 8, fns);
  c_add_delegate = (__typeof__(c_add_delegate))(intptr_t)fns[0];
  c_set_scope_hooks = (__typeof__(c_set_scope_hooks))(intptr_t)fns[1];
  c_call_set_host_data = (__typeof__(c_call_set_host_data))(intptr_t)fns[2];
  c_call_host_data = (__typeof__(c_call_host_data))(intptr_t)fns[3];
  c_gate_allow = (__typeof__(c_gate_allow))(intptr_t)fns[4];
  c_gate_open_app = (__typeof__(c_gate_open_app))(intptr_t)fns[5];
  c_call_function_id = (__typeof__(c_call_function_id))(intptr_t)fns[6];
  c_call_platform = (__typeof__(c_call_platform))(intptr_t)fns[7];
  c_dr = c_dispatcher_new();
  if (c_dr == NULL) return -1;
  if (c_define_types(c_dr, "{\"enums\":[{\"name\":\"RealisticPriority\",\"members\":[\"Low\",\"Normal\",\"High\"]}],"
                           "\"records\":[{\"name\":\"RealisticOrder\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
                           "{\"name\":\"customer\",\"type\":\"string\"},{\"name\":\"quantity\",\"type\":\"int32\"},"
                           "{\"name\":\"priority\",\"type\":{\"enum\":\"RealisticPriority\"}}]}]}") != AF_OK)
    return -2;
  if (c_register_function(c_dr,
                          "{\"id\":\"create_order_in_app\",\"description\":\"Creates an order for a customer.\","
                          "\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},{\"name\":\"quantity\",\"type\":\"int32\"},"
                          "{\"name\":\"priority\",\"type\":{\"enum\":\"RealisticPriority\"},\"optional\":true,\"default\":\"Normal\"}],"
                          "\"result\":{\"record\":\"RealisticOrder\"}}",
                          c_handler_realistic, NULL, NULL) != AF_OK)
    return -3;
  if (c_set_scope_hooks(c_dr, c_scope_begin, c_scope_end, NULL, NULL) != AF_OK) return -4;
  struct af_delegate signin = AF_DELEGATE_INIT;
  signin.on_invoking = c_signin;
  struct af_delegate telemetry = AF_DELEGATE_INIT;
  telemetry.on_invoked = c_telemetry;
  if (c_add_delegate(c_dr, &signin, NULL) != AF_OK || c_add_delegate(c_dr, &telemetry, NULL) != AF_OK) return -5;
  c_inv_realistic.function_id = "create_order_in_app";
  return 0;
}
/* FloorJni.cRealistic(n): n realistic calls through af_execute_json; n when every outcome was a success and every
   callback saw what it reads. */
JNIEXPORT jint JNICALL Java_dev_appfunctions_bench_FloorJni_cRealistic(JNIEnv *env, jobject self, jint n) {
  (void)env;
  (void)self;
  int32_t ok = 0;
  size_t before = c_realistic_seen;
  for (int32_t i = 0; i < n; i++) {
    char *out = c_execute_json(c_dr, &c_inv_realistic, "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
    if (i > 0 || (out != NULL && strstr(out, "\"success\"") != NULL)) ok++;
    c_string_free(out);
  }
  return c_realistic_seen - before == (size_t)n * 5 ? ok : 0;
}

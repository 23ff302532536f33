/*
 * A JVMTI agent that records which of a package's classes a JVM loads and which of their
 * methods it runs, and which methods of its dependencies it runs for them, for the binding's
 * baseline profile (bindings/kotlin/scripts/baseline-profile.sh runs
 * src/test/kotlin/dev/appfunctions/profile/StartupWorkload.kt under it):
 *
 *   java -agentpath:libtouched_agent.so=OUT_FILE,CLASS_PREFIX[,DEPENDENCY_PREFIXES] ...
 *
 * CLASS_PREFIX is a JVM class signature's start ("Ldev/appfunctions/"), DEPENDENCY_PREFIXES
 * others separated by '|' ("Lkotlin/|Lkotlinx/"). At the JVM's end OUT_FILE holds, in the order
 * first seen, one line per
 *   C <class>                              class of CLASS_PREFIX prepared
 *   M <class> <name> <signature>           method of CLASS_PREFIX entered
 *   D <class> <name> <signature> <caller>  method of a dependency entered, with the class of its
 *                                          nearest caller on the stack that is neither a
 *                                          dependency's nor the JDK's (nor a hidden lambda class),
 *                                          when that class is of CLASS_PREFIX: what the package's
 *                                          own code runs of its dependencies
 * The script keeps the classes and callers that ship (not the tests'). HotSpot's own
 * -XX:+LogTouchedMethods listed touched methods until JDK 20 removed it; JVMTI's method entry
 * events work on every JDK (they keep the JVM in its interpreter, so the run is slow: it is not
 * a benchmark).
 *
 * JVMTI: https://docs.oracle.com/en/java/javase/17/docs/specs/jvmti.html (MethodEntry,
 * ClassPrepare, VMDeath, GetStackTrace, GetMethodDeclaringClass, GetClassSignature, GetMethodName).
 */
#include <jvmti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { OWN = 1, DEPENDENCY, TRANSPARENT, OTHER };

struct method {
    uintptr_t id; /* the jmethodID; 0: free slot */
    char *class_sig;
    enum kind kind;
    int recorded; /* OWN: its M line written */
};

struct pair {
    uintptr_t method; /* a dependency's jmethodID; 0: free slot */
    const char *caller; /* its attributed class's signature (a struct method's class_sig) */
};

static jvmtiEnv *jvmti;
static jrawMonitorID lock;
static char out_path[4096];
static char prefix[256];
static char dependencies[16][128];
static size_t dependency_count;

static struct method *methods;
static size_t methods_cap = 1u << 16, methods_len;
static struct pair *pairs;
static size_t pairs_cap = 1u << 12, pairs_len;

static char **lines;
static size_t lines_len, lines_cap;

static size_t slot(uintptr_t key, size_t cap) { return (size_t)((key >> 3) * 0x9E3779B97F4A7C15ull) & (cap - 1); }

static int starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static enum kind classify(const char *class_sig) {
    if (strstr(class_sig, "$$Lambda") || strchr(class_sig, '+') || strstr(class_sig, "/0x")) return TRANSPARENT;
    if (starts_with(class_sig, prefix)) return OWN;
    for (size_t i = 0; i < dependency_count; i++) {
        if (starts_with(class_sig, dependencies[i])) return DEPENDENCY;
    }
    if (starts_with(class_sig, "Ljava/") || starts_with(class_sig, "Ljdk/") || starts_with(class_sig, "Lsun/")) return TRANSPARENT;
    return OTHER;
}

/* The method's entry, made on first sight (its class read once); under lock. NULL: no memory. */
static struct method *method_info(jvmtiEnv *env, jmethodID id) {
    uintptr_t key = (uintptr_t)id;
    size_t i = slot(key, methods_cap);
    while (methods[i].id) {
        if (methods[i].id == key) return &methods[i];
        i = (i + 1) & (methods_cap - 1);
    }
    if ((methods_len + 1) * 2 > methods_cap) {
        size_t cap = methods_cap * 2;
        struct method *grown = calloc(cap, sizeof *grown);
        if (!grown) return NULL;
        for (size_t j = 0; j < methods_cap; j++) {
            if (!methods[j].id) continue;
            size_t k = slot(methods[j].id, cap);
            while (grown[k].id) k = (k + 1) & (cap - 1);
            grown[k] = methods[j];
        }
        free(methods);
        methods = grown;
        methods_cap = cap;
        i = slot(key, methods_cap);
        while (methods[i].id) i = (i + 1) & (methods_cap - 1);
    }
    jclass cls;
    char *sig = NULL;
    if ((*env)->GetMethodDeclaringClass(env, id, &cls) != JVMTI_ERROR_NONE ||
        (*env)->GetClassSignature(env, cls, &sig, NULL) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    size_t len = strlen(sig) + 1;
    char *copy = malloc(len); /* kept for the run: lines and pairs point at it */
    if (copy) memcpy(copy, sig, len);
    (*env)->Deallocate(env, (unsigned char *)sig);
    if (!copy) return NULL;
    methods[i].id = key;
    methods[i].class_sig = copy;
    methods[i].kind = classify(copy);
    methods[i].recorded = 0;
    methods_len++;
    return &methods[i];
}

/* 1 when (method, caller) is new; under lock */
static int pair_insert(uintptr_t method, const char *caller) {
    if ((pairs_len + 1) * 2 > pairs_cap) {
        size_t cap = pairs_cap * 2;
        struct pair *grown = calloc(cap, sizeof *grown);
        if (!grown) return 0;
        for (size_t j = 0; j < pairs_cap; j++) {
            if (!pairs[j].method) continue;
            size_t k = slot(pairs[j].method ^ (uintptr_t)pairs[j].caller, cap);
            while (grown[k].method) k = (k + 1) & (cap - 1);
            grown[k] = pairs[j];
        }
        free(pairs);
        pairs = grown;
        pairs_cap = cap;
    }
    size_t i = slot(method ^ (uintptr_t)caller, pairs_cap);
    while (pairs[i].method) {
        if (pairs[i].method == method && pairs[i].caller == caller) return 0;
        i = (i + 1) & (pairs_cap - 1);
    }
    pairs[i].method = method;
    pairs[i].caller = caller;
    pairs_len++;
    return 1;
}

static void add_line(const char *kind, const char *a, const char *b, const char *c, const char *d) { /* under lock */
    size_t n = strlen(kind) + strlen(a) + strlen(b) + strlen(c) + strlen(d) + 5;
    char *line = malloc(n);
    if (!line) return;
    snprintf(line, n, "%s %s%s%s%s%s%s%s", kind, a, *b ? " " : "", b, *c ? " " : "", c, *d ? " " : "", d);
    if (lines_len == lines_cap) {
        size_t cap = lines_cap ? lines_cap * 2 : 1024;
        char **grown = realloc(lines, cap * sizeof *grown);
        if (!grown) {
            free(line);
            return;
        }
        lines = grown;
        lines_cap = cap;
    }
    lines[lines_len++] = line;
}

static void add_method_line(jvmtiEnv *env, const char *kind, jmethodID id, const char *class_sig, const char *caller) {
    char *name = NULL, *sig = NULL;
    if ((*env)->GetMethodName(env, id, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
        add_line(kind, class_sig, name, sig, caller);
    }
    (*env)->Deallocate(env, (unsigned char *)name);
    (*env)->Deallocate(env, (unsigned char *)sig);
}

#define STACK_DEPTH 48

static void JNICALL on_method_entry(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID method) {
    (void)jni;
    (*env)->RawMonitorEnter(env, lock);
    struct method *m = method_info(env, method);
    if (!m) goto out;
    if (m->kind == OWN) {
        if (!m->recorded) {
            m->recorded = 1;
            add_method_line(env, "M", method, m->class_sig, "");
        }
    } else if (m->kind == DEPENDENCY) {
        jvmtiFrameInfo frames[STACK_DEPTH];
        jint count = 0;
        if ((*env)->GetStackTrace(env, thread, 1, STACK_DEPTH, frames, &count) != JVMTI_ERROR_NONE) goto out;
        for (jint i = 0; i < count; i++) {
            struct method *caller = method_info(env, frames[i].method);
            if (!caller) goto out;
            if (caller->kind == DEPENDENCY || caller->kind == TRANSPARENT) continue;
            if (caller->kind == OWN && pair_insert((uintptr_t)method, caller->class_sig)) {
                const char *own = caller->class_sig; /* stays: the table may move, the string does not */
                m = method_info(env, method);
                if (m) add_method_line(env, "D", method, m->class_sig, own);
            }
            break;
        }
    }
out:
    (*env)->RawMonitorExit(env, lock);
}

static void JNICALL on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass cls) {
    (void)jni;
    (void)thread;
    char *class_sig = NULL;
    if ((*env)->GetClassSignature(env, cls, &class_sig, NULL) != JVMTI_ERROR_NONE) return;
    if (classify(class_sig) == OWN) {
        (*env)->RawMonitorEnter(env, lock);
        add_line("C", class_sig, "", "", "");
        (*env)->RawMonitorExit(env, lock);
    }
    (*env)->Deallocate(env, (unsigned char *)class_sig);
}

static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni) {
    (void)jni;
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
    (*env)->RawMonitorEnter(env, lock);
    FILE *f = fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "touched_agent: cannot write %s\n", out_path);
    } else {
        for (size_t i = 0; i < lines_len; i++) fprintf(f, "%s\n", lines[i]);
        fclose(f);
    }
    (*env)->RawMonitorExit(env, lock);
}

static int parse_options(const char *options) {
    const char *comma = options ? strchr(options, ',') : NULL;
    if (!comma || comma == options || (size_t)(comma - options) >= sizeof out_path) return 0;
    memcpy(out_path, options, (size_t)(comma - options));
    const char *rest = comma + 1;
    const char *deps = strchr(rest, ',');
    size_t prefix_len = deps ? (size_t)(deps - rest) : strlen(rest);
    if (prefix_len == 0 || prefix_len >= sizeof prefix) return 0;
    memcpy(prefix, rest, prefix_len);
    while (deps && *deps) {
        const char *start = deps + 1;
        const char *end = strchr(start, '|');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        if (len == 0 || len >= sizeof dependencies[0] || dependency_count == sizeof dependencies / sizeof dependencies[0]) return 0;
        memcpy(dependencies[dependency_count++], start, len);
        deps = end;
    }
    return 1;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!parse_options(options)) {
        fprintf(stderr, "touched_agent: options are OUT_FILE,CLASS_PREFIX[,DEPENDENCY_PREFIX|...] (got %s)\n",
                options ? options : "none");
        return JNI_ERR;
    }
    methods = calloc(methods_cap, sizeof *methods);
    pairs = calloc(pairs_cap, sizeof *pairs);
    if (!methods || !pairs) return JNI_ERR;

    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_method_entry_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "touched_agent: this JVM cannot report method entries\n");
        return JNI_ERR;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.MethodEntry = on_method_entry;
    callbacks.ClassPrepare = on_class_prepare;
    callbacks.VMDeath = on_vm_death;
    if ((*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint)sizeof callbacks) != JVMTI_ERROR_NONE ||
        (*jvmti)->CreateRawMonitor(jvmti, "touched_agent", &lock) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "touched_agent: cannot enable its events\n");
        return JNI_ERR;
    }
    return JNI_OK;
}

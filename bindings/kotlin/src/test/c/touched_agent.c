/*
 * A JVMTI agent that records which of a package's classes a JVM loads and which of their
 * methods it runs, for the binding's baseline profile (bindings/kotlin/scripts/baseline-profile.sh
 * runs src/test/kotlin/dev/appfunctions/profile/StartupWorkload.kt under it):
 *
 *   java -agentpath:libtouched_agent.so=OUT_FILE,CLASS_PREFIX ...
 *
 * CLASS_PREFIX is a JVM class signature's start ("Ldev/appfunctions/"). At the JVM's end OUT_FILE
 * holds one line per class prepared ("C <signature>") and per method entered at least once
 * ("M <class signature> <name> <method signature>"), in the order first seen. HotSpot's own
 * -XX:+LogTouchedMethods did this until JDK 20 removed it; JVMTI's method entry events work on
 * every JDK (they keep the JVM in its interpreter, so the run is slow: it is not a benchmark).
 *
 * JVMTI: https://docs.oracle.com/en/java/javase/17/docs/specs/jvmti.html (MethodEntry,
 * ClassPrepare, VMDeath, GetMethodDeclaringClass, GetClassSignature, GetMethodName).
 */
#include <jvmti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jvmtiEnv *jvmti;
static jrawMonitorID lock;
static char out_path[4096];
static char prefix[256];
static size_t prefix_len;

/* the methods seen (every package's, so that each is looked up once): open addressing */
static uintptr_t *seen;
static size_t seen_cap = 1u << 16, seen_len;

/* the lines, in the order first seen */
static char **lines;
static size_t lines_len, lines_cap;

static int seen_insert(uintptr_t key) { /* 1 when new; under lock */
    if ((seen_len + 1) * 2 > seen_cap) {
        size_t cap = seen_cap * 2;
        uintptr_t *grown = calloc(cap, sizeof *grown);
        if (!grown) return 0;
        for (size_t i = 0; i < seen_cap; i++) {
            if (!seen[i]) continue;
            size_t j = (seen[i] >> 3) & (cap - 1);
            while (grown[j]) j = (j + 1) & (cap - 1);
            grown[j] = seen[i];
        }
        free(seen);
        seen = grown;
        seen_cap = cap;
    }
    size_t i = (key >> 3) & (seen_cap - 1);
    while (seen[i]) {
        if (seen[i] == key) return 0;
        i = (i + 1) & (seen_cap - 1);
    }
    seen[i] = key;
    seen_len++;
    return 1;
}

static void add_line(const char *a, const char *b, const char *c, const char *d) { /* under lock */
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + 4;
    char *line = malloc(n);
    if (!line) return;
    snprintf(line, n, "%s %s%s%s%s%s", a, b, *c ? " " : "", c, *d ? " " : "", d);
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

static int wanted(const char *signature) {
    /* hidden classes (lambdas, method handles) have no class file a profile could name */
    return strncmp(signature, prefix, prefix_len) == 0 && !strstr(signature, "$$Lambda") && !strchr(signature, '+');
}

static void JNICALL on_method_entry(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID method) {
    (void)jni;
    (void)thread;
    (*env)->RawMonitorEnter(env, lock);
    int fresh = seen_insert((uintptr_t)method);
    (*env)->RawMonitorExit(env, lock);
    if (!fresh) return;
    jclass cls;
    char *class_sig = NULL, *name = NULL, *sig = NULL;
    if ((*env)->GetMethodDeclaringClass(env, method, &cls) != JVMTI_ERROR_NONE) return;
    if ((*env)->GetClassSignature(env, cls, &class_sig, NULL) == JVMTI_ERROR_NONE && wanted(class_sig) &&
        (*env)->GetMethodName(env, method, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
        (*env)->RawMonitorEnter(env, lock);
        add_line("M", class_sig, name, sig);
        (*env)->RawMonitorExit(env, lock);
    }
    (*env)->Deallocate(env, (unsigned char *)class_sig);
    (*env)->Deallocate(env, (unsigned char *)name);
    (*env)->Deallocate(env, (unsigned char *)sig);
}

static void JNICALL on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass cls) {
    (void)jni;
    (void)thread;
    char *class_sig = NULL;
    if ((*env)->GetClassSignature(env, cls, &class_sig, NULL) != JVMTI_ERROR_NONE) return;
    if (wanted(class_sig)) {
        (*env)->RawMonitorEnter(env, lock);
        add_line("C", class_sig, "", "");
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

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    const char *comma = options ? strrchr(options, ',') : NULL;
    if (!comma || comma == options || (size_t)(comma - options) >= sizeof out_path || strlen(comma + 1) >= sizeof prefix ||
        !comma[1]) {
        fprintf(stderr, "touched_agent: options are OUT_FILE,CLASS_PREFIX (got %s)\n", options ? options : "none");
        return JNI_ERR;
    }
    memcpy(out_path, options, (size_t)(comma - options));
    strcpy(prefix, comma + 1);
    prefix_len = strlen(prefix);
    seen = calloc(seen_cap, sizeof *seen);
    if (!seen) return JNI_ERR;

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

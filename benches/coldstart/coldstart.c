/* Cold start: one fresh process from its start to the first outcome (ci/bench/coldstart.py
 * starts it once per sample and reads the timestamps it prints).
 *
 *   coldstart LIBRARY DESCRIPTORS [--floor | --async]
 *
 * DESCRIPTORS is the app, one registration a line (written by ci/bench/coldstart.py from
 * the demo's descriptor bundle): "M <metadata schema>", "K <toolkit>", "T <types>",
 * "E <entity>", "F <function>", and one "X <function id>\t<arguments>\t<result>" line, the
 * first call. The program reads the file, then (without --floor) loads LIBRARY with dlopen
 * and checks its ABI version, registers everything, and makes the first call. It prints
 * CLOCK_MONOTONIC nanoseconds after each step:
 *   coldstart main=N read=N load=N register=N call=N
 * With --floor it stops after reading the file: the same program doing nothing with the
 * library, whose start the parent measures beside the full one. With --async it then makes
 * the same call again through af_execute_async, as the bindings' first call goes (its handler
 * answering inline; the dispatcher's default 30 s timeout, the first deadline of the process,
 * starts the library's timer thread), and prints its end as one more step, async=N, after the
 * others: ci/bench/coldstart.py times it, ci/startup_order.py records what a cold start runs
 * with it. */
#define _POSIX_C_SOURCE 200809L
#include "appfunctions.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *lib;
static void *sym(const char *name) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "coldstart: %s is not in the library: %s\n", name, dlerror());
    exit(1);
  }
  return p;
}

static af_status (*p_call_return)(af_call *, const char *);

/* --async: the outcome of the asynchronous call, which answers inline before it returns */
static int async_succeeded = -1;
static void on_outcome(void *user_data, const char *outcome_json) {
  (void)user_data;
  async_succeeded = strstr(outcome_json, "\"status\":\"success\"") != NULL;
}

/* every function's handler: answers the result its registration carries */
static void answer(void *user_data, af_call *call) {
  p_call_return(call, user_data ? (const char *)user_data : "null");
}
/* every entity's lookup: nothing found */
static void lookup(void *user_data, af_call *call) {
  (void)user_data;
  p_call_return(call, "[]");
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (size_t r; (r = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += r;
    if (cap - n - 1 == 0) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  buf[n] = 0;
  return buf;
}

int main(int argc, char **argv) {
  long long t_main = now_ns();
  if (argc < 3) {
    fprintf(stderr, "usage: coldstart LIBRARY DESCRIPTORS [--floor | --async]\n");
    return 2;
  }
  char *app = read_all(argv[2]);
  long long t_read = now_ns();
  int async_call = argc > 3 && strcmp(argv[3], "--async") == 0;
  if (argc > 3 && strcmp(argv[3], "--floor") == 0) {
    printf("coldstart main=%lld read=%lld\n", t_main, t_read);
    return 0;
  }

  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "coldstart: dlopen: %s\n", dlerror()); return 1; }
  uint32_t (*abi_version)(void) = (uint32_t (*)(void))sym("af_abi_version");
  if (abi_version() != AF_ABI_VERSION) {
    fprintf(stderr, "coldstart: the library has ABI %u, the header %d\n", abi_version(), AF_ABI_VERSION);
    return 1;
  }
  af_dispatcher *(*dispatcher_new)(void) = (af_dispatcher * (*)(void)) sym("af_dispatcher_new");
  af_status (*set_metadata_schema)(af_dispatcher *, const char *) = (af_status (*)(af_dispatcher *, const char *))sym("af_set_metadata_schema");
  af_status (*define_toolkit)(af_dispatcher *, const char *, af_toolkit_text_fn, void *, af_free_fn) =
      (af_status (*)(af_dispatcher *, const char *, af_toolkit_text_fn, void *, af_free_fn))sym("af_define_toolkit");
  af_status (*define_types)(af_dispatcher *, const char *) = (af_status (*)(af_dispatcher *, const char *))sym("af_define_types");
  af_status (*register_entity)(af_dispatcher *, const char *, af_handler_fn, void *, af_free_fn) =
      (af_status (*)(af_dispatcher *, const char *, af_handler_fn, void *, af_free_fn))sym("af_register_entity");
  af_status (*register_function)(af_dispatcher *, const char *, af_handler_fn, void *, af_free_fn) =
      (af_status (*)(af_dispatcher *, const char *, af_handler_fn, void *, af_free_fn))sym("af_register_function");
  char *(*execute_json)(af_dispatcher *, const af_invocation *, const char *) =
      (char *(*)(af_dispatcher *, const af_invocation *, const char *))sym("af_execute_json");
  void (*string_free)(char *) = (void (*)(char *))sym("af_string_free");
  const char *(*last_error)(void) = (const char *(*)(void))sym("af_last_error");
  p_call_return = (af_status (*)(af_call *, const char *))sym("af_call_return");
  long long t_load = now_ns();

  /* the first call's line first: its function's handler answers its result */
  char *call_id = NULL, *call_args = NULL, *call_result = NULL;
  char *x = strstr(app, "\nX ");
  if (!x) { fprintf(stderr, "coldstart: no X line in %s\n", argv[2]); return 1; }
  call_id = x + 3;
  char *tab = strchr(call_id, '\t');
  char *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
  char *eol = tab2 ? strchr(tab2 + 1, '\n') : NULL;
  if (!tab2) { fprintf(stderr, "coldstart: the X line is not ID<tab>ARGS<tab>RESULT\n"); return 1; }
  *tab = 0; *tab2 = 0; if (eol) *eol = 0;
  call_args = tab + 1; call_result = tab2 + 1;
  char id_key[256];
  snprintf(id_key, sizeof id_key, "{\"id\":\"%s\",", call_id);

  af_dispatcher *d = dispatcher_new();
  for (char *line = app; line && line < x + 1; ) {
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    af_status st = 0;
    switch (line[0]) {
      case 'M': st = set_metadata_schema(d, line + 2); break;
      case 'K': st = define_toolkit(d, line + 2, NULL, NULL, NULL); break;
      case 'T': st = define_types(d, line + 2); break;
      case 'E': st = register_entity(d, line + 2, lookup, NULL, NULL); break;
      case 'F': st = register_function(d, line + 2, answer,
                                       strncmp(line + 2, id_key, strlen(id_key)) == 0 ? call_result : NULL, NULL);
                break;
      default: break;
    }
    if (st != 0) { fprintf(stderr, "coldstart: %c registration failed: %s\n", line[0], last_error()); return 1; }
    line = next;
  }
  long long t_register = now_ns();

  af_invocation inv;
  memset(&inv, 0, sizeof inv);
  inv.struct_size = sizeof inv;
  inv.function_id = call_id;
  char *outcome = execute_json(d, &inv, call_args);
  long long t_call = now_ns();
  if (!strstr(outcome, "\"status\":\"success\"")) {
    fprintf(stderr, "coldstart: the first call did not succeed: %s\n", outcome);
    return 1;
  }
  string_free(outcome);
  if (async_call) {
    af_status (*execute_async)(af_dispatcher *, const af_invocation *, const char *, af_outcome_fn, void *) =
        (af_status (*)(af_dispatcher *, const af_invocation *, const char *, af_outcome_fn, void *))sym("af_execute_async");
    af_status st = execute_async(d, &inv, call_args, on_outcome, NULL);
    if (st != 0 || async_succeeded != 1) {
      fprintf(stderr, "coldstart: the asynchronous call did not succeed inline (status %d): %s\n", (int)st, last_error());
      return 1;
    }
  }
  long long t_async = now_ns();
  printf("coldstart main=%lld read=%lld load=%lld register=%lld call=%lld", t_main, t_read, t_load, t_register, t_call);
  if (async_call) printf(" async=%lld", t_async);
  printf("\n");
  return 0;
}

/* The C figure in the BenchmarkDotNet process (Program.cs, SameCallInC): the round trip
 * ci/bench.sh's C figure times (benches/execute.rs, "plain": create_order with its three
 * arguments, a C handler answering "ok", af_execute_json and af_string_free, the default
 * timeout), run in a C loop of the same process as the .NET benchmarks, so that the .NET call
 * and the C call are measured by one tool on one machine at one moment (the criterion figure
 * ci/bench.sh also reports is taken minutes earlier, by another tool). ci/bench.sh builds it
 * against the library the benchmarks load:
 *   cc -O2 -shared -fPIC -I include same_call.c -L DIR -lappfunctions -Wl,-rpath,DIR */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "appfunctions.h"

static af_dispatcher *d;
static af_invocation inv = AF_INVOCATION_INIT;

static void handler(void *user_data, af_call *call) {
  (void)user_data;
  af_call_return(call, "\"ok\"");
}

/* 0 when the dispatcher is ready and one call succeeds; else an af_status or -1. */
int32_t afb_same_call_setup(void) {
  if (d != NULL) return 0;
  d = af_dispatcher_new();
  af_status st = af_define_types(d, "{\"enums\":[{\"name\":\"Priority\",\"members\":[\"Low\",\"Normal\",\"High\"]}]}");
  if (st != AF_OK) return (int32_t)st;
  st = af_register_function(d,
      "{\"id\":\"create_order\",\"parameters\":[{\"name\":\"customer\",\"type\":\"string\"},"
      "{\"name\":\"quantity\",\"type\":\"int32\"},{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"}}],"
      "\"result\":\"string\"}",
      handler, NULL, NULL);
  if (st != AF_OK) return (int32_t)st;
  inv.function_id = "create_order";
  char *out = af_execute_json(d, &inv, "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
  int ok = out != NULL && strstr(out, "\"status\":\"success\"") != NULL;
  af_string_free(out);
  return ok ? 0 : -1;
}

/* n calls; the number that succeeded. */
int64_t afb_same_call_run(int32_t n) {
  int64_t ok = 0;
  for (int32_t i = 0; i < n; i++) {
    char *out = af_execute_json(d, &inv, "{\"customer\":\"acme\",\"quantity\":2,\"priority\":\"Normal\"}");
    ok += out != NULL && out[11] == 's'; /* {"status":"success" */
    af_string_free(out);
  }
  return ok;
}

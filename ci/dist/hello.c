/* A C host built only from the release artifacts in target/dist (never from the source
 * tree): the dist lane compiles it through pkg-config and through the CMake package, links
 * it to the shared and the static library, and runs it. It registers one function, runs
 * it and checks the outcome; exit 0 only when everything holds. */
#include <stdio.h>
#include <string.h>

#include "appfunctions.h"

#ifndef AF_EXPECTED_VERSION
#error "build with -DAF_EXPECTED_VERSION=\"x.y.z\" (the version the artifacts should carry)"
#endif

static void greet(void *user_data, af_call *call) {
    (void)user_data;
    af_call_say(call, "Greeted.");
    af_call_return(call, "\"hello\"");
}

int main(void) {
    if (af_abi_version() != AF_ABI_VERSION || strcmp(af_version(), AF_EXPECTED_VERSION) != 0) {
        fprintf(stderr, "library %s (ABI %u), header ABI %d, expected version %s\n",
                af_version(), (unsigned)af_abi_version(), AF_ABI_VERSION, AF_EXPECTED_VERSION);
        return 1;
    }
    af_dispatcher *d = af_dispatcher_new();
    if (af_register_function(d,
            "{\"id\":\"greet\",\"description\":\"Greets someone\","
            "\"parameters\":[{\"name\":\"name\",\"type\":\"string\"}],\"result\":\"string\"}",
            greet, NULL, NULL) != AF_OK) {
        fprintf(stderr, "register: %s\n", af_last_error());
        return 1;
    }
    af_invocation inv = AF_INVOCATION_INIT;
    inv.function_id = "greet";
    char *outcome = af_execute_json(d, &inv, "{\"name\":\"dist\"}");
    int ok = strstr(outcome, "\"status\":\"success\"") && strstr(outcome, "\"result\":\"hello\"")
             && strstr(outcome, "\"dialog\":\"Greeted.\"");
    printf("appfunctions %s (ABI %u): %s\n", af_version(), (unsigned)af_abi_version(), outcome);
    af_string_free(outcome);
    af_dispatcher_free(d);
    return ok ? 0 : 1;
}

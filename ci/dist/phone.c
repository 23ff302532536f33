/* The phone builds' smoke test (ci/dist.sh): a C host linked to one phone library
 * (`phone-android` or `phone-ios`, built with the dist-small profile: opt-level "z") that
 * checks the library does what a phone asks of it, since that build's code is optimised
 * differently from every build the other lanes test:
 *   - a call with a pattern-constrained string and an enum binds and succeeds, its record
 *     result checked against its type;
 *   - a value outside the pattern, and an unknown key, are refused as InvalidArgument;
 *   - its platform's export is there (android-xml or swift-app-intents), the other
 *     platform's and the MCP server are left out, naming their features.
 *
 *   phone android|ios     (exit 0 only when everything holds; it prints what it checked) */
#include <stdio.h>
#include <string.h>

#include "appfunctions.h"

static int failures;

static void check(int ok, const char *what, const char *got) {
    printf("[phone] %s: %s\n", ok ? "ok" : "FAILED", what);
    if (!ok) {
        printf("[phone]   got: %s\n", got ? got : "(null)");
        failures++;
    }
}

static void create_order(void *user_data, af_call *call) {
    (void)user_data;
    af_call_return(call, "{\"id\":\"o-1\",\"quantity\":2}");
}

static void expect_outcome(af_dispatcher *d, const char *args, const char *needle, const char *what) {
    af_invocation inv = AF_INVOCATION_INIT;
    inv.function_id = "create_order";
    inv.timeout_ms = 5000;
    char *outcome = af_execute_json(d, &inv, args);
    check(outcome && strstr(outcome, needle) != NULL, what, outcome);
    af_string_free(outcome);
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "android") != 0 && strcmp(argv[1], "ios") != 0)) {
        fprintf(stderr, "usage: phone android|ios\n");
        return 2;
    }
    int android = strcmp(argv[1], "android") == 0;
    check(af_abi_version() == AF_ABI_VERSION, "the library's ABI is the header's", af_version());

    af_dispatcher *d = af_dispatcher_new();
    af_status st = af_define_types(d,
        "{\"enums\":[{\"name\":\"Priority\",\"members\":[\"Low\",\"Normal\",\"High\"]}],"
        "\"records\":[{\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
        "{\"name\":\"quantity\",\"type\":\"int32\"}]}]}");
    check(st == AF_OK, "types defined", af_status_name(st));
    st = af_register_function(d,
        "{\"id\":\"create_order\",\"description\":\"Creates an order\",\"parameters\":["
        "{\"name\":\"customer\",\"type\":\"string\",\"pattern\":\"^[a-z]+(-[a-z]+)*$\"},"
        "{\"name\":\"quantity\",\"type\":\"int32\",\"minimum\":1},"
        "{\"name\":\"priority\",\"type\":{\"enum\":\"Priority\"},\"default\":\"Normal\"}],"
        "\"result\":{\"record\":\"Order\"}}",
        create_order, NULL, NULL);
    check(st == AF_OK, "a function with a pattern constraint registered", af_status_name(st));

    expect_outcome(d, "{\"customer\":\"acme-shop\",\"quantity\":2}", "\"status\":\"success\"",
                   "a call binds its arguments and its record result");
    expect_outcome(d, "{\"customer\":\"ACME\",\"quantity\":2}", "\"errorCode\":\"InvalidArgument\"",
                   "a value outside the pattern is refused");
    expect_outcome(d, "{\"customer\":\"acme\",\"quantity\":0}", "\"errorCode\":\"InvalidArgument\"",
                   "a value under the minimum is refused");
    expect_outcome(d, "{\"customer\":\"acme\",\"quantity\":2,\"extra\":1}", "extra",
                   "an unknown key is refused by name");

    const char *mine = android ? "android-xml" : "swift-app-intents";
    const char *other = android ? "swift-app-intents" : "android-xml";
    char *text = af_export_copy(d, mine);
    check(text != NULL && strstr(text, "create_order") != NULL, android
          ? "the android-xml export is there" : "the swift-app-intents export is there", text);
    af_string_free(text);
    text = af_export_copy(d, other);
    char *err = af_last_error_copy();
    check(text == NULL && err && strstr(err, android ? "apple" : "android"),
          "the other platform's export is left out, naming its feature", text ? text : err);
    af_string_free(text);
    af_string_free(err);
    af_mcp_session *s = af_mcp_session_new(d, NULL);
    err = af_last_error_copy();
    check(s == NULL && err && strstr(err, "mcp"), "the MCP server is left out, naming its feature", err);
    af_string_free(err);

    af_dispatcher_free(d);
    printf("[phone] %s: %d failure(s)\n", argv[1], failures);
    return failures ? 1 : 0;
}

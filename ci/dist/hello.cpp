// The header from C++ (the CMake check builds it with -Wall -Wextra -pedantic -Werror):
// the same call as hello.c, through the imported target appfunctions::appfunctions.
#include <cstdio>
#include <cstring>
#include <string>

#include "appfunctions.h"

int main() {
    af_dispatcher *d = af_dispatcher_new();
    const char *desc = "{\"id\":\"greet\",\"parameters\":[{\"name\":\"name\",\"type\":\"string\"}],\"result\":\"string\"}";
    auto greet = [](void *, af_call *call) { af_call_return(call, "\"hello from C++\""); };
    if (af_register_function(d, desc, greet, nullptr, nullptr) != AF_OK) {
        std::fprintf(stderr, "register: %s\n", af_last_error());
        return 1;
    }
    af_invocation inv = AF_INVOCATION_INIT;
    inv.function_id = "greet";
    char *outcome = af_execute_json(d, &inv, "{\"name\":\"dist\"}");
    const std::string text(outcome);
    af_string_free(outcome);
    af_dispatcher_free(d);
    std::printf("C++: %s\n", text.c_str());
    return text.find("\"result\":\"hello from C++\"") != std::string::npos ? 0 : 1;
}

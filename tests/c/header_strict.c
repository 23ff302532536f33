/*
 * Compiled by the c lane as C99 and as C++11 with -Wall -Wextra -pedantic -Werror (and
 * never run): the header, and its initialiser macros, must leave a strict host with
 * nothing to say.
 */
#include "appfunctions.h"

int header_strict_check(void);

int header_strict_check(void) {
    af_invocation inv = AF_INVOCATION_INIT;
    af_delegate del = AF_DELEGATE_INIT;
    inv.function_id = "create_order";
    inv.timeout_ms = AF_TIMEOUT_NONE;
    return (int)(inv.struct_size + del.struct_size) + AF_OK + AF_CODE_TIMED_OUT;
}

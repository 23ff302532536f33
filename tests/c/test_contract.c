/*
 * What the model sees is what the core enforces (issue 13), through the header alone:
 * the one nullable rule (seed 002's editNote(title: String?)), value constraints, exact
 * integers and rendered placeholders.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

/* The sample app's edit_note(noteId: string, title: string?, content: string) declares its
 * title nullable and nothing more: the caller may omit it, and it binds as null. */
TEST(contract__a_nullable_parameter_may_be_omitted_and_binds_as_null) {
    app *a = app_new();
    char *o = run(a->d, "edit_note", "{\"noteId\":\"1\",\"content\":\"bread\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(a->last_args, "\"title\":null");
    outcome_free(o);
    o = run(a->d, "edit_note", "{\"noteId\":\"1\",\"title\":null,\"content\":\"bread\"}");
    CHECK_SUCCESS(o);
    CHECK_HAS(a->last_args, "\"title\":null");
    outcome_free(o);
    app_close(a);
}

TEST(contract__a_nullable_parameter_is_optional_in_the_registry_and_not_required_by_the_schema) {
    app *a = app_new();
    char *r = af_registry_json(a->d);
    const char *en = strstr(r, "\"id\":\"edit_note\"");
    CHECK(en != NULL);
    CHECK_HAS(en, "{\"name\":\"title\",\"type\":{\"nullable\":\"string\"},\"description\":null,\"optional\":true,\"nullable\":true}");
    af_string_free(r);
    char *s = af_parameters_schema_json(a->d, "edit_note");
    CHECK_HAS(s, "\"required\":[\"noteId\",\"content\"]");
    CHECK_HAS(s, "\"title\":{\"type\":[\"string\",\"null\"]}");
    af_string_free(s);
    /* OpenAI strict requires every property: the nullable one is listed with a null type */
    char *t = af_export_copy(a->d, "openai");
    const char *edit = t ? strstr(t, "\"name\":\"edit_note\"") : NULL;
    CHECK_MSG(edit != NULL, "edit_note in the OpenAI export: %.300s", t ? t : "(NULL)");
    if (edit) {
        const char *strict = strstr(edit, "\"strict\":");
        CHECK(strict != NULL && strncmp(strict, "\"strict\":true", 13) == 0);
        const char *req = strstr(edit, "\"required\":[");
        CHECK(req != NULL && strict != NULL && req < strict);
        if (req) {
            const char *end = strchr(req, ']');
            const char *title = strstr(req, "\"title\"");
            CHECK_MSG(title != NULL && end != NULL && title < end,
                      "edit_note's strict required list names title: %.200s", req);
        }
    }
    af_string_free(t);
    app_close(a);
}

TEST(contract__a_nullable_parameter_that_may_not_be_omitted_is_refused) {
    app *a = app_bare();
    CHECK_STATUS(af_register_function(a->d,
                                      "{\"id\":\"f\",\"parameters\":[{\"name\":\"t\",\"type\":\"string\","
                                      "\"nullable\":true,\"optional\":false}]}",
                                      h_edit_note, NULL, NULL),
                 AF_ERR_INVALID);
    CHECK_LAST_ERROR("f.parameters.t.optional: a nullable value may always be omitted");
    app_close(a);
}

TEST(contract__constraints_are_enforced_with_the_rule_named) {
    app *a = app_bare();
    CHECK_STATUS(af_register_function(a->d,
                                      "{\"id\":\"create_order\",\"parameters\":["
                                      "{\"name\":\"quantity\",\"type\":\"int32\",\"minimum\":1},"
                                      "{\"name\":\"sku\",\"type\":\"string\",\"optional\":true,\"pattern\":\"^[A-Z]{2}-\\\\d{3}$\"},"
                                      "{\"name\":\"tags\",\"type\":{\"array\":\"string\"},\"optional\":true,\"uniqueItems\":true}],"
                                      "\"result\":{\"record\":\"Order\"}}",
                                      h_create_order, app_reg(a, NULL), app_reg_free),
                 AF_OK);
    char *o = run(a->d, "create_order", "{\"quantity\":0}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "\"message\":\"quantity: 0 is below the minimum 1\"");
    outcome_free(o);
    o = run(a->d, "create_order", "{\"quantity\":1,\"sku\":\"AB-\xd9\xa1\xd9\xa2\xd9\xa3\"}"); /* Arabic-Indic digits */
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "does not match the pattern");
    outcome_free(o);
    o = run(a->d, "create_order", "{\"quantity\":1,\"tags\":[\"a\",\"a\"]}");
    CHECK_HAS(o, "tags: items [0] and [1] are equal");
    outcome_free(o);
    char *s = af_parameters_schema_json(a->d, "create_order");
    CHECK_HAS(s, "\"minimum\":1");
    CHECK_HAS(s, "\"uniqueItems\":true");
    af_string_free(s);
    /* a pattern the engine cannot honour is refused at registration, naming it */
    CHECK_STATUS(af_register_function(a->d,
                                      "{\"id\":\"g\",\"parameters\":[{\"name\":\"s\",\"type\":\"string\",\"pattern\":\"a(?=b)\"}]}",
                                      h_create_order, NULL, NULL),
                 AF_ERR_INVALID);
    CHECK_LAST_ERROR("g.parameters.s.pattern: the pattern \"a(?=b)\": lookahead");
    app_close(a);
}

TEST(contract__integers_out_of_range_are_refused_as_written) {
    app *a = app_bare();
    CHECK_STATUS(af_register_function(a->d,
                                      "{\"id\":\"f\",\"parameters\":[{\"name\":\"big\",\"type\":\"int64\"}]}",
                                      h_edit_note, app_reg(a, NULL), app_reg_free),
                 AF_OK);
    char *o = run(a->d, "f", "{\"big\":-9223372036854775809}");
    CHECK_CODE(o, "InvalidArgument");
    CHECK_HAS(o, "big: number -9223372036854775809 is out of range for int64");
    outcome_free(o);
    o = run(a->d, "f", "{\"big\":-9223372036854776000}");
    CHECK_HAS(o, "big: number -9223372036854776000 is out of range for int64");
    outcome_free(o);
    app_close(a);
}

package dev.appfunctions

/**
 * Offers a method to assistants. The id defaults to the method name in snake_case
 * (`createOrder` -> `create_order`). The description comes from [description] or from a
 * [Description] annotation on the method; KDoc is not visible at run time (see the README:
 * a KSP processor will read it at build time, as Jetpack's `isDescribedByKDoc` does).
 *
 * The first parameter may be an [AppFunctionContext]. Other parameters are bound by name from
 * the camelCase arguments object; nullable ones may be omitted and then receive null (the
 * core's one nullable rule: omitted and null are the same call, so a Kotlin default value on
 * a nullable parameter is not used; give it a [DefaultValue] instead), non-nullable ones with
 * Kotlin default values are optional and get their default. The method may be `suspend`; it
 * returns Unit, a
 * primitive, a `java.time` value, an enum, an [AppFunctionSerializable] or [AppFunctionEntity]
 * class, or a List/Set of those (nullable allowed).
 */
@Target(AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class AppFunction(
    val id: String = "",
    val title: String = "",
    val description: String = "",
    /** Apple, not in the foreground: bring the app forward before the handler runs. */
    val opensApp: Boolean = false,
    /** The dispatcher's permission hook must approve each call. */
    val requiresPermission: Boolean = false,
    val enabled: Boolean = true,
    val toolkit: String = "",
    val condition: String = "",
    val deprecated: Boolean = false,
    /** Jetpack compatibility: descriptions come from KDoc. Needs the (planned) KSP processor; ignored by reflection. */
    val isDescribedByKDoc: Boolean = false,
    /** [AppFunctionKind.Output]: calling it ends the agent's run and its arguments are the result (the method never runs). */
    val kind: AppFunctionKind = AppFunctionKind.Function,
)

/** How the core treats a call (seed 004's `ToolKind`). */
enum class AppFunctionKind {
    /** A normal tool: executed, its result returned to the model. */
    Function,

    /** An output tool: the model's arguments are the structured, final result; the method never runs. */
    Output,
}

/** A record type (a data class) usable as a parameter or result; its fields are its constructor's properties. */
@Target(AnnotationTarget.CLASS)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class AppFunctionSerializable(
    /** The record's name in descriptors (default: the class's simple name). */
    val name: String = "",
    val description: String = "",
    val isDescribedByKDoc: Boolean = false,
)

/**
 * An app entity (a data class): a parameter of this type is the entity's id, resolved through
 * the [AppFunctionEntityProvider] registered for it; as a result it is the full entity.
 * Registering the provider generates `search_{name}`.
 */
@Target(AnnotationTarget.CLASS)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class AppFunctionEntity(
    val name: String,
    val idField: String = "id",
    val title: String = "",
    val description: String = "",
)

/** A description shown to assistants and models: on functions, parameters, records, fields, enums and enum members. */
@Target(
    AnnotationTarget.FUNCTION,
    AnnotationTarget.VALUE_PARAMETER,
    AnnotationTarget.PROPERTY,
    AnnotationTarget.CLASS,
    AnnotationTarget.FIELD,
)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class Description(val value: String)

/**
 * The JSON value of a parameter's default, published in the descriptor and its schema
 * (e.g. `@DefaultValue("\"Normal\"")`). Kotlin default values are applied without it, but
 * reflection cannot read them, so without it the schema shows no default.
 */
@Target(AnnotationTarget.VALUE_PARAMETER)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class DefaultValue(val json: String)

/**
 * A class whose `@AppFunction` methods form a toolkit (seed 004's `[Collapse]`): registering
 * an instance defines the toolkit once and puts every method without a `toolkit` of its own in
 * it. With a [description] the toolkit collapses in agent views into one container tool named
 * [name] until the model calls it; [functionResult] is returned once on expansion and
 * [systemPrompt] joins the instructions every turn while it is expanded. When the class also
 * implements [AppFunctionToolkitTexts], it answers the texts dynamically (an empty answer, null,
 * falls back to these).
 */
@Target(AnnotationTarget.CLASS)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class AppFunctionToolkit(
    val name: String,
    val description: String = "",
    val functionResult: String = "",
    val systemPrompt: String = "",
)

/**
 * Value constraints of a parameter, a record field (on its constructor parameter) or, on an
 * `@AppFunction` method, its result: the JSON Schema carries them and the core enforces them
 * exactly (docs/descriptors.md, "Value constraints"): a violating argument is
 * `InvalidArgument` naming the parameter and the rule, a violating result `HandlerFailed`.
 * Set only what applies (`@Constraints(minimum = 1.0)`); the defaults mean "none". Bounds are
 * doubles: an integral bound is written as an integer (exact up to 2^53; the DSL's
 * [AppFunctionConstraints] takes any `Number`).
 */
@Target(AnnotationTarget.VALUE_PARAMETER, AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
annotation class Constraints(
    val minimum: Double = Double.NaN,
    val maximum: Double = Double.NaN,
    val exclusiveMinimum: Double = Double.NaN,
    val exclusiveMaximum: Double = Double.NaN,
    val minLength: Int = -1,
    val maxLength: Int = -1,
    /** An ECMA-262 regular expression the string must match somewhere (anchor it with `^...$`). */
    val pattern: String = "",
    val minItems: Int = -1,
    val maxItems: Int = -1,
    val uniqueItems: Boolean = false,
)

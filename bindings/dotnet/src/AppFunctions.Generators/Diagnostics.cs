using Microsoft.CodeAnalysis;

namespace AppFunctions.Generators;

/// <summary>Every diagnostic of the generator: an id, and a message that says how to fix it.</summary>
internal static class Diagnostics
{
    private const string Category = "AppFunctions";

    private static DiagnosticDescriptor Error(string id, string title, string message) =>
        new(id, title, message, Category, DiagnosticSeverity.Error, isEnabledByDefault: true);

    internal static readonly DiagnosticDescriptor NotAccessible = Error("AFG001", "App function is not accessible",
        "[AppFunction] method '{0}' is {1}: make it public or internal, in a public or internal class");

    internal static readonly DiagnosticDescriptor UnsupportedParameter = Error("AFG002", "Unsupported parameter type",
        "Parameter '{0}' of app function '{1}' has type '{2}', which app functions do not support{3}: use string, bool, int, long, double, DateTimeOffset, DateOnly, Guid, an enum, a record or class with public properties, an [AppFunctionEntity] type, an array or List of those, or a nullable one");

    internal static readonly DiagnosticDescriptor UnsupportedReturn = Error("AFG003", "Unsupported return type",
        "App function '{0}' returns '{1}', which app functions do not support{2}: return void, Task, ValueTask, or one of the parameter types (also wrapped in Task<T> or ValueTask<T>)");

    internal static readonly DiagnosticDescriptor DuplicateId = Error("AFG004", "Duplicate function id",
        "Function id '{0}' is declared by '{1}' and by '{2}': give one of them another id with [AppFunction(Name = \"...\")]");

    internal static readonly DiagnosticDescriptor InvalidId = Error("AFG005", "Invalid function id",
        "'{0}' is not a valid function id: use snake_case, a lowercase letter then lowercase letters, digits and _ (at most 64 characters), e.g. [AppFunction(Name = \"{1}\")]");

    internal static readonly DiagnosticDescriptor UnknownPlaceholder = Error("AFG006", "Unknown metadata placeholder",
        "{{metadata.{0}}} in '{1}' names no property of {2}: add a public property '{0}' to {2} or use one of: {3}");

    internal static readonly DiagnosticDescriptor BadCondition = Error("AFG007", "Invalid condition",
        "[ConditionalFunction(\"{0}\")] on '{1}': {2}");

    internal static readonly DiagnosticDescriptor BadToolkitText = Error("AFG008", "Invalid toolkit text member",
        "[Collapse({0}: \"{1}\")] on '{2}' names a member that is not a static string property or parameterless static method returning string: make '{1}' static and return string, or write the text itself");

    internal static readonly DiagnosticDescriptor ByRefParameter = Error("AFG009", "By-reference parameter",
        "Parameter '{0}' of app function '{1}' is ref, out, in or params: pass it by value");

    internal static readonly DiagnosticDescriptor GenericFunction = Error("AFG010", "Generic or abstract app function",
        "App function '{0}' {1}: declare it as a non-generic method of a non-generic, non-abstract class (or make it static)");

    internal static readonly DiagnosticDescriptor MisplacedAnnotation = Error("AFG011", "Constraint does not apply",
        "[{0}] on '{1}' does not apply to type '{2}': {3}");

    internal static readonly DiagnosticDescriptor EntityWithoutId = Error("AFG012", "Entity without id",
        "[AppFunctionEntity] type '{0}' has no public string property '{1}': add one, or name the id property with IdProperty = \"...\"");

    internal static readonly DiagnosticDescriptor DuplicateTypeName = Error("AFG013", "Duplicate type name",
        "Types '{0}' and '{1}' would both be named '{2}' in the descriptors: rename one of them");

    internal static readonly DiagnosticDescriptor InvalidEntityName = Error("AFG014", "Invalid entity name",
        "[AppFunctionEntity(\"{0}\")] on '{1}': an entity name is snake_case (a lowercase letter, then lowercase letters, digits and _)");
}

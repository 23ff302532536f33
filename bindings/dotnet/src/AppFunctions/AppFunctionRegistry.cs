using System.Text.Json;
using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>The dispatcher's registry (<c>af_registry_json</c>), read when asked.</summary>
public sealed class AppFunctionRegistry
{
    private AppFunctionRegistry(IReadOnlyList<AppFunctionDescriptor> functions, string json, int version)
    {
        Functions = functions;
        Json = json;
        Version = version;
    }

    /// <summary>Every function: the declared ones in registration order, then the generated <c>search_{entity}</c> ones.</summary>
    public IReadOnlyList<AppFunctionDescriptor> Functions { get; }

    /// <summary>The registry JSON as the core writes it (functions, types, entities, toolkits).</summary>
    public string Json { get; }

    internal int Version { get; }

    /// <summary>The function with this id, or null.</summary>
    public AppFunctionDescriptor? this[string id] => Functions.FirstOrDefault(f => f.Id == id);

    internal static AppFunctionRegistry Parse(string json, AppFunctionDispatcher dispatcher, int version)
    {
        using var doc = JsonDocument.Parse(json);
        var list = new List<AppFunctionDescriptor>();
        if (doc.RootElement.TryGetProperty("functions", out var fns))
        {
            foreach (var f in fns.EnumerateArray())
            {
                list.Add(AppFunctionDescriptor.From(f, dispatcher));
            }
        }
        return new AppFunctionRegistry(list, json, version);
    }
}

/// <summary>A function's descriptor: what assistants and models are told about it.</summary>
public sealed unsafe class AppFunctionDescriptor
{
    private readonly AppFunctionDispatcher? _dispatcher;

    private AppFunctionDescriptor(JsonElement e, AppFunctionDispatcher? dispatcher)
    {
        _dispatcher = dispatcher;
        Id = e.GetProperty("id").GetString() ?? "";
        Title = Str(e, "title");
        Description = Str(e, "description");
        Symbol = Str(e, "symbol");
        ResultType = e.TryGetProperty("result", out var r) ? r.GetRawText() : "\"void\"";
        OpensApp = Bool(e, "opensApp");
        RequiresPermission = Bool(e, "requiresPermission");
        Kind = Str(e, "kind") == "output" ? ToolKind.Output : ToolKind.Function;
        Toolkit = Str(e, "toolkit");
        Condition = Str(e, "condition");
        Enabled = !e.TryGetProperty("enabled", out var en) || en.ValueKind != JsonValueKind.False;
        Deprecated = Bool(e, "deprecated");
        IsGenerated = Bool(e, "generated");
        var ps = new List<AppFunctionParameter>();
        if (e.TryGetProperty("parameters", out var parameters) && parameters.ValueKind == JsonValueKind.Array)
        {
            foreach (var p in parameters.EnumerateArray())
            {
                ps.Add(new AppFunctionParameter(
                    Str(p, "name") ?? "",
                    p.TryGetProperty("type", out var t) ? t.GetRawText() : "null",
                    Str(p, "description"),
                    Bool(p, "optional"),
                    Bool(p, "nullable"),
                    p.TryGetProperty("default", out var d) && d.ValueKind != JsonValueKind.Undefined ? d.GetRawText() : null));
            }
        }
        Parameters = ps;
        Json = e.GetRawText();
    }

    /// <summary>The id (snake_case).</summary>
    public string Id { get; }

    /// <summary>The title, if any.</summary>
    public string? Title { get; }

    /// <summary>The description, if any.</summary>
    public string? Description { get; }

    /// <summary>The host's symbol (the C# method).</summary>
    public string? Symbol { get; }

    /// <summary>The parameters in declared order.</summary>
    public IReadOnlyList<AppFunctionParameter> Parameters { get; }

    /// <summary>The result type as descriptor JSON (<c>"void"</c>, <c>{"record":"Order"}</c>, ...).</summary>
    public string ResultType { get; }

    /// <summary>On iOS, brings the app to the foreground before the handler runs.</summary>
    public bool OpensApp { get; }

    /// <summary>Each call needs approval.</summary>
    public bool RequiresPermission { get; }

    /// <summary>Function or Output.</summary>
    public ToolKind Kind { get; }

    /// <summary>The toolkit, if any.</summary>
    public string? Toolkit { get; }

    /// <summary>The visibility condition in agent views, if any.</summary>
    public string? Condition { get; }

    /// <summary>False while disabled.</summary>
    public bool Enabled { get; }

    /// <summary>Deprecated (still callable).</summary>
    public bool Deprecated { get; }

    /// <summary>A generated <c>search_{entity}</c> function.</summary>
    public bool IsGenerated { get; }

    /// <summary>The normalised descriptor JSON.</summary>
    public string Json { get; }

    /// <summary>The JSON Schema (draft 2020-12) of the parameters: what an AI tool or MCP adapter offers a model.</summary>
    public string GetParametersJsonSchema() => Schema(true);

    /// <summary>The JSON Schema (draft 2020-12) of the result (<c>null</c> for a void function).</summary>
    public string GetResultJsonSchema() => Schema(false);

    private string Schema(bool parameters)
    {
        if (_dispatcher is null)
        {
            throw new InvalidOperationException("this descriptor came from a call context; use dispatcher.Registry for schemas");
        }
        return NativeCalls.SchemaJson(_dispatcher.Handle, Id, parameters);
    }

    /// <inheritdoc/>
    public override string ToString() => Id;

    internal static AppFunctionDescriptor From(JsonElement e, AppFunctionDispatcher? dispatcher) => new(e, dispatcher);

    internal static AppFunctionDescriptor Parse(string json)
    {
        using var doc = JsonDocument.Parse(json);
        return new AppFunctionDescriptor(doc.RootElement, null);
    }

    private static string? Str(JsonElement e, string name) =>
        e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString() : null;

    private static bool Bool(JsonElement e, string name) => e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.True;
}

/// <summary>One parameter of a function.</summary>
/// <param name="Name">camelCase name (the JSON key).</param>
/// <param name="TypeJson">The type as descriptor JSON (<c>"string"</c>, <c>{"enum":"Priority"}</c>, ...).</param>
/// <param name="Description">The description, if any.</param>
/// <param name="Optional">May be omitted.</param>
/// <param name="Nullable">May be null.</param>
/// <param name="DefaultJson">The default as JSON, if any.</param>
public sealed record AppFunctionParameter(string Name, string TypeJson, string? Description, bool Optional, bool Nullable, string? DefaultJson);

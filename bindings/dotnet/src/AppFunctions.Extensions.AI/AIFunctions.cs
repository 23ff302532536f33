using System.Text.Json;
using AppFunctions.Interop;
using Microsoft.Extensions.AI;

namespace AppFunctions.Extensions.AI;

/// <summary>
/// The app's functions as Microsoft.Extensions.AI tools: names, descriptions and JSON schemas come
/// from the core; invoking one runs it through the dispatcher (or the view). A function marked
/// <see cref="RequiresPermissionAttribute"/> is an <see cref="ApprovalRequiredAIFunction"/>: the
/// chat client asks the user, and once approved the call runs without asking again.
/// Calls run in the foreground by default: these tools are the app's own assistant and the user
/// is in the app, so an <see cref="AppFunctionGate.OpenApp"/> gate passes. Pass
/// <c>isForeground: false</c> when the tools serve a caller outside the app (an MCP server built
/// from them, a remote agent): such a gate then refuses the call with its message.
/// A result that comes with dialog text (<see cref="AppFunctionContext.Say"/>) reaches the model
/// as <c>{"result": ..., "dialog": "..."}</c>; without dialog, as the result itself.
/// </summary>
public static class AppFunctionsAIExtensions
{
    /// <summary>Every enabled function of the dispatcher (declared, then <c>search_{entity}</c>).</summary>
    public static IList<AIFunction> AsAIFunctions(this AppFunctionDispatcher dispatcher, bool isForeground = true)
    {
        ArgumentNullException.ThrowIfNull(dispatcher);
        var list = new List<AIFunction>();
        foreach (var d in dispatcher.Registry.Functions)
        {
            if (!d.Enabled)
            {
                continue;
            }
            using var schema = JsonDocument.Parse(d.GetParametersJsonSchema());
            using var result = JsonDocument.Parse(d.GetResultJsonSchema());
            var f = new AppFunctionAIFunction(dispatcher, null, d.Id, d.Description ?? d.Title ?? d.Id,
                schema.RootElement.Clone(), result.RootElement.ValueKind == JsonValueKind.Null ? null : result.RootElement.Clone(), d.RequiresPermission, isForeground);
            list.Add(d.RequiresPermission ? new ApprovalRequiredAIFunction(f) : f);
        }
        return list;
    }

    /// <summary>What the view's model sees now (collapsed toolkits as containers, conditions,
    /// rendered templates, output tools). Ask again after a call: <see cref="AppFunctionView.Generation"/>
    /// tells when the list changed. An output tool ends the function-invocation loop.</summary>
    public static IList<AIFunction> AsAIFunctions(this AppFunctionView view, bool isForeground = true)
    {
        ArgumentNullException.ThrowIfNull(view);
        var registry = view.Dispatcher.Registry;
        using var tools = JsonDocument.Parse(view.GetTools("mcp"));
        var list = new List<AIFunction>();
        foreach (var t in tools.RootElement.EnumerateArray())
        {
            var name = t.GetProperty("name").GetString()!;
            var description = t.TryGetProperty("description", out var de) ? de.GetString() ?? "" : "";
            var schema = t.GetProperty("inputSchema").Clone();
            JsonElement? output = t.TryGetProperty("outputSchema", out var o) ? o.Clone() : null;
            bool approval = registry[name]?.RequiresPermission == true;
            var f = new AppFunctionAIFunction(view.Dispatcher, view, name, description, schema, output, approval, isForeground);
            list.Add(approval ? new ApprovalRequiredAIFunction(f) : f);
        }
        return list;
    }
}

/// <summary>One app function as an <see cref="AIFunction"/>.</summary>
internal sealed class AppFunctionAIFunction(
    AppFunctionDispatcher dispatcher, AppFunctionView? view, string name, string description, JsonElement schema, JsonElement? returnSchema, bool preApproved,
    bool isForeground)
    : AIFunction
{
    public override string Name => name;

    public override string Description => description;

    public override JsonElement JsonSchema => schema;

    public override JsonElement? ReturnJsonSchema => returnSchema;

    protected override async ValueTask<object?> InvokeCoreAsync(AIFunctionArguments arguments, CancellationToken cancellationToken)
    {
        var args = ArgumentsJson(arguments);
        var invocation = new AppFunctionInvocation(name) { IsForeground = isForeground };
        var options = preApproved ? new PendingOptions { PreApproved = true } : null;
        var outcome = view is not null
            ? await AppFunctionDispatcher.Run(view, invocation, args, cancellationToken, options).ConfigureAwait(false)
            : await AppFunctionDispatcher.Run(dispatcher, invocation, args, cancellationToken, options).ConfigureAwait(false);
        if (outcome.IsFinal && FunctionInvokingChatClient.CurrentContext is { } context)
        {
            context.Terminate = true; // an output tool: its arguments are the run's result
        }
        return Result(outcome);
    }

    /// <summary>Success: the result (with its dialog, <c>{"result", "dialog"}</c>, when the function
    /// said one: the text for Siri is as useful to a model), or the dialog / confirmation of a void
    /// function. Failure: an object the model can read, <c>{"error": code, "message": ...}</c>.</summary>
    private static JsonElement Result(AppFunctionOutcome outcome)
    {
        if (outcome.Status == AppFunctionStatus.Success && outcome.HasResult)
        {
            // the result as the core wrote it, parsed once from its UTF-8
            using var result = JsonDocument.Parse(outcome.ResultUtf8);
            if (outcome.Dialog is null)
            {
                return result.RootElement.Clone();
            }
            using var both = new MemoryStream();
            using (var w = new Utf8JsonWriter(both))
            {
                w.WriteStartObject();
                w.WritePropertyName("result");
                result.RootElement.WriteTo(w);
                w.WriteString("dialog", outcome.Dialog);
                w.WriteEndObject();
            }
            using var doc2 = JsonDocument.Parse(both.ToArray());
            return doc2.RootElement.Clone();
        }
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer))
        {
            if (outcome.Status == AppFunctionStatus.Success)
            {
                w.WriteStringValue(outcome.Dialog ?? "Done.");
            }
            else
            {
                w.WriteStartObject();
                w.WriteString("error", outcome.Status == AppFunctionStatus.OpenApp ? "OpenApp" : ErrorCodes.Name(outcome.ErrorCode ?? AppFunctionErrorCode.InternalError));
                w.WriteString("message", outcome.Message);
                w.WriteEndObject();
            }
        }
        using var doc = JsonDocument.Parse(buffer.ToArray());
        return doc.RootElement.Clone();
    }

    private static string ArgumentsJson(AIFunctionArguments arguments)
    {
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer))
        {
            w.WriteStartObject();
            foreach (var (key, value) in arguments)
            {
                w.WritePropertyName(key);
                WriteValue(w, value);
            }
            w.WriteEndObject();
        }
        return System.Text.Encoding.UTF8.GetString(buffer.ToArray());
    }

    private static void WriteValue(Utf8JsonWriter w, object? value)
    {
        switch (value)
        {
            case null: w.WriteNullValue(); break;
            case JsonElement e: e.WriteTo(w); break;
            case JsonDocument d: d.RootElement.WriteTo(w); break;
            case System.Text.Json.Nodes.JsonNode n: n.WriteTo(w); break;
            case string s: w.WriteStringValue(s); break;
            case bool b: w.WriteBooleanValue(b); break;
            case int i: w.WriteNumberValue(i); break;
            case long l: w.WriteNumberValue(l); break;
            case double d: w.WriteNumberValue(d); break;
            case float f: w.WriteNumberValue(f); break;
            case decimal m: w.WriteNumberValue(m); break;
            case DateTimeOffset dto: w.WriteStringValue(dto); break;
            case DateTime dt: w.WriteStringValue(dt); break;
            case Guid g: w.WriteStringValue(g); break;
            case Enum en: w.WriteStringValue(en.ToString()); break;
            case System.Collections.IDictionary dict:
                w.WriteStartObject();
                foreach (System.Collections.DictionaryEntry kv in dict)
                {
                    w.WritePropertyName(kv.Key.ToString()!);
                    WriteValue(w, kv.Value);
                }
                w.WriteEndObject();
                break;
            case System.Collections.IEnumerable items:
                w.WriteStartArray();
                foreach (var item in items)
                {
                    WriteValue(w, item);
                }
                w.WriteEndArray();
                break;
            default:
                throw new ArgumentException($"AppFunctions: argument of type {value.GetType()} cannot be passed as JSON; pass a JsonElement");
        }
    }
}

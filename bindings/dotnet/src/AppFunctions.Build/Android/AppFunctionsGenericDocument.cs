// Part of the AppFunctions package's Android service: compiled into the app's Android build by
// buildTransitive/AppFunctions.targets (not into AppFunctions.dll, which has no Android target).
#nullable enable
using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Android.App.AppSearch;

namespace AppFunctions.Platforms;

/// <summary>
/// Walks a <c>GenericDocument</c> to and from the core's neutral JSON image:
/// <c>{"namespace", "id", "schemaType", "properties": {"name": {"strings" | "longs" | "doubles" |
/// "booleans" | "bytes" (base64) | "documents": [...]}}}</c>. Only the walk lives here; every rule
/// (types, ranges, records, enums, errors, the dialog) is the core's (<c>af_android_execute_*</c>).
/// </summary>
internal static class AppFunctionsGenericDocument
{
    /// <summary>The image of <paramref name="document"/> (null: an empty document).</summary>
    internal static string ToJson(GenericDocument? document)
    {
        var buffer = new ArrayBufferWriter<byte>(256);
        using (var w = new Utf8JsonWriter(buffer))
        {
            Write(w, document, 0);
        }
        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    private const int MaxDepth = 32;

    private static void Write(Utf8JsonWriter w, GenericDocument? d, int depth)
    {
        if (depth > MaxDepth)
        {
            throw new InvalidOperationException($"the document nests more than {MaxDepth} levels");
        }
        w.WriteStartObject();
        w.WriteString("namespace", d?.Namespace ?? "");
        w.WriteString("id", d?.Id ?? "");
        w.WriteString("schemaType", d?.SchemaType ?? "");
        w.WriteStartObject("properties");
        if (d is not null)
        {
            foreach (var name in d.PropertyNames)
            {
                w.WritePropertyName(name);
                w.WriteStartObject();
                // the typed getters answer null for a property of another type (GenericDocument's reference)
                if (d.GetPropertyStringArray(name) is { } strings)
                {
                    w.WriteStartArray("strings");
                    foreach (var s in strings)
                    {
                        w.WriteStringValue(s);
                    }
                    w.WriteEndArray();
                }
                else if (d.GetPropertyLongArray(name) is { } longs)
                {
                    w.WriteStartArray("longs");
                    foreach (var l in longs)
                    {
                        w.WriteNumberValue(l);
                    }
                    w.WriteEndArray();
                }
                else if (d.GetPropertyDoubleArray(name) is { } doubles)
                {
                    w.WriteStartArray("doubles");
                    foreach (var x in doubles)
                    {
                        if (double.IsFinite(x))
                        {
                            w.WriteNumberValue(x);
                        }
                        else
                        {
                            w.WriteNullValue(); // JSON has no NaN or infinity: the core reports it as a bad argument
                        }
                    }
                    w.WriteEndArray();
                }
                else if (d.GetPropertyBooleanArray(name) is { } booleans)
                {
                    w.WriteStartArray("booleans");
                    foreach (var b in booleans)
                    {
                        w.WriteBooleanValue(b);
                    }
                    w.WriteEndArray();
                }
                else if (d.GetPropertyBytesArray(name) is { } bytes)
                {
                    w.WriteStartArray("bytes");
                    foreach (var b in bytes)
                    {
                        w.WriteBase64StringValue(b);
                    }
                    w.WriteEndArray();
                }
                else if (d.GetPropertyDocumentArray(name) is { } documents)
                {
                    w.WriteStartArray("documents");
                    foreach (var child in documents)
                    {
                        Write(w, child, depth + 1);
                    }
                    w.WriteEndArray();
                }
                else
                {
                    w.WriteStartArray("strings"); // a property with no values
                    w.WriteEndArray();
                }
                w.WriteEndObject();
            }
        }
        w.WriteEndObject();
        w.WriteEndObject();
    }

    /// <summary>The document an image describes (the core's response <c>result</c>).</summary>
    internal static GenericDocument FromJson(JsonElement image) => Read(image, 0);

    private static GenericDocument Read(JsonElement e, int depth)
    {
        if (depth > MaxDepth)
        {
            throw new InvalidOperationException($"the response document nests more than {MaxDepth} levels");
        }
        if (e.ValueKind != JsonValueKind.Object)
        {
            throw new InvalidOperationException($"a document image is a JSON object, not {e.ValueKind}");
        }
        var builder = new GenericDocument.Builder(Text(e, "namespace"), Text(e, "id"), Text(e, "schemaType"));
        if (e.TryGetProperty("properties", out var properties) && properties.ValueKind == JsonValueKind.Object)
        {
            foreach (var p in properties.EnumerateObject())
            {
                foreach (var kind in p.Value.EnumerateObject())
                {
                    var v = kind.Value;
                    switch (kind.Name)
                    {
                        case "strings":
                            builder.SetPropertyString(p.Name, Map(v, x => x.GetString() ?? ""));
                            break;
                        case "longs":
                            builder.SetPropertyLong(p.Name, Map(v, x => x.GetInt64()));
                            break;
                        case "doubles":
                            builder.SetPropertyDouble(p.Name, Map(v, x => x.GetDouble()));
                            break;
                        case "booleans":
                            builder.SetPropertyBoolean(p.Name, Map(v, x => x.GetBoolean()));
                            break;
                        case "bytes":
                            builder.SetPropertyBytes(p.Name, Map(v, x => x.GetBytesFromBase64()));
                            break;
                        case "documents":
                            builder.SetPropertyDocument(p.Name, Map(v, x => Read(x, depth + 1)));
                            break;
                        default:
                            throw new InvalidOperationException($"the property '{p.Name}' has the unknown kind '{kind.Name}'");
                    }
                }
            }
        }
        return builder.Build();
    }

    private static string Text(JsonElement e, string name) =>
        e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString() ?? "" : "";

    private static T[] Map<T>(JsonElement array, Func<JsonElement, T> read)
    {
        var result = new T[array.GetArrayLength()];
        int i = 0;
        foreach (var x in array.EnumerateArray())
        {
            result[i++] = read(x);
        }
        return result;
    }
}

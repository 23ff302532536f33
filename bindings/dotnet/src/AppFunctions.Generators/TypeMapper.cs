using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using Microsoft.CodeAnalysis;

namespace AppFunctions.Generators;

/// <summary>How one C# type crosses the JSON line: its descriptor type, and code to read and write it.</summary>
internal sealed class TypeRef
{
    public string DescriptorJson = "\"string\"";
    public string Display = "string";
    public bool Nullable;          // T? (value or reference)
    public bool IsArray;
    public bool IsString;
    public bool IsNumber;
    public bool IsSet;
    public string? Unsupported;    // why not

    /// <summary>An expression reading the value at the reader's current token (<c>r</c>).</summary>
    public string Read = "default!";

    /// <summary>A statement writing <c>{0}</c> with <c>w</c>.</summary>
    public string Write = "w.WriteNullValue();";

    /// <summary>A condition reading the value with the <c>ArgumentScanner</c> <c>f</c> into <c>out var {0}</c>
    /// (false: the general reader binds the call); null for a type it does not read.</summary>
    public string? Fast;
}

/// <summary>Maps C# types onto descriptor types and emits their readers and writers.</summary>
internal sealed class TypeMapper(Compilation compilation)
{
    public readonly Dictionary<string, NamedType> Types = new();
    private readonly HashSet<string> _inProgress = new();
    private readonly INamedTypeSymbol? _entityAttr = compilation.GetTypeByMetadataName("AppFunctions.AppFunctionEntityAttribute");
    private readonly INamedTypeSymbol? _description = compilation.GetTypeByMetadataName("System.ComponentModel.DescriptionAttribute");

    public static string Fq(ITypeSymbol t) => t.WithNullableAnnotation(NullableAnnotation.NotAnnotated).ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat);

    public static string Key(ITypeSymbol t)
    {
        var s = t.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat).Replace("global::", "");
        var sb = new StringBuilder();
        foreach (var c in s)
        {
            sb.Append(char.IsLetterOrDigit(c) ? c : '_');
        }
        return sb.ToString();
    }

    public bool IsEntity(ITypeSymbol t, out string name, out AttributeData? attr)
    {
        attr = t.GetAttributes().FirstOrDefault(a => SymbolEqualityComparer.Default.Equals(a.AttributeClass, _entityAttr));
        name = attr?.ConstructorArguments.FirstOrDefault().Value as string ?? "";
        return attr is not null;
    }

    public TypeRef Map(ITypeSymbol type, bool annotatedNullable = false)
    {
        // Nullable<T> and T? on reference types
        if (type is INamedTypeSymbol { OriginalDefinition.SpecialType: SpecialType.System_Nullable_T } nt)
        {
            var inner = Map(nt.TypeArguments[0]);
            return MakeNullable(inner, valueType: true);
        }
        if (type.IsReferenceType && (annotatedNullable || type.NullableAnnotation == NullableAnnotation.Annotated))
        {
            var inner = Map(type.WithNullableAnnotation(NullableAnnotation.NotAnnotated));
            return MakeNullable(inner, valueType: false);
        }
        var r = new TypeRef { Display = type.ToDisplayString() };
        switch (type.SpecialType)
        {
            case SpecialType.System_String:
                return Fast(Prim(r, "\"string\"", "r.GetString()!", "w.WriteStringValue({0});", str: true), "f.String(out var {0})");
            case SpecialType.System_Boolean:
                return Fast(Prim(r, "\"boolean\"", "r.GetBoolean()", "w.WriteBooleanValue({0});"), "f.Boolean(out var {0})");
            case SpecialType.System_Int32:
                return Fast(Prim(r, "\"int32\"", "r.GetInt32()", "w.WriteNumberValue({0});", num: true), "f.Int32(out var {0})");
            case SpecialType.System_Int16:
                return Prim(r, "\"int32\"", "r.GetInt16()", "w.WriteNumberValue({0});", num: true);
            case SpecialType.System_Byte:
                return Prim(r, "\"int32\"", "r.GetByte()", "w.WriteNumberValue({0});", num: true);
            case SpecialType.System_Int64:
                return Fast(Prim(r, "\"int64\"", "r.GetInt64()", "w.WriteNumberValue({0});", num: true), "f.Int64(out var {0})");
            case SpecialType.System_Double:
                return Prim(r, "\"double\"", "r.GetDouble()", "w.WriteNumberValue({0});", num: true);
            case SpecialType.System_Single:
                return Prim(r, "\"double\"", "r.GetSingle()", "w.WriteNumberValue({0});", num: true);
            case SpecialType.System_DateTime:
                r.Unsupported = " (a DateTime has no offset: use DateTimeOffset)";
                return r;
            case SpecialType.System_Decimal:
                r.Unsupported = " (decimal has no descriptor type: use double, or a string)";
                return r;
            case SpecialType.System_Object:
                r.Unsupported = " (object has no schema)";
                return r;
        }
        var fq = Fq(type);
        switch (fq)
        {
            case "global::System.DateTimeOffset":
                return Prim(r, "\"dateTime\"", "r.GetDateTimeOffset()", "w.WriteStringValue({0});");
            case "global::System.DateOnly":
                return Prim(r, "\"date\"", "global::AppFunctions.Generated.JsonHelpers.ReadDate(ref r)", "global::AppFunctions.Generated.JsonHelpers.WriteDate(w, {0});");
            case "global::System.Guid":
                return Prim(r, "\"uuid\"", "r.GetGuid()", "w.WriteStringValue({0});");
        }
        if (type is IArrayTypeSymbol array && array.Rank == 1)
        {
            return Collection(type, array.ElementType, "array");
        }
        if (type is INamedTypeSymbol named && named.IsGenericType && named.TypeArguments.Length == 1)
        {
            var def = named.OriginalDefinition.ToDisplayString();
            switch (def)
            {
                case "System.Collections.Generic.List<T>":
                case "System.Collections.Generic.IList<T>":
                case "System.Collections.Generic.ICollection<T>":
                case "System.Collections.Generic.IEnumerable<T>":
                case "System.Collections.Generic.IReadOnlyList<T>":
                case "System.Collections.Generic.IReadOnlyCollection<T>":
                    return Collection(type, named.TypeArguments[0], "list");
                case "System.Collections.Generic.HashSet<T>":
                case "System.Collections.Generic.ISet<T>":
                case "System.Collections.Generic.IReadOnlySet<T>":
                    return Collection(type, named.TypeArguments[0], "set");
            }
        }
        if (type.TypeKind == TypeKind.Enum)
        {
            return Enum((INamedTypeSymbol)type);
        }
        if (type is INamedTypeSymbol rec && (type.TypeKind == TypeKind.Class || type.TypeKind == TypeKind.Struct) && !rec.IsGenericType
            && !rec.IsAbstract && rec.ContainingNamespace?.ToDisplayString().StartsWith("System", System.StringComparison.Ordinal) != true)
        {
            return Record(rec);
        }
        r.Unsupported = "";
        return r;
    }

    private static TypeRef Prim(TypeRef r, string json, string read, string write, bool str = false, bool num = false)
    {
        r.DescriptorJson = json;
        r.Read = read;
        r.Write = write;
        r.IsString = str;
        r.IsNumber = num;
        return r;
    }

    private static TypeRef Fast(TypeRef r, string fast)
    {
        r.Fast = fast;
        return r;
    }

    private static TypeRef MakeNullable(TypeRef inner, bool valueType)
    {
        if (inner.Unsupported is not null)
        {
            return inner;
        }
        return new TypeRef
        {
            DescriptorJson = inner.DescriptorJson,
            Display = inner.Display + "?",
            Nullable = true,
            IsArray = inner.IsArray,
            IsString = inner.IsString,
            IsNumber = inner.IsNumber,
            IsSet = inner.IsSet,
            Fast = inner.Fast,
            Read = $"(r.TokenType == global::System.Text.Json.JsonTokenType.Null ? default{(valueType ? "" : "!")} : ({(valueType ? inner.Display + "?" : inner.Display)}){inner.Read})",
            Write = valueType
                ? "if (({0}).HasValue) {{ " + inner.Write.Replace("{0}", "({0}).Value") + " }} else {{ w.WriteNullValue(); }}"
                : "if ({0} is null) {{ w.WriteNullValue(); }} else {{ " + inner.Write + " }}",
        };
    }

    private TypeRef Collection(ITypeSymbol type, ITypeSymbol element, string kind)
    {
        var e = Map(element);
        var r = new TypeRef { Display = type.ToDisplayString() };
        if (e.Unsupported is not null)
        {
            r.Unsupported = e.Unsupported;
            return r;
        }
        var key = "Coll_" + Key(type);
        var fqType = Fq(type);
        var fqElem = element.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat);
        var concrete = kind == "set" ? $"global::System.Collections.Generic.HashSet<{fqElem}>" : $"global::System.Collections.Generic.List<{fqElem}>";
        if (!Types.ContainsKey(key))
        {
            var code = new StringBuilder();
            code.AppendLine($"    internal static {fqType} Read_{key}(ref global::System.Text.Json.Utf8JsonReader r)");
            code.AppendLine("    {");
            code.AppendLine($"        var list = new {concrete}();");
            code.AppendLine("        while (r.Read() && r.TokenType != global::System.Text.Json.JsonTokenType.EndArray)");
            code.AppendLine("        {");
            code.AppendLine($"            list.Add({e.Read});");
            code.AppendLine("        }");
            code.AppendLine(kind == "array" ? "        return list.ToArray();" : "        return list;");
            code.AppendLine("    }");
            code.AppendLine();
            code.AppendLine($"    internal static void Write_{key}(global::System.Text.Json.Utf8JsonWriter w, {fqType} value)");
            code.AppendLine("    {");
            code.AppendLine("        w.WriteStartArray();");
            code.AppendLine("        foreach (var item in value)");
            code.AppendLine("        {");
            code.AppendLine("            " + string.Format(CultureInfo.InvariantCulture, e.Write, "item"));
            code.AppendLine("        }");
            code.AppendLine("        w.WriteEndArray();");
            code.AppendLine("    }");
            Types[key] = new NamedType("", false, "", fqType, key, code.ToString());
        }
        r.DescriptorJson = "{\"array\":" + (e.Nullable ? "{\"nullable\":" + e.DescriptorJson + "}" : e.DescriptorJson) + "}";
        r.IsArray = true;
        r.IsSet = kind == "set";
        r.Read = $"__AppFunctionsJson.Read_{key}(ref r)";
        r.Write = $"__AppFunctionsJson.Write_{key}(w, {{0}});";
        return r;
    }

    private TypeRef Enum(INamedTypeSymbol type)
    {
        var name = type.Name;
        var key = "Enum_" + Key(type);
        var fq = Fq(type);
        var r = new TypeRef { Display = type.ToDisplayString(), DescriptorJson = "{\"enum\":" + Json.Str(name) + "}" };
        r.Read = $"__AppFunctionsJson.Read_{key}(ref r)";
        r.Write = $"__AppFunctionsJson.Write_{key}(w, {{0}});";
        r.Fast = $"__AppFunctionsJson.Fast_{key}(ref f, out var {{0}})";
        if (Types.ContainsKey(key))
        {
            return r;
        }
        var members = type.GetMembers().OfType<IFieldSymbol>().Where(f => f.HasConstantValue).ToList();
        var json = new StringBuilder("{\"name\":" + Json.Str(name));
        var desc = Docs.Description(type, _description);
        if (desc is not null)
        {
            json.Append(",\"description\":").Append(Json.Str(desc));
        }
        json.Append(",\"members\":[");
        json.Append(string.Join(",", members.Select(m =>
        {
            var d = Docs.Description(m, _description);
            return d is null ? Json.Str(m.Name) : "{\"name\":" + Json.Str(m.Name) + ",\"description\":" + Json.Str(d) + "}";
        })));
        json.Append("]}");
        var code = new StringBuilder();
        code.AppendLine($"    internal static {fq} Read_{key}(ref global::System.Text.Json.Utf8JsonReader r)");
        code.AppendLine("    {");
        foreach (var m in members)
        {
            code.AppendLine($"        if (r.ValueTextEquals({Json.Str(m.Name)}u8)) return {fq}.{m.Name};");
        }
        code.AppendLine($"        throw global::AppFunctions.Generated.JsonHelpers.Unexpected({Json.Str(name)}, ref r);");
        code.AppendLine("    }");
        code.AppendLine();
        code.AppendLine($"    internal static bool Fast_{key}(ref global::AppFunctions.Generated.ArgumentScanner f, out {fq} value)");
        code.AppendLine("    {");
        code.AppendLine("        value = default;");
        code.AppendLine("        if (!f.RawString(out var s)) return false;");
        foreach (var m in members)
        {
            code.AppendLine($"        if (global::System.MemoryExtensions.SequenceEqual(s, {Json.Str(m.Name)}u8)) {{ value = {fq}.{m.Name}; return true; }}");
        }
        code.AppendLine("        return false;");
        code.AppendLine("    }");
        code.AppendLine();
        code.AppendLine($"    internal static void Write_{key}(global::System.Text.Json.Utf8JsonWriter w, {fq} value)");
        code.AppendLine("    {");
        code.AppendLine("        switch (value)");
        code.AppendLine("        {");
        for (int mi = 0; mi < members.Count; mi++)
        {
            code.AppendLine($"            case {fq}.{members[mi].Name}: w.WriteStringValue({Json.Str(members[mi].Name)}u8); break;");
        }
        code.AppendLine("            default: w.WriteStringValue(value.ToString()); break;");
        code.AppendLine("        }");
        code.AppendLine("    }");
        Types[key] = new NamedType(name, true, json.ToString(), fq, key, code.ToString());
        return r;
    }

    /// <summary>A record's (or entity's) serializable members: public instance properties with a getter.</summary>
    public static List<IPropertySymbol> Properties(INamedTypeSymbol type) =>
        type.GetMembers().OfType<IPropertySymbol>()
            .Where(p => !p.IsStatic && !p.IsIndexer && p.DeclaredAccessibility == Accessibility.Public && p.GetMethod is not null
                        && p.Name != "EqualityContract")
            .ToList();

    private TypeRef Record(INamedTypeSymbol type)
    {
        bool entity = IsEntity(type, out var entityName, out _);
        var name = entity ? entityName : type.Name;
        var key = "Rec_" + Key(type);
        var fq = Fq(type);
        var r = new TypeRef
        {
            Display = type.ToDisplayString(),
            DescriptorJson = entity ? "{\"entity\":" + Json.Str(name) + "}" : "{\"record\":" + Json.Str(name) + "}",
            Read = $"__AppFunctionsJson.Read_{key}(ref r)",
            Write = $"__AppFunctionsJson.Write_{key}(w, {{0}});",
        };
        if (Types.ContainsKey(key) || !_inProgress.Add(key))
        {
            return r; // known, or recursive (the reference is enough)
        }
        var props = Properties(type);
        var fields = new List<string>();
        var reads = new StringBuilder();
        var writes = new StringBuilder();
        var locals = new StringBuilder();
        int i = 0;
        foreach (var p in props)
        {
            var t = Map(p.Type, p.NullableAnnotation == NullableAnnotation.Annotated);
            if (t.Unsupported is not null)
            {
                r.Unsupported = $" (its property {type.Name}.{p.Name} has type '{p.Type.ToDisplayString()}'{t.Unsupported})";
                _inProgress.Remove(key);
                return r;
            }
            var jsonName = Names.Camel(p.Name);
            var f = new StringBuilder("{\"name\":" + Json.Str(jsonName) + ",\"type\":" + t.DescriptorJson);
            if (t.Nullable)
            {
                f.Append(",\"nullable\":true,\"optional\":true");
            }
            var d = Docs.Description(p, _description);
            if (d is not null)
            {
                f.Append(",\"description\":").Append(Json.Str(d));
            }
            f.Append(Constraints.Json(p.GetAttributes(), t, null, null));
            f.Append('}');
            fields.Add(f.ToString());
            locals.AppendLine($"        {p.Type.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat)} p{i} = default!;");
            reads.AppendLine($"            {(i == 0 ? "" : "else ")}if (r.ValueTextEquals({Json.Str(jsonName)}u8)) {{ r.Read(); p{i} = {t.Read}; }}");
            writes.AppendLine($"        w.WritePropertyName({Json.Str(jsonName)}u8);");
            writes.AppendLine("        " + string.Format(CultureInfo.InvariantCulture, t.Write, "value." + p.Name));
            i++;
        }
        // construct: the constructor whose parameters all match properties, then the settable rest
        var ctor = type.InstanceConstructors
            .Where(c => c.DeclaredAccessibility == Accessibility.Public)
            .OrderByDescending(c => c.Parameters.Length)
            .FirstOrDefault(c => c.Parameters.All(a => props.Any(p => string.Equals(p.Name, a.Name, System.StringComparison.OrdinalIgnoreCase))));
        var ctorArgs = ctor?.Parameters.Select(a => "p" + props.FindIndex(p => string.Equals(p.Name, a.Name, System.StringComparison.OrdinalIgnoreCase))).ToList() ?? [];
        var inits = props.Select((p, idx) => (p, idx))
            .Where(x => ctor is null || !ctor.Parameters.Any(a => string.Equals(a.Name, x.p.Name, System.StringComparison.OrdinalIgnoreCase)))
            .Where(x => x.p.SetMethod is not null && x.p.SetMethod.DeclaredAccessibility == Accessibility.Public)
            .Select(x => $"{x.p.Name} = p{x.idx}")
            .ToList();
        var code = new StringBuilder();
        code.AppendLine($"    internal static {fq} Read_{key}(ref global::System.Text.Json.Utf8JsonReader r)");
        code.AppendLine("    {");
        code.AppendLine("        if (r.TokenType != global::System.Text.Json.JsonTokenType.StartObject)");
        code.AppendLine($"            throw global::AppFunctions.Generated.JsonHelpers.Unexpected({Json.Str(name)}, ref r);");
        code.Append(locals);
        code.AppendLine("        while (r.Read() && r.TokenType == global::System.Text.Json.JsonTokenType.PropertyName)");
        code.AppendLine("        {");
        code.Append(reads);
        code.AppendLine($"            {(i == 0 ? "" : "else ")}{{ r.Read(); r.Skip(); }}");
        code.AppendLine("        }");
        code.AppendLine($"        return new {fq}({string.Join(", ", ctorArgs)}){(inits.Count > 0 ? " { " + string.Join(", ", inits) + " }" : "")};");
        code.AppendLine("    }");
        code.AppendLine();
        code.AppendLine($"    internal static void Write_{key}(global::System.Text.Json.Utf8JsonWriter w, {fq} value)");
        code.AppendLine("    {");
        code.AppendLine("        w.WriteStartObject();");
        code.Append(writes);
        code.AppendLine("        w.WriteEndObject();");
        code.AppendLine("    }");
        string json;
        if (entity)
        {
            json = ""; // an entity's descriptor is registered by its own unit
        }
        else
        {
            var sb = new StringBuilder("{\"name\":" + Json.Str(name));
            var desc = Docs.Description(type, _description);
            if (desc is not null)
            {
                sb.Append(",\"description\":").Append(Json.Str(desc));
            }
            sb.Append(",\"fields\":[").Append(string.Join(",", fields)).Append("]}");
            json = sb.ToString();
        }
        Types[key] = new NamedType(entity ? "" : name, false, json, fq, key, code.ToString());
        _inProgress.Remove(key);
        return r;
    }

    /// <summary>The fields of an entity's descriptor.</summary>
    public string EntityFields(INamedTypeSymbol type)
    {
        var parts = new List<string>();
        foreach (var p in Properties(type))
        {
            var t = Map(p.Type, p.NullableAnnotation == NullableAnnotation.Annotated);
            var f = new StringBuilder("{\"name\":" + Json.Str(Names.Camel(p.Name)) + ",\"type\":" + t.DescriptorJson);
            if (t.Nullable)
            {
                f.Append(",\"nullable\":true,\"optional\":true");
            }
            var d = Docs.Description(p, _description);
            if (d is not null)
            {
                f.Append(",\"description\":").Append(Json.Str(d));
            }
            f.Append('}');
            parts.Add(f.ToString());
        }
        return "[" + string.Join(",", parts) + "]";
    }
}

internal static class Json
{
    public static string Str(string s)
    {
        var sb = new StringBuilder("\"");
        foreach (var c in s)
        {
            switch (c)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                default:
                    if (c < ' ')
                    {
                        sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    }
                    else
                    {
                        sb.Append(c);
                    }
                    break;
            }
        }
        return sb.Append('"').ToString();
    }

    /// <summary>A C# string literal holding <paramref name="s"/>.</summary>
    public static string CSharp(string s) => "@\"" + s.Replace("\"", "\"\"") + "\"";

    public static string Constant(object? value, ITypeSymbol type)
    {
        switch (value)
        {
            case null: return "null";
            case string s: return Str(s);
            case bool b: return b ? "true" : "false";
            case double d: return d.ToString("R", CultureInfo.InvariantCulture);
            case float f: return f.ToString("R", CultureInfo.InvariantCulture);
        }
        if (type.TypeKind == TypeKind.Enum || (type is INamedTypeSymbol n && n.TypeArguments.Length == 1 && n.TypeArguments[0].TypeKind == TypeKind.Enum))
        {
            var e = type.TypeKind == TypeKind.Enum ? type : ((INamedTypeSymbol)type).TypeArguments[0];
            var member = e.GetMembers().OfType<IFieldSymbol>().FirstOrDefault(f => f.HasConstantValue && Equals(f.ConstantValue, value));
            return Str(member?.Name ?? value.ToString()!);
        }
        return System.Convert.ToString(value, CultureInfo.InvariantCulture)!;
    }
}

internal static class Names
{
    public static string Camel(string s) => s.Length == 0 ? s : char.ToLowerInvariant(s[0]) + s.Substring(1);

    public static string Pascal(string s)
    {
        var sb = new StringBuilder();
        bool up = true;
        foreach (var c in s)
        {
            if (c == '_')
            {
                up = true;
                continue;
            }
            sb.Append(up ? char.ToUpperInvariant(c) : c);
            up = false;
        }
        return sb.ToString();
    }

    /// <summary>CreateOrder → create_order; HTTPServer → http_server.</summary>
    public static string Snake(string s)
    {
        var sb = new StringBuilder();
        for (int i = 0; i < s.Length; i++)
        {
            var c = s[i];
            if (char.IsUpper(c))
            {
                bool prevLower = i > 0 && (char.IsLower(s[i - 1]) || char.IsDigit(s[i - 1]));
                bool nextLower = i + 1 < s.Length && char.IsLower(s[i + 1]);
                if (i > 0 && (prevLower || (nextLower && char.IsUpper(s[i - 1]))))
                {
                    sb.Append('_');
                }
                sb.Append(char.ToLowerInvariant(c));
            }
            else
            {
                sb.Append(c);
            }
        }
        return sb.ToString();
    }

    public static bool IsSnake(string s)
    {
        if (s.Length == 0 || s.Length > 64 || s[0] < 'a' || s[0] > 'z')
        {
            return false;
        }
        return s.All(c => (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    }
}

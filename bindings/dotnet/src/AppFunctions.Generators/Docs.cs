using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace AppFunctions.Generators;

/// <summary>Descriptions: <c>[Description]</c> first, else the XML doc comment (read from the
/// syntax when the project does not generate documentation).</summary>
internal static class Docs
{
    public static string? Description(ISymbol symbol, INamedTypeSymbol? descriptionAttribute)
    {
        var attr = symbol.GetAttributes().FirstOrDefault(a =>
            SymbolEqualityComparer.Default.Equals(a.AttributeClass, descriptionAttribute) || a.AttributeClass?.Name == "AIDescriptionAttribute");
        if (attr?.ConstructorArguments.FirstOrDefault().Value is string s && s.Length > 0)
        {
            return s;
        }
        if (symbol is IParameterSymbol p)
        {
            return Param(p.ContainingSymbol, p.Name);
        }
        return Summary(symbol);
    }

    public static string? Summary(ISymbol symbol) => Element(Xml(symbol), "summary");

    public static string? Param(ISymbol method, string name)
    {
        var doc = Xml(method);
        var e = doc?.Descendants("param").FirstOrDefault(x => (string?)x.Attribute("name") == name);
        return e is null ? null : Text(e);
    }

    private static string? Element(XElement? doc, string name)
    {
        var e = doc?.Element(name);
        return e is null ? null : Text(e);
    }

    private static string? Text(XElement e)
    {
        var sb = new StringBuilder();
        foreach (var n in e.Nodes())
        {
            if (n is XText t)
            {
                sb.Append(t.Value);
            }
            else if (n is XElement x)
            {
                // <see cref="T:Ns.Type"/> → Type; <c>x</c> → x
                var cref = (string?)x.Attribute("cref") ?? (string?)x.Attribute("langword") ?? (string?)x.Attribute("name");
                sb.Append(cref is not null && x.IsEmpty ? cref.Substring(cref.IndexOf(':') + 1).Split('.').Last() : x.Value);
            }
        }
        var text = Regex.Replace(sb.ToString(), @"\s+", " ").Trim();
        return text.Length == 0 ? null : text;
    }

    private static XElement? Xml(ISymbol symbol)
    {
        var xml = symbol.GetDocumentationCommentXml(CultureInfo.InvariantCulture, expandIncludes: false);
        if (string.IsNullOrWhiteSpace(xml))
        {
            xml = FromSyntax(symbol);
        }
        if (string.IsNullOrWhiteSpace(xml))
        {
            return null;
        }
        try
        {
            var root = XElement.Parse(xml!.TrimStart().StartsWith("<member", System.StringComparison.Ordinal) ? xml : "<doc>" + xml + "</doc>");
            return root;
        }
        catch (System.Xml.XmlException)
        {
            return null;
        }
    }

    /// <summary>The <c>///</c> lines above the declaration (projects without GenerateDocumentationFile
    /// parse doc comments as plain comments).</summary>
    private static string? FromSyntax(ISymbol symbol)
    {
        var node = symbol.DeclaringSyntaxReferences.FirstOrDefault()?.GetSyntax();
        if (node is null)
        {
            return null;
        }
        var lines = new List<string>();
        foreach (var trivia in node.GetLeadingTrivia())
        {
            if (trivia.IsKind(SyntaxKind.SingleLineDocumentationCommentTrivia) || trivia.IsKind(SyntaxKind.SingleLineCommentTrivia))
            {
                foreach (var raw in trivia.ToFullString().Split('\n'))
                {
                    var line = raw.Trim();
                    if (line.StartsWith("///", System.StringComparison.Ordinal))
                    {
                        lines.Add(line.Substring(3));
                    }
                }
            }
        }
        return lines.Count == 0 ? null : string.Join("\n", lines);
    }
}

/// <summary>DataAnnotations → the core's value constraints (issue 13: minimum/maximum, lengths, pattern, items).</summary>
internal static class Constraints
{
    /// <summary>The constraint keys to add to a parameter or field (",\"minimum\":1,...");
    /// a misplaced annotation is reported through <paramref name="report"/>.</summary>
    public static string Json(IEnumerable<AttributeData> attributes, TypeRef type, System.Action<string, string>? report, string? _)
    {
        var sb = new StringBuilder();
        foreach (var a in attributes)
        {
            var name = a.AttributeClass?.ToDisplayString();
            var args = a.ConstructorArguments;
            switch (name)
            {
                case "System.ComponentModel.DataAnnotations.RangeAttribute":
                    if (!type.IsNumber)
                    {
                        report?.Invoke("Range", "it bounds numbers: use [StringLength] or [RegularExpression] for text, [MinLength]/[MaxLength] for arrays");
                        break;
                    }
                    if (args.Length == 2 && args[0].Value is not null && args[0].Kind == TypedConstantKind.Primitive && args[0].Value is not string)
                    {
                        bool exMin = Named(a, "MinimumIsExclusive") is true, exMax = Named(a, "MaximumIsExclusive") is true;
                        sb.Append(exMin ? ",\"exclusiveMinimum\":" : ",\"minimum\":").Append(Number(args[0].Value!));
                        sb.Append(exMax ? ",\"exclusiveMaximum\":" : ",\"maximum\":").Append(Number(args[1].Value!));
                    }
                    break;
                case "System.ComponentModel.DataAnnotations.StringLengthAttribute":
                    if (!type.IsString)
                    {
                        report?.Invoke("StringLength", "it bounds text: use [Range] for numbers, [MinLength]/[MaxLength] for arrays");
                        break;
                    }
                    if (Named(a, "MinimumLength") is int min && min > 0)
                    {
                        sb.Append(",\"minLength\":").Append(min);
                    }
                    sb.Append(",\"maxLength\":").Append(args[0].Value);
                    break;
                case "System.ComponentModel.DataAnnotations.MinLengthAttribute":
                case "System.ComponentModel.DataAnnotations.MaxLengthAttribute":
                case "System.ComponentModel.DataAnnotations.LengthAttribute":
                    if (!type.IsString && !type.IsArray)
                    {
                        report?.Invoke(a.AttributeClass!.Name.Replace("Attribute", ""), "it bounds text or arrays: use [Range] for numbers");
                        break;
                    }
                    var (lo, hi) = (type.IsString ? "minLength" : "minItems", type.IsString ? "maxLength" : "maxItems");
                    if (name.EndsWith("MinLengthAttribute", System.StringComparison.Ordinal))
                    {
                        sb.Append(",\"").Append(lo).Append("\":").Append(args[0].Value);
                    }
                    else if (name.EndsWith("MaxLengthAttribute", System.StringComparison.Ordinal))
                    {
                        if (args.Length > 0)
                        {
                            sb.Append(",\"").Append(hi).Append("\":").Append(args[0].Value);
                        }
                    }
                    else
                    {
                        sb.Append(",\"").Append(lo).Append("\":").Append(args[0].Value);
                        sb.Append(",\"").Append(hi).Append("\":").Append(args[1].Value);
                    }
                    break;
                case "System.ComponentModel.DataAnnotations.RegularExpressionAttribute":
                    if (!type.IsString)
                    {
                        report?.Invoke("RegularExpression", "a pattern applies to text only");
                        break;
                    }
                    sb.Append(",\"pattern\":").Append(Generators.Json.Str((string)args[0].Value!));
                    break;
            }
        }
        if (type.IsSet)
        {
            sb.Append(",\"uniqueItems\":true");
        }
        return sb.ToString();
    }

    private static object? Named(AttributeData a, string name) =>
        a.NamedArguments.FirstOrDefault(kv => kv.Key == name).Value.Value;

    private static string Number(object v) => v switch
    {
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        float f => f.ToString("R", CultureInfo.InvariantCulture),
        _ => System.Convert.ToString(v, CultureInfo.InvariantCulture)!,
    };
}

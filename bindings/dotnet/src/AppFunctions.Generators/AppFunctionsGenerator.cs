using System.Collections.Generic;
using System.Collections.Immutable;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace AppFunctions.Generators;

/// <summary>
/// Finds the app's <c>[AppFunction]</c> methods, delegates, entities and entity providers and emits,
/// at compile time: descriptors, JSON readers and writers (no reflection), invokers, request types,
/// a <c>JsonSerializerContext</c> over them and a module initializer that lists them for
/// <c>AddAppFunctions()</c>.
/// </summary>
[Generator(LanguageNames.CSharp)]
public sealed class AppFunctionsGenerator : IIncrementalGenerator
{
    private const string AttrName = "AppFunctions.AppFunctionAttribute";

    /// <inheritdoc/>
    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        // Each step builds its unit's model (strings only) from the symbol it matched, so later
        // steps cache on equal models: an edit elsewhere does not re-emit the file.
        var plain = context.SyntaxProvider.ForAttributeWithMetadataName(AttrName,
            static (n, _) => n is MethodDeclarationSyntax,
            static (c, _) => Units.Functions(c.TargetSymbol.ContainingType, c.SemanticModel.Compilation));
        var generic = context.SyntaxProvider.ForAttributeWithMetadataName(AttrName + "`1",
            static (n, _) => n is MethodDeclarationSyntax,
            static (c, _) => Units.Functions(c.TargetSymbol.ContainingType, c.SemanticModel.Compilation));
        var entities = context.SyntaxProvider.ForAttributeWithMetadataName("AppFunctions.AppFunctionEntityAttribute",
            static (n, _) => n is TypeDeclarationSyntax,
            static (c, _) => Units.Entity((INamedTypeSymbol)c.TargetSymbol, c.SemanticModel.Compilation));
        var implementers = context.SyntaxProvider.CreateSyntaxProvider(
            static (n, _) => n is ClassDeclarationSyntax { BaseList: not null },
            static (c, ct) =>
            {
                var symbol = c.SemanticModel.GetDeclaredSymbol(c.Node, ct) as INamedTypeSymbol;
                if (symbol is null || symbol.IsAbstract || symbol.IsGenericType)
                {
                    return EquatableArray<UnitModel>.Empty;
                }
                return Units.Implementer(symbol).ToEquatable();
            });

        var units = plain.Collect().Combine(generic.Collect()).Combine(entities.Collect()).Combine(implementers.Collect())
            .Select(static (x, _) => x.Left.Left.Left.Concat(x.Left.Left.Right).Concat(x.Left.Right).Concat(x.Right.SelectMany(u => u)).ToEquatable());
        var assembly = context.CompilationProvider.Select(static (c, _) => c.AssemblyName ?? "app");
        var model = units.Combine(assembly).Select(static (x, _) => Build(x.Left, x.Right)).WithTrackingName("AppFunctionsModel");

        context.RegisterSourceOutput(model, static (spc, m) =>
        {
            foreach (var d in m.Units.SelectMany(u => u.Diagnostics).Concat(m.Diagnostics))
            {
                spc.ReportDiagnostic(d.ToDiagnostic());
            }
            if (m.Units.Items.Length > 0)
            {
                spc.AddSource("AppFunctions.g.cs", Emitter.Emit(m));
            }
        });
    }

    internal sealed record AssemblyModel(string AssemblyName, EquatableArray<UnitModel> Units, EquatableArray<DiagnosticInfo> Diagnostics);

    private static AssemblyModel Build(EquatableArray<UnitModel> all, string assemblyName)
    {
        var diags = new List<DiagnosticInfo>();
        // one unit per type (a class with several functions matched once per method); entities
        // first, then functions, then delegates and providers; within each, source order
        var ordered = all.GroupBy(u => u.DeclaringType).Select(g => g.First())
            .OrderBy(u => u.SortKey, System.StringComparer.Ordinal).ToList();

        // one id per function, one C# type per descriptor type name. A duplicate is reported at
        // the later declaration, and the unit holding it is left out of the generated code: its
        // request records and members would collide with the first one's (CS0102, CS0111)
        // and bury the one error that says what to fix.
        var ids = new Dictionary<string, string>();
        var clashing = new HashSet<UnitModel>();
        foreach (var u in ordered)
        {
            for (int i = 0; i < u.FunctionIds.Items.Length; i++)
            {
                var id = u.FunctionIds.Items[i];
                var sym = u.FunctionSymbols.Items[i];
                if (ids.TryGetValue(id, out var other))
                {
                    diags.Add(DiagnosticInfo.At(Diagnostics.DuplicateId, u.FunctionPlaces.Items[i], id, other, sym));
                    clashing.Add(u);
                }
                else
                {
                    ids[id] = sym;
                }
            }
        }
        foreach (var u in clashing)
        {
            diags.AddRange(u.Diagnostics); // still reported
        }
        ordered.RemoveAll(clashing.Contains);
        var typeNames = new Dictionary<string, string>();
        foreach (var nt in ordered.SelectMany(u => u.Types).Where(t => t.Name.Length > 0))
        {
            if (typeNames.TryGetValue(nt.Name, out var fq) && fq != nt.FullName)
            {
                diags.Add(DiagnosticInfo.Create(Diagnostics.DuplicateTypeName, Location.None, fq, nt.FullName, nt.Name));
            }
            typeNames[nt.Name] = nt.FullName;
        }
        return new AssemblyModel(assemblyName, ordered.ToEquatable(), diags.Distinct().ToEquatable());
    }
}

/// <summary>Builds the unit of one declaring type.</summary>
internal static class Units
{
    private static string SortKey(ISymbol s, int group)
    {
        var loc = s.Locations.FirstOrDefault(l => l.IsInSource);
        return $"{group}|{loc?.SourceTree?.FilePath}|{loc?.SourceSpan.Start ?? 0:D10}|{s.ToDisplayString()}";
    }

    public static UnitModel Entity(INamedTypeSymbol type, Compilation compilation)
    {
        var mapper = new TypeMapper(compilation);
        var diags = new List<DiagnosticInfo>();
        mapper.IsEntity(type, out var name, out var attr);
        string? Named(string n) => attr!.NamedArguments.FirstOrDefault(kv => kv.Key == n).Value.Value as string;
        var loc = type.Locations.FirstOrDefault();
        if (!Names.IsSnake(name))
        {
            diags.Add(DiagnosticInfo.Create(Diagnostics.InvalidEntityName, loc, name, type.Name));
        }
        var idProp = Named("IdProperty") ?? "Id";
        var id = TypeMapper.Properties(type).FirstOrDefault(p => p.Name == idProp);
        if (id is null || id.Type.SpecialType != SpecialType.System_String)
        {
            diags.Add(DiagnosticInfo.Create(Diagnostics.EntityWithoutId, loc, type.Name, idProp));
        }
        var r = mapper.Map(type);
        var description = Named("Description") ?? Docs.Description(type, compilation.GetTypeByMetadataName("System.ComponentModel.DescriptionAttribute"));
        var json = new StringBuilder("{\"name\":" + Json.Str(name));
        if (Named("Title") is { } title)
        {
            json.Append(",\"title\":").Append(Json.Str(title));
        }
        if (description is not null)
        {
            json.Append(",\"description\":").Append(Json.Str(description));
        }
        json.Append(",\"idField\":").Append(Json.Str(Names.Camel(idProp)));
        json.Append(",\"fields\":").Append(mapper.EntityFields(type)).Append('}');
        var fq = TypeMapper.Fq(type);
        var register = $"            r.RegisterEntity<{fq}>({Json.CSharp(name)}, {Json.CSharp(json.ToString())}, static (w, v) => {{ {string.Format(CultureInfo.InvariantCulture, r.Write, "v")} }});";
        return new UnitModel(fq, SortKey(type, 0), "", register, "", mapper.Types.Values.ToEquatable(),
            EquatableArray<string>.Empty, EquatableArray<string>.Empty, EquatableArray<SourcePlace>.Empty, diags.ToEquatable(), "", "",
            new[] { "entity\t" + name + "\t" + json }.ToEquatable());
    }

    public static IEnumerable<UnitModel> Implementer(INamedTypeSymbol type)
    {
        var fq = TypeMapper.Fq(type);
        var del = type.AllInterfaces.FirstOrDefault(i => i.ToDisplayString() == "AppFunctions.IAppFunctionDelegate");
        if (del is not null)
        {
            bool Implements(string member)
            {
                var m = del.GetMembers(member).FirstOrDefault();
                var impl = m is null ? null : type.FindImplementationForInterfaceMember(m);
                return impl is not null && impl.ContainingType.TypeKind != TypeKind.Interface;
            }
            var services = $"            global::Microsoft.Extensions.DependencyInjection.Extensions.ServiceCollectionDescriptorExtensions.TryAddScoped<{fq}>(s);";
            // the services its constructor takes (checked at startup: a missing one fails there,
            // naming the delegate and the service); none listed when DI could pick among several
            var ctors = type.InstanceConstructors.Where(c => c.DeclaredAccessibility == Accessibility.Public).ToList();
            var deps = ctors.Count == 1
                ? string.Concat(ctors[0].Parameters.Where(p => !p.HasExplicitDefaultValue)
                    .Select(p => ", typeof(" + p.Type.WithNullableAnnotation(NullableAnnotation.NotAnnotated).ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat) + ")"))
                : "";
            var register = $"            r.AddDelegate<{fq}>({(Implements("OnInvoking") ? "true" : "false")}, {(Implements("OnInvoked") ? "true" : "false")}{deps});";
            yield return new UnitModel(fq, SortKey(type, 2), services, register, "", EquatableArray<NamedType>.Empty,
                EquatableArray<string>.Empty, EquatableArray<string>.Empty, EquatableArray<SourcePlace>.Empty, EquatableArray<DiagnosticInfo>.Empty, "", "");
        }
        foreach (var p in type.AllInterfaces.Where(i => i.OriginalDefinition.ToDisplayString() == "AppFunctions.IAppFunctionEntityProvider<TEntity>"))
        {
            var iface = p.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat);
            var services = $"            global::Microsoft.Extensions.DependencyInjection.Extensions.ServiceCollectionDescriptorExtensions.TryAddScoped<{iface}, {fq}>(s);";
            yield return new UnitModel(fq + "|" + iface, SortKey(type, 3), services, "", "", EquatableArray<NamedType>.Empty,
                EquatableArray<string>.Empty, EquatableArray<string>.Empty, EquatableArray<SourcePlace>.Empty, EquatableArray<DiagnosticInfo>.Empty, "", "");
        }
    }

    public static UnitModel Functions(INamedTypeSymbol type, Compilation compilation)
    {
        var mapper = new TypeMapper(compilation);
        var diags = new List<DiagnosticInfo>();
        var description = compilation.GetTypeByMetadataName("System.ComponentModel.DescriptionAttribute");
        var fqType = TypeMapper.Fq(type);
        var register = new StringBuilder();
        var services = new StringBuilder();
        var members = new StringBuilder();
        var requests = new StringBuilder();
        var places = new List<SourcePlace>();
        var ids = new List<string>();
        var symbols = new List<string>();
        var metadataProps = new SortedSet<string>(System.StringComparer.Ordinal);
        var bundle = new List<string>();

        // the toolkit ([Collapse] on the class)
        string? toolkit = null;
        var collapse = type.GetAttributes().FirstOrDefault(a => a.AttributeClass?.ToDisplayString() == "AppFunctions.CollapseAttribute");
        if (collapse is not null)
        {
            var args = collapse.ConstructorArguments;
            toolkit = collapse.NamedArguments.FirstOrDefault(kv => kv.Key == "Name").Value.Value as string ?? Names.Snake(type.Name);
            var tk = new StringBuilder("{\"name\":" + Json.Str(toolkit) + ",\"description\":" + Json.Str(args[0].Value as string ?? ""));
            var dyn = new List<string>();
            for (int which = 0; which < 2; which++)
            {
                var text = args.Length > which + 1 ? args[which + 1].Value as string : null;
                if (text is null)
                {
                    continue;
                }
                var key = which == 0 ? "FunctionResult" : "SystemPrompt";
                var member = Regex.IsMatch(text, @"^[A-Za-z_][A-Za-z0-9_]*$") ? type.GetMembers(text).FirstOrDefault() : null;
                if (member is null)
                {
                    tk.Append(which == 0 ? ",\"functionResult\":" : ",\"systemPrompt\":").Append(Json.Str(text));
                    continue;
                }
                string? expr = member switch
                {
                    IPropertySymbol { IsStatic: true, Type.SpecialType: SpecialType.System_String } p => $"{fqType}.{p.Name}",
                    IMethodSymbol { IsStatic: true, Parameters.Length: 0, ReturnType.SpecialType: SpecialType.System_String } m => $"{fqType}.{m.Name}()",
                    IFieldSymbol { IsStatic: true, Type.SpecialType: SpecialType.System_String } f => $"{fqType}.{f.Name}",
                    _ => null,
                };
                if (expr is null)
                {
                    diags.Add(DiagnosticInfo.Create(Diagnostics.BadToolkitText, type.Locations.FirstOrDefault(), key, text, type.Name));
                    continue;
                }
                dyn.Add($"which == {which} ? {expr}");
            }
            tk.Append('}');
            var texts = dyn.Count == 0 ? "" : $", static (which, metadata) => {string.Join(" : ", dyn)} : null";
            register.AppendLine($"            r.DefineToolkit({Json.CSharp(tk.ToString())}{texts});");
            bundle.Add("toolkit\t" + toolkit + "\t" + tk);
        }

        bool needsInstance = false;
        foreach (var m in type.GetMembers().OfType<IMethodSymbol>())
        {
            var attr = m.GetAttributes().FirstOrDefault(a => a.AttributeClass?.OriginalDefinition.ToDisplayString() is "AppFunctions.AppFunctionAttribute" or "AppFunctions.AppFunctionAttribute<TMetadata>");
            if (attr is null)
            {
                continue;
            }
            var loc = m.Locations.FirstOrDefault();
            string? Named(string n) => attr.NamedArguments.FirstOrDefault(kv => kv.Key == n).Value.Value?.ToString();
            bool Flag(string n) => attr.NamedArguments.FirstOrDefault(kv => kv.Key == n).Value.Value is true;

            if (m.DeclaredAccessibility is not (Accessibility.Public or Accessibility.Internal) || !Visible(type))
            {
                diags.Add(DiagnosticInfo.Create(Diagnostics.NotAccessible, loc, m.Name,
                    m.DeclaredAccessibility is not (Accessibility.Public or Accessibility.Internal) ? m.DeclaredAccessibility.ToString().ToLowerInvariant() : "in a class that is not accessible"));
                continue;
            }
            if (m.IsGenericMethod || type.IsGenericType || (type.IsAbstract && !m.IsStatic))
            {
                diags.Add(DiagnosticInfo.Create(Diagnostics.GenericFunction, loc, m.Name,
                    m.IsGenericMethod ? "is generic" : type.IsGenericType ? "is declared in a generic class" : "is an instance method of an abstract class"));
                continue;
            }
            var id = Named("Name") ?? Names.Snake(m.Name);
            if (!Names.IsSnake(id))
            {
                diags.Add(DiagnosticInfo.Create(Diagnostics.InvalidId, loc, id, Names.Snake(Regex.Replace(id, "[^A-Za-z0-9]", ""))));
                continue;
            }
            var metadataType = attr.AttributeClass!.IsGenericType ? attr.AttributeClass.TypeArguments[0] as INamedTypeSymbol : null;
            var metadataNames = metadataType is null ? null : AllProperties(metadataType).ToList();
            void CheckTemplate(string? text)
            {
                if (text is null || metadataNames is null)
                {
                    return;
                }
                foreach (Match x in Regex.Matches(text, @"\{metadata\.([A-Za-z_][A-Za-z0-9_]*)\}"))
                {
                    if (!metadataNames.Any(p => p.Name == x.Groups[1].Value))
                    {
                        diags.Add(DiagnosticInfo.Create(Diagnostics.UnknownPlaceholder, loc, x.Groups[1].Value, text, metadataType!.Name,
                            string.Join(", ", metadataNames.Select(p => p.Name))));
                    }
                }
            }
            var json = new StringBuilder("{\"id\":" + Json.Str(id));
            var title = Named("Title");
            CheckTemplate(title);
            if (title is not null)
            {
                json.Append(",\"title\":").Append(Json.Str(title));
            }
            var desc = Named("Description") ?? Docs.Description(m, description);
            CheckTemplate(desc);
            if (desc is not null)
            {
                json.Append(",\"description\":").Append(Json.Str(desc));
            }
            json.Append(",\"symbol\":").Append(Json.Str(type.Name + "." + m.Name));

            // parameters
            var reqName = Names.Pascal(id);
            var req = new StringBuilder();
            var bind = new StringBuilder();
            var fast = new StringBuilder();
            bool allFast = true;
            var callArgs = new List<string>();
            var ps = new List<string>();
            bool failed = false;
            foreach (var p in m.Parameters)
            {
                var pfq = p.Type.ToDisplayString();
                if (pfq == "AppFunctions.AppFunctionContext")
                {
                    callArgs.Add("call.Context");
                    continue;
                }
                if (pfq == "System.Threading.CancellationToken")
                {
                    callArgs.Add("call.CancellationToken");
                    continue;
                }
                if (p.RefKind != RefKind.None || p.IsParams)
                {
                    diags.Add(DiagnosticInfo.Create(Diagnostics.ByRefParameter, p.Locations.FirstOrDefault() ?? loc, p.Name, m.Name));
                    failed = true;
                    continue;
                }
                var t = mapper.Map(p.Type, p.NullableAnnotation == NullableAnnotation.Annotated);
                if (t.Unsupported is not null)
                {
                    diags.Add(DiagnosticInfo.Create(Diagnostics.UnsupportedParameter, p.Locations.FirstOrDefault() ?? loc, p.Name, m.Name, p.Type.ToDisplayString(), t.Unsupported));
                    failed = true;
                    continue;
                }
                var name = Names.Camel(p.Name);
                var prop = Names.Pascal(p.Name);
                var pj = new StringBuilder("{\"name\":" + Json.Str(name) + ",\"type\":" + t.DescriptorJson);
                var pdesc = Docs.Description(p, description);
                CheckTemplate(pdesc);
                if (pdesc is not null)
                {
                    pj.Append(",\"description\":").Append(Json.Str(pdesc));
                }
                if (t.Nullable)
                {
                    pj.Append(",\"nullable\":true");
                }
                if (p.HasExplicitDefaultValue)
                {
                    pj.Append(",\"optional\":true");
                    if (p.ExplicitDefaultValue is not null)
                    {
                        pj.Append(",\"default\":").Append(Json.Constant(p.ExplicitDefaultValue, p.Type));
                    }
                }
                else if (t.Nullable)
                {
                    pj.Append(",\"optional\":true");
                }
                pj.Append(Constraints.Json(p.GetAttributes(), t, (attrName, why) =>
                    diags.Add(DiagnosticInfo.Create(Diagnostics.MisplacedAnnotation, p.Locations.FirstOrDefault() ?? loc, attrName, p.Name, p.Type.ToDisplayString(), why)), null));
                pj.Append('}');
                ps.Add(pj.ToString());
                var ptype = p.Type.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat);
                var init = p.HasExplicitDefaultValue ? " = " + DefaultExpr(p) + ";" : " = default!;";
                req.AppendLine($"        public {ptype} {prop} {{ get; set; }}{init}");
                bind.AppendLine($"            {(bind.Length == 0 ? "" : "else ")}if (r.ValueTextEquals({Json.Str(name)}u8)) {{ r.Read(); req.{prop} = {t.Read}; }}");
                if (t.Fast is null)
                {
                    allFast = false;
                }
                else
                {
                    var v = "v" + callArgs.Count.ToString(CultureInfo.InvariantCulture);
                    var read = string.Format(CultureInfo.InvariantCulture, t.Fast, v);
                    var set = t.Nullable
                        ? $"if (f.Null()) {{ req.{prop} = null; }} else if ({read}) {{ req.{prop} = {v}; }} else {{ break; }}"
                        : $"if (!{read}) {{ break; }} req.{prop} = {v};";
                    fast.AppendLine($"            {(fast.Length == 0 ? "" : "else ")}if (global::System.MemoryExtensions.SequenceEqual(name, {Json.Str(name)}u8)) {{ {set} }}");
                }
                callArgs.Add("req." + prop);
            }
            if (failed)
            {
                continue;
            }
            json.Append(",\"parameters\":[").Append(string.Join(",", ps)).Append(']');

            // result
            var ret = m.ReturnType;
            string kind = "sync";
            if (ret is INamedTypeSymbol rn && rn.IsGenericType && rn.OriginalDefinition.ToDisplayString() is "System.Threading.Tasks.Task<TResult>" or "System.Threading.Tasks.ValueTask<TResult>")
            {
                kind = "task";
                ret = rn.TypeArguments[0];
            }
            else if (ret.ToDisplayString() is "System.Threading.Tasks.Task" or "System.Threading.Tasks.ValueTask")
            {
                kind = "voidtask";
            }
            string? write = null;
            bool plainString = false;
            if (kind != "voidtask" && !m.ReturnsVoid)
            {
                var rt = mapper.Map(ret, ret.NullableAnnotation == NullableAnnotation.Annotated);
                if (rt.Unsupported is not null)
                {
                    diags.Add(DiagnosticInfo.Create(Diagnostics.UnsupportedReturn, loc, m.Name, m.ReturnType.ToDisplayString(), rt.Unsupported));
                    continue;
                }
                json.Append(",\"result\":").Append(rt.Nullable ? "{\"nullable\":" + rt.DescriptorJson + "}" : rt.DescriptorJson);
                write = string.Format(CultureInfo.InvariantCulture, rt.Write, "v");
                plainString = rt.IsString && !rt.Nullable && !rt.IsArray && write == "w.WriteStringValue(v);";
            }
            if (Named("OpensApp") is not null && Flag("OpensApp"))
            {
                json.Append(",\"opensApp\":true");
            }
            if (m.GetAttributes().Any(a => a.AttributeClass?.ToDisplayString() == "AppFunctions.RequiresPermissionAttribute"))
            {
                json.Append(",\"requiresPermission\":true");
            }
            bool output = attr.NamedArguments.FirstOrDefault(kv => kv.Key == "Kind").Value.Value is int k && k == 1;
            if (output)
            {
                json.Append(",\"kind\":\"output\"");
            }
            if (toolkit is not null)
            {
                json.Append(",\"toolkit\":").Append(Json.Str(toolkit));
            }
            var condition = m.GetAttributes().FirstOrDefault(a => a.AttributeClass?.ToDisplayString() == "AppFunctions.ConditionalFunctionAttribute")
                ?.ConstructorArguments.FirstOrDefault().Value as string;
            if (condition is not null)
            {
                if (metadataNames is not null)
                {
                    foreach (Match x in Regex.Matches(condition, @"[A-Za-z_][A-Za-z0-9_]*"))
                    {
                        var prop = metadataNames.FirstOrDefault(p => p.Name == x.Value);
                        if (prop is null)
                        {
                            diags.Add(DiagnosticInfo.Create(Diagnostics.BadCondition, loc, condition, m.Name,
                                $"'{x.Value}' is no property of {metadataType!.Name}: add a bool property '{x.Value}' or use one of: {string.Join(", ", metadataNames.Select(p => p.Name))}"));
                        }
                        else if (prop.Type.SpecialType != SpecialType.System_Boolean)
                        {
                            diags.Add(DiagnosticInfo.Create(Diagnostics.BadCondition, loc, condition, m.Name,
                                $"'{x.Value}' is {prop.Type.ToDisplayString()}, not bool: a condition combines bool properties"));
                        }
                    }
                }
                json.Append(",\"condition\":").Append(Json.Str(condition));
            }
            if (attr.NamedArguments.Any(kv => kv.Key == "Enabled" && kv.Value.Value is false))
            {
                json.Append(",\"enabled\":false");
            }
            if (Flag("Deprecated"))
            {
                json.Append(",\"deprecated\":true");
            }
            json.Append('}');
            if (metadataNames is not null)
            {
                foreach (var p in metadataNames)
                {
                    metadataProps.Add(p.Name);
                }
            }

            // the request type and its binder
            var ns = type.ContainingNamespace.IsGlobalNamespace ? "" : type.ContainingNamespace.ToDisplayString();
            var reqFq = (ns.Length == 0 ? "global::" : "global::" + ns + ".") + "AppFunctionRequests." + reqName;
            requests.AppendLine($"    /// <summary>The bound request of <c>{id}</c> ({type.Name}.{m.Name}).</summary>");
            requests.AppendLine($"    internal sealed record {reqName}");
            requests.AppendLine("    {");
            requests.Append(req);
            requests.AppendLine("    }");
            var readerBinder = "Bind_" + id;
            if (allFast)
            {
                // the compact arguments the core wrote, read in one pass; anything else (an
                // escaped string, say) by the general reader below
                readerBinder = "BindWithReader_" + id;
                members.AppendLine($"    private static object Bind_{id}(global::System.ReadOnlySpan<byte> json)");
                members.AppendLine("    {");
                members.AppendLine("        var f = new global::AppFunctions.Generated.ArgumentScanner(json);");
                members.AppendLine($"        var req = new {reqFq}();");
                members.AppendLine("        while (true)");
                members.AppendLine("        {");
                members.AppendLine("            int next = f.Next(out var name);");
                members.AppendLine("            if (next == 0) { return req; }");
                members.AppendLine("            if (next < 0) { break; }");
                members.Append(fast);
                members.AppendLine(fast.Length == 0 ? "            break;" : "            else { break; }");
                members.AppendLine("        }");
                members.AppendLine($"        return {readerBinder}(json);");
                members.AppendLine("    }");
                members.AppendLine();
            }
            members.AppendLine($"    private static object {readerBinder}(global::System.ReadOnlySpan<byte> json)");
            members.AppendLine("    {");
            members.AppendLine("        var r = global::AppFunctions.Generated.JsonHelpers.Reader(json);");
            members.AppendLine($"        var req = new {reqFq}();");
            members.AppendLine("        while (r.Read() && r.TokenType == global::System.Text.Json.JsonTokenType.PropertyName)");
            members.AppendLine("        {");
            members.Append(bind);
            members.AppendLine($"            {(bind.Length == 0 ? "" : "else ")}{{ r.Read(); r.Skip(); }}");
            members.AppendLine("        }");
            members.AppendLine("        return req;");
            members.AppendLine("    }");
            members.AppendLine();

            string handler = "null";
            if (!output)
            {
                handler = "Invoke_" + id;
                var target = m.IsStatic ? fqType : "call.Service<" + fqType + ">()";
                needsInstance |= !m.IsStatic;
                var invoke = $"{target}.{m.Name}({string.Join(", ", callArgs)})";
                members.AppendLine($"    private static void Invoke_{id}(global::AppFunctions.Generated.AppFunctionCall call)");
                members.AppendLine("    {");
                members.AppendLine("        try");
                members.AppendLine("        {");
                members.AppendLine($"            var req = call.Request<{reqFq}>(Bind_{id});");
                if (m.ReturnsVoid)
                {
                    members.AppendLine($"            {invoke};");
                    members.AppendLine("            call.ReturnVoid();");
                }
                else if (kind == "voidtask")
                {
                    members.AppendLine($"            call.Complete({invoke});");
                }
                else if (kind == "task")
                {
                    members.AppendLine($"            call.Complete({invoke}, static (w, v) => {{ {write} }});");
                }
                else if (plainString)
                {
                    members.AppendLine($"            call.ReturnString({invoke});");
                }
                else
                {
                    members.AppendLine($"            call.Return({invoke}, static (w, v) => {{ {write} }});");
                }
                members.AppendLine("        }");
                members.AppendLine("        catch (global::System.Exception e)");
                members.AppendLine("        {");
                members.AppendLine("            call.Fail(e);");
                members.AppendLine("        }");
                members.AppendLine("    }");
                members.AppendLine();
            }
            register.AppendLine($"            r.RegisterFunction({Json.Str(id)}, {Json.CSharp(json.ToString())}, {handler}, Bind_{id});");
            bundle.Add("function\t" + id + "\t" + json);
            ids.Add(id);
            symbols.Add(type.Name + "." + m.Name);
            places.Add(SourcePlace.Of(loc));
        }
        if (metadataProps.Count > 0)
        {
            register.Insert(0, $"            r.AddMetadataProperties({string.Join(", ", metadataProps.Select(Json.Str))});\n");
            bundle.InsertRange(0, metadataProps.Select(p => "metadata\t" + p + "\t" + Json.Str(p)));
        }
        if (needsInstance)
        {
            services.AppendLine($"            global::Microsoft.Extensions.DependencyInjection.Extensions.ServiceCollectionDescriptorExtensions.TryAddScoped<{fqType}>(s);");
        }
        var nsName = type.ContainingNamespace.IsGlobalNamespace ? "" : type.ContainingNamespace.ToDisplayString();
        return new UnitModel(fqType, SortKey(type, 1), services.ToString(), register.ToString(), members.ToString(),
            mapper.Types.Values.ToEquatable(), ids.ToEquatable(), symbols.ToEquatable(), places.ToEquatable(), diags.ToEquatable(), requests.ToString(), nsName,
            bundle.ToEquatable());
    }

    private static IEnumerable<IPropertySymbol> AllProperties(INamedTypeSymbol t)
    {
        for (var c = t; c is not null && c.SpecialType != SpecialType.System_Object; c = c.BaseType)
        {
            foreach (var p in c.GetMembers().OfType<IPropertySymbol>().Where(p => !p.IsStatic && p.DeclaredAccessibility == Accessibility.Public))
            {
                yield return p;
            }
        }
    }

    private static bool Visible(INamedTypeSymbol t)
    {
        for (var c = t; c is not null; c = c.ContainingType)
        {
            if (c.DeclaredAccessibility is not (Accessibility.Public or Accessibility.Internal))
            {
                return false;
            }
        }
        return true;
    }

    private static string DefaultExpr(IParameterSymbol p)
    {
        var v = p.ExplicitDefaultValue;
        if (v is null)
        {
            return "default!";
        }
        var t = p.Type is INamedTypeSymbol { OriginalDefinition.SpecialType: SpecialType.System_Nullable_T } n ? n.TypeArguments[0] : p.Type;
        if (t.TypeKind == TypeKind.Enum)
        {
            var member = t.GetMembers().OfType<IFieldSymbol>().FirstOrDefault(f => f.HasConstantValue && Equals(f.ConstantValue, v));
            return member is null ? $"({TypeMapper.Fq(t)}){v}" : $"{TypeMapper.Fq(t)}.{member.Name}";
        }
        return v switch
        {
            string s => Json.CSharp(s),
            bool b => b ? "true" : "false",
            double d => d.ToString("R", CultureInfo.InvariantCulture) + "d",
            float f => f.ToString("R", CultureInfo.InvariantCulture) + "f",
            long l => l.ToString(CultureInfo.InvariantCulture) + "L",
            _ => System.Convert.ToString(v, CultureInfo.InvariantCulture)!,
        };
    }
}


using System.Collections.Immutable;
using System.ComponentModel.DataAnnotations;
using AppFunctions.Generators;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Xunit;

namespace AppFunctions.Generators.Tests;

/// <summary>The generator on small compilations: what it emits, and every diagnostic with its fix-it message.</summary>
public sealed class GeneratorTests
{
    private static readonly ImmutableArray<MetadataReference> References = BuildReferences();

    private static ImmutableArray<MetadataReference> BuildReferences()
    {
        var tpa = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator);
        var refs = tpa.Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)).ToList();
        foreach (var t in new[] { typeof(AppFunctionAttribute), typeof(Microsoft.Extensions.DependencyInjection.IServiceCollection), typeof(RangeAttribute) })
        {
            refs.Add(MetadataReference.CreateFromFile(t.Assembly.Location));
        }
        return [.. refs.DistinctBy(r => ((PortableExecutableReference)r).FilePath)];
    }

    private sealed record Run(ImmutableArray<Diagnostic> GeneratorDiagnostics, ImmutableArray<Diagnostic> CompileDiagnostics, string Generated);

    private static Run Generate(string source, DocumentationMode docs = DocumentationMode.Parse)
    {
        var parse = new CSharpParseOptions(LanguageVersion.Latest, docs);
        var compilation = CSharpCompilation.Create("App",
            [CSharpSyntaxTree.ParseText("global using System; global using System.Threading; global using System.Threading.Tasks; global using System.Collections.Generic; global using AppFunctions;", parse),
             CSharpSyntaxTree.ParseText(source, parse, path: "App.cs")],
            References, new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));
        var driver = CSharpGeneratorDriver.Create([new AppFunctionsGenerator().AsSourceGenerator()], parseOptions: parse)
            .RunGeneratorsAndUpdateCompilation(compilation, out var output, out var diagnostics);
        var generated = string.Join("\n", driver.GetRunResult().GeneratedTrees.Select(t => t.ToString()));
        var compile = output.GetDiagnostics().Where(d => d.Severity >= DiagnosticSeverity.Warning).ToImmutableArray();
        return new Run(diagnostics, compile, generated);
    }

    private static Diagnostic Single(string source, string id)
    {
        var run = Generate(source);
        var d = Assert.Single(run.GeneratorDiagnostics);
        Assert.Equal(id, d.Id);
        Assert.Equal(DiagnosticSeverity.Error, d.Severity);
        return d;
    }

    private const string Orders = """
        using System.ComponentModel;
        namespace Shop;

        /// <summary>How urgent an order is</summary>
        public enum Priority { Low, [Description("The default")] Normal, High }

        [AppFunctionEntity("order")]
        public sealed record Order(string Id, string Customer, int Quantity, Priority Priority);

        public sealed record Line(string Sku, int? Count, DateTimeOffset At, DateOnly Day, Guid Ref, List<string> Tags, double[] Scores);

        public class OrderFunctions
        {
            /// <summary>Creates an order for a customer.</summary>
            /// <param name="customer">Customer name</param>
            [AppFunction(Title = "Create order")]
            public Order CreateOrder(AppFunctionContext context, string customer, int quantity, Priority priority = Priority.Normal, string? note = null)
                => new("o-1", customer, quantity, priority);

            [AppFunction(Name = "lines"), Description("Lines")]
            public Task<Line[]> GetLines(Order order, CancellationToken ct) => Task.FromResult(Array.Empty<Line>());

            [AppFunction]
            public static ValueTask Touch(Line line) => default;
        }

        public class Provider : IAppFunctionEntityProvider<Order>
        {
            public Task<IReadOnlyList<Order>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext c, CancellationToken t) => null!;
            public Task<IReadOnlyList<Order>> SearchAsync(string q, int? limit, AppFunctionContext c, CancellationToken t) => null!;
        }

        public class Gate : IAppFunctionDelegate
        {
            public Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken) => Task.FromResult(AppFunctionGate.Allow);
        }
        """;

    [Fact]
    public void The_orders_app_generates_code_that_compiles_clean()
    {
        var run = Generate(Orders);
        Assert.Empty(run.GeneratorDiagnostics);
        Assert.Empty(run.CompileDiagnostics);
        Assert.Contains("[global::System.Runtime.CompilerServices.ModuleInitializer]", run.Generated);
        Assert.Contains("r.RegisterFunction(\"create_order\"", run.Generated);
        Assert.Contains("\"\"description\"\":\"\"Creates an order for a customer.\"\"", run.Generated);
        Assert.Contains("\"\"name\"\":\"\"priority\"\",\"\"type\"\":{\"\"enum\"\":\"\"Priority\"\"}", run.Generated);
        Assert.Contains("\"\"default\"\":\"\"Normal\"\"", run.Generated);
        Assert.Contains("\"\"name\"\":\"\"note\"\",\"\"type\"\":\"\"string\"\",\"\"nullable\"\":true,\"\"optional\"\":true", run.Generated);
        Assert.Contains("\"\"result\"\":{\"\"entity\"\":\"\"order\"\"}", run.Generated);
        Assert.Contains("\"\"result\"\":{\"\"array\"\":{\"\"record\"\":\"\"Line\"\"}}", run.Generated);
        Assert.Contains("{\"\"name\"\":\"\"count\"\",\"\"type\"\":\"\"int32\"\",\"\"nullable\"\":true,\"\"optional\"\":true}", run.Generated);
        Assert.Contains("{\"\"name\"\":\"\"tags\"\",\"\"type\"\":{\"\"array\"\":\"\"string\"\"}}", run.Generated);
        Assert.Contains("\"\"type\"\":\"\"dateTime\"\"", run.Generated);
        Assert.Contains("\"\"type\"\":\"\"date\"\"", run.Generated);
        Assert.Contains("\"\"type\"\":\"\"uuid\"\"", run.Generated);
        Assert.Contains("r.RegisterEntity<global::Shop.Order>(@\"order\"", run.Generated);
        Assert.Contains("r.AddDelegate<global::Shop.Gate>(true, false);", run.Generated);
        Assert.Contains("TryAddScoped<global::AppFunctions.IAppFunctionEntityProvider<global::Shop.Order>, global::Shop.Provider>", run.Generated);
        Assert.Contains("internal sealed record CreateOrder", run.Generated);
        Assert.Contains("class AppFunctionsJsonContext : global::System.Text.Json.Serialization.JsonSerializerContext", run.Generated);
        Assert.DoesNotContain("typeof(global::Shop.OrderFunctions).GetMethod", run.Generated); // no reflection
    }

    [Fact]
    public void The_writers_name_properties_and_enum_members_with_utf8_literals()
    {
        // System.Text.Json's first JsonEncodedText.Encode in a process costs milliseconds of a
        // ReadyToRun, JIT or Mono app's first call (issue 30), so the writers never make one:
        // names are ASCII identifiers (the core refuses others), which no encoder escapes.
        var run = Generate(Orders);
        Assert.Empty(run.CompileDiagnostics);
        Assert.DoesNotContain("JsonEncodedText", run.Generated);
        Assert.Contains("w.WritePropertyName(\"customer\"u8);", run.Generated);
        Assert.Contains("w.WritePropertyName(\"scores\"u8);", run.Generated);
        Assert.Contains("case global::Shop.Priority.Normal: w.WriteStringValue(\"Normal\"u8); break;", run.Generated);
    }

    [Fact]
    public void Doc_comments_are_read_even_without_GenerateDocumentationFile()
    {
        var run = Generate(Orders, DocumentationMode.None);
        Assert.Empty(run.GeneratorDiagnostics);
        Assert.Contains("Creates an order for a customer.", run.Generated);
        Assert.Contains("Customer name", run.Generated);
    }

    [Fact]
    public void Seed_004_attributes_become_descriptor_fields()
    {
        var run = Generate("""
            using System.ComponentModel;
            using System.ComponentModel.DataAnnotations;
            public class Meta : IToolMetadata { public bool HasAdvancedFeatures { get; set; } public string ProviderName { get; set; } = ""; }
            [Collapse("Search operations", FunctionResult: nameof(Available), SystemPrompt: "Be exact.")]
            public class SearchToolkit
            {
                public static string Available() => "a";
                [AppFunction<Meta>(Name = "search_web")]
                [Description("Search using {metadata.ProviderName}")]
                [RequiresPermission]
                public string Search([Range(1, 10)] int max, [StringLength(20, MinimumLength = 1)] string query, [RegularExpression("^x")] string tag, [MinLength(1)] string[] items, HashSet<int> ids) => "";
                [AppFunction<Meta>, ConditionalFunction("HasAdvancedFeatures && !HasAdvancedFeatures")]
                public void Advanced() { }
                [AppFunction(Kind = ToolKind.Output, OpensApp = true, Enabled = false, Deprecated = true)]
                public int Done(int value) => value;
            }
            """);
        Assert.Empty(run.GeneratorDiagnostics);
        Assert.Empty(run.CompileDiagnostics);
        Assert.Contains("r.DefineToolkit(@\"{\"\"name\"\":\"\"search_toolkit\"\",\"\"description\"\":\"\"Search operations\"\",\"\"systemPrompt\"\":\"\"Be exact.\"\"}\", static (which, metadata) => which == 0 ? global::SearchToolkit.Available() : null);", run.Generated);
        Assert.Contains("r.AddMetadataProperties(\"HasAdvancedFeatures\", \"ProviderName\");", run.Generated);
        Assert.Contains("\"\"requiresPermission\"\":true", run.Generated);
        Assert.Contains("\"\"toolkit\"\":\"\"search_toolkit\"\"", run.Generated);
        Assert.Contains("\"\"condition\"\":\"\"HasAdvancedFeatures && !HasAdvancedFeatures\"\"", run.Generated);
        Assert.Contains("\"\"minimum\"\":1,\"\"maximum\"\":10", run.Generated);
        Assert.Contains("\"\"minLength\"\":1,\"\"maxLength\"\":20", run.Generated);
        Assert.Contains("\"\"pattern\"\":\"\"^x\"\"", run.Generated);
        Assert.Contains("\"\"minItems\"\":1", run.Generated);
        Assert.Contains("\"\"uniqueItems\"\":true", run.Generated);
        Assert.Contains("\"\"kind\"\":\"\"output\"\"", run.Generated);
        Assert.Contains("\"\"opensApp\"\":true", run.Generated);
        Assert.Contains("\"\"enabled\"\":false", run.Generated);
        Assert.Contains("\"\"deprecated\"\":true", run.Generated);
        Assert.Contains("r.RegisterFunction(\"done\", ", run.Generated);
        Assert.Contains(", null, Bind_done);", run.Generated); // output: no handler
    }

    [Fact]
    public void AFG001_a_private_method()
    {
        var d = Single("public class C { [AppFunction] private int Hidden() => 1; }", "AFG001");
        Assert.Contains("make it public or internal", d.GetMessage());
        Assert.Equal("App.cs", d.Location.GetLineSpan().Path);
    }

    [Fact]
    public void AFG002_an_unsupported_parameter()
    {
        var d = Single("public class C { [AppFunction] public int F(Dictionary<string, int> map) => 1; }", "AFG002");
        Assert.Contains("'map'", d.GetMessage());
        Assert.Contains("use string, bool, int", d.GetMessage());
        var dt = Single("public class C { [AppFunction] public int F(DateTime at) => 1; }", "AFG002");
        Assert.Contains("use DateTimeOffset", dt.GetMessage());
    }

    [Fact]
    public void AFG003_an_unsupported_return_type()
    {
        var d = Single("public class C { [AppFunction] public object F() => 1; }", "AFG003");
        Assert.Contains("return void, Task, ValueTask", d.GetMessage());
    }

    [Fact]
    public void AFG004_a_duplicate_id_at_the_second_declaration_without_a_cascade()
    {
        var run = Generate("""
            public class A { [AppFunction] public int Same() => 1; }
            public class B
            {
                [AppFunction(Name = "same")]
                public int Other() => 1;
            }
            """);
        var d = Assert.Single(run.GeneratorDiagnostics);
        Assert.Equal("AFG004", d.Id);
        Assert.Contains("'same'", d.GetMessage());
        Assert.Contains("[AppFunction(Name = \"...\")]", d.GetMessage());
        var where = d.Location.GetLineSpan();
        Assert.Equal("App.cs", where.Path);
        Assert.Equal(4, where.StartLinePosition.Line); // the line of B.Other (0-based)
        Assert.Empty(run.CompileDiagnostics.Where(c => c.Severity == DiagnosticSeverity.Error)); // no CS0102 / CS0111 from generated code
    }

    [Fact]
    public void Delegates_register_by_source_file_path_then_position_whatever_the_compilation_order()
    {
        var parse = new CSharpParseOptions(LanguageVersion.Latest, DocumentationMode.Parse);
        var usings = CSharpSyntaxTree.ParseText("global using System; global using System.Threading; global using System.Threading.Tasks; global using AppFunctions;", parse);
        SyntaxTree File(string path, string name) => CSharpSyntaxTree.ParseText(
            $"public class {name} : IAppFunctionDelegate {{ public Task<AppFunctionGate> OnInvoking(AppFunctionContext c, CancellationToken t) => Task.FromResult(AppFunctionGate.Allow); }}", parse, path: path);
        // compiled in the order b, a: the registration is a (by path), then b
        var compilation = CSharpCompilation.Create("App", [usings, File("b/Second.cs", "Bee"), File("a/First.cs", "Ay"), File("a/First2.cs", "AyToo")],
            References, new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary));
        var driver = CSharpGeneratorDriver.Create([new AppFunctionsGenerator().AsSourceGenerator()], parseOptions: parse).RunGenerators(compilation);
        var generated = string.Join("\n", driver.GetRunResult().GeneratedTrees.Select(t => t.ToString()));
        int ay = generated.IndexOf("AddDelegate<global::Ay>", StringComparison.Ordinal);
        int ayToo = generated.IndexOf("AddDelegate<global::AyToo>", StringComparison.Ordinal);
        int bee = generated.IndexOf("AddDelegate<global::Bee>", StringComparison.Ordinal);
        Assert.True(ay >= 0 && ayToo > ay && bee > ayToo, generated);
    }

    [Fact]
    public void AFG005_an_invalid_id()
    {
        var d = Single("public class C { [AppFunction(Name = \"Make-Order\")] public int F() => 1; }", "AFG005");
        Assert.Contains("use snake_case", d.GetMessage());
        Assert.Contains("make_order", d.GetMessage());
    }

    [Fact]
    public void AFG006_an_unknown_metadata_placeholder()
    {
        var d = Single("""
            using System.ComponentModel;
            public class M : IToolMetadata { public string ProviderName { get; set; } = ""; }
            public class C { [AppFunction<M>, Description("Search {metadata.Provider}")] public int F() => 1; }
            """, "AFG006");
        Assert.Contains("{metadata.Provider}", d.GetMessage());
        Assert.Contains("ProviderName", d.GetMessage());
    }

    [Fact]
    public void AFG007_a_condition_naming_no_bool_property()
    {
        var d = Single("""
            public class M : IToolMetadata { public string Name { get; set; } = ""; public bool On { get; set; } }
            public class C { [AppFunction<M>, ConditionalFunction("On && Off")] public int F() => 1; }
            """, "AFG007");
        Assert.Contains("'Off' is no property of M", d.GetMessage());
        var notBool = Single("""
            public class M : IToolMetadata { public string Name { get; set; } = ""; }
            public class C { [AppFunction<M>, ConditionalFunction("Name")] public int F() => 1; }
            """, "AFG007");
        Assert.Contains("not bool", notBool.GetMessage());
    }

    [Fact]
    public void AFG008_a_toolkit_text_member_that_is_not_static_string()
    {
        var d = Single("""
            [Collapse("Tools", FunctionResult: nameof(Texts))]
            public class C { public int Texts() => 1; [AppFunction] public int F() => 1; }
            """, "AFG008");
        Assert.Contains("make 'Texts' static and return string", d.GetMessage());
    }

    [Fact]
    public void AFG009_a_ref_parameter()
    {
        var d = Single("public class C { [AppFunction] public int F(ref int x) => 1; }", "AFG009");
        Assert.Contains("pass it by value", d.GetMessage());
    }

    [Fact]
    public void AFG010_a_generic_method()
    {
        var d = Single("public class C { [AppFunction] public int F<T>() => 1; }", "AFG010");
        Assert.Contains("is generic", d.GetMessage());
        var abs = Single("public abstract class C { [AppFunction] public int F() => 1; }", "AFG010");
        Assert.Contains("abstract", abs.GetMessage());
    }

    [Fact]
    public void AFG011_a_constraint_on_the_wrong_type()
    {
        var d = Single("using System.ComponentModel.DataAnnotations; public class C { [AppFunction] public int F([Range(1, 2)] string name) => 1; }", "AFG011");
        Assert.Contains("[Range]", d.GetMessage());
        Assert.Contains("use [StringLength]", d.GetMessage());
    }

    [Fact]
    public void AFG012_an_entity_without_an_id()
    {
        var d = Single("[AppFunctionEntity(\"thing\")] public sealed record Thing(string Name);", "AFG012");
        Assert.Contains("IdProperty", d.GetMessage());
    }

    [Fact]
    public void AFG013_two_types_with_one_descriptor_name()
    {
        var d = Single("""
            namespace A { public sealed record Item(string X); }
            namespace B { public sealed record Item(int Y); }
            public class C { [AppFunction] public int F(A.Item a, B.Item b) => 1; }
            """, "AFG013");
        Assert.Contains("rename one of them", d.GetMessage());
    }

    [Fact]
    public void AFG014_an_entity_name_that_is_not_snake_case()
    {
        var d = Single("[AppFunctionEntity(\"Order\")] public sealed record Order(string Id);", "AFG014");
        Assert.Contains("snake_case", d.GetMessage());
    }

    [Fact]
    public void An_unrelated_edit_does_not_regenerate()
    {
        var parse = new CSharpParseOptions(LanguageVersion.Latest);
        var app = CSharpSyntaxTree.ParseText("using AppFunctions; public class C { [AppFunction] public int F(int x) => x; }", parse);
        var compilation = CSharpCompilation.Create("App", [app], References, new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary));
        GeneratorDriver driver = CSharpGeneratorDriver.Create([new AppFunctionsGenerator().AsSourceGenerator()], parseOptions: parse,
            driverOptions: new GeneratorDriverOptions(IncrementalGeneratorOutputKind.None, trackIncrementalGeneratorSteps: true));
        driver = driver.RunGenerators(compilation);
        var edited = compilation.AddSyntaxTrees(CSharpSyntaxTree.ParseText("public class Unrelated { public int Y => 2; }", parse));
        driver = driver.RunGenerators(edited);
        var steps = driver.GetRunResult().Results[0].TrackedSteps["AppFunctionsModel"];
        Assert.All(steps.SelectMany(s => s.Outputs), o => Assert.True(o.Reason is IncrementalStepRunReason.Cached or IncrementalStepRunReason.Unchanged, o.Reason.ToString()));
    }

    [Fact]
    public void Every_diagnostic_id_is_tested()
    {
        var ids = typeof(AppFunctionsGenerator).Assembly.GetType("AppFunctions.Generators.Diagnostics")!
            .GetFields(System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.NonPublic)
            .Select(f => f.GetValue(null)).OfType<DiagnosticDescriptor>().Select(d => d.Id).ToList();
        Assert.Equal(14, ids.Count);
        var tested = typeof(GeneratorTests).GetMethods().Select(m => m.Name).Where(n => n.StartsWith("AFG", StringComparison.Ordinal)).Select(n => n[..6]).ToHashSet();
        Assert.All(ids, id => Assert.Contains(id, tested));
    }
}

using AppFunctions.Extensions.AI;

namespace AppFunctions.Tests;

/// <summary>The core package carries only what seed 000's API needs; the AI integration is its own.</summary>
public sealed class PackageTests
{
    [Fact]
    public void The_core_assembly_references_no_AI_library()
    {
        var references = typeof(AppFunctionDispatcher).Assembly.GetReferencedAssemblies().Select(a => a.Name!).ToList();
        Assert.DoesNotContain(references, n => n.StartsWith("Microsoft.Extensions.AI", StringComparison.Ordinal));
        Assert.All(references, n => Assert.True(
            n is "System.Runtime" or "System.Memory" or "System.Collections" or "System.Linq" or "System.Text.Json" or "System.Text.Encodings.Web"
                or "System.Runtime.InteropServices" or "System.Threading" or "System.Collections.Concurrent" or "System.ComponentModel" or "System.ComponentModel.Primitives"
                or "System.Console" or "System.Runtime.Intrinsics" or "System.Threading.Thread" or "System.Diagnostics.DiagnosticSource" or "System.Runtime.Loader" or "netstandard"
                or "Microsoft.Extensions.DependencyInjection.Abstractions" or "Microsoft.Extensions.Logging.Abstractions",
            $"the core references {n}"));
    }

    [Fact]
    public void The_AI_integration_lives_in_the_bindings_own_namespace()
    {
        var types = typeof(AppFunctionsAIExtensions).Assembly.GetTypes();
        Assert.All(types, t => Assert.StartsWith("AppFunctions.Extensions.AI", t.Namespace ?? "AppFunctions.Extensions.AI", StringComparison.Ordinal));
        Assert.All(typeof(AppFunctionDispatcher).Assembly.GetTypes(), t => Assert.False(
            (t.Namespace ?? "").StartsWith("Microsoft.Extensions.AI", StringComparison.Ordinal), $"{t.FullName} is declared in Microsoft.Extensions.AI"));
    }
}

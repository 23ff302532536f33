// The core linked into a NativeAOT executable (AppFunctionsLinkStatic=true): one real call, and
// what the loader chose. `AppFunctions.StaticLink A B` calls `add` with A and B and prints
//   static-link: resolver=none|installed switch=True|False|unset core=VERSION outcome=JSON
// resolver: whether the binding installed its DllImport resolver (a second one for the same
// assembly is refused with InvalidOperationException when it did); switch: the feature switch
// the targets set. The dotnet lane checks the sum in the outcome, resolver=none and switch=True,
// and that the executable has no dynamic dependency on libappfunctions.so.
using System.Globalization;
using System.Runtime.InteropServices;
using AppFunctions;
using Microsoft.Extensions.DependencyInjection;

if (args.Length != 2 || !int.TryParse(args[0], CultureInfo.InvariantCulture, out var a) || !int.TryParse(args[1], CultureInfo.InvariantCulture, out var b))
{
    Console.Error.WriteLine("usage: AppFunctions.StaticLink A B (two integers to add)");
    return 2;
}

await using var provider = new ServiceCollection().AddAppFunctions().BuildServiceProvider();
var dispatcher = provider.GetRequiredService<AppFunctionDispatcher>();
var outcome = await dispatcher.Execute(new AppFunctionInvocation("add"), $$"""{"a":{{a}},"b":{{b}}}""");

string resolver;
try
{
    NativeLibrary.SetDllImportResolver(typeof(AppFunctionDispatcher).Assembly, (_, _, _) => 0);
    resolver = "none";
}
catch (InvalidOperationException)
{
    resolver = "installed";
}
string linked = AppContext.TryGetSwitch("AppFunctions.Interop.LinkedStatically", out var on) ? on.ToString() : "unset";
Console.WriteLine($"static-link: resolver={resolver} switch={linked} core={AppFunctionDispatcher.NativeVersion} outcome={outcome.ToJson()}");
return outcome.Status == AppFunctionStatus.Success ? 0 : 1;

/// <summary>The program's one function.</summary>
public class Calculator
{
    /// <summary>Adds two integers.</summary>
    /// <param name="a">The first</param>
    /// <param name="b">The second</param>
    [AppFunction]
    public static int Add(int a, int b) => a + b;
}

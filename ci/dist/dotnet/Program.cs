// A .NET host built from the release's nupkgs only (see DistConsumer.csproj).
using AppFunctions;
using AppFunctions.Extensions.AI;
using Microsoft.Extensions.AI;
using Microsoft.Extensions.DependencyInjection;

await using var provider = new ServiceCollection().AddAppFunctions().BuildServiceProvider();
var dispatcher = provider.GetRequiredService<AppFunctionDispatcher>();
var outcome = await dispatcher.Execute(new AppFunctionInvocation("greet"), """{"name":"Ada"}""", CancellationToken.None);
Console.WriteLine($"appfunctions {AppFunctionDispatcher.NativeVersion}: {outcome.Status}: {outcome.ResultJson} ({outcome.Dialog})");
// the AI package: the same function as a Microsoft.Extensions.AI tool
var tool = dispatcher.AsAIFunctions().Single(f => f.Name == "greet");
var viaTool = await tool.InvokeAsync(new AIFunctionArguments { ["name"] = "Bo" });
Console.WriteLine($"AsAIFunctions: {tool.Name}: {viaTool}");
// a result with a dialog reaches the model as both: {"result": ..., "dialog": ...}
using var toolResult = System.Text.Json.JsonDocument.Parse(viaTool?.ToString() ?? "null");
bool toolOk = toolResult.RootElement.ValueKind == System.Text.Json.JsonValueKind.Object
    && toolResult.RootElement.GetProperty("result").GetString() == "Hello, Bo!"
    && toolResult.RootElement.GetProperty("dialog").GetString() == "Greeted Bo.";
return outcome.Status == AppFunctionStatus.Success && outcome.ResultJson == "\"Hello, Ada!\"" && outcome.Dialog == "Greeted Ada."
    && toolOk ? 0 : 1;

/// <summary>The one function this host offers.</summary>
public class Greeter
{
    /// <summary>Greets someone by name.</summary>
    /// <param name="context">The call.</param>
    /// <param name="name">Who to greet</param>
    /// <returns>The greeting.</returns>
    [AppFunction]
    public string Greet(AppFunctionContext context, string name)
    {
        context.Say($"Greeted {name}.");
        return $"Hello, {name}!";
    }
}

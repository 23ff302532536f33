using System.Collections.Concurrent;
using System.ComponentModel;

namespace AppFunctions.Tests.Agent;

// Seed 004's agent-side features, in C#.

public sealed class SearchMetadata : IToolMetadata
{
    public bool HasAdvancedFeatures { get; set; }

    public string ProviderName { get; set; } = "Default";
}

public sealed class FileStore
{
    public ConcurrentDictionary<string, string> Files { get; } = new() { ["a.txt"] = "hello" };
}

[Collapse("File operations for reading, writing, and managing files",
    FunctionResult: "Available: read_file, write_file, delete_file.",
    SystemPrompt: "CRITICAL: Never delete a file the user did not name.")]
public class FileSystemToolkit(FileStore store)
{
    [AppFunction]
    [Description("Read a file")]
    public string ReadFile([Description("The file's path")] string path) =>
        store.Files.TryGetValue(path, out var c) ? c : throw new AppFunctionException(AppFunctionErrorCode.EntityNotFound, $"no file {path}");

    [AppFunction]
    [Description("Write a file")]
    public void WriteFile(string path, string content) => store.Files[path] = content;

    [AppFunction]
    [Description("Delete a file from the filesystem")]
    [RequiresPermission]
    public void DeleteFile(string path) => store.Files.TryRemove(path, out _);
}

[Collapse("Search operations", FunctionResult: nameof(GetAvailableSearchers), SystemPrompt: nameof(SearchGuidelines))]
public class SearchToolkit
{
    public static string GetAvailableSearchers() => "Available: search_web, advanced_search";

    public static string SearchGuidelines => "Always prefer exact matches over fuzzy matches.";

    [AppFunction<SearchMetadata>(Name = "search_web")]
    [Description("Search using {metadata.ProviderName}")]
    public Task<string[]> PerformWebSearch([Description("The search query")] string query, [Description("Maximum number of results (1-10)")] int maxResults = 5) =>
        Task.FromResult(Enumerable.Range(1, maxResults).Select(i => $"{query} #{i}").ToArray());

    [AppFunction<SearchMetadata>]
    [ConditionalFunction("HasAdvancedFeatures")]
    [Description("Advanced search with filters")]
    public string AdvancedSearch(string query) => "advanced: " + query;
}

public sealed record WeatherReport(string City, double TempCelsius, string Condition);

public class CalculatorTool
{
    [AppFunction]
    [Description("Add two numbers together and return the sum")]
    public int Add(int a, int b) => a + b;

    [AppFunction(Kind = ToolKind.Output)]
    [Description("The final weather report")]
    public WeatherReport Report(
        [Description("City name")] string city,
        [Description("Temperature in Celsius")] double tempCelsius,
        [Description("Weather condition (e.g., 'sunny', 'cloudy')")] string condition) =>
        throw new NotImplementedException(); // never runs: the arguments are the result
}

/// <summary>Approves what the test says (registered by hand: a permission handler is the app's choice).</summary>
public sealed class TestPermissions : IAppFunctionPermissionHandler
{
    public bool Approve { get; set; }

    public int Asked { get; private set; }

    public async Task<bool> ApproveAsync(AppFunctionContext context, CancellationToken cancellationToken)
    {
        Asked++;
        await Task.Delay(1, cancellationToken); // asks "the user", answers later
        return Approve;
    }
}

using System.Text.Json;
using AppFunctions.Tests.Agent;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>Seed 004 through agent views.</summary>
public sealed class AgentViewTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(SearchToolkit).Namespace!, s => s
        .AddSingleton<FileStore>().AddSingleton<TestPermissions>().AddSingleton<IAppFunctionPermissionHandler>(sp => sp.GetRequiredService<TestPermissions>()));

    public void Dispose() => _host.Dispose();

    private static List<string> Names(string toolsJson) =>
        JsonDocument.Parse(toolsJson).RootElement.EnumerateArray().Select(t => t.GetProperty("name").GetString()!).ToList();

    private static JsonElement Tool(AppFunctionView view, string name) =>
        JsonDocument.Parse(view.GetTools()).RootElement.EnumerateArray().First(t => t.GetProperty("name").GetString() == name);

    [Fact]
    public void Toolkits_collapse_into_containers_and_plain_functions_stay_visible()
    {
        using var view = _host.Dispatcher.CreateView("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        var names = Names(view.GetTools());
        Assert.Contains("file_system_toolkit", names);
        Assert.Contains("search_toolkit", names);
        Assert.Contains("add", names);
        Assert.Contains("report", names);
        Assert.DoesNotContain("read_file", names);
        Assert.DoesNotContain("search_web", names);
        Assert.Equal("File operations for reading, writing, and managing files", Tool(view, "file_system_toolkit").GetProperty("description").GetString());
        Assert.Equal("", view.Instructions);
    }

    [Fact]
    public async Task Expanding_returns_FunctionResult_once_and_adds_SystemPrompt_every_turn()
    {
        using var view = _host.Dispatcher.CreateView("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        ulong before = view.Generation;
        var o = await view.Execute(new AppFunctionInvocation("file_system_toolkit"), "{}");
        Assert.Equal(AppFunctionStatus.Success, o.Status);
        Assert.Contains("Available: read_file, write_file, delete_file.", o.ResultJson);
        Assert.NotEqual(before, view.Generation);
        Assert.Contains("CRITICAL: Never delete a file the user did not name.", view.Instructions);
        var names = Names(view.GetTools());
        Assert.Contains("read_file", names);
        var read = await view.Execute(new AppFunctionInvocation("read_file"), """{"path":"a.txt"}""");
        Assert.Equal("\"hello\"", read.ResultJson);
        view.Reset();
        Assert.DoesNotContain("read_file", Names(view.GetTools()));
        Assert.Equal("", view.Instructions);
    }

    [Fact]
    public async Task Dynamic_toolkit_texts_come_from_the_named_static_members()
    {
        using var view = _host.Dispatcher.CreateView("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        var o = await view.Execute(new AppFunctionInvocation("search_toolkit"), "{}");
        Assert.Contains("Available: search_web, advanced_search", o.ResultJson);
        Assert.Contains("Always prefer exact matches over fuzzy matches.", view.Instructions);
    }

    [Fact]
    public async Task Metadata_templates_and_conditions_follow_the_metadata()
    {
        using var view = _host.Dispatcher.CreateView("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        await view.Execute(new AppFunctionInvocation("search_toolkit"), "{}");
        Assert.Equal("Search using Bing", Tool(view, "search_web").GetProperty("description").GetString());
        Assert.DoesNotContain("advanced_search", Names(view.GetTools()));
        var hidden = await view.Execute(new AppFunctionInvocation("advanced_search"), """{"query":"x"}""");
        Assert.Equal(AppFunctionErrorCode.FunctionNotFound, hidden.ErrorCode);
        ulong g = view.Generation;
        view.SetMetadata("""{"HasAdvancedFeatures":true,"ProviderName":"Kagi"}""");
        Assert.NotEqual(g, view.Generation);
        Assert.Contains("advanced_search", Names(view.GetTools()));
        Assert.Equal("Search using Kagi", Tool(view, "search_web").GetProperty("description").GetString());
        var adv = await view.Execute(new AppFunctionInvocation("advanced_search"), """{"query":"x"}""");
        Assert.Equal("\"advanced: x\"", adv.ResultJson);
        var search = await view.Execute(new AppFunctionInvocation("search_web"), """{"query":"q","maxResults":2}""");
        Assert.Equal("""["q #1","q #2"]""", search.ResultJson);
    }

    [Fact]
    public async Task An_output_tool_returns_its_arguments_as_the_final_result()
    {
        using var view = _host.Dispatcher.CreateView();
        var o = await view.Execute(new AppFunctionInvocation("report"), """{"city":"Oslo","tempCelsius":-3.5,"condition":"snow"}""");
        Assert.Equal(AppFunctionStatus.Success, o.Status);
        Assert.True(o.IsFinal);
        var r = JsonDocument.Parse(o.ResultJson!).RootElement;
        Assert.Equal("Oslo", r.GetProperty("city").GetString());
        Assert.Equal(-3.5, r.GetProperty("tempCelsius").GetDouble());
        Assert.Equal(ToolKind.Output, _host.Dispatcher.Registry["report"]!.Kind);
    }

    [Fact]
    public async Task A_void_function_answers_with_the_confirmation()
    {
        using var view = _host.Dispatcher.CreateView();
        await view.Execute(new AppFunctionInvocation("file_system_toolkit"), "{}");
        var o = await view.Execute(new AppFunctionInvocation("write_file"), """{"path":"b.txt","content":"x"}""");
        Assert.Equal(AppFunctionStatus.Success, o.Status);
        Assert.False(string.IsNullOrEmpty(o.Dialog));
        Assert.Equal("x", _host.Get<FileStore>().Files["b.txt"]);
    }

    [Fact]
    public async Task RequiresPermission_asks_the_permission_handler()
    {
        var permissions = _host.Get<TestPermissions>();
        var store = _host.Get<FileStore>();
        store.Files["gone.txt"] = "bye";
        permissions.Approve = false;
        var refused = await _host.Dispatcher.Execute(new AppFunctionInvocation("delete_file"), """{"path":"gone.txt"}""");
        Assert.Equal(AppFunctionErrorCode.PermissionDenied, refused.ErrorCode);
        Assert.True(store.Files.ContainsKey("gone.txt"));
        permissions.Approve = true;
        var ok = await _host.Dispatcher.Execute(new AppFunctionInvocation("delete_file"), """{"path":"gone.txt"}""");
        Assert.Equal(AppFunctionStatus.Success, ok.Status);
        Assert.False(store.Files.ContainsKey("gone.txt"));
        Assert.Equal(2, permissions.Asked);
        Assert.True(_host.Dispatcher.Registry["delete_file"]!.RequiresPermission);
    }

    [Fact]
    public async Task Without_a_permission_handler_RequiresPermission_is_refused()
    {
        using var host = TestHost.Create(typeof(SearchToolkit).Namespace!, s => s.AddSingleton<FileStore>());
        var o = await host.Dispatcher.Execute(new AppFunctionInvocation("delete_file"), """{"path":"a.txt"}""");
        Assert.Equal(AppFunctionErrorCode.PermissionDenied, o.ErrorCode);
        Assert.Contains("IAppFunctionPermissionHandler", o.Message);
    }

    [Fact]
    public async Task A_parameter_default_and_descriptions_reach_the_schema()
    {
        var f = _host.Dispatcher.Registry["search_web"]!;
        Assert.Equal("search_toolkit", f.Toolkit);
        Assert.Equal("Maximum number of results (1-10)", f.Parameters[1].Description);
        Assert.Equal("5", f.Parameters[1].DefaultJson);
        Assert.Equal("HasAdvancedFeatures", _host.Dispatcher.Registry["advanced_search"]!.Condition);
        var add = await _host.Dispatcher.Execute(new AppFunctionInvocation("add"), """{"a":2,"b":40}""");
        Assert.Equal("42", add.ResultJson);
    }
}

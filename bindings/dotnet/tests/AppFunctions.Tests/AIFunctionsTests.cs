using System.Text.Json;
using AppFunctions.Extensions.AI;
using AppFunctions.Tests.Agent;
using AppFunctions.Tests.Orders;
using Microsoft.Extensions.AI;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>A chat client that answers from a script: the model's side of a tool-calling loop.</summary>
internal sealed class ScriptedChatClient(Func<IReadOnlyList<ChatMessage>, ChatOptions?, ChatResponse> script) : IChatClient
{
    public List<IReadOnlyList<ChatMessage>> Turns { get; } = [];

    public Task<ChatResponse> GetResponseAsync(IEnumerable<ChatMessage> messages, ChatOptions? options = null, CancellationToken cancellationToken = default)
    {
        var list = messages.ToList();
        Turns.Add(list);
        return Task.FromResult(script(list, options));
    }

    public IAsyncEnumerable<ChatResponseUpdate> GetStreamingResponseAsync(IEnumerable<ChatMessage> messages, ChatOptions? options = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException();

    public object? GetService(Type serviceType, object? serviceKey = null) => null;

    public void Dispose()
    {
    }
}

/// <summary>Microsoft.Extensions.AI: the app's functions as AIFunctions, driven by FunctionInvokingChatClient.</summary>
public sealed class AIFunctionsTests : IDisposable
{
    private readonly TestHost _orders = TestHost.Create(typeof(Order).Namespace!, s => s
        .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<Probe>());

    private readonly TestHost _agent = TestHost.Create(typeof(SearchToolkit).Namespace!, s => s.AddSingleton<FileStore>());

    public void Dispose()
    {
        _orders.Dispose();
        _agent.Dispose();
    }

    private static FunctionResultContent? LastResult(IReadOnlyList<ChatMessage> messages) =>
        messages.SelectMany(m => m.Contents).OfType<FunctionResultContent>().LastOrDefault();

    [Fact]
    public void Schemas_and_descriptions_come_from_the_core()
    {
        var tools = _orders.Dispatcher.AsAIFunctions();
        var create = tools.Single(t => t.Name == "create_order");
        Assert.Equal("Creates an order for a customer.", create.Description);
        Assert.Equal(create.JsonSchema.GetRawText(), JsonDocument.Parse(_orders.Dispatcher.Registry["create_order"]!.GetParametersJsonSchema()).RootElement.GetRawText());
        Assert.NotNull(create.ReturnJsonSchema);
        Assert.Contains(tools, t => t.Name == "search_order");
    }

    [Fact]
    public async Task A_scripted_model_calls_create_order_through_the_function_invocation_loop()
    {
        var model = new ScriptedChatClient((messages, options) =>
        {
            Assert.NotNull(options?.Tools);
            var result = LastResult(messages);
            if (result is null)
            {
                return new ChatResponse(new ChatMessage(ChatRole.Assistant,
                [
                    new FunctionCallContent("call-1", "create_order", new Dictionary<string, object?> { ["customer"] = "acme", ["quantity"] = 2 }),
                ]));
            }
            var order = ((JsonElement)result.Result!).GetProperty("result");
            return new ChatResponse(new ChatMessage(ChatRole.Assistant, $"Created {order.GetProperty("id").GetString()} for {order.GetProperty("customer").GetString()}."));
        });
        using var client = new ChatClientBuilder(model).UseFunctionInvocation().Build();
        var response = await client.GetResponseAsync("Order two widgets for acme", new ChatOptions { Tools = [.. _orders.Dispatcher.AsAIFunctions()] });
        Assert.Matches("^Created o-\\d+ for acme\\.$", response.Text);
        Assert.Equal(2, model.Turns.Count);
    }

    [Fact]
    public async Task A_result_reaches_the_model_with_its_dialog()
    {
        var f = _orders.Dispatcher.AsAIFunctions().Single(t => t.Name == "create_order");
        var r = (JsonElement)(await f.InvokeAsync(new AIFunctionArguments { ["customer"] = "acme", ["quantity"] = 2 }))!;
        var id = r.GetProperty("result").GetProperty("id").GetString();
        Assert.Equal("acme", r.GetProperty("result").GetProperty("customer").GetString());
        Assert.Equal($"Order {id} created.", r.GetProperty("dialog").GetString());
    }

    [Fact]
    public async Task The_apps_own_tools_call_in_the_foreground_so_an_OpenApp_gate_passes_unless_told_otherwise()
    {
        _orders.Get<SignInState>().IsSignedIn = false;
        var inApp = _orders.Dispatcher.AsAIFunctions().Single(t => t.Name == "cancel_order");
        var r = (JsonElement)(await inApp.InvokeAsync(new AIFunctionArguments { ["order"] = "o-1" }))!;
        Assert.Equal("cancelled", r.GetProperty("result").GetProperty("status").GetString());
        var outside = _orders.Dispatcher.AsAIFunctions(isForeground: false).Single(t => t.Name == "cancel_order");
        var refused = (JsonElement)(await outside.InvokeAsync(new AIFunctionArguments { ["order"] = "o-2" }))!;
        Assert.Equal("Denied", refused.GetProperty("error").GetString());
        Assert.Equal("Sign in to cancel orders.", refused.GetProperty("message").GetString());
        using var view = _orders.Dispatcher.CreateView("{}");
        var viaView = (JsonElement)(await view.AsAIFunctions().Single(t => t.Name == "cancel_order").InvokeAsync(new AIFunctionArguments { ["order"] = "o-3" }))!;
        Assert.Equal("cancelled", viaView.GetProperty("result").GetProperty("status").GetString());
        var viewRun = await view.Execute("cancel_order", """{"order":"o-2"}""");
        Assert.Equal(AppFunctionStatus.Success, viewRun.Status);
        var viewOutside = await view.Execute("cancel_order", """{"order":"o-2"}""", isForeground: false);
        Assert.Equal(AppFunctionErrorCode.Denied, viewOutside.ErrorCode);
    }

    [Fact]
    public async Task A_failure_reaches_the_model_as_a_readable_error()
    {
        var f = _orders.Dispatcher.AsAIFunctions().Single(t => t.Name == "create_order");
        var r = (JsonElement)(await f.InvokeAsync(new AIFunctionArguments { ["customer"] = "acme", ["quantity"] = "two" }))!;
        Assert.Equal("InvalidArgument", r.GetProperty("error").GetString());
        Assert.Contains("quantity", r.GetProperty("message").GetString());
    }

    [Fact]
    public async Task RequiresPermission_is_an_ApprovalRequiredAIFunction_and_runs_once_approved()
    {
        _agent.Get<FileStore>().Files["old.txt"] = "x";
        var tools = _agent.Dispatcher.AsAIFunctions();
        Assert.IsType<ApprovalRequiredAIFunction>(tools.Single(t => t.Name == "delete_file"));
        Assert.IsNotType<ApprovalRequiredAIFunction>(tools.Single(t => t.Name == "read_file"));

        var model = new ScriptedChatClient((messages, _) =>
            LastResult(messages) is { } done
                ? new ChatResponse(new ChatMessage(ChatRole.Assistant, "Deleted."))
                : new ChatResponse(new ChatMessage(ChatRole.Assistant,
                    [new FunctionCallContent("call-9", "delete_file", new Dictionary<string, object?> { ["path"] = "old.txt" })])));
        using var client = new ChatClientBuilder(model).UseFunctionInvocation().Build();
        var options = new ChatOptions { Tools = [.. tools] };
        List<ChatMessage> history = [new(ChatRole.User, "Delete old.txt")];
        var first = await client.GetResponseAsync(history, options);
        var request = first.Messages.SelectMany(m => m.Contents).OfType<ToolApprovalRequestContent>().Single();
        Assert.True(_agent.Get<FileStore>().Files.ContainsKey("old.txt")); // not before the user says yes
        history.AddRange(first.Messages);
        history.Add(new ChatMessage(ChatRole.User, [request.CreateResponse(true)]));
        var second = await client.GetResponseAsync(history, options);
        Assert.Equal("Deleted.", second.Text);
        Assert.False(_agent.Get<FileStore>().Files.ContainsKey("old.txt"));
    }

    [Fact]
    public async Task A_views_AIFunctions_expand_a_toolkit_and_an_output_tool_ends_the_loop()
    {
        using var view = _agent.Dispatcher.CreateView("""{"HasAdvancedFeatures":false,"ProviderName":"Bing"}""");
        var first = view.AsAIFunctions();
        Assert.Contains(first, t => t.Name == "file_system_toolkit");
        Assert.DoesNotContain(first, t => t.Name == "read_file");
        var expand = await first.Single(t => t.Name == "file_system_toolkit").InvokeAsync(new AIFunctionArguments());
        Assert.Contains("Available: read_file", expand!.ToString());
        var second = view.AsAIFunctions();
        var read = await second.Single(t => t.Name == "read_file").InvokeAsync(new AIFunctionArguments { ["path"] = "a.txt" });
        Assert.Equal("hello", ((JsonElement)read!).GetString());

        int turns = 0;
        var model = new ScriptedChatClient((messages, _) =>
        {
            turns++;
            return new ChatResponse(new ChatMessage(ChatRole.Assistant,
                [new FunctionCallContent($"c{turns}", "report", new Dictionary<string, object?> { ["city"] = "Oslo", ["tempCelsius"] = 1.5, ["condition"] = "rain" })]));
        });
        using var client = new ChatClientBuilder(model).UseFunctionInvocation().Build();
        var response = await client.GetResponseAsync("Weather in Oslo?", new ChatOptions { Tools = [.. view.AsAIFunctions()] });
        Assert.Equal(1, turns); // the output tool terminated the loop: the model is not asked again
        var final = (JsonElement)response.Messages.SelectMany(m => m.Contents).OfType<FunctionResultContent>().Single().Result!;
        Assert.Equal("Oslo", final.GetProperty("city").GetString());
    }
}

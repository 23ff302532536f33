using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>Hosts with their own descriptors, and run-time registry changes.</summary>
public sealed class HandWrittenTests
{
    [Fact]
    public async Task A_hand_written_descriptor_with_a_JSON_handler_enable_and_unregister()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        using var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false });
        Assert.Empty(d.Registry.Functions);
        d.DefineTypes("""{"enums":[{"name":"Mood","members":["Happy","Sad"]}]}""");
        d.RegisterFunction("""{"id":"echo","description":"Echoes.","parameters":[{"name":"text","type":"string"},{"name":"mood","type":{"enum":"Mood"}}],"result":"string"}""",
            async (context, args) =>
            {
                await Task.Yield();
                context.Say("echoed");
                return System.Text.Json.JsonSerializer.Serialize(System.Text.Json.JsonDocument.Parse(args).RootElement.GetProperty("text").GetString());
            });
        var o = await d.Execute(new AppFunctionInvocation("echo"), """{"text":"hi ü","mood":"Happy"}""");
        Assert.Equal("\"hi ü\"", o.ResultJson);
        Assert.Equal("echoed", o.Dialog);
        Assert.Equal("Echoes.", Assert.Single(d.Registry.Functions).Description);

        d.SetEnabled("echo", false);
        Assert.Equal(AppFunctionErrorCode.Disabled, (await d.Execute(new AppFunctionInvocation("echo"), """{"text":"x","mood":"Sad"}""")).ErrorCode);
        Assert.False(d.Registry["echo"]!.Enabled);
        d.SetEnabled("echo", true);
        d.Unregister("echo");
        Assert.Equal(AppFunctionErrorCode.FunctionNotFound, (await d.Execute(new AppFunctionInvocation("echo"), "{}")).ErrorCode);
        Assert.Empty(d.Registry.Functions);

        var e = Assert.Throws<AppFunctionRegistrationException>(() => d.RegisterFunction("""{"id":"bad","parameters":[{"name":"x","type":"in32"}]}""", (_, _) => ValueTask.FromResult<string?>(null)));
        Assert.Contains("bad.parameters", e.Message);
        Assert.Contains("int32", e.Message); // the core's "did you mean"
        Assert.Equal("AF_ERR_INVALID", e.Status);
    }

    [Fact]
    public void A_duplicate_id_is_reported_as_a_duplicate()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        using var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false });
        d.RegisterFunction("""{"id":"twice"}""", (_, _) => ValueTask.FromResult<string?>(null));
        var e = Assert.Throws<AppFunctionRegistrationException>(() => d.RegisterFunction("""{"id":"twice"}""", (_, _) => ValueTask.FromResult<string?>(null)));
        Assert.Equal("AF_ERR_DUPLICATE", e.Status);
        Assert.Contains("(AF_ERR_DUPLICATE)", e.Message);
        Assert.Contains("twice", e.Message);
    }
}

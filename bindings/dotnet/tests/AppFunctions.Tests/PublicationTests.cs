using System.Text.Json;
using AppFunctions.Tests.Orders;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>Published dispatchers (a cold-start platform call waits for the app) and descriptor bundles.</summary>
public sealed class PublicationTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(Order).Namespace!, s => s
        .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<Probe>());

    public void Dispose() => _host.Dispose();

    private static string UniqueName() => "dotnet-tests-" + Guid.NewGuid().ToString("N");

    [Fact]
    public async Task A_call_that_arrives_before_the_app_publishes_waits_then_runs_the_CSharp_handler()
    {
        string name = UniqueName();
        var waiting = PublishedDispatcher.WaitAsync(name, TimeSpan.FromSeconds(10));
        await Task.Delay(30);
        Assert.False(waiting.IsCompleted);
        _host.Dispatcher.Publish(name);
        using var published = await waiting;
        Assert.Equal(name, published.Name);
        var json = published.ExecuteJson(new AppFunctionInvocation("create_order") { Platform = AppFunctionPlatform.Android },
            """{"customer":"acme","quantity":2}""");
        using var outcome = JsonDocument.Parse(json);
        Assert.Equal("success", outcome.RootElement.GetProperty("status").GetString());
        Assert.Equal("acme", outcome.RootElement.GetProperty("result").GetProperty("customer").GetString());
        Assert.Contains(_host.Get<Probe>().Seen, s => s.StartsWith("create_order:Android:", StringComparison.Ordinal)); // the C# handler ran, delegates included
        Assert.Equal(_host.Dispatcher.Export("mcp"), published.Export("mcp"));
        Assert.True(PublishedDispatcher.Unpublish(name));
        Assert.False(PublishedDispatcher.Unpublish(name));
    }

    [Fact]
    public void Nothing_published_times_out_with_a_message_naming_it()
    {
        string name = UniqueName();
        var e = Assert.Throws<TimeoutException>(() => PublishedDispatcher.Wait(name, TimeSpan.FromMilliseconds(20)));
        Assert.Contains(name, e.Message);
        Assert.Contains("20 ms", e.Message);
        Assert.Throws<TimeoutException>(() => PublishedDispatcher.Wait(name, TimeSpan.Zero));
    }

    [Fact]
    public void Disposing_the_publisher_withdraws_it_while_a_waiters_handle_stays_usable()
    {
        string name = UniqueName();
        var host = TestHost.Create(typeof(Order).Namespace!, s => s
            .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<Probe>());
        host.Dispatcher.Publish(name);
        var published = PublishedDispatcher.Wait(name, TimeSpan.Zero);
        published.Dispose(); // a second handle: the dispatcher and its publication live on
        using (var again = PublishedDispatcher.Wait(name, TimeSpan.Zero))
        {
            Assert.Contains("create_order", again.Export("mcp"));
        }
        host.Dispose();
        Assert.Throws<TimeoutException>(() => PublishedDispatcher.Wait(name, TimeSpan.Zero));
    }

    [Fact]
    public void A_bundle_exports_what_the_dispatcher_exports_without_a_running_app()
    {
        string bundle = _host.Dispatcher.BundleJson();
        foreach (var format in new[] { "mcp", "openai", "openai-chat", "anthropic", "gemini", "android-xml" })
        {
            Assert.Equal(_host.Dispatcher.Export(format), AppFunctionBundle.Export(bundle, format));
        }
        var e = Assert.Throws<AppFunctionRegistrationException>(() => AppFunctionBundle.Export("""{"functions":[{"id":"Bad"}]}""", "mcp"));
        Assert.Contains("functions[0]", e.Message);
        Assert.Throws<AppFunctionRegistrationException>(() => AppFunctionBundle.Export(bundle, "nope"));
    }

    [Fact]
    public void Publish_refuses_an_empty_name()
    {
        Assert.Throws<ArgumentException>(() => _host.Dispatcher.Publish(""));
    }
}

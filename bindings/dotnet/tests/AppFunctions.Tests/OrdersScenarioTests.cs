using System.Text.Json;
using AppFunctions.Tests.Orders;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace AppFunctions.Tests;

/// <summary>Seed 000, sentence by sentence, on the orders app.</summary>
public sealed class OrdersScenarioTests : IDisposable
{
    private const string CreateArgs = """{"customer":"acme","quantity":2,"priority":"Normal"}""";
    private readonly TestHost _host = TestHost.Create(typeof(Order).Namespace!, s => s
        .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<Probe>());

    private AppFunctionDispatcher Dispatcher => _host.Dispatcher;

    public void Dispose() => _host.Dispose();

    private static JsonElement Result(AppFunctionOutcome o)
    {
        Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
        return JsonDocument.Parse(o.ResultJson!).RootElement;
    }

    [Fact]
    public async Task The_seeds_create_order_call_returns_the_order_and_the_dialog()
    {
        var outcome = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), CreateArgs, CancellationToken.None);
        var order = Result(outcome);
        Assert.StartsWith("o-", order.GetProperty("id").GetString());
        Assert.Equal("acme", order.GetProperty("customer").GetString());
        Assert.Equal(2, order.GetProperty("quantity").GetInt32());
        Assert.Equal("Normal", order.GetProperty("priority").GetString());
        Assert.Equal($"Order {order.GetProperty("id").GetString()} created.", outcome.Dialog);
        Assert.Null(outcome.ErrorCode);
        Assert.Null(outcome.Message);
    }

    [Fact]
    public async Task Enums_by_member_name_and_the_default_Normal()
    {
        var high = Result(await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":1,"priority":"High"}"""));
        Assert.Equal("High", high.GetProperty("priority").GetString());
        var dflt = Result(await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":1}"""));
        Assert.Equal("Normal", dflt.GetProperty("priority").GetString());
        var bad = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":1,"priority":"Urgent"}""");
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, bad.ErrorCode);
        Assert.Contains("priority", bad.Message);
    }

    [Fact]
    public async Task Bad_arguments_name_the_parameter_and_never_throw()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"acme","quantity":"two"}""");
        Assert.Equal(AppFunctionStatus.Error, o.Status);
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, o.ErrorCode);
        Assert.Contains("quantity", o.Message);
        var missing = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"quantity":1}""");
        Assert.Contains("customer", missing.Message);
        var notJson = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), "{not json");
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, notJson.ErrorCode);
        var unknown = await Dispatcher.Execute(new AppFunctionInvocation("nope"), "{}");
        Assert.Equal(AppFunctionErrorCode.FunctionNotFound, unknown.ErrorCode);
    }

    [Fact]
    public async Task DateTimeOffset_values_are_ISO_8601_strings()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("add_days"), """{"at":"2026-03-01T10:00:00+02:00","days":2}""");
        var at = DateTimeOffset.Parse(Result(o).GetString()!, System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(new DateTimeOffset(2026, 3, 3, 10, 0, 0, TimeSpan.FromHours(2)), at);
    }

    [Fact]
    public async Task OpenApp_on_apple_asks_for_the_app_then_the_foreground_rerun_passes()
    {
        _host.Get<SignInState>().IsSignedIn = false;
        var apple = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Apple }, """{"order":"o-1"}""");
        Assert.Equal(AppFunctionStatus.OpenApp, apple.Status);
        Assert.Contains("Sign in to cancel orders.", (apple.Dialog ?? "") + (apple.Message ?? ""));
        var rerun = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Apple, IsForeground = true }, """{"order":"o-1"}""");
        Assert.Equal("cancelled", Result(rerun).GetProperty("status").GetString());
        Assert.Equal("Cancelled order o-1 for acme.", rerun.Dialog);
    }

    [Theory]
    [InlineData(AppFunctionPlatform.Android)]
    [InlineData(AppFunctionPlatform.Other)]
    public async Task OpenApp_elsewhere_refuses_with_the_message(AppFunctionPlatform platform)
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = platform }, """{"order":"o-2"}""");
        Assert.Equal(AppFunctionStatus.Error, o.Status);
        Assert.Equal(AppFunctionErrorCode.Denied, o.ErrorCode);
        Assert.Equal("Sign in to cancel orders.", o.Message);
        _host.Get<SignInState>().IsSignedIn = true;
        var signedIn = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = platform }, """{"order":"o-2"}""");
        Assert.Equal(AppFunctionStatus.Success, signedIn.Status);
    }

    [Theory]
    [InlineData(AppFunctionPlatform.Android)]
    [InlineData(AppFunctionPlatform.Other)]
    [InlineData(AppFunctionPlatform.Apple)]
    public async Task OpenApp_passes_in_the_foreground_on_every_platform(AppFunctionPlatform platform)
    {
        _host.Get<SignInState>().IsSignedIn = false;
        var o = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = platform, IsForeground = true }, """{"order":"o-3"}""");
        Assert.Equal("cancelled", Result(o).GetProperty("status").GetString());
    }

    [Fact]
    public async Task OnInvoked_tells_an_OpenApp_outcome_from_a_refusal()
    {
        _host.Get<SignInState>().IsSignedIn = false;
        await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Apple }, """{"order":"o-1"}""");
        await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Android }, """{"order":"o-1"}""");
        Assert.True(_host.Logs.Has(e => e.Message == "cancel_order from Apple: asked for the app: Sign in to cancel orders."));
        Assert.True(_host.Logs.Has(e => e.Message == "cancel_order from Android: Sign in to cancel orders."));
    }

    [Fact]
    public async Task OpensApp_functions_ask_for_the_app_on_apple_only()
    {
        var apple = await Dispatcher.Execute(new AppFunctionInvocation("show_order") { Platform = AppFunctionPlatform.Apple }, """{"id":"o-1"}""");
        Assert.Equal(AppFunctionStatus.OpenApp, apple.Status);
        var android = await Dispatcher.Execute(new AppFunctionInvocation("show_order") { Platform = AppFunctionPlatform.Android }, """{"id":"o-1"}""");
        Assert.Equal(AppFunctionStatus.Success, android.Status);
    }

    [Fact]
    public async Task Items_are_shared_between_a_delegate_and_the_handler()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("who_am_i"), "{}");
        Assert.Equal("alice", Result(o).GetString());
    }

    [Fact]
    public async Task The_context_carries_the_call()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("describe") { Platform = AppFunctionPlatform.Android, CallerPackage = "com.google.android.apps.gemini" }, "{}");
        var info = Result(o);
        Assert.Equal("describe", info.GetProperty("functionId").GetString());
        Assert.Equal("Android", info.GetProperty("platform").GetString());
        Assert.False(info.GetProperty("isForeground").GetBoolean());
        Assert.Equal("com.google.android.apps.gemini", info.GetProperty("callerPackage").GetString());
        Assert.True(info.GetProperty("requestBound").GetBoolean());
        var apple = Result(await Dispatcher.Execute(new AppFunctionInvocation("describe") { Platform = AppFunctionPlatform.Apple, IsForeground = true }, "{}"));
        Assert.True(apple.GetProperty("isForeground").GetBoolean());
        Assert.Equal("", apple.GetProperty("callerPackage").GetString());
        // one DI scope per call
        Assert.NotEqual(info.GetProperty("scope").GetInt32(), apple.GetProperty("scope").GetInt32());
    }

    [Fact]
    public async Task Entity_parameters_resolve_through_the_provider_and_the_delegates()
    {
        var probe = _host.Get<Probe>();
        _host.Get<SignInState>().IsSignedIn = true;
        var o = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order"), """{"order":"o-3"}""");
        Assert.Equal("initech", Result(o).GetProperty("customer").GetString());
        Assert.Contains("lookup:o-3:True", probe.Seen);
        Assert.Contains(probe.Seen, s => s.StartsWith("invoking:search_order:lookup:no-request", StringComparison.Ordinal));
        var missing = await Dispatcher.Execute(new AppFunctionInvocation("cancel_order"), """{"order":"o-9"}""");
        Assert.Equal(AppFunctionErrorCode.EntityNotFound, missing.ErrorCode);
        Assert.Contains("o-9", missing.Message);
    }

    [Fact]
    public async Task Search_order_is_generated_after_the_declared_functions()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("search_order"), """{"query":"glo","limit":5}""");
        var list = Result(o);
        Assert.Equal(1, list.GetArrayLength());
        Assert.Equal("o-2", list[0].GetProperty("id").GetString());
        var ids = Dispatcher.Registry.Functions.Select(f => f.Id).ToList();
        Assert.Equal("search_order", ids[^1]);
        Assert.True(Dispatcher.Registry["search_order"]!.IsGenerated);
    }

    [Fact]
    public async Task Registry_describes_every_function_with_a_2020_12_schema()
    {
        var create = Dispatcher.Registry["create_order"]!;
        Assert.Equal("Create order", create.Title);
        Assert.Equal("Creates an order for a customer.", create.Description);
        Assert.Equal(["customer", "quantity", "priority"], create.Parameters.Select(p => p.Name));
        Assert.Equal("Customer name", create.Parameters[0].Description);
        Assert.True(create.Parameters[2].Optional);
        Assert.Equal("\"Normal\"", create.Parameters[2].DefaultJson);
        using var schema = JsonDocument.Parse(create.GetParametersJsonSchema());
        Assert.Equal("https://json-schema.org/draft/2020-12/schema", schema.RootElement.GetProperty("$schema").GetString());
        Assert.Equal(["customer", "quantity"], schema.RootElement.GetProperty("required").EnumerateArray().Select(e => e.GetString()));
        using var result = JsonDocument.Parse(create.GetResultJsonSchema());
        Assert.Equal(JsonValueKind.Object, result.RootElement.ValueKind);
        Assert.Equal("null", Dispatcher.Registry["fail_with"]!.GetResultJsonSchema());
        foreach (var f in Dispatcher.Registry.Functions)
        {
            Assert.StartsWith("{", f.GetParametersJsonSchema(), StringComparison.Ordinal);
        }
        await Task.CompletedTask;
    }

    [Fact]
    public async Task Cancelling_the_token_ends_the_call_Cancelled_and_cancels_the_handler()
    {
        var probe = _host.Get<Probe>();
        using var cts = new CancellationTokenSource();
        var call = Dispatcher.Execute(new AppFunctionInvocation("wait_forever"), "{}", cts.Token);
        await probe.HandlerStarted.Task.WaitAsync(TimeSpan.FromSeconds(10));
        cts.Cancel();
        var o = await call.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(AppFunctionErrorCode.Cancelled, o.ErrorCode);
        await probe.HandlerCancelled.Task.WaitAsync(TimeSpan.FromSeconds(10));
        var pre = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), CreateArgs, new CancellationToken(true));
        Assert.Equal(AppFunctionErrorCode.Cancelled, pre.ErrorCode);
    }

    [Fact]
    public async Task A_timeout_ends_the_call_TimedOut()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("wait_forever") { Timeout = TimeSpan.FromMilliseconds(50) }, "{}");
        Assert.Equal(AppFunctionErrorCode.TimedOut, o.ErrorCode);
    }

    [Fact]
    public async Task A_throwing_handler_is_HandlerFailed_with_its_message()
    {
        var o = await Dispatcher.Execute(new AppFunctionInvocation("explode"), """{"message":"kaboom ü"}""");
        Assert.Equal(AppFunctionErrorCode.HandlerFailed, o.ErrorCode);
        Assert.Equal("kaboom ü", o.Message);
        var coded = await Dispatcher.Execute(new AppFunctionInvocation("fail_with"), """{"message":"no such order"}""");
        Assert.Equal(AppFunctionErrorCode.EntityNotFound, coded.ErrorCode);
        Assert.Equal("no such order", coded.Message);
    }

    [Fact]
    public async Task OnInvoked_sees_the_result_or_the_refusal_and_telemetry_logs_it()
    {
        var probe = _host.Get<Probe>();
        _host.Get<SignInState>().IsSignedIn = false;
        await Dispatcher.Execute(new AppFunctionInvocation("create_order"), CreateArgs);
        await Dispatcher.Execute(new AppFunctionInvocation("cancel_order") { Platform = AppFunctionPlatform.Android }, """{"order":"o-1"}""");
        await Dispatcher.Execute(new AppFunctionInvocation("explode"), """{"message":"bad"}""");
        Assert.Contains("invoked:create_order:Order:none", probe.Seen);
        Assert.Contains("invoked:cancel_order:null:Denied", probe.Seen);
        Assert.Contains("invoked:explode:null:InvalidOperationException", probe.Seen);
        Assert.True(_host.Logs.Has(e => e.Category.EndsWith("TelemetryDelegate", StringComparison.Ordinal) && e.Message == "create_order from Other: ok"));
        Assert.True(_host.Logs.Has(e => e.Message == "cancel_order from Android: Sign in to cancel orders."));
        Assert.True(_host.Logs.Has(e => e.Message == "explode from Other: bad"));
    }

    [Fact]
    public async Task Delegates_run_in_registration_order_and_the_first_refusal_decides()
    {
        var probe = _host.Get<Probe>();
        _host.Get<SignInState>().IsSignedIn = false;
        await Dispatcher.Execute(new AppFunctionInvocation("cancel_order"), """{"order":"o-1"}""");
        // SignInDelegate (first in source order) refused: UserDelegate was not asked for cancel_order
        Assert.DoesNotContain(probe.Seen, s => s.StartsWith("invoking:cancel_order", StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_caller_policy_refuses_callers()
    {
        Dispatcher.SetCallerPolicy("""{"deny":["com.evil"]}""");
        var o = await Dispatcher.Execute(new AppFunctionInvocation("create_order") { Platform = AppFunctionPlatform.Android, CallerPackage = "com.evil" }, CreateArgs);
        Assert.Equal(AppFunctionErrorCode.Denied, o.ErrorCode);
        var ok = await Dispatcher.Execute(new AppFunctionInvocation("create_order") { Platform = AppFunctionPlatform.Android, CallerPackage = "com.good" }, CreateArgs);
        Assert.Equal(AppFunctionStatus.Success, ok.Status);
    }

    [Fact]
    public async Task A_function_s_caller_policy_refuses_callers_of_that_function_only()
    {
        Dispatcher.SetCallerPolicy("create_order", """{"deny":["com.evil"]}""");
        var o = await Dispatcher.Execute(new AppFunctionInvocation("create_order") { Platform = AppFunctionPlatform.Android, CallerPackage = "com.evil" }, CreateArgs);
        Assert.Equal(AppFunctionErrorCode.Denied, o.ErrorCode);
        var other = await Dispatcher.Execute(new AppFunctionInvocation("who_am_i") { Platform = AppFunctionPlatform.Android, CallerPackage = "com.evil" }, "{}");
        Assert.Equal(AppFunctionStatus.Success, other.Status);
        var e = Assert.Throws<AppFunctionRegistrationException>(() => Dispatcher.SetCallerPolicy("nope", "{}"));
        Assert.Contains("nope", e.Message);
    }

    [Fact]
    public async Task Limits_bound_the_arguments_size_and_depth()
    {
        Dispatcher.SetLimits(64, 4);
        var big = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"a customer whose name makes the input longer than 64 bytes","quantity":2}""");
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, big.ErrorCode);
        Assert.Equal(AppFunctionStatus.Success, (await Dispatcher.Execute(new AppFunctionInvocation("create_order"), CreateArgs)).Status);
        Dispatcher.SetLimits(1 << 20, 1);
        var deep = await Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":[["acme"]],"quantity":2}""");
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, deep.ErrorCode);
        Assert.Throws<ArgumentOutOfRangeException>(() => Dispatcher.SetLimits(0, 4));
        Assert.Throws<ArgumentOutOfRangeException>(() => Dispatcher.SetLimits(64, 0));
    }

    [Fact]
    public async Task A_hundred_concurrent_Executes()
    {
        var calls = Enumerable.Range(0, 100).Select(i => Task.Run(() =>
            Dispatcher.Execute(new AppFunctionInvocation("create_order"), $$"""{"customer":"c{{i}}","quantity":{{i + 1}}}"""))).ToArray();
        var outcomes = await Task.WhenAll(calls);
        Assert.All(outcomes, o => Assert.Equal(AppFunctionStatus.Success, o.Status));
        Assert.Equal(100, outcomes.Select(o => JsonDocument.Parse(o.ResultJson!).RootElement.GetProperty("id").GetString()).Distinct().Count());
        for (int i = 0; i < 100; i++)
        {
            Assert.Equal(i + 1, JsonDocument.Parse(outcomes[i].ResultJson!).RootElement.GetProperty("quantity").GetInt32());
        }
    }

    [Fact]
    public void Export_gives_every_vendor_format()
    {
        foreach (var f in new[] { "mcp", "openai", "openai-chat", "anthropic", "gemini" })
        {
            using var doc = JsonDocument.Parse(Dispatcher.Export(f));
            Assert.Contains("create_order", doc.RootElement.GetRawText(), StringComparison.Ordinal);
        }
        Assert.Contains("create_order", Dispatcher.Export("android-xml"), StringComparison.Ordinal);
        Assert.Throws<AppFunctionRegistrationException>(() => Dispatcher.Export("nope"));
    }

    [Fact]
    public async Task ExecuteJson_blocks_for_the_outcome_json()
    {
        var json = Dispatcher.ExecuteJson(new AppFunctionInvocation("create_order"), CreateArgs);
        using var doc = JsonDocument.Parse(json);
        Assert.Equal("success", doc.RootElement.GetProperty("status").GetString());
        await Task.CompletedTask;
    }
}

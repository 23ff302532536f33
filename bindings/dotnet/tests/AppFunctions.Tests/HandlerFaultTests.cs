using AppFunctions.Tests.Faults;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>Issue 28.2: every path out of a handler completes the call exactly once, HandlerFailed
/// with what can be said, even with no timeout to end it otherwise.</summary>
public sealed class HandlerFaultTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(FaultyFunctions).Namespace!, options: o => o.DefaultTimeout = Timeout.InfiniteTimeSpan);

    public void Dispose() => _host.Dispose();

    /// <summary>The outcome within 10 s (a call left incomplete has no timeout here: it would never end).</summary>
    private static async Task<AppFunctionOutcome> Ended(Task<AppFunctionOutcome> call)
    {
        var first = await Task.WhenAny(call, Task.Delay(TimeSpan.FromSeconds(10)));
        Assert.True(first == call, "the call never completed");
        return await call;
    }

    private async Task<AppFunctionOutcome> Run(string id, string args = "{}") =>
        await Ended(_host.Dispatcher.Execute(new AppFunctionInvocation(id) { Timeout = Timeout.InfiniteTimeSpan }, args));

    private void NoSecondCompletion() =>
        Assert.False(_host.Logs.Has(e => e.Message.Contains("already completed", StringComparison.OrdinalIgnoreCase)), "a call was completed twice");

    [Theory]
    [InlineData("throws_unreadable")]
    [InlineData("throws_unreadable_after_await")]
    public async Task An_exception_whose_Message_throws_fails_the_call(string id)
    {
        var o = await Run(id);
        Assert.Equal(AppFunctionErrorCode.HandlerFailed, o.ErrorCode);
        Assert.Contains(nameof(UnreadableException), o.Message);
        NoSecondCompletion();
    }

    [Theory]
    [InlineData("bad_result")]
    [InlineData("bad_result_after_await")]
    [InlineData("bad_result_value_task")]
    public async Task A_result_whose_converter_throws_fails_the_call(string id)
    {
        var o = await Run(id);
        Assert.Equal(AppFunctionErrorCode.HandlerFailed, o.ErrorCode);
        Assert.Contains("getter failed", o.Message);
        NoSecondCompletion();
    }

    [Fact]
    public async Task A_converter_whose_exception_Message_throws_fails_the_call()
    {
        var o = await Run("unreadable_result_after_await");
        Assert.Equal(AppFunctionErrorCode.HandlerFailed, o.ErrorCode);
        Assert.Contains(nameof(UnreadableException), o.Message);
        NoSecondCompletion();
    }

    [Fact]
    public async Task A_JSON_handler_returning_invalid_JSON_after_an_await_fails_the_call()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        using var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false, DefaultTimeout = Timeout.InfiniteTimeSpan });
        d.RegisterFunction("""{"id":"bad_json","result":"string"}""", async (_, _) =>
        {
            await Task.Yield();
            return "{not json";
        });
        d.RegisterFunction("""{"id":"bad_json_now","result":"string"}""", (_, _) => ValueTask.FromResult<string?>("{not json"));
        foreach (var id in new[] { "bad_json", "bad_json_now" })
        {
            var o = await Ended(d.Execute(new AppFunctionInvocation(id), "{}"));
            Assert.Equal(AppFunctionErrorCode.HandlerFailed, o.ErrorCode);
            Assert.Contains("result", o.Message);
        }
        Assert.Equal(0, d.InFlight);
    }

    [Fact]
    public async Task The_calls_leave_nothing_in_flight()
    {
        foreach (var id in new[] { "throws_unreadable", "throws_unreadable_after_await", "bad_result", "bad_result_after_await", "bad_result_value_task", "unreadable_result_after_await" })
        {
            await Run(id);
        }
        Assert.Equal(0, _host.Dispatcher.InFlight);
    }
}

using Android.App;
using Android.App.AppFunctions;
using Android.App.AppSearch;
using Android.OS;
using AppFunctions.Platforms;

using AndroidAppFunctionException = Android.App.AppFunctions.AppFunctionException;

namespace AppFunctions.Maui.Tests;

/// <summary>The package's AppFunctionService, driven as the system drives it (stand-ins of the
/// Android types, the real core and the test app's C# handlers and delegates).</summary>
public sealed class AndroidServiceTests : IDisposable
{
    private const string DialogExtra = "dev.appfunctions.extra.DIALOG";

    public AndroidServiceTests()
    {
        AppFunctionsPlatform.WaitTimeout = TimeSpan.FromSeconds(10);
    }

    public void Dispose()
    {
        AppFunctionsPlatform.WaitTimeout = TimeSpan.FromSeconds(10);
        while (AppFunctionsPlatform.IsForeground)
        {
            AppFunctionsPlatform.ActivityStopped();
        }
    }

    private static GenericDocument Order(string customer, long quantity) =>
        Documents.Of(("customer", new[] { customer }), ("quantity", new[] { quantity }), ("priority", new[] { "High" }));

    [Fact]
    public async Task A_call_from_Gemini_runs_the_CSharp_handler_and_answers_the_response_document_once()
    {
        using var host = AndroidHost.Start();
        var r = await Documents.Call("create_order", Order("acme", 2)).Wait();

        Assert.True((r.Results, r.Errors) == (1, 0), r.ToString());
        var result = r.Response!.ResultDocument.GetPropertyDocumentArray(ExecuteAppFunctionResponse.PropertyReturnValue)!.Single();
        Assert.Equal(new[] { "acme" }, result.GetPropertyStringArray("customer"));
        Assert.Equal(new[] { 2L }, result.GetPropertyLongArray("quantity"));
        Assert.Equal(new[] { "High" }, result.GetPropertyStringArray("priority"));
        Assert.Equal(new[] { "open" }, result.GetPropertyStringArray("status"));
        var id = result.GetPropertyStringArray("id")!.Single();
        Assert.Equal($"Order {id} created.", r.Response.Extras.GetString(DialogExtra));
        // the handler saw the platform, the calling package and the background
        Assert.Contains("create_order:Android:com.google.android.apps.bard:False", host.Log.Seen);
    }

    [Fact]
    public async Task A_call_from_the_shell_has_an_empty_caller_package()
    {
        using var host = AndroidHost.Start();
        var r = await Documents.Call("create_order", Order("initech", 1), caller: "").Wait();
        Assert.Equal(1, r.Results);
        Assert.Contains("create_order:Android::False", host.Log.Seen);
    }

    public static TheoryData<string, string, int> Failures => new()
    {
        // function, what the parameters are, the AppFunctionException code (the core's mapping, docs/android.md)
        { "no_such_function", "order", 1003 },
        { "create_order", "quantity as text", 1001 },
        { "create_order", "no customer", 1001 },
        { "archive_orders", "none", 1002 },
        { "cancel_order", "o-1, signed out", 1000 },
        { "cancel_order", "o-999", 1500 },
        { "explode", "message", 3000 },
    };

    [Theory]
    [MemberData(nameof(Failures))]
    public async Task Each_failure_answers_its_AppFunctionException_once(string function, string parameters, int code)
    {
        using var host = AndroidHost.Start();
        var doc = parameters switch
        {
            "order" => Order("acme", 2),
            "quantity as text" => Documents.Of(("customer", new[] { "acme" }), ("quantity", new[] { "two" })),
            "no customer" => Documents.Of(("quantity", new[] { 2L })),
            "o-1, signed out" => Documents.Of(("order", new[] { "o-1" })),
            "o-999" => Documents.Of(("order", new[] { "o-999" })),
            "message" => Documents.Of(("message", new[] { "boom" })),
            _ => Documents.Of(),
        };
        var r = await Documents.Call(function, doc).Wait();

        Assert.Equal((0, 1), (r.Results, r.Errors));
        Assert.NotNull(r.Error);
        Assert.Equal(code, (int)r.Error!.ErrorCode);
        Assert.False(string.IsNullOrEmpty(r.Error.ErrorMessage));
        if (function == "cancel_order" && code == 1000)
        {
            Assert.Contains("Sign in to cancel orders.", r.Error.ErrorMessage); // Android refuses OpenApp with its message
        }
    }

    [Fact]
    public async Task Cancelling_the_signal_cancels_the_handler_and_answers_ERROR_CANCELLED_once()
    {
        using var host = AndroidHost.Start();
        var signal = new CancellationSignal();
        var r = Documents.Call("wait_for_cancel", Documents.Of(), signal);
        await host.Log.Started.Task.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.False(r.Answered);

        signal.Cancel();
        await r.Wait();
        signal.Cancel(); // the system may signal again: nothing more is answered

        Assert.Equal((0, 1), (r.Results, r.Errors));
        Assert.Equal(AppFunctionError.Cancelled, r.Error!.ErrorCode);
    }

    [Fact]
    public async Task A_call_during_a_cold_start_waits_for_the_dispatcher_the_app_publishes()
    {
        // the system started the process for this call: the service runs before the app made its dispatcher
        var r = Documents.Call("create_order", Order("globex", 3));
        Assert.False(r.Answered); // OnExecuteFunction returned at once: the main thread is free

        await Task.Delay(300);
        Assert.False(r.Answered);
        using var host = AndroidHost.Start(); // MauiProgram: AddAppFunctions(), then UseAppFunctions()
        await r.Wait();

        Assert.True((r.Results, r.Errors) == (1, 0), r.ToString());
        Assert.Contains(host.Log.Seen, s => s.StartsWith("create_order:Android:", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_call_that_finds_no_dispatcher_in_time_answers_ERROR_SYSTEM_ERROR_naming_what_was_not_ready()
    {
        AppFunctionsPlatform.WaitTimeout = TimeSpan.FromMilliseconds(300);
        var r = await Documents.Call("create_order", Order("acme", 2)).Wait();

        Assert.Equal((0, 1), (r.Results, r.Errors));
        Assert.Equal(AppFunctionError.SystemError, r.Error!.ErrorCode);
        Assert.Contains("\"default\"", r.Error.ErrorMessage);
        Assert.Contains("UseAppFunctions()", r.Error.ErrorMessage);
    }

    [Fact]
    public async Task The_wait_timeout_comes_from_the_options()
    {
        using (AndroidHost.Start(o => o.PlatformWaitTimeout = TimeSpan.FromMilliseconds(250)))
        {
            Assert.Equal(TimeSpan.FromMilliseconds(250), AppFunctionsPlatform.WaitTimeout);
        }
        // the dispatcher is gone (its publication withdrawn): the next call waits 250 ms and fails
        var r = await Documents.Call("create_order", Order("acme", 2)).Wait();
        Assert.Equal(AppFunctionError.SystemError, r.Error!.ErrorCode);
        Assert.Contains("250 ms", r.Error.ErrorMessage);
    }

    [Fact]
    public async Task A_call_while_an_activity_is_started_carries_IsForeground()
    {
        using var host = AndroidHost.Start();
        var app = new Application();
        AppFunctionsActivityTracker.Install(app);
        var tracker = Assert.Single(app.Registered);

        tracker.OnActivityStarted(new Activity());
        tracker.OnActivityResumed(new Activity());
        tracker.OnActivityPaused(new Activity()); // an assistant's overlay pauses the activity: still on screen
        var inApp = await Documents.Call("create_order", Order("acme", 1), caller: "in.app").Wait();
        tracker.OnActivityStopped(new Activity());
        var away = await Documents.Call("create_order", Order("acme", 1), caller: "away").Wait();

        Assert.Equal((1, 1), (inApp.Results, away.Results));
        Assert.Contains("create_order:Android:in.app:True", host.Log.Seen);
        Assert.Contains("create_order:Android:away:False", host.Log.Seen);
        AppFunctionsActivityTracker.Install(new Application()); // once per process: later installs do nothing
        Assert.Single(app.Registered);
    }

    [Fact]
    public async Task Many_calls_at_once_are_each_answered_exactly_once()
    {
        using var host = AndroidHost.Start();
        var receivers = Enumerable.Range(0, 40).Select(i => Documents.Call(i % 2 == 0 ? "create_order" : "explode",
            i % 2 == 0 ? Order("c" + i, i + 1) : Documents.Of(("message", new[] { "m" + i })))).ToList();
        foreach (var r in receivers)
        {
            await r.Wait();
        }
        Assert.All(receivers, r => Assert.Equal(1, r.Results + r.Errors));
        Assert.Equal(20, receivers.Sum(r => r.Results));
    }
}

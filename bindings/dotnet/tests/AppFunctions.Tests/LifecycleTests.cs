using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using AppFunctions.Interop;
using AppFunctions.Tests.Lifecycle;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

[CollectionDefinition("serial", DisableParallelization = true)]
public sealed class SerialCollection;

/// <summary>GCHandles handed to the core, counted by its release callbacks (run alone: the counter is global).</summary>
[Collection("serial")]
public sealed class LifecycleTests
{
    /// <summary>Lets what other tests left to finalizers go first, so the baseline is this test's own.</summary>
    private static async Task<long> Settled()
    {
        long last = -1;
        for (int stable = 0, i = 0; stable < 5 && i < 500; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            await Task.Delay(10);
            long now = UserData.Live;
            stable = now == last ? stable + 1 : 0;
            last = now;
        }
        return last;
    }

    private static async Task WaitForLive(long expected)
    {
        for (int i = 0; i < 500 && UserData.Live != expected; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            await Task.Delay(10);
        }
        Assert.Equal(expected, UserData.Live);
    }

    [Fact]
    public async Task Dispose_releases_every_GCHandle_the_core_held()
    {
        long baseline = await Settled();
        long allocated = UserData.Allocated;
        using (var host = TestHost.Create(typeof(Counter).Namespace!, s => s.AddSingleton<Counter>()))
        {
            for (int i = 1; i <= 50; i++)
            {
                var o = await host.Dispatcher.Execute(new AppFunctionInvocation("count"), "{}", new CancellationTokenSource().Token);
                Assert.Equal(i.ToString(System.Globalization.CultureInfo.InvariantCulture), o.ResultJson);
            }
            Assert.True(UserData.Live > baseline); // registrations, hooks, the delegate
        }
        await WaitForLive(baseline);
        // none per call: the call's own handle (its outcome's user data and host context) is kept
        // by the thread for its next call, and the delegate's token is connected to the call
        // through the pending call's cancel slot, not a handle of its own (issue 30)
        Assert.True(UserData.Allocated - allocated < 50, $"{UserData.Allocated - allocated} handles for 50 calls");
    }

    [Fact]
    public async Task The_core_cancels_a_pending_calls_token_through_its_slot_and_only_that_calls()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        using var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false });
        var contexts = new List<AppFunctionContext>();
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var holding = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        d.RegisterFunction("""{"id":"hold","result":"string"}""", async (context, _) =>
        {
            lock (contexts)
            {
                contexts.Add(context);
            }
            var token = context.CancellationToken;
            token.Register(() => cancelled.TrySetResult());
            holding.TrySetResult();
            await Task.Delay(Timeout.Infinite, token);
            return "\"never\"";
        });
        d.RegisterFunction("""{"id":"quick","result":"string"}""", (context, args) =>
        {
            lock (contexts)
            {
                contexts.Add(context);
            }
            _ = context.CancellationToken;
            return ValueTask.FromResult<string?>("\"ok\"");
        });
        long allocated = UserData.Allocated;
        int slots = CancelSlot.Count;

        // a timeout: the core cancels the handler's token (the slot's callback), the call ends TimedOut
        var timedOut = await d.Execute(new AppFunctionInvocation("hold") { Timeout = TimeSpan.FromMilliseconds(50) }, "{}");
        Assert.Equal(AppFunctionErrorCode.TimedOut, timedOut.ErrorCode);
        await cancelled.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(contexts[0].CancellationToken.IsCancellationRequested);

        // calls that end well on this thread reuse its pending call and slot: a generation each
        for (int i = 0; i < 100; i++)
        {
            var ok = await d.Execute(new AppFunctionInvocation("quick"), "{}");
            Assert.Equal("\"ok\"", ok.ResultJson);
        }
        Assert.All(contexts.Skip(1), c => Assert.False(c.CancellationToken.IsCancellationRequested));
        Assert.True(UserData.Allocated - allocated < 10, $"{UserData.Allocated - allocated} handles for 101 calls");
        Assert.True(CancelSlot.Count - slots <= 2, $"{CancelSlot.Count - slots} slots made for 101 calls");

        // a context that asks for its token only after its call ended, while a later call holds
        // the slot, registers with its ended call as before: a token of a call that has ended is
        // cancelled at once. The later call's token is untouched until its own timeout.
        var late = contexts[^1];
        holding = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var second = d.Execute(new AppFunctionInvocation("hold") { Timeout = TimeSpan.FromMilliseconds(300) }, "{}");
        await holding.Task.WaitAsync(TimeSpan.FromSeconds(10));
        typeof(AppFunctionContext).GetField("_cts", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!
            .SetValue(late, null); // as if it had never asked
        Assert.True(late.CancellationToken.IsCancellationRequested);
        Assert.False(contexts[^1].CancellationToken.IsCancellationRequested);
        Assert.False(cancelled.Task.IsCompleted);
        Assert.Equal(AppFunctionErrorCode.TimedOut, (await second).ErrorCode);
        await cancelled.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(contexts[^1].CancellationToken.IsCancellationRequested);
    }

    [Fact]
    public async Task Calls_reuse_their_threads_pending_call_handles_and_free_those_that_wait()
    {
        using var host = TestHost.Create(typeof(AppFunctions.Tests.Pooling.PoolingFunctions).Namespace!);
        InlineCalls(host.Dispatcher, 1);
        long handles = PendingExecute.Handles;
        InlineCalls(host.Dispatcher, 1000);
        Assert.Equal(handles, PendingExecute.Handles);
        // calls that complete later, on other threads: each one's handle is freed with its outcome
        int slots = CancelSlot.Count;
        var later = Enumerable.Range(0, 200).Select(_ => host.Dispatcher.Execute(new AppFunctionInvocation("later"), "{}")).ToArray();
        foreach (var o in await Task.WhenAll(later))
        {
            Assert.Equal("2", o.ResultJson);
        }
        Assert.Equal(slots, CancelSlot.Count); // no context, no cancel slot taken
        Assert.True(PendingExecute.Handles <= handles + 1, $"{PendingExecute.Handles} pending-call handles after 200 calls that completed later ({handles} before)");
    }

    /// <summary>Calls completed inline on this thread: the thread's pending call each time.</summary>
    private static void InlineCalls(AppFunctionDispatcher d, int n)
    {
        for (int i = 0; i < n; i++)
        {
            var task = d.Execute(new AppFunctionInvocation("now"), "{}");
            Assert.True(task.IsCompleted);
            Assert.Equal("1", task.Result.ResultJson);
            Assert.Contains("\"result\":1,", d.ExecuteJson(new AppFunctionInvocation("now"), "{}"), StringComparison.Ordinal);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference Forgotten(ServiceProvider sp)
    {
        var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = t => t.Namespace == typeof(Counter).Namespace });
        var o = d.Execute(new AppFunctionInvocation("count"), "{}").GetAwaiter().GetResult();
        Assert.Equal(AppFunctionStatus.Success, o.Status);
        return new WeakReference(d);
    }

    [Fact]
    public async Task A_forgotten_dispatcher_is_released_by_its_finalizer()
    {
        var services = new ServiceCollection().AddSingleton<Counter>();
        services.AddAppFunctions(o => o.Include = t => t.Namespace == typeof(Counter).Namespace);
        using var sp = services.BuildServiceProvider();
        long baseline = await Settled();
        var weak = Forgotten(sp);
        await WaitForLive(baseline);
        Assert.False(weak.IsAlive);
    }

    [Fact]
    public async Task A_disposed_dispatcher_answers_LimitExceeded_saying_it_was_disposed()
    {
        var host = TestHost.Create(typeof(Counter).Namespace!, s => s.AddSingleton<Counter>());
        var d = host.Dispatcher;
        var view = d.CreateView();
        host.Dispose();
        foreach (var o in new[]
        {
            await d.Execute(new AppFunctionInvocation("count"), "{}"),
            await d.Execute(new AppFunctionInvocation("count"), "{}", new CancellationTokenSource().Token),
            AppFunctionOutcome.Parse(d.ExecuteJson(new AppFunctionInvocation("count"), "{}")),
            await view.Execute(new AppFunctionInvocation("count"), "{}"),
        })
        {
            Assert.Equal(AppFunctionStatus.Error, o.Status);
            Assert.Equal(AppFunctionErrorCode.LimitExceeded, o.ErrorCode);
            Assert.Equal("\"count\": the dispatcher was disposed", o.Message);
        }
        var e = Assert.Throws<ObjectDisposedException>(() => d.Export("mcp"));
        Assert.Equal("AppFunctionDispatcher", e.ObjectName);
        Assert.Contains("the dispatcher was disposed", e.Message);
        Assert.Equal("AppFunctionDispatcher", Assert.Throws<ObjectDisposedException>(() => d.CreateView()).ObjectName);
        Assert.Equal("AppFunctionDispatcher", Assert.Throws<ObjectDisposedException>(() => d.McpHandle("{}")).ObjectName);
        Assert.Equal("AppFunctionDispatcher", Assert.Throws<ObjectDisposedException>(() => d.SetEnabled("count", false)).ObjectName);
        Assert.Equal("AppFunctionDispatcher", Assert.Throws<ObjectDisposedException>(() => d.DefineTypes("{}")).ObjectName);
        view.Dispose();
        Assert.Equal("AppFunctionView", Assert.Throws<ObjectDisposedException>(() => view.GetTools()).ObjectName);
    }

    [Fact]
    public async Task Dispose_refuses_new_calls_while_a_blocking_ExecuteJson_is_in_flight()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false });
        using var entered = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        int runs = 0;
        d.RegisterFunction("""{"id":"block","result":"string"}""", (_, _) =>
        {
            Interlocked.Increment(ref runs);
            entered.Set();
            release.Wait(TimeSpan.FromSeconds(10));
            return ValueTask.FromResult<string?>("\"done\"");
        });
        var first = Task.Run(() => d.ExecuteJson(new AppFunctionInvocation("block"), "{}"));
        Assert.True(entered.Wait(TimeSpan.FromSeconds(10)));
        d.Dispose(); // the ExecuteJson in flight still holds the native dispatcher
        try
        {
            var o = await d.Execute(new AppFunctionInvocation("block"), "{}");
            Assert.Equal(AppFunctionErrorCode.LimitExceeded, o.ErrorCode);
            Assert.Equal("\"block\": the dispatcher was disposed", o.Message);
            Assert.Contains("the dispatcher was disposed", d.ExecuteJson(new AppFunctionInvocation("block"), "{}"));
            Assert.Throws<ObjectDisposedException>(() => d.Export("mcp"));
            Assert.Equal(1, Volatile.Read(ref runs)); // no handler ran after Dispose
        }
        finally
        {
            release.Set();
        }
        Assert.Contains("\"result\":\"done\"", await first); // the call in flight finished with what it held
    }

    [Fact]
    public async Task Shutdown_refuses_new_calls()
    {
        using var host = TestHost.Create(typeof(Counter).Namespace!, s => s.AddSingleton<Counter>());
        Assert.Equal(0, host.Dispatcher.Shutdown(TimeSpan.FromSeconds(1)));
        var o = await host.Dispatcher.Execute(new AppFunctionInvocation("count"), "{}");
        Assert.Equal(AppFunctionErrorCode.LimitExceeded, o.ErrorCode);
        Assert.Equal(0, host.Dispatcher.InFlight);
    }
}

/// <summary>The loader: one resolver, per-platform choices, the ABI check.</summary>
public sealed class NativeLibraryTests
{
    [Fact]
    public void The_resolver_picks___Internal_on_Apple_mobile_and_the_file_elsewhere()
    {
        Assert.Equal(["__Internal"], NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.IOS));
        Assert.Equal(["__Internal"], NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.MacCatalyst));
        Assert.Equal(["__Internal"], NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.TvOS));
        Assert.Equal("libappfunctions.so", NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.Android)[0]);
        Assert.Equal("libappfunctions.so", NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.Linux)[0]);
        Assert.Equal("libappfunctions.dylib", NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.MacOS)[0]);
        Assert.Equal("appfunctions.dll", NativeLibraryLoader.Candidates(NativeLibraryLoader.Platform.Windows)[0]);
        Assert.Equal(NativeLibraryLoader.Platform.Linux, NativeLibraryLoader.Current);
    }

    [Fact]
    public void Linked_statically_the_loader_probes_nothing()
    {
        foreach (var platform in Enum.GetValues<NativeLibraryLoader.Platform>())
        {
            Assert.Empty(NativeLibraryLoader.Candidates(platform, linkedStatically: true));
            Assert.Equal(NativeLibraryLoader.Candidates(platform), NativeLibraryLoader.Candidates(platform, linkedStatically: false));
        }
    }

    [Fact]
    public void Without_the_switch_the_resolver_is_installed()
    {
        // this process sets no AppFunctions.Interop.LinkedStatically switch (only the targets'
        // NativeAOT publish with AppFunctionsLinkStatic=true does): the binding installed its
        // resolver, so the runtime refuses a second one for the assembly
        Assert.False(AppContext.TryGetSwitch(NativeLibraryLoader.LinkedStaticallySwitch, out _));
        Assert.False(NativeLibraryLoader.LinkedStatically);
        NativeLibraryLoader.EnsureLoaded();
        Assert.Throws<InvalidOperationException>(() =>
            NativeLibrary.SetDllImportResolver(typeof(NativeLibraryLoader).Assembly, (_, _, _) => 0));
    }

    [Fact]
    public void A_core_that_cannot_be_reached_is_named_for_the_loader_s_route()
    {
        var linked = NativeLibraryLoader.LoadFailure(true, NativeLibraryLoader.Platform.Linux, "linux-x64", "af_abi_version not found");
        Assert.Contains(NativeLibraryLoader.LinkedStaticallySwitch, linked);
        Assert.Contains("AppFunctionsLinkStatic=true", linked);
        Assert.Contains("af_abi_version not found", linked);
        Assert.DoesNotContain("libappfunctions.so", linked);
        var probed = NativeLibraryLoader.LoadFailure(false, NativeLibraryLoader.Platform.Linux, "linux-x64", "not found");
        Assert.Contains("libappfunctions.so, libappfunctions.so.1, appfunctions", probed);
        Assert.Contains("APPFUNCTIONS_NATIVE_LIBRARY", probed);
        Assert.DoesNotContain(NativeLibraryLoader.LinkedStaticallySwitch, probed);
    }

    [Fact]
    public void The_targets_set_the_switch_the_loader_reads()
    {
        // buildTransitive/AppFunctions.targets (AppFunctionsLinkStatic) names the switch by its string
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "Cargo.toml")))
        {
            dir = dir.Parent;
        }
        Assert.NotNull(dir);
        var targets = File.ReadAllText(Path.Combine(dir.FullName, "bindings/dotnet/src/AppFunctions.Build/buildTransitive/AppFunctions.targets"));
        Assert.Contains($"<RuntimeHostConfigurationOption Include=\"{NativeLibraryLoader.LinkedStaticallySwitch}\" Value=\"true\" Trim=\"true\" />", targets);
        Assert.Contains("<DirectPInvoke Include=\"" + Native.Library + "\" />", targets);
    }

    [Fact]
    public void The_ABI_version_is_checked_with_a_clear_message()
    {
        NativeLibraryLoader.EnsureLoaded();
        Assert.Equal(Native.AbiVersion, Native.af_abi_version());
        var e = Assert.Throws<AppFunctionsLibraryException>(() => NativeLibraryLoader.CheckAbi(2));
        Assert.Contains("version 2", e.Message);
        Assert.Contains("version 1", e.Message);
        Assert.False(string.IsNullOrEmpty(AppFunctionDispatcher.NativeVersion));
    }

    [Fact]
    public unsafe void The_struct_layouts_match_the_header()
    {
        Assert.Equal(48, sizeof(AfInvocation));
        Assert.Equal(40, (int)System.Runtime.InteropServices.Marshal.OffsetOf<AfInvocation>(nameof(AfInvocation.host_context)));
        Assert.Equal(32, sizeof(AfDelegate));
        Assert.Equal(36, (int)System.Runtime.InteropServices.Marshal.OffsetOf<AfInvocation>(nameof(AfInvocation.is_foreground)));
        Assert.Equal(32, (int)System.Runtime.InteropServices.Marshal.OffsetOf<AfInvocation>(nameof(AfInvocation.timeout_ms)));
        Assert.Equal(24, (int)System.Runtime.InteropServices.Marshal.OffsetOf<AfDelegate>(nameof(AfDelegate.free_user_data)));
    }

    [Fact]
    public void Status_names_come_from_the_core_and_are_not_error_code_names()
    {
        Assert.Equal("AF_OK", NativeCalls.StatusName(Native.AF_OK));
        Assert.Equal("AF_ERR_DUPLICATE", NativeCalls.StatusName(Native.AF_ERR_DUPLICATE));
        Assert.Equal("AF_ERR_TIMED_OUT", NativeCalls.StatusName(Native.AF_ERR_TIMED_OUT));
        Assert.Equal("status 99", NativeCalls.StatusName(99));
        unsafe
        {
            Assert.Equal("EntityNotFound", Utf8.Read(Native.af_error_code_name(Native.AF_ERR_DUPLICATE))); // the same 4
        }
    }

    [Fact]
    public void Error_code_names_match_the_core()
    {
        foreach (AppFunctionErrorCode code in Enum.GetValues<AppFunctionErrorCode>())
        {
            unsafe
            {
                Assert.Equal(code.ToString(), Utf8.Read(Native.af_error_code_name((int)code)));
            }
        }
    }
}

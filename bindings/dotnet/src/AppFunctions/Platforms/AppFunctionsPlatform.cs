using System.Runtime.CompilerServices;
using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// What the operating systems' bridges that the package adds to an app need from the .NET side:
/// the Android <c>AppFunctionService</c> (source the package compiles into Android builds) and the
/// App Intents glue (Swift) reach the app's dispatcher through the core's published dispatcher
/// (<c>af_dispatcher_published_new</c>), waiting for it while the app starts (a cold start).
/// </summary>
public static class AppFunctionsPlatform
{
    private static int s_startedActivities;
    private static long s_waitTicks = PublishedDispatcher.DefaultTimeout.Ticks;
    private static string s_publishedName = PublishedDispatcher.DefaultName;

    /// <summary>Whether one of the app's activities is started (on screen): a platform call that
    /// arrives meanwhile carries <see cref="AppFunctionInvocation.IsForeground"/>. On Android the
    /// package's <c>AppFunctionsActivityTracker</c> counts started and stopped activities.</summary>
    public static bool IsForeground => Volatile.Read(ref s_startedActivities) > 0;

    /// <summary>An activity of the app started (Android <c>onActivityStarted</c>).</summary>
    public static void ActivityStarted() => Interlocked.Increment(ref s_startedActivities);

    /// <summary>An activity of the app stopped (Android <c>onActivityStopped</c>); never counts below zero.</summary>
    public static void ActivityStopped()
    {
        int seen;
        do
        {
            seen = Volatile.Read(ref s_startedActivities);
            if (seen <= 0)
            {
                return;
            }
        }
        while (Interlocked.CompareExchange(ref s_startedActivities, seen - 1, seen) != seen);
    }

    /// <summary>How long a platform call waits for the published dispatcher (default 10 s;
    /// <c>AddAppFunctions()</c> sets it from <see cref="AppFunctionsOptions.PlatformWaitTimeout"/>).</summary>
    public static TimeSpan WaitTimeout
    {
        get => TimeSpan.FromTicks(Interlocked.Read(ref s_waitTicks));
        set
        {
            // the ticks compared, not ThrowIfLessThan<TimeSpan>: a generic instantiation over a
            // value type that ReadyToRun does not hold, which the JIT compiled in every cold start
            // (AddAppFunctions sets it)
            if (value.Ticks < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(value), value, "The wait cannot be negative.");
            }
            Interlocked.Exchange(ref s_waitTicks, value.Ticks);
        }
    }

    /// <summary>The published name platform calls wait for (<see cref="PublishedDispatcher.DefaultName"/> unless
    /// <see cref="AppFunctionsOptions.PublishAs"/> names another).</summary>
    public static string PublishedName
    {
        get => Volatile.Read(ref s_publishedName);
        set
        {
            ArgumentException.ThrowIfNullOrEmpty(value);
            Volatile.Write(ref s_publishedName, value);
        }
    }

    /// <summary>
    /// Runs an Android AppFunctions request: waits (on a thread-pool thread, never the caller's) up
    /// to <see cref="WaitTimeout"/> for the dispatcher published as <see cref="PublishedName"/>, then
    /// hands the request's parameters — the neutral JSON image of its <c>GenericDocument</c> — to the
    /// core (<c>af_android_execute_async</c>), which binds, runs the delegates and the handler and
    /// answers <c>{"result": image, "extras": {...}}</c> or <c>{"errorCode": n, "message": "..."}</c>
    /// (an <c>AppFunctionException</c> code). Never throws: a dispatcher that was not published in
    /// time answers <c>ERROR_SYSTEM_ERROR</c> (2000) naming what was not ready; a cancelled token
    /// answers <c>ERROR_CANCELLED</c> (2001).
    /// </summary>
    public static Task<string> ExecuteAndroidAsync(AppFunctionInvocation invocation, string parametersDocumentJson, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(invocation);
        ArgumentNullException.ThrowIfNull(parametersDocumentJson);
        return Task.Run(() => Run(invocation, parametersDocumentJson, cancellationToken), CancellationToken.None);
    }

    private static async Task<string> Run(AppFunctionInvocation invocation, string document, CancellationToken cancellationToken)
    {
        string name = PublishedName;
        PublishedDispatcher published;
        try
        {
            // the core's publication, waited for on a thread of its own (PublishedDispatcher.WaitAsync)
            published = await PublishedDispatcher.WaitAsync(name, WaitTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException e)
        {
            return Error(SystemError, $"{e.Message}: the app's dispatcher was not ready (AddAppFunctions() publishes the AppFunctionDispatcher " +
                "when it is first resolved: resolve it at startup, e.g. app.Services.UseAppFunctions(), or raise AppFunctionsOptions.PlatformWaitTimeout)");
        }
        catch (Exception e)
        {
            return Error(SystemError, $"AppFunctions: waiting for the dispatcher published as \"{name}\" failed: {e.Message}");
        }
        using (published)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return Error(Cancelled, $"AppFunctions: the call was cancelled while the app started");
            }
            return await Execute(published.Handle, invocation, document, cancellationToken).ConfigureAwait(false);
        }
    }

    internal const int SystemError = 2000;
    internal const int Cancelled = 2001;

    [SkipLocalsInit] // the stack buffers below are written before they are read
    private static unsafe Task<string> Execute(DispatcherHandle dispatcher, AppFunctionInvocation invocation, string document, CancellationToken cancellationToken)
    {
        var pending = new PendingAndroidResponse();
        if (cancellationToken.CanBeCanceled)
        {
            pending.Token = NativeCalls.NewCancelToken();
            pending.Registration = cancellationToken.UnsafeRegister(static s => NativeCalls.Cancel(((PendingAndroidResponse)s!).Token!), pending);
        }
        Span<byte> idBuf = stackalloc byte[128];
        Span<byte> callerBuf = stackalloc byte[128];
        Span<byte> docBuf = stackalloc byte[1024];
        using var id = new Utf8.Text(invocation.FunctionId, idBuf);
        using var caller = new Utf8.Text(invocation.CallerPackage, callerBuf);
        using var doc = new Utf8.Text(document, docBuf);
        bool tokenRef = false;
        var ud = UserData.Alloc(pending);
        int status;
        try
        {
            pending.Token?.DangerousAddRef(ref tokenRef);
            var inv = NativeCalls.Invocation(invocation, id.Pointer, caller.Pointer);
            inv.cancel_token = pending.Token?.DangerousGetHandle() ?? 0;
            // no host context: the calls of a published dispatcher get theirs from the dispatcher
            // that registered the handlers (its DI scope per call), as calls from Swift do
            status = NativeCalls.AndroidExecuteAsync(dispatcher, &inv, doc.Pointer, ud);
        }
        catch
        {
            UserData.Free(ud);
            pending.End();
            throw;
        }
        finally
        {
            if (tokenRef)
            {
                pending.Token!.DangerousRelease();
            }
        }
        if (status != Native.AF_OK)
        {
            UserData.Free(ud);
            pending.Complete(Error(SystemError, "AppFunctions: the call could not start: " + NativeCalls.LastError()));
        }
        return pending.Task;
    }

    /// <summary>An <c>{"errorCode", "message"}</c> response as the core writes them.</summary>
    internal static string Error(int code, string message)
    {
        var buffer = new AppFunctions.Generated.ByteBuffer(256);
        using (var w = new System.Text.Json.Utf8JsonWriter(buffer))
        {
            w.WriteStartObject();
            w.WriteNumber("errorCode", code);
            w.WriteString("message", message);
            w.WriteEndObject();
        }
        return System.Text.Encoding.UTF8.GetString(buffer.WrittenSpan);
    }
}

/// <summary>One Android request in flight: its cancellation and the response the core sends once
/// (<see cref="Trampolines.AndroidResponse"/>).</summary>
internal sealed class PendingAndroidResponse
{
    private readonly TaskCompletionSource<string> _tcs = new(TaskCreationOptions.RunContinuationsAsynchronously);

    internal CancelTokenHandle? Token { get; set; }

    internal CancellationTokenRegistration Registration { get; set; }

    internal Task<string> Task => _tcs.Task;

    internal void End()
    {
        Registration.Unregister();
        Token?.Dispose();
    }

    internal void Complete(string response)
    {
        End();
        _tcs.TrySetResult(response);
    }
}

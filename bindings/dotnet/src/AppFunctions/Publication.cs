using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// A handle to a dispatcher that some code in this process published
/// (<see cref="AppFunctionDispatcher.Publish"/>, or a Kotlin or Swift dispatcher publishing through
/// the same core): what a platform entry point that the OS may start before the app has built its
/// dispatcher (an Android <c>AppFunctionService</c>, an App Intent) waits for. Disposing it releases
/// only this handle; the dispatcher belongs to its publisher.
/// </summary>
public sealed unsafe class PublishedDispatcher : IDisposable
{
    /// <summary>The name every binding publishes under and waits for unless told otherwise.</summary>
    public const string DefaultName = "default";

    /// <summary>How long <see cref="Wait"/> waits unless told otherwise: 10 seconds, enough for an app's
    /// cold start, short enough for the OS's own deadline on a call.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(10);

    private readonly DispatcherHandle _handle;

    private PublishedDispatcher(DispatcherHandle handle, string name)
    {
        _handle = handle;
        Name = name;
    }

    /// <summary>The name it was published under.</summary>
    public string Name { get; }

    internal DispatcherHandle Handle => _handle;

    /// <summary>Blocks up to <paramref name="timeout"/> (<see cref="DefaultTimeout"/> when null;
    /// <see cref="Timeout.InfiniteTimeSpan"/>: without limit) for a dispatcher published under
    /// <paramref name="name"/>. Never call it on an app's main thread (see <see cref="WaitAsync"/>).</summary>
    /// <exception cref="TimeoutException">Nothing was published in time; the message names the name and the wait.</exception>
    public static PublishedDispatcher Wait(string name = DefaultName, TimeSpan? timeout = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        uint ms = timeout == TimeSpan.Zero ? 0 : NativeCalls.TimeoutMs(timeout ?? DefaultTimeout);
        return new PublishedDispatcher(NativeCalls.WaitPublished(name, ms), name);
    }

    /// <summary><see cref="Wait"/> on a thread of its own, so the caller's thread (a UI or binder
    /// thread) is never blocked.</summary>
    public static Task<PublishedDispatcher> WaitAsync(string name = DefaultName, TimeSpan? timeout = null) =>
        Task.Factory.StartNew(() => Wait(name, timeout), CancellationToken.None,
            TaskCreationOptions.LongRunning | TaskCreationOptions.RunContinuationsAsynchronously, TaskScheduler.Default);

    /// <summary>Withdraws the publication under <paramref name="name"/>; false when nothing was published there.</summary>
    public static bool Unpublish(string name = DefaultName)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        return NativeCalls.Unpublish(name);
    }

    /// <summary>Runs a function on the published dispatcher and blocks for its outcome JSON. The
    /// publisher's handlers and delegates run, whatever language they are written in.</summary>
    public string ExecuteJson(AppFunctionInvocation invocation, string? argumentsJson)
    {
        ArgumentNullException.ThrowIfNull(invocation);
        using var id = new Utf8.Text(invocation.FunctionId, default);
        using var caller = new Utf8.Text(invocation.CallerPackage, default);
        using var args = new Utf8.Text(argumentsJson ?? "{}", default);
        var inv = NativeCalls.Invocation(invocation, id.Pointer, caller.Pointer);
        return NativeCalls.ExecuteJson(_handle, &inv, args.Pointer);
    }

    /// <summary>An export of the published dispatcher (the formats of <see cref="AppFunctionDispatcher.Export"/>).</summary>
    public string Export(string format) => NativeCalls.ExportCopy(_handle, format);

    /// <summary>Releases this handle (never the dispatcher).</summary>
    public void Dispose() => _handle.Dispose();
}

/// <summary>Descriptor bundles: every export without a running app, for build steps.</summary>
public static unsafe class AppFunctionBundle
{
    /// <summary>What <see cref="AppFunctionDispatcher.Export"/> gives for a dispatcher with exactly the
    /// registrations of <paramref name="bundleJson"/> (<see cref="AppFunctionDispatcher.BundleJson"/>).</summary>
    /// <exception cref="AppFunctionRegistrationException">A bad bundle (the message names the item and
    /// path) or an unknown format.</exception>
    public static string Export(string bundleJson, string format)
    {
        ArgumentNullException.ThrowIfNull(bundleJson);
        ArgumentNullException.ThrowIfNull(format);
        return NativeCalls.BundleExport(bundleJson, format);
    }
}

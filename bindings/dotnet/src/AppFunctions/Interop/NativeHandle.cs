using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>What one kind of native object is: how it is freed and what the public API calls it
/// (for the message of a use after <c>Dispose</c>).</summary>
internal interface INativeKind
{
    /// <summary>Frees a live handle of this kind (runs once, on any thread, maybe the finalizer's).</summary>
    static abstract void Free(nint handle);

    /// <summary>The public type that owns the handle, as messages name it.</summary>
    static abstract string Owner { get; }
}

/// <summary>
/// Owns one native object (<c>af_dispatcher</c>, <c>af_view</c>, <c>af_mcp_session</c>,
/// <c>af_cancel_token</c>): the one SafeHandle of the binding, freed by its kind. Passing it to
/// a <c>[LibraryImport]</c> keeps the object alive for the call. <see cref="SafeHandle.Dispose()"/>
/// with a call in flight only defers the free, so <see cref="IsDisposed"/> records the moment
/// <c>Dispose</c> was called: <see cref="NativeCalls"/> refuses new calls from then on.
/// </summary>
internal sealed class NativeHandle<TKind> : SafeHandle where TKind : INativeKind
{
    private int _disposed;

    /// <summary>For the interop marshaller (a handle returned by a native function).</summary>
    public NativeHandle() : base(0, ownsHandle: true)
    {
    }

    /// <summary>Takes ownership of <paramref name="raw"/> (0 gives an invalid handle).</summary>
    internal NativeHandle(nint raw) : this() => SetHandle(raw);

    public override bool IsInvalid => handle == 0;

    /// <summary>Whether <c>Dispose</c> was called (the object may live on until calls in flight end).</summary>
    internal bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    /// <summary>Marks the handle disposed, once; true for the first caller.</summary>
    internal bool MarkDisposed() => Interlocked.Exchange(ref _disposed, 1) == 0;

    protected override void Dispose(bool disposing)
    {
        MarkDisposed();
        base.Dispose(disposing);
    }

    protected override bool ReleaseHandle()
    {
        TKind.Free(handle);
        return true;
    }
}

/// <summary><c>af_dispatcher</c>: released by shutting it down (no wait) and freeing it. After
/// <c>af_dispatcher_shutdown</c> the free never blocks and runs only release callbacks, so this
/// is safe on the finalizer thread.</summary>
internal readonly struct DispatcherKind : INativeKind
{
    /// <summary>Handles from <c>af_dispatcher_published_new</c>: second handles to a dispatcher that
    /// belongs to its publisher, released by freeing only (never by shutting the dispatcher down).</summary>
    internal static readonly System.Collections.Concurrent.ConcurrentDictionary<nint, byte> Published = new();

    public static unsafe void Free(nint handle)
    {
        if (!Published.TryRemove(handle, out _))
        {
            Native.af_dispatcher_shutdown(handle, 0, null);
        }
        Native.af_dispatcher_free(handle);
    }

    public static string Owner => "AppFunctionDispatcher";
}

/// <summary><c>af_view</c>.</summary>
internal readonly struct ViewKind : INativeKind
{
    public static void Free(nint handle) => Native.af_view_free(handle);

    public static string Owner => "AppFunctionView";
}

/// <summary><c>af_mcp_session</c>.</summary>
internal readonly struct McpSessionKind : INativeKind
{
    public static void Free(nint handle) => Native.af_mcp_session_free(handle);

    public static string Owner => "AppFunctionMcpSession";
}

/// <summary><c>af_cancel_token</c>.</summary>
internal readonly struct CancelTokenKind : INativeKind
{
    public static void Free(nint handle) => Native.af_cancel_token_free(handle);

    public static string Owner => "CancellationToken";
}

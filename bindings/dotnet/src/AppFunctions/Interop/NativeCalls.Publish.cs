namespace AppFunctions.Interop;

// Published dispatchers and descriptor bundles (Interop/Native.Publish.cs).
internal static unsafe partial class NativeCalls
{
    internal static void Publish(DispatcherHandle d, string name) => WithText(d, name, &PublishRaw, "af_dispatcher_publish");

    private static int PublishRaw(DispatcherHandle d, byte* p) => Native.af_dispatcher_publish(d, p);

    /// <summary>Withdraws the publication under <paramref name="name"/>; false when there was none.</summary>
    internal static bool Unpublish(string name)
    {
        NativeLibraryLoader.EnsureLoaded();
        using var n = new Utf8.Text(name, default);
        int st = Native.af_dispatcher_unpublish(n.Pointer);
        if (st == Native.AF_ERR_NOT_FOUND)
        {
            return false;
        }
        Check(st, "af_dispatcher_unpublish");
        return true;
    }

    /// <summary>A second handle to the dispatcher published under <paramref name="name"/>, waiting up to
    /// <paramref name="timeoutMs"/>; <see cref="TimeoutException"/> naming what was not ready.</summary>
    internal static DispatcherHandle WaitPublished(string name, uint timeoutMs)
    {
        NativeLibraryLoader.EnsureLoaded();
        nint raw = 0;
        int st;
        using (var n = new Utf8.Text(name, default))
        {
            st = Native.af_dispatcher_published_new(n.Pointer, timeoutMs, &raw);
        }
        if (st == Native.AF_ERR_TIMED_OUT)
        {
            throw new TimeoutException("AppFunctions: " + LastError());
        }
        Check(st, "af_dispatcher_published_new");
        DispatcherKind.Published[raw] = 0; // before the handle exists, so its release only frees
        return new DispatcherHandle(raw);
    }

    internal static string BundleJson(DispatcherHandle d) =>
        Utf8.Take(Native.af_dispatcher_bundle_json(Live(d))) ?? throw Error("af_dispatcher_bundle_json");

    internal static string BundleExport(string bundleJson, string format)
    {
        NativeLibraryLoader.EnsureLoaded();
        using var b = new Utf8.Text(bundleJson, default);
        using var f = new Utf8.Text(format, default);
        return Utf8.Take(Native.af_bundle_export_copy(b.Pointer, f.Pointer)) ?? throw Error($"af_bundle_export_copy ({format})");
    }
}

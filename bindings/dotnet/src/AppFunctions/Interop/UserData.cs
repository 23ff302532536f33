using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>
/// Every managed object handed to the core as <c>user_data</c> is a <see cref="GCHandle"/>
/// allocated here and freed only by the core's release callback (<see cref="Trampolines.Release"/>)
/// or, for one-shot callbacks, by the callback itself. The counters prove that none leaks.
/// </summary>
internal static unsafe class UserData
{
    private static long s_allocated;
    private static long s_released;

    /// <summary>Handles handed to the core and not released yet (all dispatchers).</summary>
    internal static long Live => Interlocked.Read(ref s_allocated) - Interlocked.Read(ref s_released);

    internal static long Allocated => Interlocked.Read(ref s_allocated);

    internal static long Released => Interlocked.Read(ref s_released);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void* Alloc(object target)
    {
        var h = GCHandle.Alloc(target);
        Interlocked.Increment(ref s_allocated);
        return (void*)GCHandle.ToIntPtr(h);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static T Get<T>(void* userData) where T : class =>
        Unsafe.As<T>(GCHandle.FromIntPtr((nint)userData).Target!);

    internal static object? Target(void* userData) => GCHandle.FromIntPtr((nint)userData).Target;

    internal static T? TryGet<T>(void* userData) where T : class =>
        userData is null ? null : GCHandle.FromIntPtr((nint)userData).Target as T;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void Free(void* userData)
    {
        if (userData is null)
        {
            return;
        }
        GCHandle.FromIntPtr((nint)userData).Free();
        Interlocked.Increment(ref s_released);
    }
}

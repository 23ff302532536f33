using System.Runtime.CompilerServices;

namespace AppFunctions.Interop;

/// <summary>
/// How the core cancels the <see cref="AppFunctionContext.CancellationToken"/> of a call that a
/// <see cref="PendingExecute"/> started, without a <see cref="System.Runtime.InteropServices.GCHandle"/>
/// and a release callback per call (issue 30: they were a tenth of a call with delegates). A
/// pending call takes a slot when it first makes a context and keeps it for its life (a call
/// that makes none takes none); the core's cancel callback gets the slot's number and
/// the call's generation as its <c>user_data</c>, packed in one pointer-sized integer, and no
/// release (<c>af_call_on_cancel</c> with a NULL <c>free_user_data</c>: there is nothing to free).
/// </summary>
/// <remarks>
/// Each context a pending call makes for its own call takes a generation of the slot when it is
/// made (during its call). Asking for its token, it puts itself in the slot (a compare-and-swap
/// that only a later generation than the slot holds wins) and registers the slot's number and its
/// generation. <see cref="Cancel"/> reads the context in the slot and cancels its source only when
/// its generation is the callback's: the core may run a cancel callback it took just before the
/// call ended (a timeout firing as the handler returns), and by then the slot may serve a later
/// call or none. A context that asks for its token after a later call took the slot (user code
/// that outlives its call) registers as before, with a handle of its own, as does a pending call
/// made when every slot's number is taken. Slots are never freed, only handed to the next pending
/// call, so a slot's generations only grow. A 64-bit <c>user_data</c> holds 24 bits of the number
/// and 40 of the generation; a 32-bit one (Android's armeabi-v7a) 12 and 20, so a callback
/// would have to come a million calls of its slot late to be taken for a later call's.
/// </remarks>
internal sealed class CancelSlot
{
    private static readonly int IndexBits = IntPtr.Size == 8 ? 24 : 12;
    private static readonly ulong IndexMask = (1UL << IndexBits) - 1;
    private static readonly ulong GenerationMask = (1UL << (IntPtr.Size * 8 - IndexBits)) - 1;

    private static readonly object s_lock = new();
    private static CancelSlot[] s_slots = [];
    private static int s_count;
    private static readonly Stack<CancelSlot> s_free = new();

    private readonly int _index;
    private long _issued;
    private AppFunctionContext? _current;

    private CancelSlot(int index) => _index = index;

    /// <summary>Slots made so far (each pending call that made a context holds one while it lives;
    /// freed ones wait in a list).</summary>
    internal static int Count => Volatile.Read(ref s_count);

    /// <summary>A slot for a new pending call: a freed one, or a new one; null when every number
    /// is taken (its contexts then register their tokens with a handle each).</summary>
    internal static CancelSlot? Take()
    {
        lock (s_lock)
        {
            if (s_free.TryPop(out var free))
            {
                return free;
            }
            if ((ulong)s_count > IndexMask)
            {
                return null;
            }
            if (s_count == s_slots.Length)
            {
                var grown = new CancelSlot[Math.Max(16, s_slots.Length * 2)];
                s_slots.CopyTo(grown, 0);
                Volatile.Write(ref s_slots, grown);
            }
            var slot = new CancelSlot(s_count);
            s_slots[s_count] = slot;
            Volatile.Write(ref s_count, s_count + 1);
            return slot;
        }
    }

    /// <summary>The slot's pending call is gone (discarded or finalized): the next one may use it.</summary>
    internal void Give()
    {
        Volatile.Write(ref _current, null);
        lock (s_lock)
        {
            s_free.Push(this);
        }
    }

    /// <summary>A generation for a context made for the slot's current call.</summary>
    internal long Issue() => Interlocked.Increment(ref _issued);

    /// <summary>Connects <paramref name="context"/>'s token source to <paramref name="call"/>'s
    /// cancellation: the core cancels it when it cancels the call (a cancelled token, a timeout, a
    /// shutdown), at once when it has already. False when a later call's context holds the slot:
    /// the caller registers the source its own way.</summary>
    internal bool TryArm(AppFunctionContext context, nint call, CancellationTokenSource source)
    {
        long generation = context.SlotGeneration;
        var held = Volatile.Read(ref _current);
        while (held is null || held.SlotGeneration < generation)
        {
            var seen = Interlocked.CompareExchange(ref _current, context, held);
            if (ReferenceEquals(seen, held))
            {
                nuint userData = unchecked((nuint)(((ulong)generation << IndexBits) | (uint)_index));
                NativeCalls.CallOnCancelSlotted(call, userData, source);
                return true;
            }
            held = seen;
        }
        return false;
    }

    /// <summary>The context's call ended: the slot no longer keeps it (nor its DI scope) alive.</summary>
    internal void Disarm(AppFunctionContext context) => Interlocked.CompareExchange(ref _current, null, context);

    /// <summary>The core's cancel callback (<see cref="Trampolines.CancelSlotted"/>): cancels the
    /// source of the context the callback was registered for, if the slot still holds it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void Cancel(nuint userData)
    {
        ulong packed = userData;
        var slots = Volatile.Read(ref s_slots);
        ulong index = packed & IndexMask;
        if (index >= (ulong)slots.Length || slots[index] is not { } slot)
        {
            return;
        }
        if (Volatile.Read(ref slot._current) is { } context
            && ((ulong)context.SlotGeneration & GenerationMask) == packed >> IndexBits)
        {
            context.CancelSource?.Cancel();
        }
    }
}

using System.Runtime.CompilerServices;

namespace AppFunctions.Interop;

// Entities looked up by id (AppFunctionDispatcher.LookupEntities): a call of its own through the
// entity's lookup, its outcome delivered like an Execute's.
internal static unsafe partial class NativeCalls
{
    /// <summary>Starts a lookup of <paramref name="entity"/>'s entities by the ids in
    /// <paramref name="idsJson"/>; the outcome arrives once at <see cref="Trampolines.Outcome"/> with
    /// <paramref name="userData"/> (a <see cref="PendingExecute"/>). The status comes back for the
    /// caller to make an outcome of; the arguments are read before this returns.</summary>
    internal static int EntitiesAsync(DispatcherHandle d, AfInvocation* inv, byte* entity, byte* idsJson, void* userData)
    {
        using var h = new Hold<DispatcherKind>(d);
        return Held.EntitiesAsync(h.Raw, inv, entity, idsJson, userData);
    }

    /// <summary>Looks entities up by id on this thread; the outcome JSON.</summary>
    internal static string EntitiesJson(DispatcherHandle d, AfInvocation* inv, byte* entity, byte* idsJson) =>
        Utf8.Take(Native.af_entities_json(Live(d), inv, entity, idsJson)) ?? "";
}

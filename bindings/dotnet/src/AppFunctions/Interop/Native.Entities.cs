using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>
/// Entities looked up by id through the app's registered lookup (<c>include/appfunctions.h</c>,
/// <c>af_entities_json</c> / <c>af_entities_async</c>): the entity's name and a JSON array of ids
/// in, an outcome out whose result is the entities in the order of the ids. The <c>_json</c>
/// result is freed with <see cref="Native.af_string_free"/>; the async callback's text is lent
/// for the callback.
/// </summary>
internal static unsafe partial class Native
{
    [LibraryImport(Library)]
    internal static partial byte* af_entities_json(DispatcherHandle d, AfInvocation* inv, byte* entity, byte* idsJson);
    // the raw handle, held by its caller (NativeCalls.Held)
    [LibraryImport(Library)]
    internal static partial int af_entities_async(nint d, AfInvocation* inv, byte* entity, byte* idsJson,
        delegate* unmanaged[Cdecl]<void*, byte*, void> onOutcome, void* userData);
}

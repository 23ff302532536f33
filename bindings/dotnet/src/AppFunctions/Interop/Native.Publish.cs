using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

// Published dispatchers and descriptor bundles (include/appfunctions.h, "Published
// dispatchers"; additions to ABI 1).
internal static unsafe partial class Native
{
    [LibraryImport(Library)] internal static partial int af_dispatcher_publish(DispatcherHandle d, byte* name);
    [LibraryImport(Library)] internal static partial int af_dispatcher_unpublish(byte* name);
    [LibraryImport(Library)] internal static partial int af_dispatcher_published_new(byte* name, uint timeout_ms, nint* out_dispatcher);
    [LibraryImport(Library)] internal static partial byte* af_dispatcher_bundle_json(DispatcherHandle d);
    [LibraryImport(Library)] internal static partial byte* af_bundle_export_copy(byte* bundle_json, byte* format);
}

using System.Runtime.InteropServices;

namespace AppFunctions.Interop;

/// <summary>MCP over the process's stdin/stdout (<c>af_mcp_serve_stdio</c>).</summary>
internal static unsafe partial class Native
{
    [LibraryImport(Library)] internal static partial int af_mcp_serve_stdio(DispatcherHandle d);
}

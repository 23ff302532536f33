using AppFunctions.Interop;

namespace AppFunctions;

/// <summary>
/// Serves an <see cref="AppFunctionDispatcher"/> as an MCP server on the process's standard
/// input and output, the way a desktop MCP client (Claude Desktop, an IDE) launches a local
/// server: newline-delimited JSON-RPC, both protocol eras, tool calls on the core's workers.
/// Nothing else may write to stdout meanwhile: log to stderr.
/// </summary>
public static class AppFunctionMcpStdio
{
    /// <summary>Serves MCP on stdin/stdout until stdin ends, then waits for the calls in flight.
    /// Blocks the calling thread.</summary>
    public static void ServeMcpStdio(this AppFunctionDispatcher dispatcher)
    {
        ArgumentNullException.ThrowIfNull(dispatcher);
        NativeCalls.McpServeStdio(dispatcher.Handle);
    }

    /// <summary><see cref="ServeMcpStdio"/> on a thread of its own: the task ends when stdin
    /// ends and the calls in flight have finished.</summary>
    public static Task ServeMcpStdioAsync(this AppFunctionDispatcher dispatcher)
    {
        ArgumentNullException.ThrowIfNull(dispatcher);
        return Task.Factory.StartNew(dispatcher.ServeMcpStdio, CancellationToken.None,
            TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }
}

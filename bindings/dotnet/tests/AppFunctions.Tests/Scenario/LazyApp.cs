using System.Collections.Concurrent;

namespace AppFunctions.Tests.Lazy;

// No delegates: a call's context is made only when a handler or a provider asks for it.

/// <summary>A scoped service that records when its scope ends.</summary>
public sealed class ScopedThing(ScopeLog log) : IDisposable
{
    public int Id { get; } = log.Next();

    public void Dispose() => log.Disposed.Enqueue(Id);
}

public sealed class ScopeLog
{
    private int _next;

    public int Next() => Interlocked.Increment(ref _next);

    public ConcurrentQueue<int> Disposed { get; } = new();

    public ConcurrentQueue<string> Seen { get; } = new();
}

/// <summary>A box of the shop</summary>
[AppFunctionEntity("box")]
public sealed record Box(string Id, int Size);

public sealed class BoxProvider(ScopedThing thing, ScopeLog log) : IAppFunctionEntityProvider<Box>
{
    public Task<IReadOnlyList<Box>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken)
    {
        context.Items["lookup-scope"] = thing.Id;
        context.Say("Found the box.");
        log.Seen.Enqueue($"lookup:{thing.Id}");
        return Task.FromResult<IReadOnlyList<Box>>(ids.Select(id => new Box(id, id.Length)).ToList());
    }

    public Task<IReadOnlyList<Box>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<Box>>([new Box(query, query.Length)]);
}

public class LazyFunctions(ScopedThing thing)
{
    /// <summary>Needs no context.</summary>
    [AppFunction]
    public static int Twice(int n) => 2 * n;

    /// <summary>Answers its text (a string result: written on the stack when plain).</summary>
    [AppFunction]
    public static string Echo(string text) => text;

    /// <summary>The scoped service's id.</summary>
    [AppFunction]
    public int ScopeId() => thing.Id;

    /// <summary>The box, the scope the lookup saw (from Items), this handler's scope, and what the
    /// lookup said.</summary>
    [AppFunction]
    public string Unpack(AppFunctionContext context, Box box) =>
        $"{box.Id}:{box.Size}:{context.Items["lookup-scope"]}:{thing.Id}:{context.Request is AppFunctionRequests.Unpack}:{context.Dialog}:{context.FunctionId}:{context.IsEntityLookup}";
}

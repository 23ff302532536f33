using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using AppFunctions.Interop;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace AppFunctions;

/// <summary>
/// What the core's callbacks need: the DI scope factory, the logger and the function table.
/// Held by every registration's GCHandle, so it must never reference the
/// <see cref="AppFunctionDispatcher"/> or its handle (that would keep them alive forever). It
/// holds the container the dispatcher was made from, for the logger; the scope factory reaches the
/// same objects in Microsoft's container (its root scope, which holds the singletons), so a
/// dispatcher the container made lives until the container is disposed, which disposes it.
/// </summary>
internal sealed class DispatcherCore(IServiceScopeFactory scopeFactory, IServiceProvider services)
{
    private readonly ConcurrentDictionary<string, FunctionRegistration> _functions = new(StringComparer.Ordinal);
    private ILogger? _logger;

    internal IServiceScopeFactory ScopeFactory { get; } = scopeFactory;

    /// <summary>The container's <c>ILoggerFactory</c>'s "AppFunctions" logger (a <c>NullLogger</c>
    /// without one), made at the first message, not with the dispatcher: asking the container for
    /// the factory loads the logging assembly and has the container look the service up, about 2 ms
    /// of a ReadyToRun cold start (measured 2026-12-07) that an app which never logs need not pay.
    /// Two threads' first messages may both make it; either logger is the same factory's. A
    /// container disposed before the first message leaves the messages unlogged, as a disposed
    /// logger factory would.</summary>
    internal ILogger Logger => _logger ?? MakeLogger();

    private ILogger MakeLogger()
    {
        ILogger logger;
        try
        {
            logger = services.GetService<ILoggerFactory>()?.CreateLogger("AppFunctions") ?? NullLogger.Instance;
        }
        catch (ObjectDisposedException)
        {
            logger = NullLogger.Instance;
        }
        return _logger = logger;
    }

    internal FunctionRegistration? Function(string id) => _functions.GetValueOrDefault(id);

    internal void Add(FunctionRegistration reg) => _functions[reg.Id] = reg;

    internal void Remove(string id) => _functions.TryRemove(id, out _);

    /// <summary>Whether any delegate is registered (a handler then shares the call's context with them).</summary>
    internal bool HasDelegates { get; set; }

    /// <summary>The context of this call (or of the call it serves): the one the call's
    /// <see cref="PendingExecute"/> (the invocation's host context) makes on first use, or the
    /// one the scope-begin hook attached to a call the core started itself.</summary>
    internal AppFunctionContext ContextOf(nint call)
    {
        // a callback made inline by the call this thread is starting: its context, known already
        if (PendingExecute.Current?.OwnContext(call) is { } own)
        {
            return own;
        }
        if (NativeCalls.CallInvocationContext(call) is PendingExecute p)
        {
            return p.ContextFor(call);
        }
        if (NativeCalls.CallHostData(call) is AppFunctionContext context)
        {
            return context.For(call);
        }
        // a call the core started itself (MCP) before the scope hook was installed: keep the
        // context on the call so that the end of the call disposes its DI scope.
        context = new AppFunctionContext(this, call, null);
        NativeCalls.CallSetContext(call, context); // released by the core on every path
        return context;
    }

    internal void AskPermission(nint call, nint gate)
    {
        var context = ContextOf(call);
        if (context.Options?.PreApproved == true)
        {
            NativeCalls.Answer(gate, AppFunctionGate.Allow);
            return;
        }
        var handler = context.Services.GetService<IAppFunctionPermissionHandler>();
        if (handler is null)
        {
            NativeCalls.Answer(gate, AppFunctionGate.Deny(
                $"{context.FunctionId} requires permission and no IAppFunctionPermissionHandler is registered: register one to ask the user."));
            return;
        }
        var task = handler.ApproveAsync(context, context.CancellationToken);
        if (task.IsCompletedSuccessfully)
        {
            NativeCalls.Answer(gate, Approval(task.Result, context));
            return;
        }
        _ = Later(task, gate, context, this);

        static async Task Later(Task<bool> task, nint gate, AppFunctionContext context, DispatcherCore core)
        {
            AppFunctionGate answer;
            try
            {
                answer = Approval(await task.ConfigureAwait(false), context);
            }
            catch (Exception e)
            {
                core.LogError(e, "the permission handler failed");
                answer = AppFunctionGate.Deny("the permission handler failed: " + Trampolines.MessageOf(e));
            }
            NativeCalls.Answer(gate, answer);
        }

        static AppFunctionGate Approval(bool approved, AppFunctionContext context) =>
            approved ? AppFunctionGate.Allow : AppFunctionGate.Deny($"The user did not approve {context.FunctionId}.");
    }

    internal void CoreLog(int level, string message)
    {
        var l = level switch
        {
            0 => LogLevel.Debug,
            1 => LogLevel.Information,
            2 => LogLevel.Warning,
            _ => LogLevel.Error,
        };
        if (Logger.IsEnabled(l))
        {
            Logger.Log(l, "{Message}", message);
        }
    }

    /// <summary>Logs a failure; never throws (a logger may format an exception whose Message throws).</summary>
    internal void LogError(Exception e, string what)
    {
        try
        {
            Logger.LogError(e, "AppFunctions: {What}", what);
        }
        catch
        {
            try
            {
                Logger.LogError("AppFunctions: {What} ({Type})", what, e.GetType().FullName);
            }
            catch
            {
                // nothing left to report it to
            }
        }
    }

    internal void LogInvokedFailure(nint call, Exception e)
    {
        var id = NativeCalls.CallFunctionId(call) ?? "?";
        var message = Trampolines.MessageOf(e);
        NativeCalls.CallLog(call, 3, $"OnInvoked threw (ignored): {message}");
        LogError(e, $"OnInvoked of {id} threw (ignored): {message}");
    }
}

internal sealed class FunctionRegistration(DispatcherCore core, string id, Generated.FunctionHandler? handler, Generated.RequestBinder? bind, bool requiresPermission)
{
    /// <summary>The permission handler sees the call's context before the handler runs.</summary>
    internal bool RequiresPermission { get; } = requiresPermission;

    internal DispatcherCore Core { get; } = core;

    internal string Id { get; } = id;

    internal Generated.FunctionHandler? Handler { get; } = handler;

    internal Generated.RequestBinder? Bind { get; } = bind;
}

internal sealed class EntityRegistration(DispatcherCore core, string name, Generated.FunctionHandler lookup)
{
    internal DispatcherCore Core { get; } = core;

    internal string Name { get; } = name;

    internal Generated.FunctionHandler Lookup { get; } = lookup;
}

/// <summary>One delegate: resolved from the call's scope for every call.</summary>
internal sealed class DelegateRegistration(DispatcherCore core, Type type, Func<IServiceProvider, IAppFunctionDelegate> resolve)
{
    internal DispatcherCore Core { get; } = core;

    /// <summary>The delegate's type name, as messages name it.</summary>
    internal string Name { get; } = type.FullName ?? type.Name;

    internal void Invoking(nint call, nint gate)
    {
        var context = Core.ContextOf(call);
        var task = resolve(context.Services).OnInvoking(context, context.CancellationToken);
        if (task.IsCompletedSuccessfully)
        {
            NativeCalls.Answer(gate, task.Result ?? AppFunctionGate.Allow);
            return;
        }
        _ = Later(task, gate, Core);

        static async Task Later(Task<AppFunctionGate> task, nint gate, DispatcherCore core)
        {
            AppFunctionGate answer;
            try
            {
                answer = await task.ConfigureAwait(false) ?? AppFunctionGate.Allow;
            }
            catch (Exception e)
            {
                core.LogError(e, "a delegate's OnInvoking failed");
                answer = AppFunctionGate.Deny(Trampolines.MessageOf(e));
            }
            NativeCalls.Answer(gate, answer);
        }
    }

    internal unsafe void Invoked(nint call, byte* outcomeJson)
    {
        var context = Core.ContextOf(call);
        Exception? exception = context.HandlerException;
        // a success is told by its first bytes: the outcome's length is measured only to parse a failure
        if (exception is null && !AppFunctionOutcome.IsSuccess(outcomeJson))
        {
            var outcome = AppFunctionOutcome.Parse(Utf8.Span(outcomeJson));
            if (outcome.Status != AppFunctionStatus.Success)
            {
                exception = new AppFunctionException(outcome.ErrorCode ?? AppFunctionErrorCode.Denied, outcome.Message ?? "")
                {
                    AppRequested = outcome.Status == AppFunctionStatus.OpenApp,
                };
            }
        }
        var task = resolve(context.Services).OnInvoked(context, exception is null ? context.Result : null, exception);
        if (task.IsCompleted)
        {
            if (task.IsFaulted)
            {
                Core.LogInvokedFailure(call, task.Exception!.InnerException ?? task.Exception);
            }
            return;
        }
        var id = context.FunctionId;
        context.TrackInvoked(ObserveInvoked(task, Core, id));
    }

    // (not a local function of Invoked: an async method cannot be in its unsafe context)
    private static async Task ObserveInvoked(Task task, DispatcherCore core, string id)
    {
        try
        {
            await task.ConfigureAwait(false);
        }
        catch (Exception e)
        {
            core.LogError(e, $"OnInvoked of {id} threw (ignored): {Trampolines.MessageOf(e)}");
        }
    }
}

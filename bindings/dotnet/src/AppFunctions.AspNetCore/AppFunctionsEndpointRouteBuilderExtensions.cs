using System.Diagnostics.CodeAnalysis;
using System.Net;
using System.Threading.Channels;
using AppFunctions;
using AppFunctions.AspNetCore;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Microsoft.AspNetCore.Builder;

/// <summary>
/// Maps the app's <see cref="AppFunctionDispatcher"/> onto ASP.NET Core endpoints: an MCP
/// endpoint (Streamable HTTP, both protocol eras) and the developer debug page. The core
/// implements the protocol; these endpoints only carry the bytes. Each returns the endpoint's
/// convention builder, so the app's authorization policies apply as usual
/// (<c>.RequireAuthorization("agents")</c>).
/// </summary>
public static class AppFunctionsEndpointRouteBuilderExtensions
{
    private static readonly byte[] KeepAlive = ":\n\n"u8.ToArray();

    /// <summary>Serves MCP over Streamable HTTP at <paramref name="pattern"/> (POST, GET, DELETE):
    /// the handshake era (2025-03-26 … 2025-11-25, with <c>Mcp-Session-Id</c> sessions and a GET
    /// stream) and the stateless 2026-07-28 revision. Loopback clients only unless
    /// <see cref="AppFunctionsHttpOptions.AllowRemoteClients"/>.</summary>
    public static IEndpointConventionBuilder MapAppFunctionsMcp(this IEndpointRouteBuilder endpoints,
        [StringSyntax("Route")] string pattern = "/mcp", Action<AppFunctionsHttpOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        var (server, options) = Create(endpoints, configure, pattern, null);
        return endpoints.Map(pattern, ctx => Serve(ctx, server, options, pattern))
            .WithDisplayName("AppFunctions MCP");
    }

    /// <summary>Serves the debug page at <paramref name="pattern"/>: every function, its schema and
    /// exports, a form to try a call with any platform, foreground flag, caller and timeout, and a
    /// live feed of outcomes and log lines. It runs calls: map it only where a developer should
    /// (e.g. <c>if (app.Environment.IsDevelopment())</c>). Loopback clients only unless
    /// <see cref="AppFunctionsHttpOptions.AllowRemoteClients"/>.</summary>
    public static IEndpointConventionBuilder MapAppFunctionsDebugPage(this IEndpointRouteBuilder endpoints,
        [StringSyntax("Route")] string pattern = "/appfunctions", Action<AppFunctionsHttpOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        var basePath = "/" + pattern.Trim('/');
        var (server, options) = Create(endpoints, configure, null, basePath);
        var group = endpoints.MapGroup(basePath);
        group.Map("", ctx => Serve(ctx, server, options, basePath));
        group.Map("{**rest}", ctx => Serve(ctx, server, options, basePath + "/" + (ctx.Request.RouteValues["rest"] as string ?? "")));
        return group.WithDisplayName("AppFunctions debug page");
    }

    private static (AppFunctionHttpServer, AppFunctionsHttpOptions) Create(IEndpointRouteBuilder endpoints,
        Action<AppFunctionsHttpOptions>? configure, string? mcpPath, string? debugPath)
    {
        var options = new AppFunctionsHttpOptions();
        configure?.Invoke(options);
        var dispatcher = endpoints.ServiceProvider.GetRequiredService<AppFunctionDispatcher>();
        var server = new AppFunctionHttpServer(dispatcher, options.ToConfigJson(mcpPath, debugPath));
        endpoints.ServiceProvider.GetService<IHostApplicationLifetime>()?.ApplicationStopped.Register(server.Dispose);
        return (server, options);
    }

    private static bool IsLocal(ConnectionInfo c) =>
        c.RemoteIpAddress is null || IPAddress.IsLoopback(c.RemoteIpAddress)
        || (c.LocalIpAddress is not null && c.RemoteIpAddress.Equals(c.LocalIpAddress) && IPAddress.IsLoopback(c.LocalIpAddress));

    private static async Task Serve(HttpContext ctx, AppFunctionHttpServer server, AppFunctionsHttpOptions options, string path)
    {
        if (!options.AllowRemoteClients && !IsLocal(ctx.Connection))
        {
            ctx.Response.StatusCode = StatusCodes.Status403Forbidden;
            return;
        }
        var ct = ctx.RequestAborted;
        long max = server.MaxBodyBytes;
        byte[] body = [];
        // a declared length over the limit is refused by the core without reading the body
        if (ctx.Request.ContentLength is not { } declared || declared <= max)
        {
            body = await ReadUpTo(ctx.Request.Body, max + 1, ct);
        }
        var headers = new List<KeyValuePair<string, string>>();
        foreach (var (name, values) in ctx.Request.Headers)
        {
            foreach (var v in values)
            {
                if (v is not null) headers.Add(new(name, v));
            }
        }
        var method = ctx.Request.Method;
        var query = ctx.Request.QueryString.HasValue ? ctx.Request.QueryString.Value![1..] : null;
        // a call answered as JSON (a client that takes no stream) blocks: off the request thread
        var resp = await Task.Run(() => server.Handle(method, path, query, headers, body), ct);
        ctx.Response.StatusCode = resp.Status;
        foreach (var (name, value) in resp.Headers)
        {
            ctx.Response.Headers.Append(name, value);
        }
        if (resp.Stream is { } stream)
        {
            await Pump(ctx, stream, ct);
        }
        else if (resp.Body.Length > 0)
        {
            ctx.Response.ContentLength = resp.Body.Length;
            await ctx.Response.Body.WriteAsync(resp.Body, ct);
        }
    }

    private static async Task<byte[]> ReadUpTo(Stream s, long limit, CancellationToken ct)
    {
        using var ms = new MemoryStream();
        var buf = new byte[16 * 1024];
        while (ms.Length < limit)
        {
            int n = await s.ReadAsync(buf.AsMemory(0, (int)Math.Min(buf.Length, limit - ms.Length)), ct);
            if (n == 0) break;
            ms.Write(buf, 0, n);
        }
        return ms.ToArray();
    }

    /// <summary>Sends the stream's headers at once, then each frame as the core makes it; a
    /// client that goes away closes the stream (the core cancels what it carries).</summary>
    private static async Task Pump(HttpContext ctx, AppFunctionHttpStream stream, CancellationToken ct)
    {
        using (stream)
        {
            ctx.Features.Get<IHttpResponseBodyFeature>()?.DisableBuffering();
            try
            {
                await ctx.Response.StartAsync(ct);
                await ctx.Response.Body.FlushAsync(ct);
            }
            catch (OperationCanceledException)
            {
                return;
            }
            var frames = Channel.CreateUnbounded<byte[]>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
            // the core's read blocks: a thread of its own per stream (streams are bounded)
            var reader = new Thread(() =>
            {
                int idle = 0;
                try
                {
                    while (!ct.IsCancellationRequested)
                    {
                        var state = stream.Next(TimeSpan.FromSeconds(1), out var frame);
                        if (state == AppFunctionHttpStreamState.End) break;
                        if (state == AppFunctionHttpStreamState.Idle)
                        {
                            if (++idle >= 15)
                            {
                                idle = 0;
                                frames.Writer.TryWrite(KeepAlive);
                            }
                            continue;
                        }
                        idle = 0;
                        frames.Writer.TryWrite(frame!);
                    }
                    frames.Writer.TryComplete();
                }
                catch (Exception e)
                {
                    frames.Writer.TryComplete(e);
                }
            })
            { IsBackground = true, Name = "appfunctions-http-stream" };
            reader.Start();
            try
            {
                await foreach (var f in frames.Reader.ReadAllAsync(ct))
                {
                    await ctx.Response.Body.WriteAsync(f, ct);
                    await ctx.Response.Body.FlushAsync(ct);
                }
            }
            catch (OperationCanceledException)
            {
                // the client went away: disposing the stream tells the core
            }
        }
    }
}

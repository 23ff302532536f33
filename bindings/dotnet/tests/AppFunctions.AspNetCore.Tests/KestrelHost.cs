using System.Net.Http.Headers;
using System.Security.Claims;
using System.Text;
using System.Text.Encodings.Web;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace AppFunctions.AspNetCore.Tests;

/// <summary>How many times the app's one function ran (a refused request must not add one).</summary>
public sealed class CallLog
{
    private int _calls;

    public int Calls => Volatile.Read(ref _calls);

    public int Add() => Interlocked.Increment(ref _calls);
}

public class Probe(CallLog log)
{
    /// <summary>Counts its calls.</summary>
    [AppFunction]
    public int Touch() => log.Add();
}

/// <summary>A test authentication scheme: <c>X-Test-User</c> names the user (absent: anonymous,
/// so a policy challenges with 401), <c>X-Test-Roles</c> lists their roles (comma separated).</summary>
public sealed class TestAuthHandler(IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory logger, UrlEncoder encoder)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    public const string SchemeName = "Test";

    protected override Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        if (!Request.Headers.TryGetValue("X-Test-User", out var user))
        {
            return Task.FromResult(AuthenticateResult.NoResult());
        }
        var claims = new List<Claim> { new(ClaimTypes.Name, user.ToString()) };
        foreach (var role in Request.Headers["X-Test-Roles"].ToString().Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            claims.Add(new(ClaimTypes.Role, role));
        }
        var principal = new ClaimsPrincipal(new ClaimsIdentity(claims, SchemeName));
        return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(principal, SchemeName)));
    }
}

/// <summary>Who a request comes as.</summary>
public enum As
{
    /// <summary>No credentials.</summary>
    Anonymous,
    /// <summary>Signed in, without the "agent" role the "agents" policy requires.</summary>
    User,
    /// <summary>Signed in with the "agent" role.</summary>
    Agent,
}

/// <summary>An ASP.NET Core app on Kestrel, loopback, port 0, with the test scheme and an
/// "agents" policy (role "agent"); <c>map</c> maps the endpoints under test.</summary>
public sealed class KestrelHost : IAsyncDisposable
{
    public const string McpAccept = "application/json, text/event-stream";

    private readonly WebApplication _app;

    private KestrelHost(WebApplication app, Uri address)
    {
        _app = app;
        Client = new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(30) };
    }

    public HttpClient Client { get; }

    public CallLog Log => _app.Services.GetRequiredService<CallLog>();

    public IServiceProvider Services => _app.Services;

    public static async Task<KestrelHost> Start(Action<WebApplication> map, Action<IServiceCollection>? services = null, Action<WebApplication>? middleware = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromSeconds(5));
        builder.Services.AddSingleton<CallLog>().AddAppFunctions(o =>
        {
            o.Include = t => t.Namespace == typeof(Probe).Namespace;
            o.PublishAs = null;
        });
        builder.Services.AddAuthentication(TestAuthHandler.SchemeName)
            .AddScheme<AuthenticationSchemeOptions, TestAuthHandler>(TestAuthHandler.SchemeName, null);
        builder.Services.AddAuthorizationBuilder().AddPolicy("agents", p => p.RequireRole("agent"));
        services?.Invoke(builder.Services);
        var app = builder.Build();
        middleware?.Invoke(app);
        map(app);
        await app.StartAsync();
        var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        Assert.StartsWith("http://127.0.0.1:", address, StringComparison.Ordinal);
        return new KestrelHost(app, new Uri(address));
    }

    public static HttpRequestMessage Request(HttpMethod method, string path, As who, string? json = null, string? session = null, string accept = McpAccept)
    {
        var r = new HttpRequestMessage(method, path);
        r.Headers.Accept.ParseAdd(accept);
        if (who != As.Anonymous)
        {
            r.Headers.Add("X-Test-User", who == As.Agent ? "ada" : "bo");
            if (who == As.Agent)
            {
                r.Headers.Add("X-Test-Roles", "agent");
            }
        }
        if (session is not null)
        {
            r.Headers.Add("Mcp-Session-Id", session);
        }
        if (json is not null)
        {
            r.Content = new StringContent(json, Encoding.UTF8, new MediaTypeHeaderValue("application/json"));
        }
        return r;
    }

    /// <summary>Sends and returns the response once its headers are in (a stream stays open
    /// until the response is disposed).</summary>
    public Task<HttpResponseMessage> Send(HttpRequestMessage r) => Client.SendAsync(r, HttpCompletionOption.ResponseHeadersRead);

    public const string Initialize =
        """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""";

    /// <summary>A handshake-era session made as an agent on <paramref name="path"/>: its id.</summary>
    public async Task<string> OpenSession(string path = "/mcp", Action<HttpRequestMessage>? extra = null)
    {
        var r = Request(HttpMethod.Post, path, As.Agent, Initialize);
        extra?.Invoke(r);
        using var init = await Send(r);
        Assert.Equal(200, (int)init.StatusCode);
        var sid = init.Headers.GetValues("Mcp-Session-Id").Single();
        var done = Request(HttpMethod.Post, path, As.Agent, """{"jsonrpc":"2.0","method":"notifications/initialized"}""", sid);
        extra?.Invoke(done);
        using var initialized = await Send(done);
        Assert.Equal(202, (int)initialized.StatusCode);
        return sid;
    }

    /// <summary>The status of a ping in session <paramref name="sid"/> (200: alive, 404: ended).</summary>
    public async Task<int> Ping(string sid, string path = "/mcp", Action<HttpRequestMessage>? extra = null)
    {
        var r = Request(HttpMethod.Post, path, As.Agent, """{"jsonrpc":"2.0","id":7,"method":"ping"}""", sid);
        extra?.Invoke(r);
        using var ping = await Send(r);
        return (int)ping.StatusCode;
    }

    /// <summary>Reads one SSE event (up to its blank line) from a stream response.</summary>
    public static async Task<string> FirstEvent(HttpResponseMessage r)
    {
        var stream = await r.Content.ReadAsStreamAsync();
        using var reader = new StreamReader(stream, Encoding.UTF8, leaveOpen: true);
        var sb = new StringBuilder();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        while (await reader.ReadLineAsync(cts.Token) is { } line)
        {
            if (line.Length == 0)
            {
                if (sb.Length > 0) break;
                continue;
            }
            if (line.StartsWith(':')) continue; // a keep-alive
            sb.Append(line).Append('\n');
        }
        return sb.ToString();
    }

    public async ValueTask DisposeAsync()
    {
        Client.Dispose();
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}

using System.Net;
using System.Text.Json;
using System.Threading.RateLimiting;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.RateLimiting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using static AppFunctions.AspNetCore.Tests.KestrelHost;

namespace AppFunctions.AspNetCore.Tests;

/// <summary>The app's authorization policies (and every other endpoint convention) on every
/// route <c>MapAppFunctionsMcp</c> and <c>MapAppFunctionsDebugPage</c> map, on a real Kestrel:
/// 401 without credentials, 403 for a user the policy refuses, served for one it allows; a
/// refused request never reaches the dispatcher.</summary>
public sealed class AuthorizationTests
{
    private const string Call = """{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"touch","arguments":{}}}""";

    private static Task<KestrelHost> PolicyHost(Action<AppFunctionsHttpOptions>? mcp = null, Action<AppFunctionsHttpOptions>? debug = null) =>
        KestrelHost.Start(app =>
        {
            app.MapAppFunctionsMcp("/mcp", mcp).RequireAuthorization("agents");
            app.MapAppFunctionsDebugPage("/appfunctions", debug).RequireAuthorization("agents");
        });

    [Fact]
    public async Task Mcp_post_get_and_delete_answer_401_without_credentials_403_without_the_policy_and_serve_with_it()
    {
        await using var host = await PolicyHost();
        var sid = await host.OpenSession();
        foreach (var who in new[] { As.Anonymous, As.User })
        {
            int refused = who == As.Anonymous ? 401 : 403;
            using var init = await host.Send(Request(HttpMethod.Post, "/mcp", who, Initialize));
            Assert.Equal(refused, (int)init.StatusCode);
            Assert.False(init.Headers.Contains("Mcp-Session-Id"));
            using var call = await host.Send(Request(HttpMethod.Post, "/mcp", who, Call, sid));
            Assert.Equal(refused, (int)call.StatusCode);
            using var get = await host.Send(Request(HttpMethod.Get, "/mcp", who, session: sid, accept: "text/event-stream"));
            Assert.Equal(refused, (int)get.StatusCode);
            using var delete = await host.Send(Request(HttpMethod.Delete, "/mcp", who, session: sid));
            Assert.Equal(refused, (int)delete.StatusCode);
        }
        Assert.Equal(0, host.Log.Calls);
        Assert.Equal(200, await host.Ping(sid)); // the refused DELETEs ended nothing

        // the agent: a call runs, the stream opens, DELETE ends the session
        using (var call = await host.Send(Request(HttpMethod.Post, "/mcp", As.Agent, Call, sid)))
        {
            Assert.Equal(200, (int)call.StatusCode);
            Assert.Contains("\"result\"", await call.Content.ReadAsStringAsync());
        }
        Assert.Equal(1, host.Log.Calls);
        using (var get = await host.Send(Request(HttpMethod.Get, "/mcp", As.Agent, session: sid, accept: "text/event-stream")))
        {
            Assert.Equal(200, (int)get.StatusCode);
            Assert.Equal("text/event-stream", get.Content.Headers.ContentType?.MediaType);
        }
        using (var delete = await host.Send(Request(HttpMethod.Delete, "/mcp", As.Agent, session: sid)))
        {
            Assert.Equal(204, (int)delete.StatusCode);
        }
        Assert.Equal(404, await host.Ping(sid));
    }

    [Fact]
    public async Task The_debug_page_its_api_and_its_event_stream_answer_401_403_and_serve_the_policy()
    {
        await using var host = await PolicyHost();
        const string Execute = """{"function":"touch"}""";
        foreach (var who in new[] { As.Anonymous, As.User })
        {
            int refused = who == As.Anonymous ? 401 : 403;
            foreach (var (method, path, body) in new (HttpMethod, string, string?)[]
            {
                (HttpMethod.Get, "/appfunctions", null),
                (HttpMethod.Get, "/appfunctions/api/registry", null),
                (HttpMethod.Get, "/appfunctions/api/function?id=touch", null),
                (HttpMethod.Post, "/appfunctions/api/execute", Execute),
                (HttpMethod.Post, "/appfunctions/api/view", "{}"),
                (HttpMethod.Get, "/appfunctions/api/events", null),
            })
            {
                using var r = await host.Send(Request(method, path, who, body, accept: "*/*"));
                Assert.True(refused == (int)r.StatusCode, $"{who} {method} {path}: {(int)r.StatusCode}, expected {refused}");
            }
        }
        Assert.Equal(0, host.Log.Calls);

        using (var page = await host.Send(Request(HttpMethod.Get, "/appfunctions", As.Agent, accept: "text/html")))
        {
            Assert.Equal(200, (int)page.StatusCode);
            Assert.Contains("<code>touch</code>", await page.Content.ReadAsStringAsync());
        }
        using (var registry = await host.Send(Request(HttpMethod.Get, "/appfunctions/api/registry", As.Agent, accept: "application/json")))
        {
            Assert.Equal(200, (int)registry.StatusCode);
            using var doc = JsonDocument.Parse(await registry.Content.ReadAsStringAsync());
            Assert.Contains(doc.RootElement.GetProperty("functions").EnumerateArray(), f => f.GetProperty("id").GetString() == "touch");
        }
        using (var events = await host.Send(Request(HttpMethod.Get, "/appfunctions/api/events", As.Agent, accept: "text/event-stream")))
        {
            Assert.Equal(200, (int)events.StatusCode);
            Assert.Contains("\"hello\"", await FirstEvent(events));
        }
        using (var run = await host.Send(Request(HttpMethod.Post, "/appfunctions/api/execute", As.Agent, Execute, accept: "application/json")))
        {
            Assert.Equal(200, (int)run.StatusCode);
            using var doc = JsonDocument.Parse(await run.Content.ReadAsStringAsync());
            Assert.Equal("success", doc.RootElement.GetProperty("outcome").GetProperty("status").GetString());
        }
        Assert.Equal(1, host.Log.Calls);
    }

    [Fact]
    public async Task A_refused_initialize_creates_no_session()
    {
        // one session at most: a new session ends the idle one, so a refused initialize that
        // reached the core would end the first session (its ping would answer 404)
        await using var host = await PolicyHost(mcp: o => o.MaxSessions = 1);
        var first = await host.OpenSession();
        for (int i = 0; i < 5; i++)
        {
            using var anonymous = await host.Send(Request(HttpMethod.Post, "/mcp", As.Anonymous, Initialize));
            Assert.Equal(401, (int)anonymous.StatusCode);
            using var user = await host.Send(Request(HttpMethod.Post, "/mcp", As.User, Initialize));
            Assert.Equal(403, (int)user.StatusCode);
        }
        Assert.Equal(200, await host.Ping(first));
        // the check sees a session made: an allowed initialize ends the first one
        var second = await host.OpenSession();
        Assert.Equal(404, await host.Ping(first));
        Assert.Equal(200, await host.Ping(second));
    }

    [Fact]
    public async Task The_core_bearer_token_check_still_runs_behind_the_app_policy()
    {
        const string Token = "s3cret-token";
        await using var host = await PolicyHost(mcp: o => o.BearerToken = Token, debug: o => o.BearerToken = Token);
        void Bearer(HttpRequestMessage r) => r.Headers.Authorization = new("Bearer", Token);

        // the policy first: no credentials, a bearer token alone does not pass it
        var anonymous = Request(HttpMethod.Post, "/mcp", As.Anonymous, Initialize);
        Bearer(anonymous);
        using (var r = await host.Send(anonymous))
        {
            Assert.Equal(401, (int)r.StatusCode);
            Assert.False(r.Headers.WwwAuthenticate.Any(h => h.Scheme == "Bearer"), "the app's scheme challenged, not the core");
        }
        var user = Request(HttpMethod.Post, "/mcp", As.User, Initialize);
        Bearer(user);
        using (var r = await host.Send(user))
        {
            Assert.Equal(403, (int)r.StatusCode);
        }
        // then the core: an agent without the token is refused by the core's check
        foreach (var (method, path, body) in new (HttpMethod, string, string?)[]
        {
            (HttpMethod.Post, "/mcp", Initialize),
            (HttpMethod.Get, "/appfunctions", null),
            (HttpMethod.Post, "/appfunctions/api/execute", """{"function":"touch"}"""),
        })
        {
            using var r = await host.Send(Request(method, path, As.Agent, body));
            Assert.Equal(401, (int)r.StatusCode);
            Assert.Contains(r.Headers.WwwAuthenticate, h => h.Scheme == "Bearer");
        }
        Assert.Equal(0, host.Log.Calls);
        // both: served
        var sid = await host.OpenSession(extra: Bearer);
        Assert.Equal(200, await host.Ping(sid, extra: Bearer));
        var page = Request(HttpMethod.Get, "/appfunctions", As.Agent, accept: "text/html");
        Bearer(page);
        using (var r = await host.Send(page))
        {
            Assert.Equal(200, (int)r.StatusCode);
        }
    }

    [Fact]
    public async Task Authorize_metadata_reaches_every_endpoint_the_maps_make()
    {
        await using var host = await KestrelHost.Start(app =>
        {
            app.MapAppFunctionsMcp("/mcp").WithMetadata(new AuthorizeAttribute { Roles = "agent" });
            app.MapAppFunctionsDebugPage("/appfunctions").WithMetadata(new AuthorizeAttribute("agents"));
        });
        var endpoints = host.Services.GetServices<EndpointDataSource>().SelectMany(s => s.Endpoints)
            .Where(e => e.DisplayName?.StartsWith("AppFunctions", StringComparison.Ordinal) == true).ToList();
        Assert.Equal(3, endpoints.Count); // the MCP endpoint, the page, the page's API and stream
        Assert.All(endpoints, e => Assert.NotNull(e.Metadata.GetMetadata<IAuthorizeData>()));

        using (var r = await host.Send(Request(HttpMethod.Post, "/mcp", As.User, Initialize)))
        {
            Assert.Equal(403, (int)r.StatusCode);
        }
        using (var r = await host.Send(Request(HttpMethod.Get, "/appfunctions/api/registry", As.Anonymous)))
        {
            Assert.Equal(401, (int)r.StatusCode);
        }
        await host.OpenSession();
        using (var r = await host.Send(Request(HttpMethod.Get, "/appfunctions/api/registry", As.Agent)))
        {
            Assert.Equal(200, (int)r.StatusCode);
        }
    }

    [Fact]
    public async Task Without_a_policy_both_maps_stay_open_to_loopback_clients()
    {
        // the app has authentication and a policy, and maps the endpoints without one
        await using var host = await KestrelHost.Start(app =>
        {
            app.MapAppFunctionsMcp("/mcp");
            app.MapAppFunctionsDebugPage("/appfunctions");
        });
        using (var init = await host.Send(Request(HttpMethod.Post, "/mcp", As.Anonymous, Initialize)))
        {
            Assert.Equal(200, (int)init.StatusCode);
            Assert.Single(init.Headers.GetValues("Mcp-Session-Id"));
        }
        using (var page = await host.Send(Request(HttpMethod.Get, "/appfunctions", As.Anonymous, accept: "text/html")))
        {
            Assert.Equal(200, (int)page.StatusCode);
        }
        using (var run = await host.Send(Request(HttpMethod.Post, "/appfunctions/api/execute", As.Anonymous, """{"function":"touch"}""")))
        {
            Assert.Equal(200, (int)run.StatusCode);
        }
        Assert.Equal(1, host.Log.Calls);
    }

    [Fact]
    public async Task Rate_limiting_and_cors_apply_to_every_route_too()
    {
        await using var host = await KestrelHost.Start(
            app =>
            {
                app.MapAppFunctionsMcp("/mcp").RequireCors("app");
                app.MapAppFunctionsDebugPage("/appfunctions").RequireRateLimiting("one");
            },
            services =>
            {
                services.AddCors(o => o.AddPolicy("app", p => p.WithOrigins("https://app.example").AllowAnyHeader().AllowAnyMethod()));
                services.AddRateLimiter(o =>
                {
                    o.RejectionStatusCode = StatusCodes.Status429TooManyRequests;
                    o.AddFixedWindowLimiter("one", w =>
                    {
                        w.PermitLimit = 1;
                        w.Window = TimeSpan.FromMinutes(10);
                        w.QueueLimit = 0;
                    });
                });
            },
            middleware: app =>
            {
                app.UseCors();
                app.UseRateLimiter();
            });

        // CORS: a preflight from the allowed origin is answered by the app's policy
        var preflight = new HttpRequestMessage(HttpMethod.Options, "/mcp");
        preflight.Headers.Add("Origin", "https://app.example");
        preflight.Headers.Add("Access-Control-Request-Method", "POST");
        preflight.Headers.Add("Access-Control-Request-Headers", "content-type,mcp-session-id");
        using (var r = await host.Send(preflight))
        {
            Assert.True(r.IsSuccessStatusCode, $"preflight: {(int)r.StatusCode}");
            Assert.Equal("https://app.example", r.Headers.GetValues("Access-Control-Allow-Origin").Single());
        }

        // rate limiting: one request in the window for the whole page group, whichever route
        using (var r = await host.Send(Request(HttpMethod.Get, "/appfunctions/api/registry", As.Anonymous)))
        {
            Assert.Equal(200, (int)r.StatusCode);
        }
        using (var r = await host.Send(Request(HttpMethod.Get, "/appfunctions", As.Anonymous)))
        {
            Assert.Equal(HttpStatusCode.TooManyRequests, r.StatusCode);
        }
        using (var r = await host.Send(Request(HttpMethod.Post, "/appfunctions/api/execute", As.Anonymous, """{"function":"touch"}""")))
        {
            Assert.Equal(HttpStatusCode.TooManyRequests, r.StatusCode);
        }
        Assert.Equal(0, host.Log.Calls);
    }
}

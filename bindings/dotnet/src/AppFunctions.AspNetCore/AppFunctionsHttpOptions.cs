using System.Text;
using System.Text.Json;

namespace AppFunctions.AspNetCore;

/// <summary>
/// How <c>MapAppFunctionsMcp</c> and <c>MapAppFunctionsDebugPage</c> serve. Every bound has the
/// core's default (docs/http.md); leave a property null to keep it.
/// </summary>
public sealed class AppFunctionsHttpOptions
{
    /// <summary>Origins allowed besides loopback ones (<c>https://app.example.com</c>; <c>"*"</c> all).
    /// A request whose <c>Origin</c> is neither is refused with 403.</summary>
    public IList<string> AllowedOrigins { get; } = new List<string>();

    /// <summary>When set, every request needs <c>Authorization: Bearer</c> this token (401 otherwise).
    /// The app's own authorization policies apply too: chain <c>.RequireAuthorization(...)</c>.</summary>
    public string? BearerToken { get; set; }

    /// <summary>Serve clients that are not on this machine. Off by default: a request from a
    /// non-loopback address is refused with 403, whatever the server binds to.</summary>
    public bool AllowRemoteClients { get; set; }

    /// <summary>Largest request body (core default 8 MiB; larger is answered 413).</summary>
    public long? MaxBodyBytes { get; set; }

    /// <summary>Most handshake-era MCP sessions at once (core default 100; the oldest idle one is
    /// ended for a new one, else the new one is refused with 503).</summary>
    public int? MaxSessions { get; set; }

    /// <summary>Most long-lived streams at once (core default 32; more are refused with 503).</summary>
    public int? MaxStreams { get; set; }

    /// <summary>Most tool calls in flight (core default 64).</summary>
    public int? MaxCalls { get; set; }

    /// <summary>An idle session ends after this long (core default 30 minutes).</summary>
    public TimeSpan? SessionIdleTimeout { get; set; }

    /// <summary>Tools per <c>tools/list</c> page (clients follow <c>nextCursor</c>); null: the
    /// dispatcher's MCP configuration (all in one page unless changed).</summary>
    public int? PageSize { get; set; }

    /// <summary>The agent view's metadata (a JSON object) every MCP client sees.</summary>
    public string? MetadataJson { get; set; }

    internal string ToConfigJson(string? mcpPath, string? debugPath)
    {
        using var ms = new MemoryStream();
        using (var w = new Utf8JsonWriter(ms))
        {
            w.WriteStartObject();
            if (mcpPath is null) w.WriteNull("mcpPath"); else w.WriteString("mcpPath", mcpPath);
            if (debugPath is not null) w.WriteString("debugPath", debugPath);
            w.WriteStartArray("allowedOrigins");
            foreach (var o in AllowedOrigins) w.WriteStringValue(o);
            w.WriteEndArray();
            if (BearerToken is not null) w.WriteString("bearerToken", BearerToken);
            if (MaxBodyBytes is { } b) w.WriteNumber("maxBodyBytes", b);
            if (MaxSessions is { } s) w.WriteNumber("maxSessions", s);
            if (MaxStreams is { } st) w.WriteNumber("maxStreams", st);
            if (MaxCalls is { } c) w.WriteNumber("maxCalls", c);
            if (SessionIdleTimeout is { } t) w.WriteNumber("sessionIdleSeconds", Math.Max(1, (long)t.TotalSeconds));
            if (PageSize is { } ps)
            {
                w.WriteStartObject("mcp");
                w.WriteNumber("pageSize", ps);
                w.WriteEndObject();
            }
            if (MetadataJson is not null)
            {
                w.WritePropertyName("metadata");
                w.WriteRawValue(MetadataJson);
            }
            w.WriteEndObject();
        }
        return Encoding.UTF8.GetString(ms.ToArray());
    }
}

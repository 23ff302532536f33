using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;

namespace AppFunctions;

/// <summary>Who is calling.</summary>
public enum AppFunctionPlatform
{
    /// <summary>An in-process call (a test, an in-app assistant, MCP).</summary>
    Other = 0,

    /// <summary>Siri, Shortcuts, Spotlight.</summary>
    Apple = 1,

    /// <summary>Android AppFunctions callers such as Gemini.</summary>
    Android = 2,
}

/// <summary>How a call ended.</summary>
public enum AppFunctionStatus
{
    /// <summary>The function ran; <see cref="AppFunctionOutcome.ResultJson"/> holds its result.</summary>
    Success,

    /// <summary>The call failed; see <see cref="AppFunctionOutcome.ErrorCode"/> and <see cref="AppFunctionOutcome.Message"/>.</summary>
    Error,

    /// <summary>Apple: continue in the app and run again in the foreground.</summary>
    OpenApp,
}

/// <summary>The core's closed list of error codes (values are the C ABI's <c>AF_CODE_*</c>).</summary>
public enum AppFunctionErrorCode
{
    /// <summary>No function (declared or generated <c>search_{entity}</c>) has this id.</summary>
    FunctionNotFound = 1,

    /// <summary>The function is disabled at run time.</summary>
    Disabled = 2,

    /// <summary>The arguments do not bind; the message names the parameter and the reason.</summary>
    InvalidArgument = 3,

    /// <summary>An entity id did not resolve.</summary>
    EntityNotFound = 4,

    /// <summary>A delegate refused, an OpenApp gate on Android/Other, or the caller policy.</summary>
    Denied = 5,

    /// <summary>A RequiresPermission function was not approved.</summary>
    PermissionDenied = 6,

    /// <summary>The call was cancelled.</summary>
    Cancelled = 7,

    /// <summary>The call's timeout elapsed first.</summary>
    TimedOut = 8,

    /// <summary>The handler threw or reported an error, or returned a result that breaks its type.</summary>
    HandlerFailed = 9,

    /// <summary>A limit was exceeded (also: the dispatcher is shutting down).</summary>
    LimitExceeded = 10,

    /// <summary>The operation is not supported.</summary>
    NotSupported = 11,

    /// <summary>A bug in the core or the binding.</summary>
    InternalError = 12,
}

/// <summary>A request to run a function (<see cref="AppFunctionDispatcher.Execute"/>).</summary>
/// <param name="FunctionId">The function's id.</param>
public sealed record AppFunctionInvocation(string FunctionId)
{
    /// <summary>Who calls; default <see cref="AppFunctionPlatform.Other"/> (an OpenApp gate then refuses, as on Android).</summary>
    public AppFunctionPlatform Platform { get; init; } = AppFunctionPlatform.Other;

    /// <summary>Apple: the app is in the foreground for this run (default false).</summary>
    public bool IsForeground { get; init; }

    /// <summary>Android: the calling agent's package name (null/empty from the shell or in-process).</summary>
    public string? CallerPackage { get; init; }

    /// <summary>Ends the call <c>TimedOut</c> after this long; null: the dispatcher's default
    /// (30 s unless <see cref="AppFunctionsOptions.DefaultTimeout"/> says otherwise);
    /// <see cref="Timeout.InfiniteTimeSpan"/>: none.</summary>
    public TimeSpan? Timeout { get; init; }
}

/// <summary>What a delegate's <see cref="IAppFunctionDelegate.OnInvoking"/> decides.</summary>
public sealed class AppFunctionGate
{
    private AppFunctionGate(GateKind kind, string? message)
    {
        Kind = kind;
        Message = message;
    }

    internal enum GateKind
    {
        Allow,
        Deny,
        OpenApp,
    }

    internal GateKind Kind { get; }

    /// <summary>The message of a refusal or an OpenApp request.</summary>
    public string? Message { get; }

    /// <summary>Lets the call go on.</summary>
    public static AppFunctionGate Allow { get; } = new(GateKind.Allow, null);

    /// <summary>Refuses the call: <c>Denied</c> with the message.</summary>
    public static AppFunctionGate Deny(string message) => new(GateKind.Deny, message);

    /// <summary>Asks for the app: in the foreground this gate passes, on every platform (the user
    /// is in the app: the rerun, or the app's own assistant). Not in the foreground, on iOS the
    /// user continues in the app and the function runs again in the foreground; on Android and
    /// <c>Other</c> the call is refused (<c>Denied</c>) with the message.</summary>
    public static AppFunctionGate OpenApp(string message) => new(GateKind.OpenApp, message);

    internal static readonly Task<AppFunctionGate> AllowTask = Task.FromResult(Allow);

    /// <inheritdoc/>
    public override string ToString() => Kind == GateKind.Allow ? "Allow" : $"{Kind}({Message})";
}

/// <summary>A failure with one of the core's codes: throw it from a handler or provider to end the
/// call with that code; <see cref="IAppFunctionDelegate.OnInvoked"/> receives refusals as one.</summary>
public sealed class AppFunctionException : Exception
{
    /// <summary>Creates the exception.</summary>
    public AppFunctionException(AppFunctionErrorCode code, string message) : base(message) => Code = code;

    /// <summary>The error code.</summary>
    public AppFunctionErrorCode Code { get; }

    /// <summary>True when the call was not refused but asked for the app (an
    /// <see cref="AppFunctionStatus.OpenApp"/> outcome: iOS, not in the foreground): it has not
    /// run yet and may still run when it is rerun in the foreground. <see cref="Code"/> is then
    /// <c>Denied</c> and the message is the gate's. False for every other failure.</summary>
    public bool AppRequested { get; init; }
}

/// <summary>
/// Handles what cuts across every function: sign-in checks, feature flags, telemetry. Declare as
/// many as you like in the app project: <c>AddAppFunctions()</c> finds and registers them.
/// Both methods have default implementations, so implement only what you need.
/// </summary>
public interface IAppFunctionDelegate
{
    /// <summary>Runs after the arguments are bound and before the handler. The first delegate that
    /// does not return <see cref="AppFunctionGate.Allow"/> decides the call.</summary>
    Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken) => AppFunctionGate.AllowTask;

    /// <summary>Runs after the handler with its result or exception (a refusal arrives as an
    /// <see cref="AppFunctionException"/> with <c>Denied</c>; an <c>OpenApp</c> outcome as one whose
    /// <see cref="AppFunctionException.AppRequested"/> is true). Exceptions thrown here are logged and ignored.</summary>
    Task OnInvoked(AppFunctionContext context, object? result, Exception? exception) => Task.CompletedTask;
}

/// <summary>
/// The outcome of a call. <see cref="AppFunctionDispatcher.Execute"/> never throws: every
/// failure comes back as one of these.
/// </summary>
public sealed class AppFunctionOutcome
{
    // The result as the core wrote it, in UTF-8: a string is made only when ResultJson is read.
    private readonly byte[]? _resultUtf8;
    private string? _resultJson;

    private AppFunctionOutcome(AppFunctionStatus status, byte[]? resultUtf8, string? dialog, AppFunctionErrorCode? errorCode, string? message, bool isFinal)
    {
        Status = status;
        _resultUtf8 = resultUtf8;
        Dialog = dialog;
        ErrorCode = errorCode;
        Message = message;
        IsFinal = isFinal;
    }

    /// <summary>Success, Error or OpenApp.</summary>
    public AppFunctionStatus Status { get; }

    /// <summary>The result as JSON text (null for a void function or a failure).</summary>
    public string? ResultJson => _resultJson ??= _resultUtf8 is null ? null : Encoding.UTF8.GetString(_resultUtf8);

    /// <summary>The result as UTF-8 JSON (empty when absent), without making a string.</summary>
    internal ReadOnlyMemory<byte> ResultUtf8 => _resultUtf8;

    internal bool HasResult => _resultUtf8 is not null;

    /// <summary>The text for Siri, or returned with the Android result (<see cref="AppFunctionContext.Say"/>).</summary>
    public string? Dialog { get; }

    /// <summary>The error code when <see cref="Status"/> is Error.</summary>
    public AppFunctionErrorCode? ErrorCode { get; }

    /// <summary>What went wrong (or the OpenApp message).</summary>
    public string? Message { get; }

    /// <summary>An output-kind function answered: the agent run ends with <see cref="ResultJson"/> as its result.</summary>
    public bool IsFinal { get; }

    /// <summary>Decodes <see cref="ResultJson"/> (default when absent).</summary>
    public T? GetResult<T>(JsonTypeInfo<T> typeInfo) => !HasResult ? default : JsonSerializer.Deserialize(ResultUtf8.Span, typeInfo);

    /// <summary>The outcome JSON, as the core writes it: text as UTF-8, escaping only <c>"</c>,
    /// <c>\</c> and control characters (not non-ASCII letters, <c>&lt;</c> or <c>&amp;</c>).</summary>
    public string ToJson()
    {
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, new JsonWriterOptions { Encoder = CoreJsonEncoder.Instance }))
        {
            w.WriteStartObject();
            w.WriteString("status", Status switch { AppFunctionStatus.Success => "success", AppFunctionStatus.OpenApp => "openApp", _ => "error" });
            w.WritePropertyName("result");
            if (!HasResult)
            {
                w.WriteNullValue();
            }
            else
            {
                w.WriteRawValue(ResultUtf8.Span, skipInputValidation: true);
            }
            w.WriteString("dialog", Dialog);
            w.WriteString("errorCode", ErrorCode?.ToString());
            w.WriteString("message", Message);
            if (IsFinal)
            {
                w.WriteBoolean("final", true);
            }
            w.WriteEndObject();
        }
        return Encoding.UTF8.GetString(buffer.ToArray());
    }

    /// <inheritdoc/>
    public override string ToString() => ToJson();

    internal static AppFunctionOutcome Failure(AppFunctionErrorCode code, string message) =>
        new(AppFunctionStatus.Error, null, null, code, message, false);

    internal static AppFunctionOutcome Parse(string json) => Parse(Encoding.UTF8.GetBytes(json));

    /// <summary>Whether the core's outcome JSON (NUL-terminated) is a success (its first member,
    /// as the core writes it), without reading the rest: what <c>OnInvoked</c> needs of most
    /// outcomes. The terminator differs from every byte of the prefix, so a shorter text stops
    /// the comparison there, and the outcome's length is never measured.</summary>
    internal static unsafe bool IsSuccess(byte* json)
    {
        if (json is null)
        {
            return false;
        }
        var prefix = SuccessStatus;
        for (int i = 0; i < prefix.Length; i++)
        {
            if (json[i] != prefix[i])
            {
                return false;
            }
        }
        return true;
    }

    private static ReadOnlySpan<byte> SuccessStatus => "{\"status\":\"success\","u8;

    // The core writes every outcome with its members in one order (src/outcome.rs):
    // {"status":...,"result":...,"dialog":...,"errorCode":...,"message":...[,"final":true]}.
    private static ReadOnlySpan<byte> SuccessPrefix => "{\"status\":\"success\",\"result\":"u8;

    private static ReadOnlySpan<byte> NothingElseSuffix => ",\"dialog\":null,\"errorCode\":null,\"message\":null}"u8;

    /// <summary>Reads the core's outcome JSON in one pass, without a DOM. A success with neither
    /// dialog nor final mark (the common outcome) is recognised by its fixed prefix and suffix:
    /// the text between them is the result, copied as UTF-8, not parsed again.</summary>
    internal static AppFunctionOutcome Parse(ReadOnlySpan<byte> json)
    {
        if (json.Length > SuccessPrefix.Length + NothingElseSuffix.Length && json.StartsWith(SuccessPrefix) && json[^NothingElseSuffix.Length..].SequenceEqual(NothingElseSuffix))
        {
            // valid JSON whose outermost object starts and ends so: no string or nested value can
            // hold the unescaped quotes of the suffix, so what lies between is the result value
            var result = json[SuccessPrefix.Length..^NothingElseSuffix.Length];
            return new AppFunctionOutcome(AppFunctionStatus.Success, result.SequenceEqual("null"u8) ? null : result.ToArray(), null, null, null, false);
        }
        try
        {
            var r = new Utf8JsonReader(json);
            var status = AppFunctionStatus.Error;
            byte[]? result = null;
            string? dialog = null, message = null;
            AppFunctionErrorCode? code = null;
            bool isFinal = false;
            r.Read();
            while (r.Read() && r.TokenType == JsonTokenType.PropertyName)
            {
                if (r.ValueTextEquals("status"u8))
                {
                    r.Read();
                    status = r.ValueTextEquals("success"u8) ? AppFunctionStatus.Success
                        : r.ValueTextEquals("openApp"u8) ? AppFunctionStatus.OpenApp
                        : AppFunctionStatus.Error;
                }
                else if (r.ValueTextEquals("result"u8))
                {
                    r.Read();
                    if (r.TokenType != JsonTokenType.Null)
                    {
                        long start = r.TokenStartIndex;
                        r.Skip();
                        long end = r.BytesConsumed;
                        result = json[(int)start..(int)end].ToArray();
                    }
                }
                else if (r.ValueTextEquals("dialog"u8))
                {
                    r.Read();
                    dialog = r.TokenType == JsonTokenType.Null ? null : r.GetString();
                }
                else if (r.ValueTextEquals("message"u8))
                {
                    r.Read();
                    message = r.TokenType == JsonTokenType.Null ? null : r.GetString();
                }
                else if (r.ValueTextEquals("errorCode"u8))
                {
                    r.Read();
                    if (r.TokenType != JsonTokenType.Null)
                    {
                        code = ErrorCodes.FromName(r);
                    }
                }
                else if (r.ValueTextEquals("final"u8))
                {
                    r.Read();
                    isFinal = r.TokenType == JsonTokenType.True;
                }
                else
                {
                    r.Read();
                    r.Skip();
                }
            }
            return new AppFunctionOutcome(status, result, dialog, code, message, isFinal);
        }
        catch (JsonException e)
        {
            return Failure(AppFunctionErrorCode.InternalError, "AppFunctions: the core's outcome is not valid JSON: " + e.Message);
        }
    }
}

internal static class ErrorCodes
{
    private static readonly string[] Names =
    [
        "", "FunctionNotFound", "Disabled", "InvalidArgument", "EntityNotFound", "Denied", "PermissionDenied",
        "Cancelled", "TimedOut", "HandlerFailed", "LimitExceeded", "NotSupported", "InternalError",
    ];

    internal static string Name(AppFunctionErrorCode code) => (int)code > 0 && (int)code < Names.Length ? Names[(int)code] : code.ToString();

    internal static AppFunctionErrorCode FromName(Utf8JsonReader r)
    {
        for (int i = 1; i < Names.Length; i++)
        {
            if (r.ValueTextEquals(Names[i]))
            {
                return (AppFunctionErrorCode)i;
            }
        }
        return AppFunctionErrorCode.InternalError;
    }
}

/// <summary>Escapes what JSON requires and nothing else, as the core (serde_json) writes text:
/// <c>"</c>, <c>\</c> and the control characters below U+0020 (<c>\n</c>, <c>\r</c>,
/// <c>\t</c>, <c>\b</c>, <c>\f</c>, else <c>\u00XX</c>). Letters of every script,
/// emoji, <c>&lt;</c>, <c>&gt;</c> and <c>&amp;</c> stay as they are. Also the encoder of the
/// results the binding writes for the core (which keeps or normalises them, so the outcome is
/// the same as with any encoder) and of the generated code's names: unlike
/// <c>JavaScriptEncoder.Default</c>, it costs nothing to make, which a cold start's first call feels.</summary>
internal sealed class CoreJsonEncoder : System.Text.Encodings.Web.JavaScriptEncoder
{
    internal static readonly CoreJsonEncoder Instance = new();

    public override int MaxOutputCharactersPerInputCharacter => 6; // \u00XX

    public override bool WillEncode(int unicodeScalar) => unicodeScalar < 0x20 || unicodeScalar is '"' or '\\';

    // A value's first characters are checked in a plain loop; only a longer value's rest goes to
    // the vectorized search (Long, made at its first use). Most values a call writes are short,
    // and making the SearchValues at the first call cost about 2 ms of a ReadyToRun cold start
    // (measured 2026-12-07): the JIT compiles its construction and its searchers, which
    // ReadyToRun does not hold.
    private const int Scanned = 64;

    public override unsafe int FindFirstCharacterToEncode(char* text, int textLength)
    {
        int n = Math.Min(textLength, Scanned);
        for (int i = 0; i < n; i++)
        {
            char c = text[i];
            if (c < 0x20 || c == '"' || c == '\\')
            {
                return i;
            }
        }
        if (textLength <= Scanned)
        {
            return -1;
        }
        int rest = new ReadOnlySpan<char>(text + Scanned, textLength - Scanned).IndexOfAny(Long.Escaped);
        return rest < 0 ? -1 : Scanned + rest;
    }

    /// <summary>ASCII is checked at once; from the first non-ASCII byte on, the base class decodes
    /// (and reports invalid UTF-8 where it starts).</summary>
    public override int FindFirstCharacterToEncodeUtf8(ReadOnlySpan<byte> utf8Text)
    {
        int i = FirstEscapedOrNonAscii(utf8Text);
        if (i < 0 || utf8Text[i] < 0x80)
        {
            return i;
        }
        int rest = base.FindFirstCharacterToEncodeUtf8(utf8Text[i..]);
        return rest < 0 ? -1 : i + rest;
    }

    private static int FirstEscapedOrNonAscii(ReadOnlySpan<byte> utf8Text)
    {
        int n = Math.Min(utf8Text.Length, Scanned);
        for (int i = 0; i < n; i++)
        {
            byte b = utf8Text[i];
            if (b < 0x20 || b >= 0x80 || b == '"' || b == '\\')
            {
                return i;
            }
        }
        if (utf8Text.Length <= Scanned)
        {
            return -1;
        }
        int rest = utf8Text[Scanned..].IndexOfAny(Long.EscapedOrNonAscii);
        return rest < 0 ? -1 : Scanned + rest;
    }

    /// <summary>The searches of a value's rest past its first <see cref="Scanned"/> characters.</summary>
    private static class Long
    {
        // what JSON requires escaped: the control characters, " and \
        internal static readonly System.Buffers.SearchValues<char> Escaped = System.Buffers.SearchValues.Create(
            "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000B\f\r\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F\"\\");

        internal static readonly System.Buffers.SearchValues<byte> EscapedOrNonAscii = System.Buffers.SearchValues.Create(EscapedOrNonAsciiBytes());

        // a loop, not Enumerable.Range(...).Select(...): LINQ over bytes is generic code the JIT
        // compiles at the first call of every process (ReadyToRun does not hold it)
        private static byte[] EscapedOrNonAsciiBytes()
        {
            var bytes = new byte[0x20 + 2 + 0x80];
            for (int b = 0; b < 0x20; b++)
            {
                bytes[b] = (byte)b;
            }
            bytes[0x20] = (byte)'"';
            bytes[0x21] = (byte)'\\';
            for (int b = 0; b < 0x80; b++)
            {
                bytes[0x22 + b] = (byte)(0x80 + b);
            }
            return bytes;
        }
    }

    public override unsafe bool TryEncodeUnicodeScalar(int unicodeScalar, char* buffer, int bufferLength, out int numberOfCharactersWritten)
    {
        ReadOnlySpan<char> escape = unicodeScalar switch
        {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\b' => "\\b",
            '\f' => "\\f",
            _ => default,
        };
        if (escape.IsEmpty && unicodeScalar < 0x20)
        {
            escape = "\\u00" + unicodeScalar.ToString("x2", System.Globalization.CultureInfo.InvariantCulture);
        }
        if (escape.IsEmpty)
        {
            // not one this encoder escapes: write it as it is (a scalar above U+FFFF takes two chars)
            escape = char.ConvertFromUtf32(unicodeScalar);
        }
        if (escape.Length > bufferLength)
        {
            numberOfCharactersWritten = 0;
            return false;
        }
        escape.CopyTo(new Span<char>(buffer, bufferLength));
        numberOfCharactersWritten = escape.Length;
        return true;
    }
}

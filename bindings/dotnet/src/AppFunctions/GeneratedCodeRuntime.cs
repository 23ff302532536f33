using System.Buffers;
using System.ComponentModel;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.Json;
using AppFunctions.Interop;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Generated;

// The runtime of the code the AppFunctions source generator writes (hand-written: the types
// and helpers that generated code calls). Not for hand-written code.

/// <summary>Runs one function for the core (generated).</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public delegate void FunctionHandler(AppFunctionCall call);

/// <summary>Reads a function's bound arguments into its request type (generated).</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public delegate object RequestBinder(ReadOnlySpan<byte> utf8Json);

/// <summary>Writes a value as JSON (generated).</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public delegate void JsonValueWriter<in T>(Utf8JsonWriter writer, T value);

/// <summary>A call as the generated invokers see it. The call's <see cref="AppFunctionContext"/>
/// is looked up (or made) the first time the invoker asks for it, so a handler that needs no
/// context, services or cancellation costs no context at all.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public struct AppFunctionCall
{
    private readonly DispatcherCore _core;
    private readonly FunctionRegistration? _registration;
    private readonly nint _call;
    private AppFunctionContext? _context;
    private object? _request;

    internal AppFunctionCall(DispatcherCore core, FunctionRegistration? registration, nint call)
    {
        _core = core;
        _registration = registration;
        _call = call;
    }

    internal readonly nint Handle => _call;

    /// <summary>The call's context (made on first use; the same one delegates and lookups see).</summary>
    public AppFunctionContext Context
    {
        get
        {
            if (_context is null)
            {
                ResolveContext();
            }
            return _context!;
        }
    }

    internal void ResolveContext()
    {
        var context = _core.ContextOf(_call);
        if (_registration is not null)
        {
            context.Registration ??= _registration;
        }
        if (_request is not null)
        {
            context.RequestValue ??= _request;
        }
        _context = context;
    }

    /// <summary>The bound arguments (UTF-8 JSON object, lent for the callback).</summary>
    public readonly ReadOnlySpan<byte> Arguments => NativeCalls.CallArgsUtf8(_call);

    /// <summary>The bound request, read once per call (delegates may have read it already).</summary>
    public T Request<T>(RequestBinder bind) where T : class
    {
        if (_context?.RequestValue is T cached)
        {
            return cached;
        }
        if (_request is T mine)
        {
            return mine;
        }
        var value = (T)bind(Arguments);
        if (_context is not null)
        {
            _context.RequestValue = value;
        }
        _request = value;
        return value;
    }

    /// <summary>A service from the call's DI scope.</summary>
    public T Service<T>() where T : notnull => Context.Services.GetRequiredService<T>();

    /// <summary>The call's cancellation.</summary>
    public CancellationToken CancellationToken => Context.CancellationToken;

    /// <summary>An entity lookup's request: ids, or a query and a limit.</summary>
    public readonly (IReadOnlyList<string>? Ids, string Query, int? Limit) LookupRequest
    {
        get
        {
            var r = new Utf8JsonReader(NativeCalls.CallLookupRequestUtf8(_call));
            List<string>? ids = null;
            string query = "";
            int? limit = null;
            r.Read();
            while (r.Read() && r.TokenType == JsonTokenType.PropertyName)
            {
                if (r.ValueTextEquals("ids"u8))
                {
                    r.Read();
                    ids = [];
                    while (r.Read() && r.TokenType != JsonTokenType.EndArray)
                    {
                        ids.Add(r.GetString()!);
                    }
                }
                else if (r.ValueTextEquals("query"u8))
                {
                    r.Read();
                    query = r.GetString() ?? "";
                }
                else if (r.ValueTextEquals("limit"u8))
                {
                    r.Read();
                    limit = r.TokenType == JsonTokenType.Null ? null : r.GetInt32();
                }
                else
                {
                    r.Read();
                    r.Skip();
                }
            }
            return (ids, query, limit);
        }
    }

    /// <summary>Completes a void function.</summary>
    public readonly unsafe void ReturnVoid()
    {
        NativeCalls.CallReturn(_call, null);
    }

    /// <summary>Completes the call with a value. A writer (the result's converter) that throws
    /// fails the call <c>HandlerFailed</c> instead: the call completes either way, once.</summary>
    public readonly unsafe void Return<T>(T value, JsonValueWriter<T> write)
    {
        if (_context is not null)
        {
            _context.Result = value; // for OnInvoked (with delegates the context is resolved up front)
        }
        var buffer = JsonBuffer.Rent();
        try
        {
            try
            {
                write(buffer.Writer, value);
                buffer.Writer.Flush();
            }
            catch (Exception e)
            {
                Fail(new ResultWriteException(e));
                return;
            }
            buffer.Output.GetSpan(1)[0] = 0;
            buffer.Output.Advance(1);
            fixed (byte* p = buffer.Output.WrittenSpan)
            {
                NativeCalls.CallReturn(_call, p);
            }
        }
        finally
        {
            JsonBuffer.Return(buffer);
        }
    }

    /// <summary>Completes the call with a string. A short text of letters, digits, spaces and
    /// <c>-_.,:</c> (which a JSON writer writes as they are) is quoted on the stack; any other
    /// text goes through the JSON writer, as <see cref="Return{T}"/> writes it.</summary>
    [SkipLocalsInit]
    public readonly unsafe void ReturnString(string value)
    {
        if (value is not null && value.Length <= PlainStringMax)
        {
            byte* p = stackalloc byte[PlainStringMax + 3];
            int i = 0;
            while (i < value.Length && IsPlain(value[i]))
            {
                p[i + 1] = (byte)value[i];
                i++;
            }
            if (i == value.Length)
            {
                if (_context is not null)
                {
                    _context.Result = value; // for OnInvoked
                }
                p[0] = (byte)'"';
                p[i + 1] = (byte)'"';
                p[i + 2] = 0;
                NativeCalls.CallReturn(_call, p);
                return;
            }
        }
        Return(value, static (w, v) => w.WriteStringValue(v));
    }

    private const int PlainStringMax = 128;

    private static bool IsPlain(char c) =>
        (uint)((c | 0x20) - 'a') <= 'z' - 'a' || (uint)(c - '0') <= 9 || c is ' ' or '-' or '_' or '.' or ',' or ':';

    /// <summary>Fails the call (an <see cref="AppFunctionException"/> keeps its code; anything else is HandlerFailed).</summary>
    public readonly void Fail(Exception exception)
    {
        if (_context is not null)
        {
            _context.HandlerException = exception;
        }
        Trampolines.Fail(_call, exception, _core);
    }

    /// <summary>Completes the call when the task does (inline when it already has).</summary>
    public void Complete<T>(Task<T> task, JsonValueWriter<T> write)
    {
        if (task.IsCompletedSuccessfully)
        {
            Return(task.Result, write);
            return;
        }
        _ = Later(this, task, write);

        // every path completes the call: the handler's exception, and the writer's (Return fails the call itself)
        static async Task Later(AppFunctionCall call, Task<T> task, JsonValueWriter<T> write)
        {
            T value;
            try
            {
                value = await task.ConfigureAwait(false);
            }
            catch (Exception e)
            {
                call.Fail(e);
                return;
            }
            try
            {
                call.Return(value, write);
            }
            catch (Exception e)
            {
                call.Fail(e);
            }
        }
    }

    /// <summary>Completes the call when the task does.</summary>
    public void Complete<T>(ValueTask<T> task, JsonValueWriter<T> write)
    {
        if (task.IsCompletedSuccessfully)
        {
            Return(task.Result, write);
            return;
        }
        Complete(task.AsTask(), write);
    }

    /// <summary>Completes a void function when the task does.</summary>
    public void Complete(Task task)
    {
        if (task.IsCompletedSuccessfully)
        {
            ReturnVoid();
            return;
        }
        _ = Later(this, task);

        static async Task Later(AppFunctionCall call, Task task)
        {
            try
            {
                await task.ConfigureAwait(false);
            }
            catch (Exception e)
            {
                call.Fail(e);
                return;
            }
            call.ReturnVoid();
        }
    }

    /// <summary>Completes a void function when the task does.</summary>
    public void Complete(ValueTask task)
    {
        if (task.IsCompletedSuccessfully)
        {
            ReturnVoid();
            return;
        }
        Complete(task.AsTask());
    }
}

/// <summary>The result's writer (its converter) threw: the call fails <c>HandlerFailed</c> saying so.</summary>
internal sealed class ResultWriteException(Exception inner)
    : Exception("the result could not be written as JSON: " + Trampolines.MessageOf(inner), inner);

/// <summary>A reusable buffer and writer per thread for results (re-entrant calls get their own).</summary>
internal sealed class JsonBuffer
{
    [ThreadStatic]
    private static JsonBuffer? t_cached;

    private JsonBuffer()
    {
        Output = new ArrayBufferWriter<byte>(256);
        // the core keeps a result only when it is in its normal form (else it binds and writes it
        // again), so an encoder that escapes only what JSON requires gives the same outcome, and
        // does not build JavaScriptEncoder.Default's tables at the first call
        Writer = new Utf8JsonWriter(Output, new JsonWriterOptions { SkipValidation = true, Encoder = CoreJsonEncoder.Instance });
    }

    internal ArrayBufferWriter<byte> Output { get; }

    internal Utf8JsonWriter Writer { get; }

    internal static JsonBuffer Rent()
    {
        var b = t_cached;
        if (b is null)
        {
            return new JsonBuffer();
        }
        t_cached = null;
        return b;
    }

    internal static void Return(JsonBuffer b)
    {
        if (b.Output.Capacity > 64 * 1024)
        {
            return;
        }
        b.Output.ResetWrittenCount();
        b.Writer.Reset();
        t_cached = b;
    }
}

/// <summary>One generated unit: the functions of one class, a delegate, an entity or a provider.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class AppFunctionUnit(Type declaringType, Action<IServiceCollection> configureServices, Action<AppFunctionRegistrar> register)
{
    /// <summary>The type the unit was generated from.</summary>
    public Type DeclaringType { get; } = declaringType;

    internal Action<IServiceCollection> ConfigureServices { get; } = configureServices;

    internal Action<AppFunctionRegistrar> Register { get; } = register;
}

/// <summary>What one assembly declares (generated, registered by a module initializer).</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public static class AppFunctionCatalog
{
    private static readonly List<AppFunctionUnit> Units = [];

    /// <summary>Adds an assembly's units (called once per assembly by generated code).</summary>
    public static void Register(IEnumerable<AppFunctionUnit> units)
    {
        lock (Units)
        {
            foreach (var u in units)
            {
                if (!Units.Exists(x => x.DeclaringType == u.DeclaringType))
                {
                    Units.Add(u);
                }
            }
        }
    }

    internal static IReadOnlyList<AppFunctionUnit> All
    {
        get
        {
            lock (Units)
            {
                return [.. Units];
            }
        }
    }
}

/// <summary>Collects what units register, so the dispatcher can apply it in the core's order:
/// named types, metadata schema, toolkits, entities, functions, delegates.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class AppFunctionRegistrar
{
    internal readonly List<(string Name, bool IsEnum, string Json)> Types = [];
    internal readonly SortedSet<string> MetadataProperties = new(StringComparer.Ordinal);
    internal readonly List<(string Json, Func<int, string, string?>? Texts)> Toolkits = [];
    internal readonly List<(string Name, string Json, FunctionHandler Lookup)> Entities = [];
    internal readonly List<(string Id, string Json, FunctionHandler? Handler, RequestBinder? Bind)> Functions = [];
    internal readonly List<(Type Type, Func<IServiceProvider, IAppFunctionDelegate> Resolve, Type[]? Dependencies)> Delegates = [];
    internal readonly List<(bool Invoking, bool Invoked)> DelegateCallbacks = [];

    internal AppFunctionRegistrar()
    {
    }

    /// <summary>A named enum (<c>{"name","members":[...]}</c>).</summary>
    public void DefineEnum(string name, string json) => Types.Add((name, true, json));

    /// <summary>A named record (<c>{"name","fields":[...]}</c>).</summary>
    public void DefineRecord(string name, string json) => Types.Add((name, false, json));

    /// <summary>Properties of the agent views' metadata (from <c>[AppFunction&lt;TMetadata&gt;]</c>).</summary>
    public void AddMetadataProperties(params string[] names)
    {
        foreach (var n in names)
        {
            MetadataProperties.Add(n);
        }
    }

    /// <summary>A toolkit; <paramref name="texts"/> computes its texts (0 functionResult, 1 systemPrompt).</summary>
    public void DefineToolkit(string json, Func<int, string, string?>? texts = null) => Toolkits.Add((json, texts));

    /// <summary>An entity and its lookup.</summary>
    public void RegisterEntity(string name, string json, FunctionHandler lookup) => Entities.Add((name, json, lookup));

    /// <summary>An entity whose lookup is the <see cref="IAppFunctionEntityProvider{TEntity}"/> in DI.</summary>
    public void RegisterEntity<TEntity>(string name, string json, JsonValueWriter<TEntity> write) =>
        Entities.Add((name, json, call =>
        {
            var provider = call.Service<IAppFunctionEntityProvider<TEntity>>();
            var (ids, query, limit) = call.LookupRequest;
            var task = ids is not null
                ? provider.GetAsync(ids, call.Context, call.CancellationToken)
                : provider.SearchAsync(query, limit, call.Context, call.CancellationToken);
            call.Complete(task, (w, list) =>
            {
                w.WriteStartArray();
                foreach (var e in list)
                {
                    write(w, e);
                }
                w.WriteEndArray();
            });
        }
    ));

    /// <summary>A function (a null handler only for output functions).</summary>
    public void RegisterFunction(string id, string json, FunctionHandler? handler, RequestBinder? bind) =>
        Functions.Add((id, json, handler, bind));

    /// <summary>A delegate resolved from the call's scope; the flags say which methods it implements.</summary>
    public void AddDelegate<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TDelegate>(bool onInvoking, bool onInvoked)
        where TDelegate : class, IAppFunctionDelegate
    {
        Delegates.Add((typeof(TDelegate), static sp => sp.GetRequiredService<TDelegate>(), null));
        DelegateCallbacks.Add((onInvoking, onInvoked));
    }

    /// <summary>A delegate resolved from the call's scope, with the services its constructor takes:
    /// the dispatcher checks at startup that the container has each of them.</summary>
    public void AddDelegate<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TDelegate>(bool onInvoking, bool onInvoked, params Type[] dependencies)
        where TDelegate : class, IAppFunctionDelegate
    {
        Delegates.Add((typeof(TDelegate), static sp => sp.GetRequiredService<TDelegate>(), dependencies));
        DelegateCallbacks.Add((onInvoking, onInvoked));
    }
}

/// <summary>Small helpers the generated readers and writers share.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public static class JsonHelpers
{
    /// <summary>Reads <c>YYYY-MM-DD</c>.</summary>
    public static DateOnly ReadDate(ref Utf8JsonReader r) => DateOnly.ParseExact(r.GetString()!, "yyyy-MM-dd", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Writes <c>YYYY-MM-DD</c>.</summary>
    public static void WriteDate(Utf8JsonWriter w, DateOnly d) => w.WriteStringValue(d.ToString("yyyy-MM-dd", System.Globalization.CultureInfo.InvariantCulture));

    /// <summary>A reader over a span, positioned on its first token.</summary>
    public static Utf8JsonReader Reader(ReadOnlySpan<byte> json)
    {
        var r = new Utf8JsonReader(json);
        r.Read();
        return r;
    }

    /// <summary>The encoder of generated names that are ASCII identifiers (which no encoder
    /// escapes): pre-encoding them with it leaves <c>JavaScriptEncoder.Default</c> unmade.</summary>
    public static System.Text.Encodings.Web.JavaScriptEncoder NameEncoder => CoreJsonEncoder.Instance;

    /// <summary>Fails with the member that was not expected.</summary>
    public static JsonException Unexpected(string type, ref Utf8JsonReader r) =>
        new($"{type}: unexpected {r.TokenType} in the JSON the core bound");
}

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
        Output = new ByteBuffer(256);
        // the core keeps a result only when it is in its normal form (else it binds and writes it
        // again), so an encoder that escapes only what JSON requires gives the same outcome, and
        // does not build JavaScriptEncoder.Default's tables at the first call
        Writer = new Utf8JsonWriter(Output, new JsonWriterOptions { SkipValidation = true, Encoder = CoreJsonEncoder.Instance });
    }

    internal ByteBuffer Output { get; }

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

/// <summary>A growing byte buffer for <see cref="Utf8JsonWriter"/>: <c>ArrayBufferWriter&lt;byte&gt;</c>
/// is an instantiation ReadyToRun does not hold (the JIT compiles it at each start's first
/// call); this class is compiled ahead of time with appfunctions.</summary>
internal sealed class ByteBuffer(int capacity) : IBufferWriter<byte>
{
    private byte[] _buffer = new byte[capacity];
    private int _written;

    internal ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _written);

    internal int Capacity => _buffer.Length;

    internal void ResetWrittenCount() => _written = 0;

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        if (count > _buffer.Length - _written)
        {
            throw new InvalidOperationException("advanced past the buffer's end");
        }
        _written += count;
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        Reserve(sizeHint);
        return _buffer.AsMemory(_written);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        Reserve(sizeHint);
        return _buffer.AsSpan(_written);
    }

    private void Reserve(int sizeHint)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(sizeHint);
        int need = Math.Max(sizeHint, 1);
        if (need > _buffer.Length - _written)
        {
            int size = (int)Math.Min(Array.MaxLength, Math.Max((long)_buffer.Length * 2, (long)_written + need));
            if (size - _written < need)
            {
                throw new OutOfMemoryException("the JSON is larger than an array can hold");
            }
            Array.Resize(ref _buffer, size);
        }
    }
}

/// <summary>One generated unit: the functions of one class, a delegate, an entity or a provider.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class AppFunctionUnit(Type declaringType, Action<IServiceCollection>? configureServices, Action<AppFunctionRegistrar> register)
{
    /// <summary>The type the unit was generated from.</summary>
    public Type DeclaringType { get; } = declaringType;

    /// <summary>Registers the unit's services; null when it has none.</summary>
    internal Action<IServiceCollection>? ConfigureServices { get; } = configureServices;

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
    // Lists of classes, not of value tuples: List<T> over a reference type is the runtime's shared
    // code, compiled ahead of time with the framework, where each List<(...)> of a value tuple is
    // an instantiation that ReadyToRun cannot hold and the JIT compiles at every start.
    internal readonly List<TypeEntry> Types = [];
    internal readonly List<string> MetadataProperties = []; // as declared: the dispatcher orders them (OrdinalNames)
    internal readonly List<ToolkitEntry> Toolkits = [];
    internal readonly List<EntityEntry> Entities = [];
    internal readonly List<FunctionEntry> Functions = [];
    internal readonly List<DelegateEntry> Delegates = [];

    internal AppFunctionRegistrar()
    {
    }

    /// <summary>A named enum (<c>{"name","members":[...]}</c>).</summary>
    public void DefineEnum(string name, string json) => Types.Add(new(name, true, json));

    /// <summary>A named record (<c>{"name","fields":[...]}</c>).</summary>
    public void DefineRecord(string name, string json) => Types.Add(new(name, false, json));

    /// <summary>Properties of the agent views' metadata (from <c>[AppFunction&lt;TMetadata&gt;]</c>).</summary>
    public void AddMetadataProperties(params string[] names)
    {
        MetadataProperties.AddRange(names);
    }

    /// <summary>A toolkit; <paramref name="texts"/> computes its texts (0 functionResult, 1 systemPrompt).</summary>
    public void DefineToolkit(string json, Func<int, string, string?>? texts = null) => Toolkits.Add(new(json, texts));

    /// <summary>An entity and its lookup.</summary>
    public void RegisterEntity(string name, string json, FunctionHandler lookup) => Entities.Add(new(name, json, lookup));

    /// <summary>An entity whose lookup is the <see cref="IAppFunctionEntityProvider{TEntity}"/> in DI.</summary>
    public void RegisterEntity<TEntity>(string name, string json, JsonValueWriter<TEntity> write) =>
        Entities.Add(new(name, json, call =>
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
        Functions.Add(new(id, json, handler, bind));

    /// <summary>A delegate resolved from the call's scope; the flags say which methods it implements.</summary>
    public void AddDelegate<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TDelegate>(bool onInvoking, bool onInvoked)
        where TDelegate : class, IAppFunctionDelegate
    {
        Delegates.Add(new(typeof(TDelegate), Resolver(typeof(TDelegate)), null, onInvoking, onInvoked));
    }

    /// <summary>A delegate resolved from the call's scope, with the services its constructor takes:
    /// the dispatcher checks at startup that the container has each of them.</summary>
    public void AddDelegate<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TDelegate>(bool onInvoking, bool onInvoked, params Type[] dependencies)
        where TDelegate : class, IAppFunctionDelegate
    {
        Delegates.Add(new(typeof(TDelegate), Resolver(typeof(TDelegate)), dependencies, onInvoking, onInvoked));
    }

    /// <summary>Resolves a delegate of <paramref name="type"/> from a call's scope. The type is
    /// captured, not named by a type parameter: a lambda of the generic <c>AddDelegate</c> runs
    /// as the runtime's shared code for reference types, which looks <c>typeof(TDelegate)</c> up
    /// in its generic dictionary at every call (measured 2026-12-06: <c>GetRuntimeTypeFromHandle</c>
    /// was 0.7% of the realistic call's samples, for its two delegates).</summary>
    private static Func<IServiceProvider, IAppFunctionDelegate> Resolver(Type type) =>
        sp => (IAppFunctionDelegate)sp.GetRequiredService(type);
}

/// <summary>A few names kept in ordinal order without duplicates, in a plain list: the first use
/// of a <c>SortedSet&lt;string&gt;</c> with the ordinal comparer cost about 1.5 ms of a ReadyToRun
/// cold start's registration (measured 2026-12-07), most of it the JIT compiling the vectorized
/// <c>string.CompareOrdinal</c>, which ReadyToRun does not hold. The names (the agent views'
/// metadata properties) are few and short.</summary>
internal static class OrdinalNames
{
    /// <summary>Inserts <paramref name="name"/> in its place; false when it is there already.</summary>
    internal static bool Add(List<string> sorted, string name)
    {
        int i = 0;
        while (i < sorted.Count)
        {
            int c = Compare(sorted[i], name);
            if (c == 0)
            {
                return false;
            }
            if (c > 0)
            {
                break;
            }
            i++;
        }
        sorted.Insert(i, name);
        return true;
    }

    /// <summary><see cref="StringComparer.Ordinal"/>'s order (UTF-16 code units), in a plain loop.</summary>
    internal static int Compare(string a, string b)
    {
        int n = Math.Min(a.Length, b.Length);
        for (int i = 0; i < n; i++)
        {
            if (a[i] != b[i])
            {
                return a[i] - b[i];
            }
        }
        return a.Length - b.Length;
    }
}

/// <summary>A named enum or record a unit defines.</summary>
internal sealed class TypeEntry(string name, bool isEnum, string json)
{
    internal readonly string Name = name;
    internal readonly bool IsEnum = isEnum;
    internal readonly string Json = json;
}

/// <summary>A toolkit a unit defines, and what computes its texts.</summary>
internal sealed class ToolkitEntry(string json, Func<int, string, string?>? texts)
{
    internal readonly string Json = json;
    internal readonly Func<int, string, string?>? Texts = texts;
}

/// <summary>An entity a unit registers, with its lookup.</summary>
internal sealed class EntityEntry(string name, string json, FunctionHandler lookup)
{
    internal readonly string Name = name;
    internal readonly string Json = json;
    internal readonly FunctionHandler Lookup = lookup;
}

/// <summary>A function a unit registers, with its handler and its request's binder.</summary>
internal sealed class FunctionEntry(string id, string json, FunctionHandler? handler, RequestBinder? bind)
{
    internal readonly string Id = id;
    internal readonly string Json = json;
    internal readonly FunctionHandler? Handler = handler;
    internal readonly RequestBinder? Bind = bind;
}

/// <summary>A delegate a unit adds: how it is resolved, the services its constructor takes, which methods it implements.</summary>
internal sealed class DelegateEntry(Type type, Func<IServiceProvider, IAppFunctionDelegate> resolve, Type[]? dependencies, bool invoking, bool invoked)
{
    internal readonly Type Type = type;
    internal readonly Func<IServiceProvider, IAppFunctionDelegate> Resolve = resolve;
    internal readonly Type[]? Dependencies = dependencies;
    internal readonly bool Invoking = invoking;
    internal readonly bool Invoked = invoked;
}

/// <summary>Reads the bound arguments the core hands a handler (generated binders): the core has
/// checked them against the function's parameters and written them compact (no whitespace,
/// names without escapes, integers without fraction or exponent), so a binder that knows its
/// parameters reads them in one pass without a general JSON reader. Anything it does not expect
/// (an escaped string, a value of another kind) makes it answer false, and the binder reads the
/// arguments again with <see cref="Utf8JsonReader"/>.</summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public ref struct ArgumentScanner
{
    private readonly ReadOnlySpan<byte> _json;
    private int _pos;

    /// <summary>A scanner before the first argument of <paramref name="json"/>.</summary>
    public ArgumentScanner(ReadOnlySpan<byte> json)
    {
        _json = json;
        _pos = json.Length >= 2 && json[0] == (byte)'{' ? 1 : int.MaxValue;
    }

    /// <summary>The next argument's name (then the scanner is at its value): 1; the object's end: 0;
    /// anything else: -1.</summary>
    public int Next(out ReadOnlySpan<byte> name)
    {
        name = default;
        var json = _json;
        int p = _pos;
        if ((uint)p >= (uint)json.Length)
        {
            return -1;
        }
        byte c = json[p];
        if (c == (byte)'}')
        {
            _pos = p + 1;
            return p + 1 == json.Length ? 0 : -1;
        }
        if (c == (byte)',' && p > 1)
        {
            p++;
        }
        else if (p != 1)
        {
            return -1;
        }
        if ((uint)p >= (uint)json.Length || json[p] != (byte)'"')
        {
            return -1;
        }
        int start = ++p;
        int end = json[start..].IndexOfAny((byte)'"', (byte)'\\');
        if (end < 0)
        {
            return -1;
        }
        p = start + end;
        if ((uint)(p + 1) >= (uint)json.Length || json[p] != (byte)'"' || json[p + 1] != (byte)':')
        {
            return -1;
        }
        name = json[start..p];
        _pos = p + 2;
        return 1;
    }

    /// <summary>A string without escapes.</summary>
    public bool String(out string value)
    {
        if (RawString(out var raw))
        {
            value = System.Text.Encoding.UTF8.GetString(raw);
            return true;
        }
        value = "";
        return false;
    }

    /// <summary>A string's UTF-8 bytes between its quotes, when it has no escape (an enum member's name).</summary>
    public bool RawString(out ReadOnlySpan<byte> value)
    {
        value = default;
        var json = _json;
        int p = _pos;
        if ((uint)p >= (uint)json.Length || json[p] != (byte)'"')
        {
            return false;
        }
        var rest = json[(p + 1)..];
        int end = rest.IndexOfAny((byte)'"', (byte)'\\');
        if (end < 0 || rest[end] != (byte)'"')
        {
            return false;
        }
        value = rest[..end];
        _pos = p + 1 + end + 1;
        return true;
    }

    /// <summary>An int32 (digits with an optional minus).</summary>
    public bool Int32(out int value)
    {
        if (Integer(out long v, out int end) && v is >= int.MinValue and <= int.MaxValue)
        {
            value = (int)v;
            _pos = end;
            return true;
        }
        value = 0;
        return false; // the scanner stays where it was
    }

    /// <summary>An int64 (digits with an optional minus, at most 18 of them: longer ones take the general reader).</summary>
    public bool Int64(out long value)
    {
        if (Integer(out value, out int end))
        {
            _pos = end;
            return true;
        }
        return false;
    }

    private readonly bool Integer(out long value, out int end)
    {
        value = 0;
        end = _pos;
        int p = _pos;
        bool negative = (uint)p < (uint)_json.Length && _json[p] == (byte)'-';
        if (negative)
        {
            p++;
        }
        int start = p;
        long v = 0;
        while ((uint)p < (uint)_json.Length && (uint)(_json[p] - '0') <= 9)
        {
            v = v * 10 + (_json[p] - '0');
            p++;
        }
        int digits = p - start;
        if (digits == 0 || digits > 18 || (digits > 1 && _json[start] == (byte)'0') || !AtValueEnd(p))
        {
            return false;
        }
        value = negative ? -v : v;
        end = p;
        return true;
    }

    /// <summary>true or false.</summary>
    public bool Boolean(out bool value)
    {
        var rest = _json[Math.Min(_pos, _json.Length)..];
        if (rest.StartsWith("true"u8) && AtValueEnd(_pos + 4))
        {
            _pos += 4;
            value = true;
            return true;
        }
        if (rest.StartsWith("false"u8) && AtValueEnd(_pos + 5))
        {
            _pos += 5;
            value = false;
            return true;
        }
        value = false;
        return false;
    }

    /// <summary>Whether the value is null (then the scanner is past it).</summary>
    public bool Null()
    {
        if (_json[Math.Min(_pos, _json.Length)..].StartsWith("null"u8) && AtValueEnd(_pos + 4))
        {
            _pos += 4;
            return true;
        }
        return false;
    }

    private readonly bool AtValueEnd(int p) => (uint)p < (uint)_json.Length && _json[p] is (byte)',' or (byte)'}';
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

    /// <summary>Fails with the member that was not expected.</summary>
    public static JsonException Unexpected(string type, ref Utf8JsonReader r) =>
        new($"{type}: unexpected {r.TokenType} in the JSON the core bound");
}

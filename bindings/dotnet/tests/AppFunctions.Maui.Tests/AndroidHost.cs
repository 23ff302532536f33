using Android.App.AppFunctions;
using Android.App.AppSearch;
using Android.OS;
using Microsoft.Extensions.DependencyInjection;

using AndroidAppFunctionException = Android.App.AppFunctions.AppFunctionException;

namespace AppFunctions.Maui.Tests;

/// <summary>The test app as MauiProgram builds it: AddAppFunctions(), then UseAppFunctions() (publishes).</summary>
internal sealed class AndroidHost : IDisposable
{
    private AndroidHost(ServiceProvider provider)
    {
        Provider = provider;
    }

    public ServiceProvider Provider { get; }

    public CallLog Log => Provider.GetRequiredService<CallLog>();

    public SignInState SignIn => Provider.GetRequiredService<SignInState>();

    public static AndroidHost Start(Action<AppFunctionsOptions>? options = null)
    {
        var provider = new ServiceCollection()
            .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<CallLog>()
            .AddAppFunctions(options)
            .BuildServiceProvider();
        provider.UseAppFunctions();
        return new AndroidHost(provider);
    }

    public void Dispose() => Provider.Dispose(); // disposing the dispatcher withdraws its publication
}

/// <summary>The system's side of one call: the OutcomeReceiver, counting every answer.</summary>
internal sealed class Receiver : Java.Lang.Object, IOutcomeReceiver
{
    private readonly TaskCompletionSource _answered = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _results, _errors;

    public int Results => Volatile.Read(ref _results);

    public int Errors => Volatile.Read(ref _errors);

    public ExecuteAppFunctionResponse? Response { get; private set; }

    public AndroidAppFunctionException? Error { get; private set; }

    public bool Answered => _answered.Task.IsCompleted;

    /// <summary>What was answered, for assertion messages.</summary>
    public override string ToString() => $"{Results} result(s), {Errors} error(s){(Error is null ? "" : $": {(int)Error.ErrorCode} {Error.ErrorMessage}")}";

    public void OnResult(Java.Lang.Object? result)
    {
        Response = result as ExecuteAppFunctionResponse;
        Interlocked.Increment(ref _results);
        _answered.TrySetResult();
    }

    public void OnError(Java.Lang.Object error)
    {
        // the service hands a JavaCast peer of the AppFunctionException, as on a device
        Error = error.Peer as AndroidAppFunctionException;
        Interlocked.Increment(ref _errors);
        _answered.TrySetResult();
    }

    public async Task<Receiver> Wait()
    {
        await _answered.Task.WaitAsync(TimeSpan.FromSeconds(30));
        await Task.Delay(50); // a second answer, if the service sent one, would arrive meanwhile
        return this;
    }
}

internal static class Documents
{
    public static GenericDocument Of(params (string Name, object Values)[] properties)
    {
        var b = new GenericDocument.Builder("", "", "");
        foreach (var (name, values) in properties)
        {
            switch (values)
            {
                case string[] s: b.SetPropertyString(name, s); break;
                case long[] l: b.SetPropertyLong(name, l); break;
                case double[] d: b.SetPropertyDouble(name, d); break;
                case bool[] x: b.SetPropertyBoolean(name, x); break;
                case byte[][] y: b.SetPropertyBytes(name, y); break;
                case GenericDocument[] g: b.SetPropertyDocument(name, g); break;
                default: throw new ArgumentException(values.GetType().Name);
            }
        }
        return b.Build();
    }

    /// <summary>Calls the service as the system does, on "the main thread" (the test's), and returns the receiver.</summary>
    public static Receiver Call(string functionId, GenericDocument parameters, CancellationSignal? signal = null, string caller = "com.google.android.apps.bard")
    {
        var receiver = new Receiver();
        new AppFunctions.Platforms.AppFunctionsService().OnExecuteFunction(
            new ExecuteAppFunctionRequest("com.example.orders", functionId, parameters), caller,
            new Android.Content.PM.SigningInfo(), signal ?? new CancellationSignal(), receiver);
        return receiver;
    }
}

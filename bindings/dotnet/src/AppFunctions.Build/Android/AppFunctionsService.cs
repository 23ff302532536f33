// Part of the AppFunctions package's Android service: compiled into the app's Android build by
// buildTransitive/AppFunctions.targets (not into AppFunctions.dll, which has no Android target).
// The manifest declares it (the core's manifest fragment, merged as an AndroidManifestOverlay)
// under the Java name below.
#nullable enable
using System;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Android.App.AppFunctions;
using Android.Content.PM;
using Android.OS;
using Android.Runtime;
using AndroidAppFunctionException = Android.App.AppFunctions.AppFunctionException;

namespace AppFunctions.Platforms;

/// <summary>
/// The app's <c>android.app.appfunctions.AppFunctionService</c> (Android 16, API 36): the system
/// binds it for every call an agent (Gemini, <c>adb shell cmd app_function</c>) makes to one of the
/// app's functions. <see cref="OnExecuteFunction"/> returns at once; on a thread-pool thread it
/// walks the request's <c>GenericDocument</c> into the core's neutral JSON image, waits for the
/// app's published dispatcher (a cold start: the process may have been started for this call),
/// runs the call with <see cref="AppFunctionPlatform.Android"/>, the calling package and whether an
/// activity of the app is on screen, forwards the <c>CancellationSignal</c>, and answers the
/// <c>OutcomeReceiver</c> exactly once: a response document, or an <c>AppFunctionException</c>.
/// </summary>
[Register(JavaName)]
public class AppFunctionsService : AppFunctionService
{
    /// <summary>The service's Java class name: the one the core's manifest fragment (the
    /// <c>android-manifest</c> export) declares, so the fragment serves a .NET app as it is.</summary>
    public const string JavaName = "dev.appfunctions.android.AppFunctionsService";

    /// <inheritdoc/>
    public override void OnExecuteFunction(ExecuteAppFunctionRequest request, string callingPackage, SigningInfo callingPackageSigningInfo,
        CancellationSignal cancellationSignal, IOutcomeReceiver callback)
    {
        var answer = new Answer(callback);
        AppFunctionInvocation invocation;
        string parameters;
        try
        {
            invocation = new AppFunctionInvocation(request.FunctionIdentifier)
            {
                Platform = AppFunctionPlatform.Android,
                CallerPackage = callingPackage ?? "",
                IsForeground = AppFunctionsPlatform.IsForeground,
            };
            parameters = AppFunctionsGenericDocument.ToJson(request.Parameters);
        }
        catch (Exception e)
        {
            answer.Error((int)AppFunctionError.InvalidArgument, "AppFunctions: the request's parameters could not be read: " + e.Message);
            return;
        }
        var cancel = new CancellationTokenSource();
        var listener = new CancelListener(cancel);
        cancellationSignal?.SetOnCancelListener(listener);
        _ = Run(invocation, parameters, cancellationSignal, listener, cancel, answer);
    }

    private static async Task Run(AppFunctionInvocation invocation, string parameters, CancellationSignal? signal, CancelListener listener,
        CancellationTokenSource cancel, Answer answer)
    {
        try
        {
            // ExecuteAndroidAsync waits and runs on a thread-pool thread: the main thread is free at once
            var response = await AppFunctionsPlatform.ExecuteAndroidAsync(invocation, parameters, cancel.Token).ConfigureAwait(false);
            answer.Response(response);
        }
        catch (Exception e)
        {
            answer.Error((int)AppFunctionError.SystemError, "AppFunctions: " + e.Message);
        }
        finally
        {
            try
            {
                signal?.SetOnCancelListener(null);
            }
            catch (Exception)
            {
                // the signal belongs to the system; the call is answered already
            }
            listener.Detach();
            cancel.Dispose();
        }
    }

    /// <summary>The callback, answered once: the first answer wins, later ones are dropped.</summary>
    private sealed class Answer(IOutcomeReceiver callback)
    {
        private int _answered;

        internal void Response(string json)
        {
            ExecuteAppFunctionResponse response;
            try
            {
                using var doc = JsonDocument.Parse(json);
                var root = doc.RootElement;
                if (root.TryGetProperty("errorCode", out var code))
                {
                    Error(code.TryGetInt32(out var c) ? c : (int)AppFunctionError.AppUnknownError,
                        root.TryGetProperty("message", out var m) ? m.GetString() ?? "" : "");
                    return;
                }
                var result = AppFunctionsGenericDocument.FromJson(root.GetProperty("result"));
                Bundle? extras = null;
                if (root.TryGetProperty("extras", out var ex) && ex.ValueKind == JsonValueKind.Object)
                {
                    foreach (var p in ex.EnumerateObject())
                    {
                        extras ??= new Bundle();
                        extras.PutString(p.Name, p.Value.ValueKind == JsonValueKind.String ? p.Value.GetString() : p.Value.GetRawText());
                    }
                }
                response = extras is null ? new ExecuteAppFunctionResponse(result) : new ExecuteAppFunctionResponse(result, extras);
            }
            catch (Exception e)
            {
                Error((int)AppFunctionError.AppUnknownError, "AppFunctions: the response could not be made: " + e.Message);
                return;
            }
            if (Interlocked.Exchange(ref _answered, 1) == 0)
            {
                callback.OnResult(response);
            }
        }

        internal void Error(int code, string message)
        {
            if (Interlocked.Exchange(ref _answered, 1) != 0)
            {
                return;
            }
            // the receiver's error parameter is erased to Java.Lang.Object; a Java Throwable binds as a .NET exception
            callback.OnError(new AndroidAppFunctionException((AppFunctionError)code, message).JavaCast<Java.Lang.Object>());
        }
    }

    /// <summary>The system's cancellation, forwarded to the core's cancel token.</summary>
    private sealed class CancelListener(CancellationTokenSource cancel) : Java.Lang.Object, CancellationSignal.IOnCancelListener
    {
        private CancellationTokenSource? _cancel = cancel;

        public void OnCancel()
        {
            try
            {
                Volatile.Read(ref _cancel)?.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // the call ended meanwhile
            }
        }

        internal void Detach() => Volatile.Write(ref _cancel, null);
    }
}

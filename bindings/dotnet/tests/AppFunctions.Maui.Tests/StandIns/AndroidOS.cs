// Stand-ins (test-only): values from the .NET for Android reference, no behaviour. See README.md.
namespace Android.OS
{
    /// <summary>https://learn.microsoft.com/dotnet/api/android.os.ioutcomereceiver?view=net-android-36.0
    /// (OnResult: .../android.os.ioutcomereceiver.onresult; OnError: (Ljava/lang/Throwable;)V, erased to Java.Lang.Object)</summary>
    public interface IOutcomeReceiver : Android.Runtime.IJavaObject
    {
        void OnResult(Java.Lang.Object? result);

        void OnError(Java.Lang.Object error);
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.os.cancellationsignal?view=net-android-36.0</summary>
    public sealed class CancellationSignal : Java.Lang.Object
    {
        private IOnCancelListener? _listener;

        /// <summary>https://learn.microsoft.com/dotnet/api/android.os.cancellationsignal.iscanceled</summary>
        public bool IsCanceled { get; private set; }

        /// <summary>https://learn.microsoft.com/dotnet/api/android.os.cancellationsignal.cancel: "cancels the operation and signals the cancellation listener".</summary>
        public void Cancel()
        {
            IsCanceled = true;
            _listener?.OnCancel();
        }

        /// <summary>https://learn.microsoft.com/dotnet/api/android.os.cancellationsignal.setoncancellistener:
        /// a listener set after cancel() is called at once; null removes it.</summary>
        public void SetOnCancelListener(IOnCancelListener? listener)
        {
            _listener = listener;
            if (IsCanceled)
            {
                listener?.OnCancel();
            }
        }

        /// <summary>https://learn.microsoft.com/dotnet/api/android.os.cancellationsignal.ioncancellistener</summary>
        public interface IOnCancelListener : Android.Runtime.IJavaObject
        {
            void OnCancel();
        }
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.os.bundle?view=net-android-36.0 (PutString, GetString)</summary>
    public sealed class Bundle : Java.Lang.Object
    {
        private readonly Dictionary<string, string?> _strings = new(StringComparer.Ordinal);

        public void PutString(string? key, string? value) => _strings[key ?? ""] = value;

        public string? GetString(string? key) => _strings.TryGetValue(key ?? "", out var v) ? v : null;

        /// <summary>https://learn.microsoft.com/dotnet/api/android.os.basebundle.keyset</summary>
        public ICollection<string> KeySet() => _strings.Keys;
    }
}

namespace Android.Content.PM
{
    /// <summary>https://learn.microsoft.com/dotnet/api/android.content.pm.signinginfo?view=net-android-36.0 (unused by the service: passed through)</summary>
    public sealed class SigningInfo : Java.Lang.Object
    {
    }
}

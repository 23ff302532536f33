// Stand-ins (test-only): values from the .NET for Android reference, no behaviour. See README.md.
namespace Java.Lang
{
    /// <summary>https://learn.microsoft.com/dotnet/api/java.lang.object?view=net-android-36.0</summary>
    public class Object : global::Android.Runtime.IJavaObject, IDisposable
    {
        /// <summary>The Java object this peer stands for when it was made by <c>JavaCast</c> (stand-in only).</summary>
        internal global::Android.Runtime.IJavaObject? Peer { get; init; }

        public nint Handle => 0;

        public void Dispose() => GC.SuppressFinalize(this);
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/java.lang.throwable?view=net-android-36.0 (binds as a .NET exception)</summary>
    public class Throwable : System.Exception, global::Android.Runtime.IJavaObject
    {
        public Throwable(string? message) : base(message)
        {
        }

        public nint Handle => 0;

        public void Dispose() => GC.SuppressFinalize(this);
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/java.lang.exception?view=net-android-36.0</summary>
    public class Exception : Throwable
    {
        public Exception(string? message) : base(message)
        {
        }
    }
}

namespace Android.Runtime
{
    /// <summary>https://learn.microsoft.com/dotnet/api/android.runtime.ijavaobject?view=net-android-36.0</summary>
    public interface IJavaObject : IDisposable
    {
        nint Handle { get; }
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.runtime.registerattribute?view=net-android-36.0</summary>
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Interface | AttributeTargets.Method | AttributeTargets.Constructor | AttributeTargets.Property | AttributeTargets.Field)]
    public sealed class RegisterAttribute(string name) : Attribute
    {
        public string Name { get; } = name;
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.runtime.extensions.javacast?view=net-android-36.0:
    /// another managed peer of the same Java object (here: a Java.Lang.Object holding the original).</summary>
    public static class Extensions
    {
        public static TResult JavaCast<TResult>(this IJavaObject? instance) where TResult : class, IJavaObject =>
            instance as TResult ?? (TResult)(object)new Java.Lang.Object { Peer = instance };
    }
}

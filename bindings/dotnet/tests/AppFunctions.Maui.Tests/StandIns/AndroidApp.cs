// Stand-ins (test-only): values from the .NET for Android reference, no behaviour. See README.md.
namespace Android.App
{
    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.activity?view=net-android-36.0</summary>
    public class Activity : Java.Lang.Object
    {
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.application?view=net-android-36.0</summary>
    public class Application : Java.Lang.Object
    {
        /// <summary>What RegisterActivityLifecycleCallbacks was given (stand-in only: the system calls these).</summary>
        internal List<IActivityLifecycleCallbacks> Registered { get; } = [];

        /// <summary>https://learn.microsoft.com/dotnet/api/android.app.application.registeractivitylifecyclecallbacks</summary>
        public void RegisterActivityLifecycleCallbacks(IActivityLifecycleCallbacks callback) => Registered.Add(callback);

        /// <summary>https://learn.microsoft.com/dotnet/api/android.app.application.iactivitylifecyclecallbacks
        /// (the seven abstract methods; the Pre/Post ones of API 29 have default implementations)</summary>
        public interface IActivityLifecycleCallbacks : Android.Runtime.IJavaObject
        {
            void OnActivityCreated(Activity activity, Android.OS.Bundle? savedInstanceState);

            void OnActivityDestroyed(Activity activity);

            void OnActivityPaused(Activity activity);

            void OnActivityResumed(Activity activity);

            void OnActivitySaveInstanceState(Activity activity, Android.OS.Bundle outState);

            void OnActivityStarted(Activity activity);

            void OnActivityStopped(Activity activity);
        }
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.service?view=net-android-36.0</summary>
    public abstract class Service : Java.Lang.Object
    {
    }
}

namespace Android.App.AppSearch
{
    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appsearch.genericdocument?view=net-android-36.0</summary>
    public class GenericDocument : Java.Lang.Object
    {
        private readonly Dictionary<string, object> _properties;

        private GenericDocument(string ns, string id, string schemaType, Dictionary<string, object> properties)
        {
            Namespace = ns;
            Id = id;
            SchemaType = schemaType;
            _properties = properties;
        }

        public virtual string Namespace { get; }

        public virtual string Id { get; }

        public virtual string SchemaType { get; }

        /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appsearch.genericdocument.propertynames</summary>
        public virtual ICollection<string> PropertyNames => _properties.Keys;

        /// <summary>Each typed getter: the values, or null "if no value is set or the value is of a different type"
        /// (https://learn.microsoft.com/dotnet/api/android.app.appsearch.genericdocument.getpropertystringarray and siblings).</summary>
        public virtual string[]? GetPropertyStringArray(string path) => _properties.GetValueOrDefault(path) as string[];

        public virtual long[]? GetPropertyLongArray(string path) => _properties.GetValueOrDefault(path) as long[];

        public virtual double[]? GetPropertyDoubleArray(string path) => _properties.GetValueOrDefault(path) as double[];

        public virtual bool[]? GetPropertyBooleanArray(string path) => _properties.GetValueOrDefault(path) as bool[];

        public virtual byte[][]? GetPropertyBytesArray(string path) => _properties.GetValueOrDefault(path) as byte[][];

        public virtual GenericDocument[]? GetPropertyDocumentArray(string path) => _properties.GetValueOrDefault(path) as GenericDocument[];

        /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appsearch.genericdocument.builder?view=net-android-36.0
        /// (the setters return the builder as Java.Lang.Object)</summary>
        public class Builder : Java.Lang.Object
        {
            private readonly string _ns, _id, _schemaType;
            private readonly Dictionary<string, object> _properties = new(StringComparer.Ordinal);

            public Builder(string @namespace, string id, string schemaType)
            {
                _ns = @namespace;
                _id = id;
                _schemaType = schemaType;
            }

            public virtual Java.Lang.Object SetPropertyString(string name, params string[] values) => Set(name, values);

            public virtual Java.Lang.Object SetPropertyLong(string name, params long[] values) => Set(name, values);

            public virtual Java.Lang.Object SetPropertyDouble(string name, params double[] values) => Set(name, values);

            public virtual Java.Lang.Object SetPropertyBoolean(string name, params bool[] values) => Set(name, values);

            public virtual Java.Lang.Object SetPropertyBytes(string name, params byte[][] values) => Set(name, values);

            public virtual Java.Lang.Object SetPropertyDocument(string name, params GenericDocument[] values) => Set(name, values);

            public virtual GenericDocument Build() => new(_ns, _id, _schemaType, new Dictionary<string, object>(_properties, StringComparer.Ordinal));

            private Builder Set(string name, object values)
            {
                _properties[name] = values;
                return this;
            }
        }
    }
}

namespace Android.App.AppFunctions
{
    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appfunctions.appfunctionservice?view=net-android-36.0</summary>
    public abstract class AppFunctionService : Android.App.Service
    {
        /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appfunctions.appfunctionservice.onexecutefunction</summary>
        public abstract void OnExecuteFunction(ExecuteAppFunctionRequest request, string callingPackage, Android.Content.PM.SigningInfo callingPackageSigningInfo,
            Android.OS.CancellationSignal cancellationSignal, Android.OS.IOutcomeReceiver callback);
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appfunctions.executeappfunctionrequest?view=net-android-36.0
    /// (FunctionIdentifier, Parameters, TargetPackageName, Extras)</summary>
    public sealed class ExecuteAppFunctionRequest : Java.Lang.Object
    {
        public ExecuteAppFunctionRequest(string targetPackageName, string functionIdentifier, Android.App.AppSearch.GenericDocument parameters)
        {
            TargetPackageName = targetPackageName;
            FunctionIdentifier = functionIdentifier;
            Parameters = parameters;
        }

        public string TargetPackageName { get; }

        public string FunctionIdentifier { get; }

        public Android.App.AppSearch.GenericDocument Parameters { get; }

        public Android.OS.Bundle Extras { get; } = new();
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appfunctions.executeappfunctionresponse?view=net-android-36.0
    /// (the constructors: .../executeappfunctionresponse.-ctor)</summary>
    public sealed class ExecuteAppFunctionResponse : Java.Lang.Object
    {
        /// <summary>PROPERTY_RETURN_VALUE: "androidAppfunctionsReturnValue".</summary>
        public const string PropertyReturnValue = "androidAppfunctionsReturnValue";

        public ExecuteAppFunctionResponse(Android.App.AppSearch.GenericDocument resultDocument)
            : this(resultDocument, new Android.OS.Bundle())
        {
        }

        public ExecuteAppFunctionResponse(Android.App.AppSearch.GenericDocument resultDocument, Android.OS.Bundle extras)
        {
            ResultDocument = resultDocument;
            Extras = extras;
        }

        public Android.App.AppSearch.GenericDocument ResultDocument { get; }

        public Android.OS.Bundle Extras { get; }
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appfunctions.appfunctionerror?view=net-android-36.0
    /// (the platform's codes; Jetpack's finer ones, e.g. 1500, travel as other values of the same int)</summary>
    public enum AppFunctionError
    {
        Denied = 1000,
        InvalidArgument = 1001,
        Disabled = 1002,
        FunctionNotFound = 1003,
        SystemError = 2000,
        Cancelled = 2001,
        EnterprisePolicyDisallowed = 2002,
        AppUnknownError = 3000,
    }

    /// <summary>https://learn.microsoft.com/dotnet/api/android.app.appfunctions.appfunctionexception?view=net-android-36.0
    /// (constructor: .../appfunctionexception.-ctor; ErrorCode, ErrorMessage)</summary>
    public sealed class AppFunctionException : Java.Lang.Exception
    {
        public AppFunctionException(AppFunctionError errorCode, string? errorMessage) : base(errorMessage)
        {
            ErrorCode = errorCode;
            ErrorMessage = errorMessage;
        }

        public AppFunctionError ErrorCode { get; }

        public string? ErrorMessage { get; }
    }
}

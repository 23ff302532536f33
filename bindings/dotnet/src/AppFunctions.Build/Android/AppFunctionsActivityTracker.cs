// Part of the AppFunctions package's Android service: compiled into the app's Android build by
// buildTransitive/AppFunctions.targets.
#nullable enable
using System;
using System.Threading;
using System.Threading.Tasks;
using Android.App;
using Android.OS;

namespace AppFunctions.Platforms;

/// <summary>
/// Tells <see cref="AppFunctionsPlatform.IsForeground"/> whether one of the app's activities is
/// started, so an AppFunctions call that arrives while the app is on screen carries
/// <c>IsForeground = true</c>. Counts started, not resumed, activities: an assistant's overlay
/// pauses the activity beneath it without hiding it. Install it before the first activity starts:
/// in <c>MainApplication.OnCreate()</c> (MAUI: Platforms/Android/MainApplication.cs).
/// </summary>
public sealed class AppFunctionsActivityTracker : Java.Lang.Object, Application.IActivityLifecycleCallbacks
{
    private static int s_installed;

    /// <summary>A tracker (Java callable wrappers want a public constructor); register it with
    /// <see cref="Install"/>, once.</summary>
    public AppFunctionsActivityTracker()
    {
    }

    /// <summary>Registers the tracker with <paramref name="application"/> (once; later calls do nothing).</summary>
    public static void Install(Application application)
    {
        ArgumentNullException.ThrowIfNull(application);
        if (Interlocked.Exchange(ref s_installed, 1) == 0)
        {
            application.RegisterActivityLifecycleCallbacks(new AppFunctionsActivityTracker());
        }
    }

    /// <inheritdoc/>
    public void OnActivityStarted(Activity activity) => AppFunctionsPlatform.ActivityStarted();

    /// <inheritdoc/>
    public void OnActivityStopped(Activity activity) => AppFunctionsPlatform.ActivityStopped();

    /// <inheritdoc/>
    public void OnActivityCreated(Activity activity, Bundle? savedInstanceState)
    {
    }

    /// <inheritdoc/>
    public void OnActivityResumed(Activity activity)
    {
    }

    /// <inheritdoc/>
    public void OnActivityPaused(Activity activity)
    {
    }

    /// <inheritdoc/>
    public void OnActivitySaveInstanceState(Activity activity, Bundle outState)
    {
    }

    /// <inheritdoc/>
    public void OnActivityDestroyed(Activity activity)
    {
    }
}

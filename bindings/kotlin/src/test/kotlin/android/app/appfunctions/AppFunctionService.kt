// Test-scope stand-in, written from the API reference (values only, no behaviour):
// https://developer.android.com/reference/android/app/appfunctions/AppFunctionService
// Only what dev.appfunctions.android.AppFunctionsService uses. The platform class extends
// android.app.Service and binds itself; the binding, the main-thread dispatch and the
// one-time callback wrapper are the platform's and are not modelled here.
package android.app.appfunctions

import android.content.pm.SigningInfo
import android.os.CancellationSignal
import android.os.OutcomeReceiver

abstract class AppFunctionService {
    abstract fun onExecuteFunction(
        request: ExecuteAppFunctionRequest,
        callingPackage: String,
        callingPackageSigningInfo: SigningInfo,
        cancellationSignal: CancellationSignal,
        callback: OutcomeReceiver<ExecuteAppFunctionResponse, AppFunctionException>,
    )

    companion object {
        /** The intent action the service declares (`SERVICE_INTERFACE`). */
        const val SERVICE_INTERFACE = "android.app.appfunctions.AppFunctionService"
    }
}

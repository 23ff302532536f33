// Test-scope stand-in, written from the API reference (values only, no behaviour):
// https://developer.android.com/reference/android/app/appfunctions/ExecuteAppFunctionRequest
// The platform builds it with ExecuteAppFunctionRequest.Builder(targetPackageName,
// functionIdentifier).setParameters(document); a test constructs it directly.
package android.app.appfunctions

import android.app.appsearch.GenericDocument
import android.os.Bundle

class ExecuteAppFunctionRequest(
    /** `getTargetPackageName()` */
    val targetPackageName: String,
    /** `getFunctionIdentifier()` */
    val functionIdentifier: String,
    /** `getParameters()` */
    val parameters: GenericDocument,
    /** `getExtras()` */
    val extras: Bundle = Bundle(),
)

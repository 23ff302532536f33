// Test-scope stand-in, written from the API reference (values only, no behaviour):
// https://developer.android.com/reference/android/app/appfunctions/ExecuteAppFunctionResponse
package android.app.appfunctions

import android.app.appsearch.GenericDocument
import android.os.Bundle

class ExecuteAppFunctionResponse(
    /** `getResultDocument()` */
    val resultDocument: GenericDocument,
    /** `getExtras()` */
    val extras: Bundle,
) {
    companion object {
        /** The property of the result document holding the return value. */
        const val PROPERTY_RETURN_VALUE = "androidAppfunctionsReturnValue"
    }
}

// Test-scope stand-in, written from the API reference (values only, no behaviour):
// https://developer.android.com/reference/android/app/appfunctions/AppFunctionException
// The platform (API 36) defines the codes below; getErrorCategory() is not used here.
package android.app.appfunctions

class AppFunctionException(
    /** `getErrorCode()` */
    val errorCode: Int,
    /** `getErrorMessage()` */
    val errorMessage: String?,
) : Exception(errorMessage) {
    companion object {
        const val ERROR_DENIED = 1000
        const val ERROR_INVALID_ARGUMENT = 1001
        const val ERROR_DISABLED = 1002
        const val ERROR_FUNCTION_NOT_FOUND = 1003
        const val ERROR_SYSTEM_ERROR = 2000
        const val ERROR_CANCELLED = 2001
        const val ERROR_ENTERPRISE_POLICY_DISALLOWED = 2002
        const val ERROR_APP_UNKNOWN_ERROR = 3000
    }
}

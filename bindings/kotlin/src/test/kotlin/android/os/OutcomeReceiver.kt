// Test-scope stand-in, written from the API reference (no behaviour):
// https://developer.android.com/reference/android/os/OutcomeReceiver
package android.os

interface OutcomeReceiver<R, E : Throwable> {
    fun onResult(result: R)
    fun onError(error: E) {}
}

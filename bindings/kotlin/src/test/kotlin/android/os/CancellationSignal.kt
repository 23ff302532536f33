// Test-scope stand-in, written from the API reference:
// https://developer.android.com/reference/android/os/CancellationSignal
// It holds the listener and the cancelled flag; cancel() calls the listener, as the
// reference says ("If the operation has already been canceled, then the listener is called
// immediately" for setOnCancelListener).
package android.os

class CancellationSignal {
    fun interface OnCancelListener {
        fun onCancel()
    }

    private var listener: OnCancelListener? = null

    @Volatile
    var isCanceled: Boolean = false
        private set

    fun setOnCancelListener(l: OnCancelListener?) {
        val call = synchronized(this) {
            listener = l
            isCanceled
        }
        if (call) l?.onCancel()
    }

    fun cancel() {
        val l = synchronized(this) {
            if (isCanceled) return
            isCanceled = true
            listener
        }
        l?.onCancel()
    }
}

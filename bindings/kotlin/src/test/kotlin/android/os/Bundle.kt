// Test-scope stand-in, written from the API reference (values only):
// https://developer.android.com/reference/android/os/Bundle
// Only the string entries the service puts into a response's extras.
package android.os

class Bundle {
    private val strings = LinkedHashMap<String, String?>()

    fun putString(key: String?, value: String?) {
        strings[key ?: ""] = value
    }

    fun getString(key: String?): String? = strings[key ?: ""]

    fun keySet(): Set<String> = strings.keys
}

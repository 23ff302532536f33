// Test-scope stand-in, written from the API reference (no values are read here):
// https://developer.android.com/reference/android/content/pm/SigningInfo
package android.content.pm

class SigningInfo

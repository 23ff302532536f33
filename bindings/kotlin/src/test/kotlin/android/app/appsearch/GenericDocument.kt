// Test-scope stand-in, written from the API reference (values only, no behaviour):
// https://developer.android.com/reference/android/app/appsearch/GenericDocument
// https://developer.android.com/reference/android/app/appsearch/GenericDocument.Builder
// getProperty returns what the matching setter stored: String[], long[], double[],
// boolean[], byte[][] or GenericDocument[].
package android.app.appsearch

class GenericDocument private constructor(
    /** `getNamespace()` */
    val namespace: String,
    /** `getId()` */
    val id: String,
    /** `getSchemaType()` */
    val schemaType: String,
    private val properties: Map<String, Any>,
) {
    /** `getPropertyNames()` */
    val propertyNames: Set<String> get() = properties.keys

    /** `getProperty(String)`: the stored array, or null. */
    fun getProperty(path: String): Any? = properties[path]

    /** `GenericDocument.Builder<BuilderType>`: the setters store the values they are given. */
    open class Builder<BuilderType>(private val namespace: String, private val id: String, private val schemaType: String) {
        private val properties = LinkedHashMap<String, Any>()

        @Suppress("UNCHECKED_CAST")
        private fun put(name: String, value: Any): BuilderType {
            properties[name] = value
            return this as BuilderType
        }

        fun setPropertyString(name: String, vararg values: String): BuilderType = put(name, arrayOf(*values))
        fun setPropertyLong(name: String, vararg values: Long): BuilderType = put(name, values.copyOf())
        fun setPropertyDouble(name: String, vararg values: Double): BuilderType = put(name, values.copyOf())
        fun setPropertyBoolean(name: String, vararg values: Boolean): BuilderType = put(name, values.copyOf())
        fun setPropertyBytes(name: String, vararg values: ByteArray): BuilderType = put(name, arrayOf(*values))
        fun setPropertyDocument(name: String, vararg values: GenericDocument): BuilderType = put(name, arrayOf(*values))
        fun build(): GenericDocument = GenericDocument(namespace, id, schemaType, LinkedHashMap(properties))
    }
}

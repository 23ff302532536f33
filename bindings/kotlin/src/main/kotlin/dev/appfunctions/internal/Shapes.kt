// Kotlin types -> descriptor types, and the JSON codec for values of those types.
// One Shape per KType, computed once by reflection and cached; the hot path only walks it.
package dev.appfunctions.internal

import dev.appfunctions.AppFunctionConstraints
import dev.appfunctions.AppFunctionEntity
import dev.appfunctions.Constraints
import dev.appfunctions.putConstraints
import dev.appfunctions.AppFunctionSerializable
import dev.appfunctions.Description
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.double
import kotlinx.serialization.json.int
import kotlinx.serialization.json.long
import kotlinx.serialization.json.put
import java.time.Instant
import java.time.LocalDate
import java.time.OffsetDateTime
import java.time.ZoneOffset
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import kotlin.reflect.KClass
import kotlin.reflect.KFunction
import kotlin.reflect.KParameter
import kotlin.reflect.KProperty1
import kotlin.reflect.KType
import kotlin.reflect.full.findAnnotation
import kotlin.reflect.full.memberProperties
import kotlin.reflect.full.primaryConstructor
import kotlin.reflect.jvm.isAccessible
import kotlin.reflect.jvm.javaField
import kotlin.reflect.jvm.javaGetter

/** Thrown at registration when a Kotlin type has no descriptor type. */
class UnsupportedTypeException(message: String) : IllegalArgumentException(message)

internal sealed class Shape {
    /** The descriptor type JSON (docs/descriptors.md). */
    abstract val descriptorType: JsonElement
    abstract fun encode(value: Any?): JsonElement
    abstract fun decode(json: JsonElement): Any?

    /**
     * [decode] of the value at [s, e) of [utf8] (an arguments text [ArgumentSpans] found it in):
     * the same value, read from the bytes where the shape can (strings, numbers, enums) without
     * making the JsonElement first.
     */
    open fun decodeAt(utf8: ByteArray, s: Int, e: Int): Any? = decode(Utf8Json.element(utf8, s, e))

    /** Appends [encode]'s text of [value] (the same characters) without making the JsonElement. */
    open fun write(out: StringBuilder, value: Any?) {
        out.append(encode(value).toString())
    }

    object Unit_ : Shape() {
        override val descriptorType = JsonPrimitive("void")
        override fun encode(value: Any?) = JsonNull
        override fun decode(json: JsonElement) = Unit
        override fun write(out: StringBuilder, value: Any?) {
            out.append("null")
        }
    }

    object Str : Shape() {
        override val descriptorType = JsonPrimitive("string")
        override fun encode(value: Any?) = JsonPrimitive(value as String)
        override fun decode(json: JsonElement): Any = (json as JsonPrimitive).content
        override fun decodeAt(utf8: ByteArray, s: Int, e: Int): Any? =
            if (utf8[s] == '"'.code.toByte()) Utf8Json.text(utf8, s + 1, e - 1) else super.decodeAt(utf8, s, e)
        override fun write(out: StringBuilder, value: Any?) = out.appendQuoted(value as String)
    }

    object Bool : Shape() {
        override val descriptorType = JsonPrimitive("boolean")
        override fun encode(value: Any?) = JsonPrimitive(value as Boolean)
        override fun decode(json: JsonElement): Any = (json as JsonPrimitive).boolean
        override fun write(out: StringBuilder, value: Any?) {
            out.append(value as Boolean)
        }
    }

    class I32(private val cls: KClass<*>) : Shape() {
        override val descriptorType = JsonPrimitive("int32")
        override fun encode(value: Any?) = JsonPrimitive((value as Number).toInt())
        override fun decode(json: JsonElement): Any = narrow((json as JsonPrimitive).int)
        override fun decodeAt(utf8: ByteArray, s: Int, e: Int): Any? {
            val v = Utf8Json.plainLong(utf8, s, e)
            return if (v != null && v >= Int.MIN_VALUE && v <= Int.MAX_VALUE) narrow(v.toInt()) else super.decodeAt(utf8, s, e)
        }
        private val kind = when (cls) {
            Short::class -> 1
            Byte::class -> 2
            else -> 0
        }
        private fun narrow(i: Int): Any = when (kind) {
            1 -> i.toShort()
            2 -> i.toByte()
            else -> i
        }
        override fun write(out: StringBuilder, value: Any?) {
            out.append((value as Number).toInt())
        }
    }

    object I64 : Shape() {
        override val descriptorType = JsonPrimitive("int64")
        override fun encode(value: Any?) = JsonPrimitive((value as Number).toLong())
        override fun decode(json: JsonElement): Any = (json as JsonPrimitive).long
        override fun decodeAt(utf8: ByteArray, s: Int, e: Int): Any? = Utf8Json.plainLong(utf8, s, e) ?: super.decodeAt(utf8, s, e)
        override fun write(out: StringBuilder, value: Any?) {
            out.append((value as Number).toLong())
        }
    }

    class F64(private val cls: KClass<*>) : Shape() {
        override val descriptorType = JsonPrimitive("double")
        override fun encode(value: Any?) = JsonPrimitive((value as Number).toDouble())
        override fun decode(json: JsonElement): Any {
            val d = (json as JsonPrimitive).double
            return if (cls == Float::class) d.toFloat() else d
        }
    }

    class DateTime(private val cls: KClass<*>) : Shape() {
        override val descriptorType = JsonPrimitive("dateTime")
        override fun encode(value: Any?): JsonElement = JsonPrimitive(
            when (value) {
                is Instant -> value.atOffset(ZoneOffset.UTC).toString()
                else -> value.toString()
            },
        )
        override fun decode(json: JsonElement): Any {
            val t = OffsetDateTime.parse((json as JsonPrimitive).content)
            return if (cls == Instant::class) t.toInstant() else t
        }
        override fun write(out: StringBuilder, value: Any?) = out.appendQuoted(if (value is Instant) value.atOffset(ZoneOffset.UTC).toString() else value.toString())
    }

    object Date : Shape() {
        override val descriptorType = JsonPrimitive("date")
        override fun encode(value: Any?) = JsonPrimitive(value.toString())
        override fun decode(json: JsonElement): Any = LocalDate.parse((json as JsonPrimitive).content)
        override fun write(out: StringBuilder, value: Any?) = out.appendQuoted(value.toString())
    }

    object Uuid : Shape() {
        override val descriptorType = JsonPrimitive("uuid")
        override fun encode(value: Any?) = JsonPrimitive(value.toString())
        override fun decode(json: JsonElement): Any = UUID.fromString((json as JsonPrimitive).content)
        override fun write(out: StringBuilder, value: Any?) = out.appendQuoted(value.toString())
    }

    /** Free-form JSON (used by the builder DSL, not by reflection). */
    object Json : Shape() {
        override val descriptorType: JsonElement get() = throw UnsupportedTypeException("free-form JSON has no descriptor type")
        override fun encode(value: Any?) = value as JsonElement
        override fun decode(json: JsonElement): Any = json
    }

    class Enum(val cls: KClass<*>, val name: String) : Shape() {
        private val constants: Map<String, Any> = cls.java.enumConstants.associateBy { (it as kotlin.Enum<*>).name }
        override val descriptorType = buildJsonObject { put("enum", name) }
        override fun encode(value: Any?) = JsonPrimitive((value as kotlin.Enum<*>).name)
        override fun decode(json: JsonElement): Any {
            val n = (json as JsonPrimitive).content
            return constants[n] ?: throw IllegalArgumentException("$n is not a member of $name")
        }

        /** The members in declaration order, each with its name's UTF-8 and its quoted JSON text. */
        private val members: Array<kotlin.Enum<*>> = cls.java.enumConstants.map { it as kotlin.Enum<*> }.toTypedArray()
        private val memberUtf8: Array<ByteArray> = Array(members.size) { members[it].name.toByteArray() }
        private val memberJson: Array<String> = Array(members.size) { StringBuilder().apply { appendQuoted(members[it].name) }.toString() }

        override fun decodeAt(utf8: ByteArray, s: Int, e: Int): Any? {
            if (utf8[s] == '"'.code.toByte()) {
                val n = e - s - 2
                for (i in memberUtf8.indices) {
                    val m = memberUtf8[i]
                    if (m.size == n && java.util.Arrays.equals(utf8, s + 1, e - 1, m, 0, n)) return members[i]
                }
            }
            // an escaped name, or none of them: decode's own answer or error
            return super.decodeAt(utf8, s, e)
        }

        override fun write(out: StringBuilder, value: Any?) {
            out.append(memberJson[(value as kotlin.Enum<*>).ordinal])
        }

        fun definition(): JsonObject = buildJsonObject {
            put("name", name)
            cls.findAnnotation<Description>()?.let { put("description", it.value) }
            put(
                "members",
                buildJsonArray {
                    for (c in cls.java.enumConstants) {
                        val m = (c as kotlin.Enum<*>).name
                        val d = cls.java.getField(m).getAnnotation(Description::class.java)
                        if (d == null) add(JsonPrimitive(m)) else add(buildJsonObject { put("name", m); put("description", d.value) })
                    }
                },
            )
        }
    }

    class Field(
        val name: String,
        val param: KParameter,
        val getter: KProperty1<Any, *>,
        val description: String?,
    ) {
        lateinit var shape: Shape

        /** The property's JVM getter (kotlin-reflect's `get` goes through its own caller to the same method). */
        private val javaGetter: java.lang.reflect.Method? = getter.javaGetter?.also { it.isAccessible = true }

        /** The field's `"name":` as [write] puts it, after the first field with its comma. */
        val keyJson: String = StringBuilder().apply { appendQuoted(name); append(':') }.toString()
        val nextKeyJson: String = ",$keyJson"

        fun read(record: Any): Any? = if (javaGetter != null) javaGetter.invokeUnwrapped(record, NO_ARGS) else getter.get(record)
    }

    /** A record or an entity: a class with a primary constructor whose parameters are properties. */
    class Record(val cls: KClass<*>, val name: String, val entity: AppFunctionEntity?) : Shape() {
        lateinit var fields: List<Field>
        lateinit var ctor: KFunction<Any>
        private val allPresentFast by lazy { fields.map { it.param } }

        override val descriptorType = buildJsonObject { put(if (entity != null) "entity" else "record", name) }

        override fun encode(value: Any?): JsonElement = buildJsonObject {
            for (f in fields) put(f.name, f.shape.encode(f.getter.get(value!!)))
        }

        override fun write(out: StringBuilder, value: Any?) {
            val record = value!!
            val fields = fields
            out.append('{')
            for (i in fields.indices) {
                val f = fields[i]
                out.append(if (i == 0) f.keyJson else f.nextKeyJson)
                f.shape.write(out, f.read(record))
            }
            out.append('}')
        }

        override fun decode(json: JsonElement): Any {
            val obj = json as JsonObject
            val args = HashMap<KParameter, Any?>(fields.size * 2)
            for (f in fields) {
                val v = obj[f.name]
                if (v == null) {
                    if (f.param.isOptional) continue
                    if (f.param.type.isMarkedNullable) {
                        args[f.param] = null; continue
                    }
                    throw IllegalArgumentException("$name.${f.name} is missing")
                }
                args[f.param] = f.shape.decode(v)
            }
            return if (args.size == fields.size) ctor.call(*Array(fields.size) { args[allPresentFast[it]] }) else ctor.callBy(args)
        }

        fun fieldsJson(): JsonArray = buildJsonArray {
            for (f in fields) add(
                buildJsonObject {
                    put("name", f.name)
                    put("type", f.shape.descriptorType)
                    f.description?.let { put("description", it) }
                    // nullable fields are optional by the core's one nullable rule
                    if (f.param.isOptional) put("optional", true)
                    putConstraints(AppFunctionConstraints.of(f.param.findAnnotation<Constraints>()))
                },
            )
        }

        fun definition(): JsonObject = buildJsonObject {
            put("name", name)
            description()?.let { put("description", it) }
            put("fields", fieldsJson())
        }

        fun description(): String? =
            entity?.description?.ifEmpty { null }
                ?: cls.findAnnotation<AppFunctionSerializable>()?.description?.ifEmpty { null }
                ?: cls.findAnnotation<Description>()?.value

        /** The entity descriptor for af_register_entity. */
        fun entityDescriptor(): JsonObject = buildJsonObject {
            val e = entity!!
            put("name", e.name)
            if (e.title.isNotEmpty()) put("title", e.title)
            description()?.let { put("description", it) }
            put("idField", e.idField)
            put("fields", fieldsJson())
        }
    }

    class ListOf(val element: Shape, private val kind: KClass<*>) : Shape() {
        override val descriptorType = buildJsonObject { put("array", element.descriptorType) }
        override fun encode(value: Any?): JsonElement = JsonArray(
            when (value) {
                is Iterable<*> -> value.map { element.encode(it) }
                is Array<*> -> value.map { element.encode(it) }
                else -> throw IllegalArgumentException("not a collection: $value")
            },
        )
        override fun decode(json: JsonElement): Any {
            val list = (json as JsonArray).map { element.decode(it) }
            return if (kind == Set::class) list.toSet() else list
        }
        override fun write(out: StringBuilder, value: Any?) {
            val items: Iterator<Any?> = when (value) {
                is Iterable<*> -> value.iterator()
                is Array<*> -> value.iterator()
                else -> throw IllegalArgumentException("not a collection: $value")
            }
            out.append('[')
            var first = true
            for (item in items) {
                if (!first) out.append(',')
                first = false
                element.write(out, item)
            }
            out.append(']')
        }
    }

    class Nullable(val inner: Shape) : Shape() {
        override val descriptorType = buildJsonObject { put("nullable", inner.descriptorType) }
        override fun encode(value: Any?): JsonElement = if (value == null) JsonNull else inner.encode(value)
        override fun decode(json: JsonElement): Any? = if (json is JsonNull) null else inner.decode(json)
        override fun decodeAt(utf8: ByteArray, s: Int, e: Int): Any? =
            if (e - s == 4 && utf8[s] == 'n'.code.toByte()) null else inner.decodeAt(utf8, s, e)
        override fun write(out: StringBuilder, value: Any?) {
            if (value == null) out.append("null") else inner.write(out, value)
        }
    }
}

private val NO_ARGS = arrayOf<Any?>()

/** kotlinx's escapes of the characters below 93 ([appendQuoted] writes a string as kotlinx prints it). */
private val ESCAPES: Array<String?> = arrayOfNulls<String>(93).apply {
    for (c in 0..0x1f) this[c] = "\\u00" + "0123456789abcdef"[c shr 4] + "0123456789abcdef"[c and 0xf]
    this['"'.code] = "\\\""
    this['\\'.code] = "\\\\"
    this['\t'.code] = "\\t"
    this['\b'.code] = "\\b"
    this['\n'.code] = "\\n"
    this['\r'.code] = "\\r"
    this[0x0c] = "\\f"
}

/** [s] quoted and escaped, the characters kotlinx's `JsonPrimitive(s).toString()` makes. */
internal fun StringBuilder.appendQuoted(s: String) {
    append('"')
    var last = 0
    for (i in s.indices) {
        val c = s[i].code
        if (c < 93) {
            val esc = ESCAPES[c] ?: continue
            append(s, last, i)
            append(esc)
            last = i + 1
        }
    }
    append(s, last, s.length)
    append('"')
}

internal object Shapes {
    private val byType = ConcurrentHashMap<KType, Shape>()
    private val byClass = ConcurrentHashMap<KClass<*>, Shape>()

    /** [where] names the parameter or result for error messages. */
    fun of(type: KType, where: String): Shape = byType[type] ?: compute(type, where).also { byType[type] = it }

    private fun compute(type: KType, where: String): Shape {
        val base = nonNull(type, where)
        return if (type.isMarkedNullable) Shape.Nullable(base) else base
    }

    private fun nonNull(type: KType, where: String): Shape {
        val cls = type.classifier as? KClass<*>
            ?: throw UnsupportedTypeException("$where: type $type is not a class (type parameters are not supported)")
        return when (cls) {
            Unit::class -> Shape.Unit_
            String::class -> Shape.Str
            Boolean::class -> Shape.Bool
            Int::class, Short::class, Byte::class -> Shape.I32(cls)
            Long::class -> Shape.I64
            Double::class, Float::class -> Shape.F64(cls)
            OffsetDateTime::class, Instant::class -> Shape.DateTime(cls)
            LocalDate::class -> Shape.Date
            UUID::class -> Shape.Uuid
            List::class, Collection::class, Iterable::class, Set::class -> {
                val arg = type.arguments.firstOrNull()?.type
                    ?: throw UnsupportedTypeException("$where: $type needs an element type")
                Shape.ListOf(of(arg, "$where[]"), cls)
            }
            else -> classShape(cls, where)
        }
    }

    private fun classShape(cls: KClass<*>, where: String): Shape {
        byClass[cls]?.let { return it }
        synchronized(this) {
            byClass[cls]?.let { return it }
            if (cls.java.isEnum) {
                val s = Shape.Enum(cls, cls.findAnnotation<AppFunctionSerializable>()?.name?.ifEmpty { null } ?: cls.simpleName!!)
                byClass[cls] = s
                return s
            }
            val entity = cls.findAnnotation<AppFunctionEntity>()
            val ser = cls.findAnnotation<AppFunctionSerializable>()
            if (entity == null && ser == null) {
                throw UnsupportedTypeException(
                    "$where: ${cls.qualifiedName} is not supported: annotate it with @AppFunctionSerializable " +
                        "(a record) or @AppFunctionEntity, or use String, Boolean, Int, Long, Double, " +
                        "OffsetDateTime, Instant, LocalDate, UUID, an enum, or a List of those",
                )
            }
            val name = entity?.name ?: ser!!.name.ifEmpty { cls.simpleName!! }
            val rec = Shape.Record(cls, name, entity)
            byClass[cls] = rec // before the fields: records may refer to themselves
            try {
                val ctor: KFunction<Any> = cls.primaryConstructor ?: throw UnsupportedTypeException("$where: ${cls.qualifiedName} has no primary constructor")
                ctor.isAccessible = true
                val props = cls.memberProperties.associateBy { it.name }
                rec.ctor = ctor
                rec.fields = ctor.parameters.map { p ->
                    val pname = p.name!!
                    @Suppress("UNCHECKED_CAST")
                    val prop = props[pname] as? KProperty1<Any, *>
                        ?: throw UnsupportedTypeException("${cls.qualifiedName}: constructor parameter $pname is not a property")
                    prop.isAccessible = true
                    val desc = p.findAnnotation<Description>()?.value
                        ?: prop.findAnnotation<Description>()?.value
                        ?: prop.javaField?.getAnnotation(Description::class.java)?.value
                    Shape.Field(pname, p, prop, desc)
                }
                for (f in rec.fields) f.shape = of(f.param.type, "${rec.name}.${f.name}")
                if (entity != null && rec.fields.none { it.name == entity.idField }) {
                    throw UnsupportedTypeException("${cls.qualifiedName}: the entity's idField '${entity.idField}' is not a property")
                }
            } catch (e: Throwable) {
                byClass.remove(cls)
                throw e
            }
            return rec
        }
    }

    /** Every enum and record reachable from [shape] (entities are registered on their own). */
    fun collectNamed(shape: Shape, enums: MutableMap<String, Shape.Enum>, records: MutableMap<String, Shape.Record>, entities: MutableMap<String, Shape.Record>) {
        when (shape) {
            is Shape.Enum -> enums.putIfAbsent(shape.name, shape)
            is Shape.Record -> {
                val target = if (shape.entity != null) entities else records
                if (target.putIfAbsent(shape.name, shape) == null) {
                    for (f in shape.fields) collectNamed(f.shape, enums, records, entities)
                }
            }
            is Shape.ListOf -> collectNamed(shape.element, enums, records, entities)
            is Shape.Nullable -> collectNamed(shape.inner, enums, records, entities)
            else -> {}
        }
    }
}

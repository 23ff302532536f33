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

/** Thrown at registration when a Kotlin type has no descriptor type. */
class UnsupportedTypeException(message: String) : IllegalArgumentException(message)

internal sealed class Shape {
    /** The descriptor type JSON (docs/descriptors.md). */
    abstract val descriptorType: JsonElement
    abstract fun encode(value: Any?): JsonElement
    abstract fun decode(json: JsonElement): Any?

    object Unit_ : Shape() {
        override val descriptorType = JsonPrimitive("void")
        override fun encode(value: Any?) = JsonNull
        override fun decode(json: JsonElement) = Unit
    }

    object Str : Shape() {
        override val descriptorType = JsonPrimitive("string")
        override fun encode(value: Any?) = JsonPrimitive(value as String)
        override fun decode(json: JsonElement): Any = (json as JsonPrimitive).content
    }

    object Bool : Shape() {
        override val descriptorType = JsonPrimitive("boolean")
        override fun encode(value: Any?) = JsonPrimitive(value as Boolean)
        override fun decode(json: JsonElement): Any = (json as JsonPrimitive).boolean
    }

    class I32(private val cls: KClass<*>) : Shape() {
        override val descriptorType = JsonPrimitive("int32")
        override fun encode(value: Any?) = JsonPrimitive((value as Number).toInt())
        override fun decode(json: JsonElement): Any {
            val i = (json as JsonPrimitive).int
            return when (cls) {
                Short::class -> i.toShort()
                Byte::class -> i.toByte()
                else -> i
            }
        }
    }

    object I64 : Shape() {
        override val descriptorType = JsonPrimitive("int64")
        override fun encode(value: Any?) = JsonPrimitive((value as Number).toLong())
        override fun decode(json: JsonElement): Any = (json as JsonPrimitive).long
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
    }

    object Date : Shape() {
        override val descriptorType = JsonPrimitive("date")
        override fun encode(value: Any?) = JsonPrimitive(value.toString())
        override fun decode(json: JsonElement): Any = LocalDate.parse((json as JsonPrimitive).content)
    }

    object Uuid : Shape() {
        override val descriptorType = JsonPrimitive("uuid")
        override fun encode(value: Any?) = JsonPrimitive(value.toString())
        override fun decode(json: JsonElement): Any = UUID.fromString((json as JsonPrimitive).content)
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
    }

    class Nullable(val inner: Shape) : Shape() {
        override val descriptorType = buildJsonObject { put("nullable", inner.descriptorType) }
        override fun encode(value: Any?): JsonElement = if (value == null) JsonNull else inner.encode(value)
        override fun decode(json: JsonElement): Any? = if (json is JsonNull) null else inner.decode(json)
    }
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

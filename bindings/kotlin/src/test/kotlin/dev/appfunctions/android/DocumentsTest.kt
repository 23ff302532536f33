package dev.appfunctions.android

import android.app.appfunctions.AppFunctionException
import android.app.appsearch.GenericDocument
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** The walk between GenericDocuments (the stand-in) and the core's JSON image (docs/android.md). */
class DocumentsTest {
    private fun builder(schemaType: String = "") = GenericDocument.Builder<GenericDocument.Builder<*>>("", "", schemaType)

    @Test
    fun `documents of every kind become their image and back`() {
        val note = builder("Note").apply { setPropertyLong("id", 7) }.build()
        val doc = builder().apply {
            setPropertyString("s", "a", "b")
            setPropertyLong("l", 1, 2)
            setPropertyDouble("d", 0.5)
            setPropertyBoolean("b", true)
            setPropertyBytes("y", byteArrayOf(0, 1))
            setPropertyDocument("n", note)
        }.build()
        val image = Documents.image(doc)
        assertEquals(
            """{"namespace":"","id":"","schemaType":"","properties":{"b":{"booleans":[true]},"d":{"doubles":[0.5]},""" +
                """"l":{"longs":[1,2]},"n":{"documents":[{"namespace":"","id":"","schemaType":"Note","properties":{"id":{"longs":[7]}}}]},""" +
                """"s":{"strings":["a","b"]},"y":{"bytes":["AAE="]}}}""",
            image,
        )
        assertEquals(image, Documents.image(Documents.document(Json.parseToJsonElement(image).jsonObject)))
    }

    @Test
    fun `a response becomes the result document with its extras, an error the AppFunctionException`() {
        val ok = Documents.response(
            """{"result":{"namespace":"","id":"","schemaType":"","properties":{"androidAppfunctionsReturnValue":{"strings":["hi"]}}},""" +
                """"extras":{"dev.appfunctions.extra.DIALOG":"Said."}}""",
        ).getOrThrow()
        assertEquals("hi", (ok.resultDocument.getProperty("androidAppfunctionsReturnValue") as Array<*>).single())
        assertEquals("Said.", ok.extras.getString("dev.appfunctions.extra.DIALOG"))
        val e = Documents.response("""{"errorCode":1001,"message":"unknown property `x`"}""").exceptionOrNull() as AppFunctionException
        assertEquals(AppFunctionException.ERROR_INVALID_ARGUMENT, e.errorCode)
        assertEquals("unknown property `x`", e.errorMessage)
        assertTrue(Documents.response("""{"result":{"properties":{}},"extras":{}}""").getOrThrow().resultDocument.propertyNames.isEmpty())
    }
}

package dev.appfunctions

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject

object AppJsonForTests {
    fun parse(json: String): JsonObject = AppJson.parseToJsonElement(json).jsonObject
}

// Seed 004's examples as a Kotlin app: the FileSystemToolkit and DatabaseToolkit of "The
// Collapse Attribute" and "Collapse with Instructions", the SearchToolkit of "Dynamic
// Instructions with Expressions", and the plain functions of "Return Types", "Requiring
// Permission", "Conditional Functions", the generic form's `{metadata.X}` and "ToolKind —
// Structured Output".
package dev.appfunctions.scenario

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionErrorCode
import dev.appfunctions.AppFunctionException
import dev.appfunctions.AppFunctionKind
import dev.appfunctions.AppFunctionSerializable
import dev.appfunctions.AppFunctionToolkit
import dev.appfunctions.AppFunctionToolkitText
import dev.appfunctions.AppFunctionToolkitTexts
import dev.appfunctions.Description
import kotlinx.coroutines.awaitCancellation
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger

@AppFunctionToolkit(name = "file_system", description = "File operations for reading, writing, and managing files")
class FileSystemToolkit(val files: MutableMap<String, String> = ConcurrentHashMap()) {
    @AppFunction(description = "Reads a file")
    fun readFile(path: String): String =
        files[path] ?: throw AppFunctionException(AppFunctionErrorCode.EntityNotFound, "no file $path")

    @AppFunction(description = "Writes a file")
    fun writeFile(path: String, content: String) {
        files[path] = content
    }

    @AppFunction(description = "Delete a file from the filesystem", requiresPermission = true)
    fun deleteFile(path: String) {
        files.remove(path)
    }
}

const val DB_RESULT = "Available: Query, Insert, Update, Delete. Always use transactions for multiple operations."
const val DB_PROMPT = "CRITICAL: Never execute DELETE without a WHERE clause."

@AppFunctionToolkit(name = "database", description = "Database operations", functionResult = DB_RESULT, systemPrompt = DB_PROMPT)
class DatabaseToolkit {
    val statements = CopyOnWriteArrayList<String>()

    @AppFunction(description = "Runs a query")
    fun query(sql: String): String {
        statements += sql
        return "1 row"
    }

    @AppFunction(description = "Inserts a row")
    fun insert(table: String): Int {
        statements += "INSERT INTO $table"
        return 1
    }
}

/** GetAvailableSearchers() and SearchGuidelines, answered from the view's metadata when needed. */
@AppFunctionToolkit(name = "search", description = "Search operations")
class SearchToolkit : AppFunctionToolkitTexts {
    val asked = AtomicInteger()

    override fun text(toolkit: String, which: AppFunctionToolkitText, metadata: JsonObject): String {
        asked.incrementAndGet()
        return when (which) {
            AppFunctionToolkitText.FunctionResult -> "Available: ${(metadata["searchers"] as? JsonPrimitive)?.contentOrNull ?: "none"}"
            AppFunctionToolkitText.SystemPrompt -> "Always prefer exact matches over fuzzy matches."
        }
    }

    @AppFunction(description = "Search the web for information")
    suspend fun webSearch(@Description("The search query") query: String, @Description("Maximum number of results (1-10)") maxResults: Int = 5): List<String> =
        (1..maxResults.coerceAtMost(2)).map { "$query result $it" }
}

@AppFunctionSerializable(description = "A weather report")
data class WeatherReport(val city: String, val tempCelsius: Double, val condition: String)

/** What conditions and `{metadata.X}` placeholders may name (seed 004's `IToolMetadata`). */
@Serializable
data class AgentMetadata(
    val ProviderName: String = "Default",
    val HasAdvancedFeatures: Boolean = false,
    val searchers: String? = null,
)

class AssistantFunctions {
    val logged = CopyOnWriteArrayList<String>()
    val slowCancelled = AtomicInteger()

    @AppFunction(description = "Add two numbers together and return the sum")
    fun add(a: Int, b: Int): Int = a + b

    @AppFunction(id = "search_web", description = "Search using {metadata.ProviderName}")
    fun performWebSearch(query: String): String = "results for $query"

    @AppFunction(description = "Advanced search with filters", condition = "HasAdvancedFeatures")
    fun advancedSearch(query: String): String = "advanced results for $query"

    @AppFunction(description = "Write a message to the log")
    fun logMessage(message: String) {
        logged += message
    }

    @AppFunction(description = "Report the weather", kind = AppFunctionKind.Output)
    fun report(
        @Description("City name") city: String,
        @Description("Temperature in Celsius") tempCelsius: Double,
        @Description("Weather condition (e.g., 'sunny', 'cloudy')") condition: String,
    ): WeatherReport = throw NotImplementedError("an output tool's method is never executed")

    @AppFunction(description = "Waits until the call is cancelled")
    suspend fun slow(): String {
        try {
            awaitCancellation()
        } finally {
            slowCancelled.incrementAndGet()
        }
    }
}

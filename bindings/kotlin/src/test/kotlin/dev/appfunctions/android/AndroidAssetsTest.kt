package dev.appfunctions.android

import dev.appfunctions.AppFunctionDispatcher
import dev.appfunctions.scenario.NoteFunctions
import dev.appfunctions.scenario.NoteRepository
import dev.appfunctions.scenario.Order
import dev.appfunctions.scenario.OrderFunctions
import dev.appfunctions.scenario.OrderProvider
import dev.appfunctions.scenario.OrderStore
import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The asset-writing build step, as a test: the demo app's assets (the shared scenario's orders
 * and notes apps) are exports of its dispatcher, and the committed copies in
 * samples/android-demo/src/main/assets must be those exports. When registrations change, rerun
 * with -Dappfunctions.bless=true and commit the files. The library's manifest is the
 * `android-manifest` export.
 */
class AndroidAssetsTest {
    private val binding = File(System.getProperty("user.dir"))
    private val bless = System.getProperty("appfunctions.bless") == "true"

    private fun demo() = AppFunctionDispatcher().apply {
        val store = OrderStore()
        registerEntity(Order::class, OrderProvider(store))
        register(OrderFunctions(store))
        register(NoteFunctions(NoteRepository()))
    }

    private fun same(file: File, text: String) {
        if (bless) {
            file.parentFile.mkdirs()
            file.writeText(text)
        }
        assertTrue(file.isFile, "$file is missing: run mvn test -Dappfunctions.bless=true and commit it")
        assertEquals(text, file.readText(), "$file drifted from the dispatcher's export: run mvn test -Dappfunctions.bless=true and commit it")
    }

    @Test
    fun `the demo app's committed assets are its dispatcher's exports`() {
        demo().use { d ->
            val assets = File(binding, "samples/android-demo/src/main/assets")
            for ((format, name) in listOf(
                "android-xml" to "app_functions_v2.xml",
                "android-legacy-xml" to "app_functions.xml",
                "android-schema" to "app_functions_schema.xsd",
            )) {
                same(File(assets, name), d.export(format))
            }
            assertTrue(d.export("android-xml").contains("<id>create_order</id>"))
        }
    }

    @Test
    fun `the library's manifest declares the service as the android-manifest export does`() {
        AppFunctionDispatcher().use { d ->
            val m = d.export("android-manifest")
            assertTrue(m.contains("android:name=\"${AppFunctionsService::class.java.name}\""), m)
            same(File(binding, "src/android/AndroidManifest.xml"), m)
        }
    }
}

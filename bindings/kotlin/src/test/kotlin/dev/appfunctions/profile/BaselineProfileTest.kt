package dev.appfunctions.profile

import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * The baseline profile (src/main/baseline-prof.txt, which scripts/baseline-profile.sh writes from
 * StartupWorkload) names only classes and methods the binding and its dependencies (at the pom's
 * versions) have: a rule naming a method renamed or removed since would be dead weight in every
 * app. The kotlin lane's `--check` says the reverse (every rule a fresh run makes is in the file).
 */
class BaselineProfileTest {
    private val rules = File("src/main/baseline-prof.txt").readLines().filter { it.isNotBlank() }

    @Test
    fun `the profile has the rules ART reads, class rules and startup method rules`() {
        assertTrue(rules.size > 100, "the profile has ${rules.size} rules")
        for (rule in rules) {
            assertTrue(CLASS.matches(rule) || METHOD.matches(rule), "not a class or an HSP method rule: $rule")
        }
        assertTrue(rules.any { it.startsWith("HSPLdev/appfunctions/AppFunctionDispatcher;-><init>(") }, "the dispatcher's constructor")
        assertTrue(rules.any { it.startsWith("HSPLdev/appfunctions/android/AppFunctionsService;->onExecuteFunction(") }, "the service's call")
    }

    @Test
    fun `every rule names a class and a method of the binding or its dependencies, with its JVM signature`() {
        val loader = javaClass.classLoader
        val missing = ArrayList<String>()
        for (rule in rules) {
            val m = METHOD.matchEntire(rule)
            val descriptor = m?.groupValues?.get(1) ?: rule
            val cls = try {
                Class.forName(descriptor.removePrefix("L").removeSuffix(";").replace('/', '.'), false, loader)
            } catch (e: ClassNotFoundException) {
                missing += "$rule: no class"
                continue
            }
            if (m == null) continue
            val (name, signature) = m.groupValues[2] to m.groupValues[3]
            val found = when (name) {
                "<clinit>" -> true // a static initializer: not visible to reflection, the class is enough
                "<init>" -> cls.declaredConstructors.any { signature == jvmSignature(it.parameterTypes, Void.TYPE) }
                else -> cls.declaredMethods.any { it.name == name && signature == jvmSignature(it.parameterTypes, it.returnType) }
            }
            if (!found) missing += "$rule: no such method in ${cls.name}"
        }
        if (missing.isNotEmpty()) {
            fail("src/main/baseline-prof.txt names what the binding and its dependencies do not have (run scripts/baseline-profile.sh):\n" + missing.joinToString("\n"))
        }
    }

    private fun jvmSignature(parameters: Array<Class<*>>, result: Class<*>) =
        parameters.joinToString("", "(", ")") { descriptor(it) } + descriptor(result)

    private fun descriptor(c: Class<*>): String = when {
        c.isArray -> "[" + descriptor(c.componentType)
        c == Void.TYPE -> "V"
        c == java.lang.Boolean.TYPE -> "Z"
        c == java.lang.Byte.TYPE -> "B"
        c == java.lang.Character.TYPE -> "C"
        c == java.lang.Short.TYPE -> "S"
        c == java.lang.Integer.TYPE -> "I"
        c == java.lang.Long.TYPE -> "J"
        c == java.lang.Float.TYPE -> "F"
        c == java.lang.Double.TYPE -> "D"
        else -> "L" + c.name.replace('.', '/') + ";"
    }

    private companion object {
        val CLASS = Regex("""L[\w/$]+;""")
        val METHOD = Regex("""HSP(L[\w/$]+;)->([^(\s]+)(\([^)\s]*\)\S+)""")
    }
}

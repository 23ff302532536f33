#!/usr/bin/env bash
# Cold start on the JVM (issue 30.1), run by ci/bench.sh's coldstart_bench with REPO, OUT,
# SAMPLES, DEMO and LIB set: a fresh JVM per sample (plain `java -cp`, the JDK's default flags)
# running bindings/kotlin/src/test/kotlin/dev/appfunctions/bench/ColdStart.kt, which registers
# the 50-function app through the Kotlin DSL and makes the first call, beside the same program
# without appfunctions (--floor), into $OUT/coldstart_jvm.json. Says loudly and exits 3 when
# there is no JDK or Maven.
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
OUT="${OUT:-$REPO/target/bench}"
mkdir -p "$OUT"
SAMPLES="${SAMPLES:-200}"
DEMO="${DEMO:-$REPO/target/release/examples/demo}"
LIB="${LIB:-$REPO/target/dist-build/dist/libappfunctions.so}"
source "$REPO/ci/env.sh"

loud() {
  printf '!!! THE JVM COLD START IS NOT MEASURED: %s\n' "$*" >&2
  exit 3
}
command -v java >/dev/null || loud "no java on PATH"
command -v mvn >/dev/null || loud "no mvn on PATH"
[[ -f "$LIB" ]] || loud "no library at $LIB"

mapfile -t MAVEN_OFFLINE < <(af_maven_args)
# the main and test classes, and the test classpath in one line (the pom's classpath profile)
(cd "$REPO/bindings/kotlin" && mvn -q -B "${MAVEN_OFFLINE[@]}" -Pclasspath verify -Djna.library.path="$(dirname "$LIB")") \
  || loud "mvn -Pclasspath verify failed"
CP=$(cat "$REPO/bindings/kotlin/target/test.classpath")
[[ -n "$CP" ]] || loud "bindings/kotlin/target/test.classpath is empty"

JNA_VERSION=$(sed -n 's:.*<jna.version>\(.*\)</jna.version>.*:\1:p' "$REPO/bindings/kotlin/pom.xml")
JAVA=(java -Djna.library.path="$(dirname "$LIB")" -cp "$CP" dev.appfunctions.bench.ColdStartKt)
python3 "$REPO/ci/bench/coldstart.py" --demo "$DEMO" --binding jvm --samples "$SAMPLES" \
  --full "${JAVA[*]} {bundle} {app}" --floor "${JAVA[*]} {bundle} {app} --floor" \
  --what "A fresh JVM per sample (\`java -cp\`, $(java -version 2>&1 | head -1 | tr -d '"'), default flags, JNA $JNA_VERSION) running \`bindings/kotlin/src/test/kotlin/dev/appfunctions/bench/ColdStart.kt\`: it reads and parses the app's descriptor bundle, loads the library and checks its ABI (\`AppFunctionsLibrary.ensureLoaded()\`: JNA's own library, \`Native.register\` of the C ABI's functions the first call needs, \`af_abi_version\`, the error code names and the binding's JNI shim), registers the metadata schema, toolkit, types, entity and 50 functions through the Kotlin DSL (\`blockingHandler\`s), and calls \`create_order\` (\`executeBlockingJson\`). The floor is the same JVM program reading and parsing the same files without appfunctions." \
  --out "$OUT/coldstart_jvm.json"

# The same program step by step (--detail: JNA's own start, binding the C ABI, the rest of the
# check, the dispatcher, the types, the first function, the other functions), fewer samples:
# where the load and the registration spend their time.
DETAIL_SAMPLES=$(( SAMPLES / 4 > 20 ? SAMPLES / 4 : 20 ))
python3 "$REPO/ci/bench/coldstart.py" --demo "$DEMO" --binding jvm_detail --samples "$DETAIL_SAMPLES" \
  --full "${JAVA[*]} {bundle} {app} --detail" --floor "${JAVA[*]} {bundle} {app} --floor" \
  --what "The program above with \`--detail\`: the load split into JNA's own start (\`jna\`: its classes and \`libjnidispatch\`), binding the C ABI (\`bind\`: \`NativeLibrary\`'s start, the library's load, \`Native.register\` of \`AfNative\`, the hot group, and \`af_abi_version\`) and the rest of the check (\`load\`: the error code names and the JNI shim's load), the registration into the dispatcher's creation, the metadata schema, toolkit, types and entity (\`types\`), the first function and the other 49 (\`functions\`)." \
  --out "$OUT/coldstart_jvm_detail.json"

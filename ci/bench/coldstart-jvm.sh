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
(cd "$REPO/bindings/kotlin" && mvn -q -B "${MAVEN_OFFLINE[@]}" -Pclasspath verify -Dappfunctions.library.path="$(dirname "$LIB")") \
  || loud "mvn -Pclasspath verify failed"
CP=$(cat "$REPO/bindings/kotlin/target/test.classpath")
[[ -n "$CP" ]] || loud "bindings/kotlin/target/test.classpath is empty"

JAVA=(java -Dappfunctions.library.path="$(dirname "$LIB")" -cp "$CP" dev.appfunctions.bench.ColdStartKt)
python3 "$REPO/ci/bench/coldstart.py" --demo "$DEMO" --binding jvm --samples "$SAMPLES" \
  --full "${JAVA[*]} {bundle} {app}" --floor "${JAVA[*]} {bundle} {app} --floor" \
  --what "A fresh JVM per sample (\`java -cp\`, $(java -version 2>&1 | head -1 | tr -d '"'), default flags) running \`bindings/kotlin/src/test/kotlin/dev/appfunctions/bench/ColdStart.kt\`: it reads and parses the app's descriptor bundle, loads the library and checks its ABI (\`AppFunctionsLibrary.ensureLoaded()\`: the binding's JNI library \`libappfunctions_jni\`, which opens the core, looks up its functions and registers the natives every call crosses; \`af_abi_version\` and the error code names), registers the metadata schema, toolkit, types, entity and 50 functions through the Kotlin DSL (\`blockingHandler\`s), and calls \`create_order\` (\`executeBlockingJson\`). The floor is the same JVM program reading and parsing the same files without appfunctions." \
  --out "$OUT/coldstart_jvm.json" --lib "$LIB"

# The same program step by step (--detail: the JNI library and the core, the rest of the check,
# the dispatcher, the types, the first function, the other functions), fewer samples:
# where the load and the registration spend their time.
DETAIL_SAMPLES=$(( SAMPLES / 4 > 20 ? SAMPLES / 4 : 20 ))
python3 "$REPO/ci/bench/coldstart.py" --demo "$DEMO" --binding jvm_detail --samples "$DETAIL_SAMPLES" \
  --full "${JAVA[*]} {bundle} {app} --detail" --floor "${JAVA[*]} {bundle} {app} --floor" \
  --what "The program above with \`--detail\`: the load split into the native libraries (\`native\`: \`libappfunctions_jni\` loaded, the core opened by it and its functions looked up, \`AfNative\`'s natives registered; no JNA since issue 30) and the rest of the check (\`load\`: \`af_abi_version\`, the error code names, the version), the registration into the dispatcher's creation, the metadata schema, toolkit, types and entity (\`types\`), the first function and the other 49 (\`functions\`)." \
  --out "$OUT/coldstart_jvm_detail.json"

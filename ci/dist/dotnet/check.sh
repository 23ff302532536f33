#!/usr/bin/env bash
# The .NET packages in FEED (target/dist/dotnet) as users take them, three ways:
#   1. the .NET README's first program, exactly as printed: its steps block (nuget.config
#      with the local feed and a project-local package folder, dotnet new console, dotnet add
#      package) run from a folder that stands for the repository root (its target/ is the
#      repository's), then its Program.cs, then `dotnet run`; the output must be the greeting;
#   2. the AppFunctions.AspNetCore README's web host, exactly as printed (its steps, Program.cs
#      and run block: a Kestrel host on a free loopback port with an authorization policy,
#      knocked with curl: 401, 403, the agent's initialize, the debug page);
#   3. ci/dist/dotnet (a console host referencing AppFunctions and AppFunctions.Extensions.AI
#      from the feed: the generator, the native library and the AI tools from the packages).
#   ci/dist/dotnet/check.sh FEED VERSION WORKDIR
# NuGet keeps extracted packages by id and version, so a stale AppFunctions <VERSION> would
# be used instead of the new nupkg: the README's project has its own package folder (and
# drops AppFunctions from it); the host here uses the lane's own (ci/.cache/dist-nuget),
# AppFunctions removed from it first.
set -euo pipefail
FEED="$1" VERSION="$2" W="$3"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
command -v dotnet >/dev/null || { echo "[dotnet check] no dotnet on PATH" >&2; exit 3; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
rm -rf "$W"
mkdir -p "$W"

# ---- 1. the README's steps, program and run, as printed
README="$REPO/bindings/dotnet/README.md"
block() { # the fenced block after <!-- dist-lane: NAME -->
  awk -v m="<!-- dist-lane: $1 -->" '$0 == m {on = 1; next} on && /^```/ && !inb {inb = 1; next} inb && /^```/ {exit} inb' "$README"
}
R="$W/readme"
mkdir -p "$R/repo"
ln -s "$REPO/target" "$R/repo/target"
block dotnet-steps >"$R/steps.sh"
block dotnet-program >"$R/Program.cs"
block dotnet-run >"$R/run.sh"
for f in steps.sh Program.cs run.sh; do
  [[ -s "$R/$f" ]] || { echo "[dotnet check] bindings/dotnet/README.md has no block after <!-- dist-lane: ${f%.*} -->" >&2; exit 1; }
done
echo "[dotnet check] the README's steps (from a stand-in for the repository root)"
(cd "$R/repo" && env -u NUGET_PACKAGES bash -e "$R/steps.sh") >"$R/steps.log" 2>&1 || { cat "$R/steps.log"; exit 1; }
[[ -d "$R/hello-appfunctions" ]] || { echo "[dotnet check] the steps made no ../hello-appfunctions" >&2; exit 1; }
cp "$R/Program.cs" "$R/hello-appfunctions/Program.cs"
echo "[dotnet check] the README's program: dotnet run"
out=$(cd "$R/hello-appfunctions" && env -u NUGET_PACKAGES -u LD_LIBRARY_PATH bash -e "$R/run.sh" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -qx 'Success: "Hello, Ada!" (Greeted Ada.)' <<<"$out" || { echo "[dotnet check] the README's program did not print the greeting" >&2; exit 1; }
grep -q '"appfunctions/'"$VERSION"'"' "$R/hello-appfunctions/obj/project.assets.json" \
  || { echo "[dotnet check] the README's project did not restore AppFunctions $VERSION" >&2; exit 1; }
[[ -d "$R/hello-appfunctions/packages/appfunctions/$VERSION" ]] \
  || { echo "[dotnet check] AppFunctions was not extracted into the project's own package folder" >&2; exit 1; }

# ---- 2. the ASP.NET Core package's README: its steps, web host and knocks, as printed
WREADME="$REPO/bindings/dotnet/src/AppFunctions.AspNetCore/README.md"
A="$W/aspnet"
mkdir -p "$A/repo"
ln -s "$REPO/target" "$A/repo/target"
README="$WREADME"
block aspnet-steps >"$A/steps.sh"
block aspnet-program >"$A/Program.cs"
block aspnet-run >"$A/run.sh"
for f in steps.sh Program.cs run.sh; do
  [[ -s "$A/$f" ]] || { echo "[dotnet check] $WREADME has no block after <!-- dist-lane: aspnet-${f%.*} -->" >&2; exit 1; }
done
echo "[dotnet check] the ASP.NET Core README's steps (from a stand-in for the repository root)"
(cd "$A/repo" && env -u NUGET_PACKAGES bash -e "$A/steps.sh") >"$A/steps.log" 2>&1 || { cat "$A/steps.log"; exit 1; }
[[ -d "$A/hello-appfunctions-web" ]] || { echo "[dotnet check] the steps made no ../hello-appfunctions-web" >&2; exit 1; }
cp "$A/Program.cs" "$A/hello-appfunctions-web/Program.cs"
# a free loopback port for the README's PORT
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "[dotnet check] the ASP.NET Core README's web host and knocks (PORT=$PORT)"
out=$(cd "$A/hello-appfunctions-web" && PORT=$PORT timeout 600 env -u NUGET_PACKAGES -u LD_LIBRARY_PATH bash -e "$A/run.sh" 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -E '^(no credentials|a user|an agent|the debug page): '
for want in 'no credentials: 401' 'a user: 403' 'the debug page: 200'; do
  grep -qx "$want" <<<"$out" || { echo "$out"; echo "[dotnet check] the ASP.NET Core README's knocks did not print '$want'" >&2; exit 1; }
done
grep -q '^an agent: {"jsonrpc":"2.0","id":1,"result":{.*"protocolVersion":"2025-11-25"' <<<"$out" \
  || { echo "$out"; echo "[dotnet check] the agent's initialize was not answered" >&2; exit 1; }
for id in appfunctions appfunctions.aspnetcore; do
  grep -q "\"$id/$VERSION\"" "$A/hello-appfunctions-web/obj/project.assets.json" \
    || { echo "[dotnet check] the web host did not restore $id $VERSION" >&2; exit 1; }
  [[ -d "$A/hello-appfunctions-web/packages/$id/$VERSION" ]] \
    || { echo "[dotnet check] $id was not extracted into the web host's own package folder" >&2; exit 1; }
done

# ---- 3. the host with both packages
export NUGET_PACKAGES="$REPO/ci/.cache/dist-nuget"
rm -rf "$NUGET_PACKAGES/appfunctions" "$NUGET_PACKAGES/appfunctions.extensions.ai"
mkdir -p "$W/host" "$NUGET_PACKAGES"
cp "$HERE/DistConsumer.csproj" "$HERE/Program.cs" "$W/host/"
cat >"$W/host/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="dist" value="$FEED" />
    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" />
  </packageSources>
  <packageSourceMapping>
    <packageSource key="dist"><package pattern="AppFunctions" /><package pattern="AppFunctions.*" /></packageSource>
    <packageSource key="nuget.org"><package pattern="*" /></packageSource>
  </packageSourceMapping>
</configuration>
XML
cd "$W/host"
dotnet build -c Release -v q -clp:NoSummary "-p:AppFunctionsVersion=$VERSION" >build.log 2>&1 || { cat build.log; exit 1; }
grep -qi "\"appfunctions/$VERSION\"" obj/project.assets.json || { echo "[dotnet check] the restore did not take AppFunctions $VERSION" >&2; exit 1; }
grep -qi "\"appfunctions.extensions.ai/$VERSION\"" obj/project.assets.json || { echo "[dotnet check] the restore did not take AppFunctions.Extensions.AI $VERSION" >&2; exit 1; }
# the package's build step: the platform files, written from the compiled assembly by the
# package's task and tool (every file the targets name, non-empty, naming the function)
for f in android/app_functions_v2.xml android/app_functions.xml android/app_functions_schema.xsd \
    android/AndroidManifest.appfunctions.xml swift/AppFunctionsIntents.swift swift/AppFunctionsDotNet.swift; do
  [[ -s "obj/Release/net10.0/appfunctions/$f" ]] || { echo "[dotnet check] the package's build step did not write obj/Release/net10.0/appfunctions/$f" >&2; exit 1; }
done
grep -q greet obj/Release/net10.0/appfunctions/android/app_functions_v2.xml || { echo "[dotnet check] app_functions_v2.xml does not describe greet" >&2; exit 1; }
echo "[dotnet check] the package's build step wrote the Android assets, the manifest fragment and the Swift files"
env -u LD_LIBRARY_PATH dotnet bin/Release/net10.0/DistConsumer.dll

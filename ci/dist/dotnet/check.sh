#!/usr/bin/env bash
# Builds and runs ci/dist/dotnet (a console host) against the nupkg in FEED, referenced from
# a local NuGet feed; its dependencies come from nuget.org.
#   ci/dist/dotnet/check.sh FEED VERSION WORKDIR
# NuGet keeps extracted packages by id and version, so a stale AppFunctions <VERSION> would
# be used instead of the new nupkg: the global packages folder is the lane's own
# (ci/.cache/dist-nuget) and AppFunctions is removed from it first.
set -euo pipefail
FEED="$1" VERSION="$2" W="$3"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
command -v dotnet >/dev/null || { echo "[dotnet check] no dotnet on PATH" >&2; exit 3; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export NUGET_PACKAGES="$REPO/ci/.cache/dist-nuget"
rm -rf "$NUGET_PACKAGES/appfunctions" "$W"
mkdir -p "$W" "$NUGET_PACKAGES"
cp "$HERE/DistConsumer.csproj" "$HERE/Program.cs" "$W/"
cat >"$W/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="dist" value="$FEED" />
    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" />
  </packageSources>
  <packageSourceMapping>
    <packageSource key="dist"><package pattern="AppFunctions" /></packageSource>
    <packageSource key="nuget.org"><package pattern="*" /></packageSource>
  </packageSourceMapping>
</configuration>
XML
cd "$W"
dotnet build -c Release -v q -clp:NoSummary "-p:AppFunctionsVersion=$VERSION" >build.log 2>&1 || { cat build.log; exit 1; }
grep -qi "\"appfunctions/$VERSION\"" obj/project.assets.json || { echo "[dotnet check] the restore did not take AppFunctions $VERSION" >&2; exit 1; }
env -u LD_LIBRARY_PATH dotnet bin/Release/net10.0/DistConsumer.dll

#!/usr/bin/env bash
# One version for the crate and every binding: the crate's (Cargo.toml,
# [workspace.package] version) is the reference, and each place below must say the same.
# Exits 1 naming every binding (and file) whose version differs; run by the header lane.
#
#   crate                Cargo.toml [workspace.package] version, and every workspace member
#   Kotlin binding       bindings/kotlin/pom.xml <version>; the coordinates in its README
#   Swift binding        AppFunctionsLibrary.packageVersion (Sources/AppFunctions/Library.swift);
#                        `from:`/`exact:` versions in its README
#   .NET binding         bindings/dotnet/Directory.Build.props <Version> (once bindings/dotnet
#                        exists); PackageReference / --version in its README
#   documentation        artifact names and coordinates (appfunctions-0.1.0-…, appfunctions-kotlin-0.1.0…)
#                        in README.md, docs/*.md and the bindings' READMEs
#   changelog            CHANGELOG.md has a "## [<version>]" section
#
# Scheme: plain semantic versions (no -SNAPSHOT, no suffix), the same string everywhere,
# raised together when a release is cut (CHANGELOG.md's Unreleased section becomes it).
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
exec python3 - "$REPO" <<'PY'
import pathlib, re, sys, tomllib
import xml.etree.ElementTree as ET

repo = pathlib.Path(sys.argv[1])
problems, checked = [], []

def rel(p):
    return str(p.relative_to(repo))

root_toml = tomllib.loads((repo / "Cargo.toml").read_text())
want = root_toml.get("workspace", {}).get("package", {}).get("version")
if not want:
    want = root_toml.get("package", {}).get("version")
if not isinstance(want, str) or not re.fullmatch(r"\d+\.\d+\.\d+", want):
    print(f"[versions] Cargo.toml: no plain x.y.z version found (got {want!r})", file=sys.stderr)
    sys.exit(1)

def check(who, where, found):
    """found: a version string, or None when the place holds none."""
    if found is None:
        problems.append(f"{who}: no version found in {where}")
    elif found != want:
        problems.append(f"{who} is {found} in {where}, but the crate is {want}")
    else:
        checked.append(f"{who} ({where})")

# the crate and every workspace member
for member in root_toml.get("workspace", {}).get("members", ["."]):
    path = repo / member / "Cargo.toml"
    pkg = tomllib.loads(path.read_text()).get("package", {})
    v = pkg.get("version")
    if isinstance(v, dict) and v.get("workspace"):
        v = want
    check(f"crate {pkg.get('name', member)}", rel(path), v)

# Kotlin
pom = repo / "bindings/kotlin/pom.xml"
if pom.exists():
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    el = ET.parse(pom).getroot().find("m:version", ns)
    check("Kotlin binding", f"{rel(pom)} <version>", el.text.strip() if el is not None else None)
    readme = repo / "bindings/kotlin/README.md"
    if readme.exists():
        text = readme.read_text()
        for m in re.finditer(r"dev\.appfunctions:appfunctions-kotlin:(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)", text):
            check("Kotlin binding's README", f"{rel(readme)} (coordinates)", m.group(1))
        for m in re.finditer(r"<artifactId>appfunctions-kotlin</artifactId>\s*<version>([^<]+)</version>", text):
            check("Kotlin binding's README", f"{rel(readme)} (<dependency>)", m.group(1).strip())

# Swift
lib = repo / "bindings/swift/Sources/AppFunctions/Library.swift"
if (repo / "bindings/swift").exists():
    m = re.search(r'static let packageVersion\s*=\s*"([^"]+)"', lib.read_text()) if lib.exists() else None
    check("Swift binding", f"{rel(lib)} packageVersion", m.group(1) if m else None)
    readme = repo / "bindings/swift/README.md"
    if readme.exists():
        for m in re.finditer(r'(?:from|exact):\s*"([^"]+)"', readme.read_text()):
            check("Swift binding's README", f"{rel(readme)} (package dependency)", m.group(1))

# .NET (bindings/dotnet is being written; checked as soon as it exists)
dotnet = repo / "bindings/dotnet"
if dotnet.exists():
    # Directory.Build.props is where the version belongs; a <Version> in a project file
    # would override it, so those are checked too.
    props = dotnet / "Directory.Build.props"
    found = []
    for f in [props] + sorted(p for p in dotnet.rglob("*.csproj") if "/obj/" not in str(p) and "/bin/" not in str(p)):
        if f.exists():
            for m in re.finditer(r"<Version>\s*([^<\s]+)\s*</Version>", f.read_text()):
                found.append((f, m.group(1)))
    if not found:
        check(".NET binding", f"{rel(props)} <Version>", None)
    for f, v in found:
        check(".NET binding", f"{rel(f)} <Version>", v)
    readme = dotnet / "README.md"
    if readme.exists():
        text = readme.read_text()
        for m in re.finditer(r'<PackageReference\s+Include="AppFunctions[^"]*"\s+Version="([^"]+)"', text):
            check(".NET binding's README", f"{rel(readme)} (PackageReference)", m.group(1))
        for m in re.finditer(r"dotnet add package AppFunctions\S*\s+(?:--version|-v)\s+(\S+)", text):
            check(".NET binding's README", f"{rel(readme)} (dotnet add package)", m.group(1))
else:
    print("[versions] note: bindings/dotnet does not exist yet; its version is not checked")

# artifact names and coordinates quoted in the documentation
for doc in sorted([repo / "README.md", *(repo / "docs").glob("*.md"), *(repo / "bindings").glob("*/README.md")]):
    if doc.exists():
        for m in re.finditer(r"appfunctions(?:-kotlin)?[-:](\d+\.\d+\.\d+(?:-SNAPSHOT)?)\b", doc.read_text()):
            if m.group(1) != want:
                problems.append(f"{rel(doc)} names {m.group(0)}, but the crate is {want}")
checked.append("artifact names in README.md, docs/ and the bindings' READMEs")

# the changelog names the version
changelog = repo / "CHANGELOG.md"
if not changelog.exists() or not re.search(rf"^## \[{re.escape(want)}\]", changelog.read_text(), re.M):
    problems.append(f"CHANGELOG.md has no '## [{want}]' section for the crate's version {want}")
else:
    checked.append("CHANGELOG.md")

if problems:
    for p in dict.fromkeys(problems):
        print(f"[versions] MISMATCH: {p}", file=sys.stderr)
    print(f"[versions] FAILED: every binding must carry the crate's version {want} (Cargo.toml)", file=sys.stderr)
    sys.exit(1)
print(f"[versions] {want} everywhere: " + "; ".join(dict.fromkeys(checked)))
PY

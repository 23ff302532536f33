#!/usr/bin/env python3
"""The ABI baseline check (docs/abi.md): include/appfunctions.h against abi/v<N>.txt.

The baseline lists what a compiled host depends on: every function with its signature as
the header states it, every callback type, every AF_ constant, the opaque types, and each
public struct's size and field offsets as a small C program prints them (compiled with the
machine's C compiler: 64-bit). Compared with the header of the working tree:

- incompatible (exit 1, each named): a function, callback type, constant or struct removed;
  a changed signature (parameter names aside); a changed constant value; a struct that
  shrank; a field removed, moved or resized.
- compatible additions (exit 0, with a note): new functions, callback types, constants,
  structs, and new fields at the end of a struct. Record them with `ci/abi.sh --bless`.

Also fails on any name in the header without the AF_/af_ prefix and on // comments.

    ci/abi.py [--bless | --self-test] [--header include/appfunctions.h] [--baseline abi/v1.txt]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def norm(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s*\*\s*", " *", s)  # "char * x" / "char *x" -> "char *x"
    s = re.sub(r"\s*([(),])\s*", r"\1", s)
    return s.replace(",", ", ")


def param_types(params):
    """Parameter types without their names: "void *user_data, af_call *call" -> "void *, af_call *"."""
    params = params.strip()
    if params in ("", "void"):
        return "void"
    out = []
    for p in params.split(","):
        p = norm(p)
        t = re.sub(r"\s*\b[A-Za-z_]\w*$", "", p) if re.search(r"[\s*]\w+$", p) else p
        out.append(t.strip())
    return ", ".join(out)


def parse_header(path):
    raw = open(path, encoding="utf-8").read()
    problems = []
    for n, line in enumerate(raw.splitlines(), 1):
        if "//" in re.sub(r'"[^"]*"', "", line):
            problems.append(f"line {n} has a // comment (the header keeps to /* */): {line.strip()}")
    text = strip_comments(raw)
    items = {}  # key -> (kind, text as stated, text compared)

    for m in re.finditer(r"^#define\s+(\w+)(.*)$", text, flags=re.M):
        name, value = m.group(1), m.group(2).strip()
        if name == "APPFUNCTIONS_H":
            continue
        if not name.startswith("AF_"):
            problems.append(f"macro {name} has no AF_ prefix")
        if value.endswith("\\") or value.startswith("{"):
            # an initialiser macro: it follows its struct (whose layout is checked)
            value = "(initialiser)"
        items[f"constant {name}"] = ("constant", norm(value), norm(value))

    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", text):
        name = m.group(2)
        items[f"opaque {name}"] = ("opaque", f"struct {m.group(1)}", f"struct {m.group(1)}")
    for m in re.finditer(r"typedef\s+([\w\s]+?)\s+(\w+)\s*;", text):
        if m.group(1).startswith("struct"):
            continue
        items[f"type {m.group(2)}"] = ("type", norm(m.group(1)), norm(m.group(1)))
    for m in re.finditer(r"typedef\s+([^;(]+?)\(\s*\*\s*(\w+)\s*\)\s*\(([^;]*)\)\s*;", text):
        ret, name, params = norm(m.group(1)), m.group(2), m.group(3)
        stated = f"{ret} (*)({norm(params)})"
        items[f"callback {name}"] = ("callback", stated, f"{ret} (*)({param_types(params)})")

    structs = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
        name = m.group(3)
        fields = []
        for decl in m.group(2).split(";"):
            decl = norm(decl)
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            fname = fp.group(1) if fp else re.sub(r"\[.*\]$", "", decl).split(" ")[-1].lstrip("*")
            fields.append((fname, decl))
        structs[name] = fields

    for m in re.finditer(r"^([A-Za-z][^;()]*?[\s*])(\w+)\s*\(([^;]*)\)\s*;", text, flags=re.M):
        ret, name, params = norm(m.group(1)), m.group(2), m.group(3)
        if ret.startswith("typedef") or "typedef" in ret:
            continue
        stated = f"{ret}{'' if ret.endswith('*') else ' '}{name}({norm(params)})"
        items[f"function {name}"] = ("function", stated, f"{ret} ({param_types(params)})")

    for key in items:
        kind, name = key.split(" ", 1)
        if kind != "constant" and not name.startswith("af_"):
            problems.append(f"{kind} {name} has no af_ prefix")
    for s in structs:
        if not s.startswith("af_"):
            problems.append(f"struct {s} has no af_ prefix")
    return items, structs, problems


def struct_layouts(header, structs):
    """Size, alignment and field offsets as the C compiler lays them out."""
    if not structs:
        return {}
    cc = os.environ.get("CC", "cc")
    lines = ["#include <stddef.h>", "#include <stdio.h>", f'#include "{header}"', "int main(void) {"]
    for s, fields in structs.items():
        lines.append(f'  printf("struct {s} size %zu align %zu\\n", sizeof({s}), _Alignof({s}));')
        for f, _ in fields:
            lines.append(
                f'  printf("field {s}.{f} offset %zu size %zu\\n", offsetof({s}, {f}), sizeof((({s} *)0)->{f}));'
            )
    lines += ["  return 0;", "}"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        open(src, "w").write("\n".join(lines) + "\n")
        r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", src, "-o", exe], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"[abi] the layout program does not compile:\n{r.stderr}")
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    layout = {}
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "struct":
            layout[f"struct {parts[1]}"] = ("struct", f"size {parts[3]} align {parts[5]}", None)
        else:
            layout[f"field {parts[1]}"] = ("field", f"offset {parts[3]} size {parts[5]}", None)
    return layout


def current(header):
    items, structs, problems = parse_header(header)
    lines = {}
    for key, (kind, stated, _) in items.items():
        lines[key] = stated
    for s, fields in structs.items():
        for f, decl in fields:
            lines[f"member {s}.{f}"] = decl
    for key, (_, text, _) in struct_layouts(header, structs).items():
        lines[key] = text
    return lines, items, problems


ORDER = ["constant", "type", "opaque", "callback", "struct", "member", "field", "function"]


def render(lines, abi):
    out = [
        f"# ABI v{abi} baseline of include/appfunctions.h: generated by ci/abi.sh --bless; do not edit.",
        "# Struct layouts as a C compiler lays them out on a 64-bit target (docs/abi.md).",
    ]
    for kind in ORDER:
        for key in sorted(k for k in lines if k.split(" ", 1)[0] == kind):
            out.append(f"{key} = {lines[key]}")
    return "\n".join(out) + "\n"


def read_baseline(path):
    lines = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" = ")
        lines[key] = value
    return lines


def compared(key, value):
    """The part of a line that must not change (parameter names may)."""
    kind = key.split(" ", 1)[0]
    if kind == "function":
        m = re.match(r"^(.*?[\s*])(\w+)\((.*)\)$", value)
        return f"{norm(m.group(1))}({param_types(m.group(3))})" if m else value
    if kind == "callback":
        m = re.match(r"^(.*)\(\*\)\((.*)\)$", value)
        return f"{norm(m.group(1))}(*)({param_types(m.group(2))})" if m else value
    if kind == "member":
        # the member's type (its name and its parameters' names aside)
        fp = re.match(r"^(.*?)\(\s*\*\s*\w+\s*\)\s*\((.*)\)$", value)
        if fp:
            return f"{norm(fp.group(1))}(*)({param_types(fp.group(2))})"
        arr = re.search(r"(\[.*\])$", value)
        base = re.sub(r"\[.*\]$", "", value)
        return norm(re.sub(r"\b\w+\s*$", "", base)) + (arr.group(1) if arr else "")
    if kind == "constant" and value == "(initialiser)":
        return value
    return value


def diff(old, new):
    broken, added = [], []
    old_sizes = {k[len("struct "):]: int(v.split()[1]) for k, v in old.items() if k.startswith("struct ")}
    for key, value in old.items():
        kind, name = key.split(" ", 1)
        if key not in new:
            if kind == "member":
                continue  # reported as its field
            what = {"field": "field", "struct": "struct"}.get(kind, kind)
            broken.append(f"{what} {name} was removed")
            continue
        a, b = compared(key, value), compared(key, new[key])
        if a is None or a == b:
            continue
        if kind == "struct":
            if int(new[key].split()[1]) < int(value.split()[1]):
                broken.append(f"struct {name} shrank: was {value}, now {new[key]}")
            elif new[key].split()[3] != value.split()[3]:
                broken.append(f"struct {name} changed its alignment: was {value}, now {new[key]}")
            else:
                added.append(f"struct {name} grew: was {value}, now {new[key]}")
        elif kind == "field":
            broken.append(f"field {name} moved or changed size: was {value}, now {new[key]}")
        elif kind == "member":
            broken.append(f"field {name} changed its type: was `{value}`, now `{new[key]}`")
        elif kind == "constant":
            broken.append(f"constant {name} changed its value: was {value}, now {new[key]}")
        else:
            broken.append(f"{kind} {name} changed: was `{value}`, now `{new[key]}`")
    for key, value in new.items():
        if key in old or key.startswith("member "):
            continue
        kind, name = key.split(" ", 1)
        if kind == "field":
            struct = name.split(".")[0]
            offset = int(value.split()[1])
            if struct in old_sizes and offset < old_sizes[struct]:
                broken.append(
                    f"field {name} was added inside the v1 layout of {struct} (offset {offset} < its "
                    f"size {old_sizes[struct]}): fields are added only at the end"
                )
                continue
        added.append(f"{kind} {name}: {value}")
    return broken, added


def self_test(header):
    """The check catches what it promises to: each mutation of the header is judged right."""
    import contextlib
    import io

    text = open(header, encoding="utf-8").read()
    cases = [
        ("a renamed parameter", lambda t: t.replace("(struct af_call *call, uint64_t id)", "(struct af_call *c, uint64_t ident)"), 0, None),
        ("a field added at the end", lambda t: t.replace("} af_invocation;", "  uint64_t later;\n} af_invocation;"), 0, "+ field af_invocation.later"),
        ("a new function", lambda t: t.replace("char *af_last_error_copy(void);", "char *af_last_error_copy(void);\nint32_t af_new_thing(int32_t x);"), 0, "+ function af_new_thing"),
        ("a removed function", lambda t: t.replace("char *af_last_error_copy(void);", ""), 1, "function af_last_error_copy was removed"),
        ("a changed parameter type", lambda t: t.replace("(struct af_call *call, uint64_t id)", "(struct af_call *call, uint32_t id)"), 1, "function af_call_on_cancel_remove changed"),
        ("a field inserted in the middle", lambda t: t.replace("  uint32_t timeout_ms;", "  uint32_t timeout_ms;\n  uint8_t wedged;", 1), 1, "field af_invocation.is_foreground moved"),
        ("a changed field type", lambda t: t.replace("  int32_t platform;", "  uint32_t platform;", 1), 1, "field af_invocation.platform changed its type"),
        ("a changed constant", lambda t: t.replace("#define AF_ERR_LIMIT 9", "#define AF_ERR_LIMIT 90"), 1, "constant AF_ERR_LIMIT changed its value"),
        ("a changed callback", lambda t: t.replace("typedef void (*af_free_fn)(void *user_data);", "typedef int (*af_free_fn)(void *user_data);"), 1, "callback af_free_fn changed"),
        ("an unprefixed macro", lambda t: t.replace("#define AF_OK 0", "#define AF_OK 0\n#define WORKERS 4"), 1, "macro WORKERS has no AF_ prefix"),
        ("a // comment", lambda t: t.replace("#define AF_OK 0", "#define AF_OK 0 // ok"), 1, "// comment"),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.txt")
        lines, _, _ = current(header)
        open(base, "w").write(render(lines, "1"))
        for name, mutate, want_rc, want_text in cases:
            mutated = mutate(text)
            if mutated == text:
                print(f"[abi] self-test: the mutation '{name}' no longer applies to the header")
                failed += 1
                continue
            h = os.path.join(os.path.dirname(os.path.abspath(header)), f".abi-selftest-{os.getpid()}.h")
            try:
                open(h, "w").write(mutated)
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    rc = check(h, base)
            finally:
                os.unlink(h)
            ok = rc == want_rc and (want_text is None or want_text in out.getvalue())
            if not ok:
                failed += 1
                print(f"[abi] self-test FAILED: {name}: exit {rc} (want {want_rc}); output:\n{out.getvalue()}")
    print(f"[abi] self-test: {len(cases) - failed} of {len(cases)} mutations judged right")
    return 1 if failed else 0


def check(header, baseline):
    new, items, problems = current(header)
    abi = items.get("constant AF_ABI_VERSION", (None, "?"))[1]
    rel = os.path.relpath(baseline, REPO)
    if problems:
        for p in problems:
            print(f"[abi] {p}")
        print("[abi] FAILED: the header breaks the naming rules above")
        return 1
    if not os.path.exists(baseline):
        print(f"[abi] FAILED: no baseline {rel} for AF_ABI_VERSION {abi}. A new ABI version starts "
              f"its own baseline: run ci/abi.sh --bless and commit {rel}.")
        return 1
    old = read_baseline(baseline)
    broken, added = diff(old, new)
    if broken:
        print(f"[abi] FAILED: include/appfunctions.h breaks ABI v{abi} ({rel}):")
        for b in broken:
            print(f"[abi]   incompatible: {b}")
        print("[abi] Hosts built against the baseline would misbehave. Keep the old function, field or "
              "value and add a new one (docs/abi.md); only a new ABI version (AF_ABI_VERSION + 1, a new "
              "SONAME, a new baseline) may break it.")
        return 1
    if added:
        print(f"[abi] compatible additions to ABI v{abi} not yet in {rel}:")
        for a in added:
            print(f"[abi]   + {a}")
        print(f"[abi] NOTE: record them with `ci/abi.sh --bless` and commit {rel} with the change.")
        return 0
    print(f"[abi] include/appfunctions.h matches {rel} "
          f"({sum(1 for k in new if k.startswith('function '))} functions, "
          f"{sum(1 for k in new if k.startswith('struct '))} structs)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bless", action="store_true", help="write the baseline from the header")
    ap.add_argument("--self-test", action="store_true", help="check the checker on mutated headers")
    ap.add_argument("--header", default=os.path.join(REPO, "include", "appfunctions.h"))
    ap.add_argument("--baseline", help="default: abi/v<AF_ABI_VERSION>.txt")
    args = ap.parse_args()

    if args.self_test:
        return self_test(args.header)
    new, items, problems = current(args.header)
    abi = items.get("constant AF_ABI_VERSION", (None, "?"))[1]
    baseline = args.baseline or os.path.join(REPO, "abi", f"v{abi}.txt")
    if args.bless:
        if problems:
            for p in problems:
                print(f"[abi] {p}")
            print("[abi] FAILED: not blessing a header that breaks the naming rules above")
            return 1
        os.makedirs(os.path.dirname(baseline), exist_ok=True)
        open(baseline, "w", encoding="utf-8").write(render(new, abi))
        print(f"[abi] wrote {os.path.relpath(baseline, REPO)}: "
              f"{sum(1 for k in new if k.startswith('function '))} functions, "
              f"{sum(1 for k in new if k.startswith('struct '))} structs")
        return 0
    return check(args.header, baseline)


if __name__ == "__main__":
    sys.exit(main())

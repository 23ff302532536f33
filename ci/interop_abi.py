#!/usr/bin/env python3
"""The bindings' hand-written interop against the ABI baseline (abi/v<N>.txt).

The .NET binding declares the C ABI by hand (`[LibraryImport]`s, constants and structs in
every `Native*.cs` under bindings/dotnet/src), and so does the Kotlin one (JNI `external fun`s
and constants in internal/AfNative.kt, each implemented by its own JNI library,
bindings/kotlin/src/main/c/appfunctions_jni.c: a row of its AFJ_NATIVES table and a C function
j_<name> calling the core's). Nothing but this script compares them with the baseline, so it
checks, for each binding:

- every imported function exists in the baseline, with as many parameters, each parameter
  and the return of a type that carries the C type (int32_t -> int / Int, const char * ->
  byte* / ByteArray, a callback typedef -> a function pointer of the same signature (Kotlin:
  a Long, the address of one of the JNI library's trampolines), an opaque handle -> nint, its
  SafeHandle or Long, ...); Kotlin: and the JNI library's row of the function has the JNI
  signature of the external fun, its C function takes and returns the JNI types of it and calls
  the core's function of that name;
- every AF_ constant the binding declares has the baseline's value (and the binding's ABI
  version is AF_ABI_VERSION);
- every struct the binding declares (af_invocation, af_delegate) has the baseline's size and
  each field its offset and size, as the binding's own layout rules place them (C#
  sequential layout); Kotlin writes them at the offsets the C compiler gives, which its JNI
  library reports: every field of every struct must be among them;
- every function of the baseline is imported (an ABI addition reflected in the binding, as
  docs/abi.md asks; a missing import was only a note until the Kotlin binding lacked
  af_call_dialog_copy and af_call_invocation_context unnoticed); Kotlin: declared as an
  external fun, or called by the JNI library itself (af_string_free, the execute round trips),
  or in NOT_WRAPPED;
- every function of the baseline is called by the binding's sources (Swift, which imports the
  header itself, included: bindings/swift/Sources), or is in NOT_WRAPPED with the reason (an
  entry the sources call, or that the baseline does not have, is an error too, so the lists
  cannot go stale);
- .NET: no file of the AppFunctions project outside Interop/Native*.cs and Interop/Utf8.cs
  calls an import (every native call goes through Interop/NativeCalls.cs); Kotlin: no file
  but internal/AfNative.kt and internal/NativeCalls.kt calls AfNative.af_* (the public API
  and the runtime's trampolines alike go through internal/NativeCalls.kt).

Each difference is printed naming the binding, the file and line, the function (parameter),
constant or field, and what the baseline says; exit 1 if there is any.

    ci/interop_abi.py [--self-test] [--baseline abi/v1.txt] [--repo DIR]

--self-test checks that deliberate mismatches (a parameter type, a return type, a constant, a
field, a missing parameter, a raw call in a public file, a function not imported or not wrapped,
a JNI signature, C function or layout of the Kotlin binding's library that does not fit) are
each caught, on copies in memory.
"""
import argparse
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COUNTS = {}  # binding -> functions imported (for the summary line)

# ---------------------------------------------------------------------------------------- baseline

INT_TYPES = {
    "af_status": "i32", "int32_t": "i32", "uint32_t": "u32", "uint64_t": "u64", "int64_t": "i64",
    "uint8_t": "u8", "int8_t": "i8", "uint16_t": "u16", "int16_t": "i16", "size_t": "usize", "bool": "u8",
}
STRUCTS = ("af_invocation", "af_delegate", "af_http_request")


class Baseline:
    def __init__(self, text):
        self.constants = {}
        self.opaque = set()
        self.callbacks = {}
        self.functions = {}
        self.struct_size = {}
        self.fields = {}  # struct -> {field: (offset, size)}
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            kind, rest = line.split(" ", 1)
            name, value = [x.strip() for x in rest.split("=", 1)]
            if kind == "constant":
                self.constants[name] = value
            elif kind == "opaque":
                self.opaque.add(name)
            elif kind == "callback":
                m = re.match(r"(.*?)\(\*\)\((.*)\)$", value)
                self.callbacks[name] = (ctype(m.group(1)), [ctype(p) for p in split_params(m.group(2))])
            elif kind == "function":
                value = re.sub(r"^.*#endif\s*", "", value)  # the first function follows the extern "C" guard
                m = re.match(r"(.*?)\b" + re.escape(name) + r"\((.*)\)$", value)
                self.functions[name] = (ctype(m.group(1)), [ctype(p) for p in split_params(m.group(2))],
                                        [pname(p) for p in split_params(m.group(2))])
            elif kind == "struct":
                self.struct_size[name] = int(re.search(r"size (\d+)", value).group(1))
            elif kind == "field":
                s, f = name.split(".")
                m = re.match(r"offset (\d+) size (\d+)", value)
                self.fields.setdefault(s, {})[f] = (int(m.group(1)), int(m.group(2)))
        # member lines give callbacks declared inline in structs (af_delegate.on_invoked)
        for line in text.splitlines():
            m = re.match(r"member (\w+)\.(\w+) = (.*?)\(\*(\w+)\)\((.*)\)$", line)
            if m:
                self.callbacks[m.group(1) + "." + m.group(2)] = (ctype(m.group(3)), [ctype(p) for p in split_params(m.group(5))])

    def constant_int(self, name):
        v = self.constants.get(name)
        if v is None:
            return None
        if v == "UINT32_MAX":
            return 0xFFFFFFFF
        try:
            return int(v, 0)
        except ValueError:
            return v


def split_params(s):
    s = s.strip()
    return [] if s in ("", "void") else [p.strip() for p in s.split(",")]


def pname(p):
    m = re.search(r"(\w+)(\[\d*\])?$", p)
    return m.group(1) if m else p


def ctype(p):
    """A C type (with or without a parameter name) as a canonical kind."""
    p = re.sub(r"\bconst\b", "", p).strip()
    stars = p.count("*")
    base = p.replace("*", " ").split()
    # drop the parameter name: the last word when there are two or more non-keyword words
    words = [w for w in base if w != "struct"]
    if len(words) >= 2:
        words = words[:-1]
    t = words[0] if words else "void"
    if stars == 0:
        if t == "void":
            return ("void",)
        if t in INT_TYPES:
            return ("int", INT_TYPES[t])
        if t.endswith("_fn"):
            return ("fn", t)
        return ("unknown", p)
    if stars == 1:
        if t == "char":
            return ("str",)
        if t == "void":
            return ("ptr",)
        if t in INT_TYPES:
            return ("out", INT_TYPES[t])
        if t in STRUCTS:
            return ("struct", t)
        return ("handle", t)
    if stars == 2 and t.startswith("af_"):
        return ("out_handle", t)
    if stars == 2 and t == "char":
        return ("out_str",)
    return ("unknown", p)


def describe(k):
    return {"void": "void", "str": "a C string", "ptr": "void *"}.get(k[0]) or {
        "int": lambda: k[1], "out": lambda: k[1] + " *", "struct": lambda: "struct " + k[1] + " *",
        "handle": lambda: "struct " + k[1] + " *", "out_handle": lambda: "struct " + k[1] + " **",
        "out_str": lambda: "char **",
        "fn": lambda: k[1], "unknown": lambda: k[1],
    }[k[0]]()


# ---------------------------------------------------------------------------------------- C#

CS_INTS = {"int": "i32", "uint": "u32", "ulong": "u64", "long": "i64", "byte": "u8", "sbyte": "i8",
           "ushort": "u16", "short": "i16", "nuint": "usize"}
CS_SIZES = {"int": 4, "uint": 4, "ulong": 8, "long": 8, "byte": 1, "sbyte": 1, "ushort": 2, "short": 2,
            "nint": 8, "nuint": 8, "float": 4, "double": 8}
CS_HANDLES = {"DispatcherHandle": "af_dispatcher", "ViewHandle": "af_view", "McpSessionHandle": "af_mcp_session",
              "CancelTokenHandle": "af_cancel_token", "HttpServerHandle": "af_http_server",
              "NativeHandle<DispatcherKind>": "af_dispatcher", "NativeHandle<ViewKind>": "af_view",
              "NativeHandle<McpSessionKind>": "af_mcp_session", "NativeHandle<CancelTokenKind>": "af_cancel_token"}


def snake_struct(camel):
    """AfInvocation -> af_invocation."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def split_top(s, sep=","):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


def cs_type_ok(cs, k, base, where):
    """None when the C# type `cs` carries the C kind `k`, else what is wrong."""
    cs = re.sub(r"\s+", " ", cs.replace("global::", "").replace("AppFunctions.Interop.", "")).strip()
    if k[0] == "void":
        return None if cs == "void" else f"is {cs}, the baseline says void"
    if k[0] == "int":
        return None if CS_INTS.get(cs) == k[1] else f"is {cs}, the baseline says {k[1]}"
    if k[0] == "str":
        return None if cs == "byte*" else f"is {cs}, the baseline says a C string (byte*)"
    if k[0] == "ptr":
        return None if cs in ("void*", "nint") else f"is {cs}, the baseline says void * (void* or nint)"
    if k[0] == "out":
        want = [t for t, v in CS_INTS.items() if v == k[1]]
        return None if cs.endswith("*") and cs[:-1] in want else f"is {cs}, the baseline says {k[1]} *"
    if k[0] == "struct":
        want = "Af" + "".join(w.title() for w in k[1].split("_")[1:]) + "*"
        return None if cs == want else f"is {cs}, the baseline says struct {k[1]} * ({want})"
    if k[0] == "handle":
        if cs == "nint" or CS_HANDLES.get(cs) == k[1]:
            return None
        return f"is {cs}, the baseline says struct {k[1]} * (nint or its handle type)"
    if k[0] == "out_handle":
        return None if cs in ("nint*", "void**") else f"is {cs}, the baseline says struct {k[1]} ** (nint*)"
    if k[0] == "out_str":
        return None if cs in ("byte**", "nint*") else f"is {cs}, the baseline says char ** (byte**)"
    if k[0] == "fn":
        m = re.match(r"delegate\* unmanaged(\[Cdecl\])?<(.*)>$", cs)
        if not m:
            return f"is {cs}, the baseline says the callback {k[1]} (delegate* unmanaged[Cdecl]<...>)"
        ret, params = base.callbacks[k[1]]
        got = split_top(m.group(2))
        if len(got) != len(params) + 1:
            return f"is {cs}: {len(got) - 1} parameter(s), the callback {k[1]} has {len(params)}"
        for i, (g, p) in enumerate(zip(got[:-1], params)):
            e = cs_type_ok(g, p, base, where)
            if e:
                return f"(callback {k[1]}, parameter {i + 1}) {e}"
        e = cs_type_ok(got[-1], ret, base, where)
        return f"(callback {k[1]}, return) {e}" if e else None
    return f"is {cs}; the baseline's type {describe(k)} is not understood here"


def strip_cs_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_dotnet(files, base, errors, notes):
    """files: {path: text} of every .cs file of bindings/dotnet/src."""
    imported = {}
    for path, raw in sorted(files.items()):
        text = strip_cs_comments(raw)
        for m in re.finditer(r"\[LibraryImport\([^\]]*\)\]\s*(?:internal|public|private)?\s*static\s+(?:unsafe\s+)?partial\s+"
                             r"(.+?)\s+(af_\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*;", text, flags=re.S):
            ret, name, params = m.group(1), m.group(2), m.group(3)
            where = f"{path}:{line_of(text, m.start(2))}"
            if name not in base.functions:
                errors.append(f".NET {where}: {name} is not in the ABI baseline")
                continue
            bret, bparams, bnames = base.functions[name]
            plist = split_top(params)
            ptypes = [re.sub(r"\s+\w+$", "", p.strip()) for p in plist]
            overload = imported.setdefault(name, 0)
            imported[name] = overload + 1
            e = cs_type_ok(ret, bret, base, where)
            if e:
                errors.append(f".NET {where}: {name} returns a type that {e}")
            if len(ptypes) != len(bparams):
                errors.append(f".NET {where}: {name} takes {len(ptypes)} parameter(s), the baseline {len(bparams)} ({', '.join(bnames)})")
                continue
            for i, (t, k) in enumerate(zip(ptypes, bparams)):
                e = cs_type_ok(t, k, base, where)
                if e:
                    errors.append(f".NET {where}: {name} parameter {i + 1} ({bnames[i]}) {e}")
        for m in re.finditer(r"\bconst\s+(\w+)\s+(AF_\w+)\s*=\s*([^;]+);", text):
            check_constant(".NET", f"{path}:{line_of(text, m.start(2))}", m.group(2), m.group(3).strip(), m.group(1), base, errors)
        for m in re.finditer(r"\bconst\s+uint\s+AbiVersion\s*=\s*(\d+)\s*;", text):
            check_constant(".NET", f"{path}:{line_of(text, m.start())}", "AF_ABI_VERSION", m.group(1), "uint", base, errors)
        for m in re.finditer(r"\bstruct\s+(Af\w+)\s*\{(.*?)\n\}", text, flags=re.S):
            cname = snake_struct(m.group(1))
            fields = []
            for f in re.finditer(r"public\s+(.+?)\s+([\w\s,]+);", m.group(2)):
                for n in f.group(2).split(","):
                    fields.append((n.strip(), f.group(1).strip()))
            layout = []
            for n, t in fields:
                size = 8 if (t.endswith("*") or t.startswith("delegate*")) else CS_SIZES.get(t)
                if size is None:
                    errors.append(f".NET {path}: {m.group(1)}.{n} has the type {t}, whose size this check does not know")
                    size = 8
                layout.append((n, size, size))
            check_struct(".NET", f"{path}:{line_of(text, m.start(1))}", m.group(1), cname, layout, base, errors)
            # each callback field carries its typedef's signature
            for n, t in fields:
                cb = base.callbacks.get(f"{cname}.{n}")
                if cb and t.startswith("delegate*"):
                    key = f"__member_{cname}.{n}"
                    base.callbacks[key] = cb
                    e = cs_type_ok(t, ("fn", key), base, path)
                    if e:
                        errors.append(f".NET {path}: {m.group(1)}.{n} {e.replace(key, cname + '.' + n)}")
    missing = sorted(set(base.functions) - set(imported))
    COUNTS[".NET"] = len(imported)
    for name in missing:
        errors.append(f".NET: {name} (abi/v1.txt) is not imported by any Interop/Native*.cs: "
                      "every ABI function is reflected in every binding (docs/abi.md)")
    return imported


def check_constant(binding, where, name, value, typ, base, errors):
    want = base.constant_int(name)
    if want is None:
        errors.append(f"{binding} {where}: {name} is not a constant of the ABI baseline")
        return
    v = value.strip().rstrip("uUlL")
    if v in ("uint.MaxValue", "UInt32.MaxValue", "0xFFFFFFFFu", "0xFFFFFFFF"):
        got = 0xFFFFFFFF
    else:
        try:
            got = int(v, 0)
        except ValueError:
            errors.append(f"{binding} {where}: {name} = {value}, which this check cannot read (the baseline says {base.constants[name]})")
            return
    if got < 0 and typ in ("Int", "int"):
        got &= 0xFFFFFFFF  # a uint32_t constant held in a signed 32-bit integer (a JNI jint)
    if got != want:
        errors.append(f"{binding} {where}: {name} = {value}, the baseline says {base.constants[name]}")


def check_struct(binding, where, cname_decl, cname, layout, base, errors):
    """layout: [(field, size, align)] in declaration order; offsets placed with natural alignment."""
    if cname not in base.fields:
        errors.append(f"{binding} {where}: {cname_decl} is not a struct of the ABI baseline ({cname})")
        return
    placed, off, max_align = {}, 0, 1
    for n, size, align in layout:
        off = (off + align - 1) // align * align
        placed[n] = (off, size)
        off += size
        max_align = max(max_align, align)
    total = (off + max_align - 1) // max_align * max_align
    # fields split into numbered bytes (reserved0, reserved1, ...) stand for one array field
    for f, (boff, bsize) in base.fields[cname].items():
        if f in placed:
            continue
        parts = sorted((n for n in placed if re.fullmatch(re.escape(f) + r"\d+", n)), key=lambda n: int(n[len(f):]))
        if parts:
            first = placed[parts[0]][0]
            last = placed[parts[-1]]
            for p in parts:
                del placed[p]
            placed[f] = (first, last[0] + last[1] - first)
    for f, (boff, bsize) in sorted(base.fields[cname].items(), key=lambda x: x[1][0]):
        if f not in placed:
            errors.append(f"{binding} {where}: {cname_decl} has no field {f} (the baseline: offset {boff} size {bsize})")
            continue
        off_, size_ = placed.pop(f)
        if (off_, size_) != (boff, bsize):
            errors.append(f"{binding} {where}: {cname_decl}.{f} is at offset {off_} size {size_}, the baseline says offset {boff} size {bsize}")
    for f, (off_, size_) in placed.items():
        errors.append(f"{binding} {where}: {cname_decl}.{f} (offset {off_}) is not a field of {cname} in the ABI baseline")
    if total != base.struct_size[cname]:
        errors.append(f"{binding} {where}: {cname_decl} is {total} bytes, the baseline says {base.struct_size[cname]}")


CS_RAW_ALLOWED = re.compile(r"(^|/)Interop/(Native[^/]*|Utf8)\.cs$")


def check_dotnet_routing(files, errors):
    for path, raw in sorted(files.items()):
        if "/src/AppFunctions/" not in "/" + path or CS_RAW_ALLOWED.search(path):
            continue
        text = strip_cs_comments(raw)
        for m in re.finditer(r"\bNative\.(af_\w+)", text):
            errors.append(f".NET {path}:{line_of(text, m.start())}: calls {m.group(1)} directly; "
                          "every native call goes through Interop/NativeCalls.cs")


# ---------------------------------------------------------------------------------------- Kotlin
#
# The Kotlin binding calls the C ABI through JNI only: each function it binds is an `external fun`
# of internal/AfNative.kt, implemented by its own library (src/main/c/appfunctions_jni.c) as
# j_<name>, a row X(<name>, "<JNI signature>") of that file's AFJ_NATIVES table (registered with
# RegisterNatives, which holds the row to the Kotlin declaration at load), whose body calls
# core.<name>( (the function the library looked up in the core). Three texts per function, held
# to one another and to the baseline here.

SHIM = "bindings/kotlin/src/main/c/appfunctions_jni.c"
KT_INTS = {"Int": ("i32", "u32"), "Long": ("i64", "u64", "usize"), "Byte": ("u8", "i8"), "Short": ("i16", "u16")}
# Kotlin type -> (JNI signature letter, JNI C type)
KT_JNI = {"Unit": ("V", "void"), "Int": ("I", "jint"), "Long": ("J", "jlong"), "Byte": ("B", "jbyte"), "Short": ("S", "jshort"),
          "ByteArray": ("[B", "jbyteArray"), "IntArray": ("[I", "jintArray"), "LongArray": ("[J", "jlongArray"),
          "Array<ByteArray>": ("[[B", "jobjectArray")}


def kt_type_ok(kt, k, base, is_return):
    """None when the Kotlin type of a JNI external carries the C kind `k`, else what is wrong."""
    kt = kt.replace("?", "").strip()
    if k[0] == "void":
        return None if kt in ("", "Unit") else f"is {kt}, the baseline says void"
    if k[0] == "int":
        return None if k[1] in KT_INTS.get(kt, ()) else f"is {kt}, the baseline says {k[1]}"
    if k[0] == "str":
        return None if kt == "ByteArray" else f"is {kt}, the baseline says a C string (ByteArray: UTF-8, copied by the shim)"
    if k[0] in ("ptr", "handle", "struct", "fn"):
        # a pointer, a handle, a struct in native memory, a function (the shim's trampolines) by its address
        return None if kt == "Long" else f"is {kt}, the baseline says {describe(k)} (Long: the address)"
    if k[0] == "out":
        if is_return and k[1] in ("u8", "i8"):
            return None if kt == "ByteArray" else f"is {kt}, the baseline says {describe(k)} (ByteArray: the bytes, copied)"
        want = {"u32": "IntArray", "i32": "IntArray", "u64": "LongArray", "i64": "LongArray"}.get(k[1])
        return None if kt == want else f"is {kt}, the baseline says {k[1]} * ({want})"
    if k[0] == "out_handle":
        return None if kt == "LongArray" else f"is {kt}, the baseline says {describe(k)} (LongArray)"
    if k[0] == "out_str":
        return None if kt == "Array<ByteArray>" else f"is {kt}, the baseline says {describe(k)} (Array<ByteArray?>: the text, copied and freed by the shim)"
    return f"is {kt}; the baseline's type {describe(k)} is not understood here"


def strip_kt_comments(text):
    return strip_cs_comments(text)


def kt_params(s):
    out = []
    for p in split_top(s):
        if not p:
            continue
        name, _, t = p.partition(":")
        out.append(re.sub(r"=.*$", "", t).strip())
    return out


def jni_signature(params, ret):
    """The JNI signature of Kotlin parameter and return types, or None when one has no JNI form here."""
    parts = [KT_JNI.get(t.replace("?", "").replace(" ", "")) for t in params + [ret]]
    if any(p is None for p in parts):
        return None
    return "(" + "".join(p[0] for p in parts[:-1]) + ")" + parts[-1][0]


def check_kotlin(files, base, errors, notes):
    """files: internal/*.kt and the shim's C file."""
    shim_path = next((p for p in files if p.endswith(".c")), None)
    shim = strip_cs_comments(files[shim_path]) if shim_path else ""
    if not shim_path:
        errors.append(f"Kotlin: no {SHIM}: the binding's JNI library is where every native call crosses")
    # the shim: its table of natives, its j_ functions, the core functions it looks up and calls
    rows = {m.group(1): (m.group(2), line_of(shim, m.start(1))) for m in re.finditer(r'\bX\((af_\w+),\s*"([^"]*)"\)', shim)}
    cfns = {}
    for m in re.finditer(r"static\s+(\w+)\s+JNICALL\s+j_(af_\w+)\s*\(([^)]*)\)\s*\{", shim):
        body_end = shim.find("\n}", m.end())
        params = [p.strip() for p in m.group(3).split(",")]
        cfns[m.group(2)] = (m.group(1), params, shim[m.end():body_end], line_of(shim, m.start(2)))
    core = set(re.findall(r"\bcore\.(af_\w+)\s*\(", shim))
    lookups = set()
    m = re.search(r"#define AFJ_CORE\(X\)(.*?)\n\n", shim, flags=re.S)
    if m:
        lookups = set(re.findall(r"X\((af_\w+)\)", m.group(1)))
    for name in sorted(lookups - set(base.functions)):
        errors.append(f"Kotlin {shim_path}: AFJ_CORE looks up {name}, which is not in the ABI baseline")
    for name in sorted(core - lookups):
        errors.append(f"Kotlin {shim_path}: calls core.{name} but AFJ_CORE does not look it up")
    imported = {}
    for path, raw in sorted(files.items()):
        if path.endswith(".c"):
            continue
        text = strip_kt_comments(raw)
        for m in re.finditer(r"external\s+fun\s+(af_\w+)\s*\(([^)]*)\)\s*(?::\s*([\w?<>]+))?", text):
            name, params, ret = m.group(1), m.group(2), m.group(3) or "Unit"
            where = f"{path}:{line_of(text, m.start(1))}"
            if name not in base.functions:
                errors.append(f"Kotlin {where}: {name} is not in the ABI baseline")
                continue
            imported[name] = where
            bret, bparams, bnames = base.functions[name]
            e = kt_type_ok(ret, bret, base, True)
            if e:
                errors.append(f"Kotlin {where}: {name} returns a type that {e}")
            ptypes = kt_params(params)
            if len(ptypes) != len(bparams):
                errors.append(f"Kotlin {where}: {name} takes {len(ptypes)} parameter(s), the baseline {len(bparams)} ({', '.join(bnames)})")
                continue
            for i, (t, k) in enumerate(zip(ptypes, bparams)):
                e = kt_type_ok(t, k, base, False)
                if e:
                    errors.append(f"Kotlin {where}: {name} parameter {i + 1} ({bnames[i]}) {e}")
            # the shim's row and function for it
            sig = jni_signature(ptypes, ret)
            if name not in rows:
                errors.append(f"Kotlin {where}: {name} has no row X({name}, \"...\") in {shim_path}'s AFJ_NATIVES: nothing registers it")
                continue
            row_sig, row_line = rows[name]
            if sig is not None and row_sig != sig:
                errors.append(f"Kotlin {shim_path}:{row_line}: the shim's signature of {name} is {row_sig}, its external fun ({where}) is {sig}")
            if name not in cfns:
                errors.append(f"Kotlin {shim_path}:{row_line}: no function j_{name} for the row of {name}")
                continue
            cret, cparams, cbody, cline = cfns[name]
            ctypes = [re.sub(r"\s*\*?\s*\w+$", "", p).strip() if p else p for p in cparams]
            if ctypes[:2] != ["JNIEnv", "jobject"]:
                errors.append(f"Kotlin {shim_path}:{cline}: j_{name} does not begin with (JNIEnv *env, jobject self)")
            want = [KT_JNI[t.replace("?", "").replace(" ", "")][1] for t in ptypes if t.replace("?", "").replace(" ", "") in KT_JNI]
            if ctypes[2:] != want:
                errors.append(f"Kotlin {shim_path}:{cline}: j_{name} takes ({', '.join(ctypes[2:])}), its external fun ({where}) ({', '.join(want)})")
            rt = KT_JNI.get(ret.replace("?", ""), (None, None))[1]
            if cret != rt:
                errors.append(f"Kotlin {shim_path}:{cline}: j_{name} returns {cret}, its external fun ({where}) {rt}")
            if not re.search(r"\bcore\." + re.escape(name) + r"\s*\(", cbody):
                errors.append(f"Kotlin {shim_path}:{cline}: j_{name} does not call core.{name}")
        for m in re.finditer(r"const\s+val\s+(AF_\w+)\s*(?::\s*(\w+))?\s*=\s*([^\n]+)", text):
            value = m.group(3).strip()
            typ = m.group(2) or ("Long" if value.rstrip().endswith("L") else "Int")
            check_constant("Kotlin", f"{path}:{line_of(text, m.start(1))}", m.group(1), value, typ, base, errors)
        for m in re.finditer(r"const\s+val\s+ABI_VERSION\s*=\s*(\d+)", text):
            check_constant("Kotlin", f"{path}:{line_of(text, m.start())}", "AF_ABI_VERSION", m.group(1), "Int", base, errors)
    for name, (sig, line) in sorted(rows.items()):
        if name not in imported:
            errors.append(f"Kotlin {shim_path}:{line}: the shim registers {name}, which internal/AfNative.kt does not declare (external fun)")
    # the structs the binding writes (af_invocation, af_http_request) and the shim's own tables
    # (af_delegate): every field's offset is the C compiler's, reported by the shim (nativeLayout)
    for s in STRUCTS:
        for f in base.fields.get(s, {}):
            if not re.search(r"offsetof\(struct\s+" + s + r",\s*" + f + r"\)", shim):
                errors.append(f"Kotlin {shim_path}: nativeLayout does not report {s}.{f} (offsetof(struct {s}, {f})): "
                              "the binding writes the struct at the C compiler's offsets")
    COUNTS["Kotlin"] = len(imported)
    for name in sorted(set(base.functions) - set(imported) - core - set(NOT_WRAPPED["Kotlin"])):
        errors.append(f"Kotlin: {name} (abi/v1.txt) has no external fun in internal/AfNative.kt and the shim does not call it: "
                      "every ABI function is reflected in every binding (docs/abi.md), or listed in NOT_WRAPPED with the reason")


# Every Kotlin file calls AfNative only through internal/NativeCalls.kt: the public API and the
# runtime under internal/ (trampolines, the invocation block, the dispatcher's handle) alike, as
# every .NET file goes through Interop/NativeCalls.cs. AfNative.kt itself (the natives and its
# string helpers) is the only other file that names an af_ function.
KT_RAW_ALLOWED = re.compile(r"(^|/)internal/(AfNative|NativeCalls)\.kt$")


def check_kotlin_routing(files, errors):
    for path, raw in sorted(files.items()):
        if KT_RAW_ALLOWED.search(path):
            continue
        text = strip_kt_comments(raw)
        for m in re.finditer(r"\bAfNative\w*\.(af_\w+)", text):
            errors.append(f"Kotlin {path}:{line_of(text, m.start())}: calls {m.group(1)} directly; "
                          "every native call goes through internal/NativeCalls.kt")


# ---------------------------------------------------------------------------------------- wrapped

# An import is not yet a reflection: the ABI functions a binding declares (or, for Swift, gets
# from the header) but that none of its sources calls, each with the reason. The binding's
# README says the same to its users. A function of the baseline that a binding neither calls
# nor lists here is an error, and so is an entry the binding calls or the baseline lacks, so
# the lists cannot go stale.
NOT_WRAPPED = {
    ".NET": {
        "af_android_execute_json": "the blocking form: the Android bridge calls af_android_execute_async",
        "af_call_entity_copy": "lookups read the request (af_call_lookup_request), not the entity's descriptor",
        "af_call_on_cancel_remove": "a call's cancellation handler lives as long as its call",
        "af_error_code_from_name": "AppFunctionErrorCode is a C# enum of the codes",
        "af_error_code_name": "AppFunctionErrorCode is a C# enum of the codes",
        "af_last_error": "errors are read with af_last_error_copy",
        "af_call_item_set": "context.Items is the call context's managed dictionary",
        "af_call_item_get_json": "context.Items is the call context's managed dictionary",
        "af_cancel_token_is_cancelled": "cancellation is a CancellationToken that cancels the core's token",
        "af_view_execute_json": "the blocking form: views execute through af_view_execute_async",
        "af_http_server_set_authorize": "ASP.NET Core authorizes requests (BearerToken, RequireAuthorization) before the core sees them",
    },
    "Kotlin": {
        "af_android_execute_json": "the blocking form: AppFunctionsService calls af_android_execute_async",
        "af_call_entity_copy": "lookups read the request (af_call_lookup_request), not the entity's descriptor",
        "af_call_on_cancel_remove": "a call's cancellation handler lives as long as its call",
        "af_error_code_from_name": "AppFunctionErrorCode is a Kotlin enum of the codes",
        "af_last_error_copy": "errors are read with af_last_error on the thread of the failed call",
        "af_http_server_set_authorize": "the JVM web server authorizes requests before it hands them over (Ktor's authenticate, a servlet filter); the core's bearerToken covers the rest",
    },
    "Swift": {
        "af_android_execute_async": "Android's AppFunctions service call (the Kotlin binding's AppFunctionsService)",
        "af_android_execute_json": "Android's AppFunctions service call (the Kotlin binding's AppFunctionsService)",
        "af_entities_json": "the blocking form: lookupEntities is async (af_entities_async)",
        "af_error_code_from_name": "AppFunctionErrorCode is a Swift enum of the codes",
        "af_last_error_copy": "errors are read with af_last_error on the thread of the failed call",
        "af_call_on_cancel_remove": "a call's cancellation handler lives as long as its call",
        "af_call_entity_copy": "lookups read the request (af_call_lookup_request), not the entity's descriptor",
    },
}
DECLARATION = {
    ".NET": r"partial\s+[^;(]*?\b(af_\w+)\s*\(",
    "Kotlin": r"external\s+fun\s+(af_\w+)\s*\(",
    "Swift": None,
}


def check_wrapped(binding, files, base, errors, not_wrapped=None):
    """files: {path: text} of the binding's sources. Counts each af_ function's calls (its
    name followed by `(`, outside comments and its own declaration)."""
    not_wrapped = NOT_WRAPPED[binding] if not_wrapped is None else not_wrapped
    calls = {}
    for path, raw in files.items():
        text = strip_cs_comments(raw)
        for name in re.findall(r"\b(af_\w+)\s*\(", text):
            calls[name] = calls.get(name, 0) + 1
        if DECLARATION[binding]:
            for name in re.findall(DECLARATION[binding], text):
                calls[name] = calls.get(name, 0) - 1
    called = {n for n, c in calls.items() if c > 0}
    for name in sorted(set(base.functions) - called):
        if name not in not_wrapped:
            errors.append(f"{binding}: {name} (abi/v1.txt) is called by no source of the binding: every ABI "
                          "function is reflected in every binding (docs/abi.md), or listed in "
                          f"ci/interop_abi.py NOT_WRAPPED[{binding!r}] with the reason (and in the binding's README)")
    for name, why in sorted(not_wrapped.items()):
        if name not in base.functions:
            errors.append(f"{binding}: NOT_WRAPPED lists {name}, which abi/v1.txt does not have")
        elif name in called:
            errors.append(f"{binding}: NOT_WRAPPED lists {name} ({why}), but the binding calls it: drop it from the list")
    COUNTS[binding + " calls"] = len(set(base.functions) & called)


# ---------------------------------------------------------------------------------------- driver

def sources(repo):
    def read(pattern, exclude=("/obj/", "/bin/")):
        out = {}
        for p in sorted(glob.glob(os.path.join(repo, pattern), recursive=True)):
            rel = os.path.relpath(p, repo)
            if any(x in "/" + rel for x in exclude):
                continue
            with open(p, encoding="utf-8") as f:
                out[rel] = f.read()
        return out
    kt = read("bindings/kotlin/src/main/kotlin/**/*.kt")
    kt.update(read(SHIM))  # the binding's JNI library: the other half of every native call
    return (read("bindings/dotnet/src/**/*.cs"), kt, read("bindings/swift/Sources/**/*.swift"))


# Kotlin files call the C ABI only through internal/NativeCalls.kt (check_kotlin_routing).
KOTLIN_ROUTING = True


def run(base_text, cs, kt, sw=None, strict_routing=True):
    base = Baseline(base_text)
    errors, notes = [], []
    if cs:
        check_dotnet({p: t for p, t in cs.items() if re.search(r"(^|/)Native[^/]*\.cs$", p)}, base, errors, notes)
        if strict_routing:
            check_dotnet_routing(cs, errors)
    if kt:
        check_kotlin({p: t for p, t in kt.items() if "/internal/" in p or p.endswith(".c")}, base, errors, notes)
        if strict_routing and KOTLIN_ROUTING:
            check_kotlin_routing(kt, errors)
    if cs:
        check_wrapped(".NET", {p: t for p, t in cs.items() if "/src/AppFunctions" in "/" + p}, base, errors)
    if kt:
        check_wrapped("Kotlin", kt, base, errors)
    if sw:
        check_wrapped("Swift", sw, base, errors)
    return errors, notes


def self_test(base_text, cs, kt, sw):
    """Each deliberate mismatch must be caught, named."""
    def mutate(files, pattern, old, new):
        out = dict(files)
        for p, t in files.items():
            if re.search(pattern, p) and old in t:
                out[p] = t.replace(old, new, 1)
                return out, p, line_of(t, t.index(old))
        raise SystemExit(f"[interop-abi self-test] cannot find {old!r} to mutate in {pattern}")

    cases = [
        ("cs", r"Native\.cs$", "partial uint af_abi_version()", "partial int af_abi_version()", "af_abi_version returns a type that is int"),
        ("cs", r"Native\.cs$", "af_set_limits(DispatcherHandle d, ulong maxInputBytes", "af_set_limits(DispatcherHandle d, uint maxInputBytes",
         "af_set_limits parameter 2 (max_input_bytes) is uint"),
        ("cs", r"Native\.cs$", "af_call_fail(nint call, int code, byte* message)", "af_call_fail(nint call, byte* message)",
         "af_call_fail takes 2 parameter(s), the baseline 3"),
        ("cs", r"Native\.cs$", "AF_ERR_LIMIT = 9", "AF_ERR_LIMIT = 10", "AF_ERR_LIMIT = 10, the baseline says 9"),
        ("cs", r"Native\.cs$", "public uint timeout_ms;", "public ulong timeout_ms;", "AfInvocation.timeout_ms is at offset 32 size 8"),
        ("cs", r"Native\.cs$", "delegate* unmanaged[Cdecl]<void*, int, byte*, void> cb", "delegate* unmanaged[Cdecl]<void*, byte*, void> cb",
         "af_set_log_callback parameter 2 (cb) is delegate* unmanaged[Cdecl]<void*, byte*, void>: 2 parameter(s), the callback af_log_fn has 3"),
        ("cs", r"AppFunctionView\.cs$", "public void Reset() =>", "public void Reset() => Native.af_view_reset(_handle); private void X() =>",
         "calls af_view_reset directly"),
        ("kt", r"/View\.kt$", "NativeCalls.viewReset(it)", "AfNative.af_view_reset(it)", "calls af_view_reset directly"),
        # the runtime under internal/ routes through NativeCalls too: the handler's completion,
        # a gate's answer, the entity lookup's request
        ("kt", r"/internal/Runtime\.kt$", "NativeCalls.callReturn(call, resultJson?.cstr())", "AfNative.af_call_return(call, resultJson?.cstr())",
         "calls af_call_return directly"),
        ("kt", r"/internal/Runtime\.kt$", "NativeCalls.gateOpenApp(gate, answer.message)", "AfNative.af_gate_open_app(gate, answer.message.cstr())",
         "calls af_gate_open_app directly"),
        ("kt", r"/internal/Reflective\.kt$", "NativeCalls.callLookupRequest(ctx.call)", "AfNative.af_call_lookup_request(ctx.call).utf8()",
         "calls af_call_lookup_request directly"),
        ("kt", r"AfNative\.kt$", "external fun af_view_generation(v: Long): Long", "external fun af_view_generation(v: Long): Int",
         "af_view_generation returns a type that is Int"),
        ("kt", r"AfNative\.kt$", "external fun af_view_generation(v: Long): Long", "external fun af_view_generation(v: Long): Long\n    external fun af_view_generation_x(v: Long): Long",
         "af_view_generation_x is not in the ABI baseline"),
        ("kt", r"AfNative\.kt$", "external fun af_set_limits(d: Long, maxInputBytes: Long, maxDepth: Int): Int",
         "external fun af_set_limits(d: Long, maxInputBytes: Int, maxDepth: Int): Int", "af_set_limits parameter 2 (max_input_bytes) is Int"),
        ("kt", r"AfNative\.kt$", "const val AF_ERR_TIMED_OUT = 11", "const val AF_ERR_TIMED_OUT = 12", "AF_ERR_TIMED_OUT = 12, the baseline says 11"),
        # the shim's row, its C function and the external fun must say the same
        ("kt", r"appfunctions_jni\.c$", 'X(af_set_limits, "(JJI)I")', 'X(af_set_limits, "(JII)I")',
         "the shim's signature of af_set_limits is (JII)I, its external fun"),
        ("kt", r"appfunctions_jni\.c$", "jlong d, jlong max_input_bytes, jint max_depth)", "jlong d, jint max_input_bytes, jint max_depth)",
         "j_af_set_limits takes (jlong, jint, jint), its external fun"),
        ("kt", r"appfunctions_jni\.c$", "return core.af_view_reset(PTR(struct af_view, v));", "return core.af_view_set_metadata(PTR(struct af_view, v), NULL);",
         "j_af_view_reset does not call core.af_view_reset"),
        ("kt", r"appfunctions_jni\.c$", "    (jint)offsetof(struct af_invocation, host_context),\n", "",
         "nativeLayout does not report af_invocation.host_context"),
        # an ABI function a binding does not import, or (Swift) does not call, and a stale entry
        ("kt", r"AfNative\.kt$", "    external fun af_call_dialog_copy(call: Long): ByteArray?\n", "",
         "the shim registers af_call_dialog_copy, which internal/AfNative.kt does not declare", SHIM),
        ("kt", r"appfunctions_jni\.c$", '  X(af_call_dialog_copy, "(J)[B")                                    \\\n', "",
         "af_call_dialog_copy has no row X(af_call_dialog_copy"),
        ("cs", r"Native\.cs$", "[LibraryImport(Library)] internal static partial byte* af_call_dialog_copy(nint call);", "",
         "af_call_dialog_copy (abi/v1.txt) is not imported"),
        ("sw", r"/Context\.swift$", "takeString(af_call_dialog_copy(call.raw))", "nil",
         "Swift: af_call_dialog_copy (abi/v1.txt) is called by no source"),
        ("sw", r"/Trampolines\.swift$", "af_call_on_cancel(call.raw,", "af_call_on_cancel_remove(call.raw,",
         "NOT_WRAPPED lists af_call_on_cancel_remove"),
    ]
    clean, _ = run(base_text, cs, kt, sw)
    if clean:
        print("\n".join(clean))
        raise SystemExit("[interop-abi self-test] the unmodified sources already fail")
    failed = 0
    for lang, pattern, old, new, expect, *named in cases:
        files = {"cs": cs, "kt": kt, "sw": sw}
        files[lang], path, line = mutate(files[lang], pattern, old, new)
        errors, _ = run(base_text, files["cs"], files["kt"], files["sw"])
        # a routing violation names the file and the line of the call; a missing function, the binding
        # (or the file a case names: a difference the shim's side reports)
        where = named[0] if named else f"{path}:{line}:" if expect.startswith("calls ") else (
            "" if "abi/v1.txt" in expect or "NOT_WRAPPED" in expect else path)
        if not any(expect in e and where in e for e in errors):
            failed += 1
            print(f"[interop-abi self-test] NOT CAUGHT: {old!r} -> {new!r} in {where}; expected a difference naming {expect!r}; got:")
            print("  " + "\n  ".join(errors or ["(nothing)"]))
    if failed:
        raise SystemExit(1)
    print(f"[interop-abi] self-test: {len(cases)} deliberate mismatches, each caught and named")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--repo", default=REPO)
    ap.add_argument("--baseline")
    a = ap.parse_args()
    baseline = a.baseline or max(glob.glob(os.path.join(a.repo, "abi", "v*.txt")), key=lambda p: int(re.search(r"v(\d+)", p).group(1)))
    with open(baseline, encoding="utf-8") as f:
        base_text = f.read()
    cs, kt, sw = sources(a.repo)
    if a.self_test:
        self_test(base_text, cs, kt, sw)
        return
    errors, notes = run(base_text, cs, kt, sw)
    for n in notes:
        print(f"[interop-abi] note: {n}")
    if errors:
        for e in errors:
            print(f"[interop-abi] {e}", file=sys.stderr)
        print(f"[interop-abi] {len(errors)} difference(s) between the bindings' interop and {os.path.relpath(baseline, a.repo)}", file=sys.stderr)
        sys.exit(1)
    print(f"[interop-abi] the .NET ({COUNTS.get('.NET', 0)} functions) and Kotlin ({COUNTS.get('Kotlin', 0)} functions) imports, "
          f"constants and structs match {os.path.relpath(baseline, a.repo)}; of its {len(Baseline(base_text).functions)} functions "
          f".NET calls {COUNTS.get('.NET calls', 0)}, Kotlin {COUNTS.get('Kotlin calls', 0)}, Swift {COUNTS.get('Swift calls', 0)} "
          "(the rest: NOT_WRAPPED, with the reasons)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Finds file-local names that two .cpp files of the same library both define.

The libraries compile in unity batches of 8 files (CMAKE_UNITY_BUILD): the files of a batch become
one translation unit, so two helpers with the same name in an anonymous namespace (or `static`, or
a namespace-scope const) meet when a new file shifts the batches, and the build breaks in a file
nobody touched; worse, two overloads may meet and one file silently calls the other's helper. This
script lists every such name (functions, variables, types, aliases, macros) per library, so a clash
is found before it happens. Exits non-zero if there is one: give one of them a unique name, or
move a shared version into a header.

    tests/check-unity-names.py          (from anywhere; about a second)

A regex-and-brace scan, not a compiler: it reads declarations at namespace scope after removing
comments and string literals. Operators are skipped (overloads on different types do not clash).
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def library_of(path):
    """The unity-build unit a source belongs to (mirrors the CMakeLists), or None if none."""
    parts = path.split("/")
    if parts[0] == "core" and len(parts) > 2:
        return "core/" + parts[1]
    if parts[0] == "kernels":
        return "kernels (CUDA)" if path.endswith(".cu") else "kernels"
    if parts[0] == "widgets" and len(parts) == 2:
        return "widgets"
    if parts[:2] == ["app", "cli"] and len(parts) == 3 and parts[2] != "main.cpp":
        return "app/cli"
    if parts[:2] == ["app", "gui"] and len(parts) == 4:
        return "app/gui/" + parts[2]  # UNITY_GROUP per feature folder
    if parts[0] == "tests" and len(parts) == 2:
        return "tests (support library)"
    return None


def strip_code(text):
    """Removes comments, string and character literals (keeping line breaks) and returns the text
    plus the macros the file #defines and does not #undef."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and re.search(r"(^|[^\w])(u8|u|U|L)?$", text[max(0, i - 3):i]):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    code = "".join(out)
    # Preprocessor lines (with their continuations) go; their macros are remembered.
    defines, undefs, kept = set(), set(), []
    lines = code.split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.lstrip().startswith("#"):
            directive = line
            while directive.endswith("\\") and k + 1 < len(lines):
                k += 1
                directive = directive[:-1] + lines[k]
                kept.append("")
            m = re.match(r"\s*#\s*(define|undef)\s+(\w+)", directive)
            if m:
                (defines if m.group(1) == "define" else undefs).add(m.group(2))
            kept.append("")
        else:
            kept.append(line)
        k += 1
    return "\n".join(kept), defines - undefs


KEYWORDS = {"const", "constexpr", "static", "inline", "extern", "thread_local", "volatile", "mutable", "return",
            "auto", "void", "int", "double", "float", "bool", "char", "long", "short", "unsigned", "signed",
            "struct", "class", "enum", "union", "typename", "template", "final", "override", "noexcept"}


def strip_angles(s):
    """Drops template argument lists, so `std::map<int, int> kTable` reads as `std::map kTable`."""
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"<[^<>]*>", "", s)
    return s


def top_level_split(text):
    """Splits a declaration at the commas outside brackets: `int a = f(1, 2), b = 3` -> two parts."""
    parts, depth, current = [], 0, []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
    parts.append("".join(current))
    return parts


def declared_name(statement, opens_block):
    """The name a namespace-scope declaration introduces, with its kind, or (None, None)."""
    s = " ".join(statement.split())
    s = re.sub(r"^template\s*<.*?>\s*(?=[A-Za-z_])", "", s) if s.startswith("template") else s
    s = re.sub(r"\[\[[^\]]*\]\]\s*", "", s)  # attributes
    if not s or s.startswith(("using namespace", "namespace", "static_assert", "extern ")):
        return None, None
    m = re.match(r"(?:typedef\s.*\b(\w+)\s*$)", s)
    if m:
        return m.group(1), "type"
    m = re.match(r"using\s+(\w+)\s*=", s)
    if m:
        return m.group(1), "type"
    m = re.match(r"(?:static\s+)?(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)"
                 r"\s*(?::[^(]*)?$", s)
    if m:
        return m.group(1), "type"
    if re.match(r"(?:static\s+)?(?:struct|class|union|enum)\b", s) and "(" not in s:
        # `struct X;` forward declaration or `struct {..} x` (rare): treated as the type name
        m = re.match(r"(?:static\s+)?(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)", s)
        return (m.group(1), "type") if m else (None, None)
    flat = strip_angles(re.sub(r"__launch_bounds__\s*\([^)]*\)|__(global|device|host|forceinline)__", "", s))
    eq = flat.find("=")
    paren = flat.find("(")
    if eq >= 0 and (paren < 0 or eq < paren) and "operator" not in flat[:eq]:
        names = []
        for part in top_level_split(flat):  # `constexpr int kA = 1, kB = 2`
            head = re.sub(r"\[[^\]]*\]\s*$", "", part.split("=")[0].strip())  # `kNames[]`
            m = re.search(r"(\w+)\s*$", head)
            if m:
                names.append(m.group(1))
        return (names, "variable") if names else (None, None)
    if paren >= 0:
        head = flat[:paren].strip()
        if re.search(r"\boperator\b", head):
            return None, None
        m = re.search(r"([A-Za-z_]\w*)\s*$", head)
        if not m or m.group(1) in KEYWORDS or "::" in head[max(0, m.start() - 2):m.start() + 1]:
            return None, None
        before = head[:m.start()].strip()
        if not before:  # a macro call such as Q_DECLARE_METATYPE(X), not a declaration
            return None, None
        return m.group(1), "function"
    if opens_block:  # `T name{...}` brace initialisation
        m = re.search(r"(\w+)\s*$", flat)
        return (m.group(1), "variable") if m and len(flat.split()) > 1 else (None, None)
    words = re.sub(r"\[[^\]]*\]", "", flat).split()
    if len(words) >= 2 and re.match(r"^\w+$", words[-1]) and words[-1] not in KEYWORDS:
        return words[-1], "variable"
    return None, None


def file_local_names(code):
    """(name, kind, line) for each file-local definition at namespace scope: in an anonymous
    namespace, declared static, or a namespace-scope const/constexpr variable."""
    found = []
    stack = []  # one entry per open brace: "anon", "named" (namespaces, extern "C") or "block"
    statement, start_line, line = [], 1, 1
    after_block = False
    i, n = 0, len(code)

    def at_namespace_scope():
        return all(kind != "block" for kind in stack)

    def record(text, opens_block):
        names, kind = declared_name(text, opens_block)
        if not names:
            return
        flat = " ".join(text.split())
        local = "anon" in stack or re.match(r"(?:template\s*<.*?>\s*)?static\b", flat) is not None
        if not local and kind == "variable" and re.search(r"\b(const|constexpr)\b", strip_angles(flat).split("=")[0]):
            local = True  # namespace-scope const: internal linkage
        if local:
            found.extend((name, kind, start_line) for name in ([names] if isinstance(names, str) else names))

    while i < n:
        c = code[i]
        if c == "\n":
            line += 1
        if c == "{":
            text = "".join(statement)
            ns = re.match(r"\s*(inline\s+)?namespace\s*([\w:]*)\s*$", text)
            if ns:
                stack.append("named" if ns.group(2) else "anon")
            elif re.match(r'\s*extern\s*""\s*$', text):
                stack.append("named")
            else:
                if at_namespace_scope() and not after_block:
                    record(text, True)
                stack.append("block")
            statement, after_block = [], False
            start_line = line
        elif c == "}":
            if stack:
                kind = stack.pop()
                after_block = kind == "block" and at_namespace_scope()
            statement = []
            start_line = line
        elif c == ";":
            if at_namespace_scope() and not after_block:
                record("".join(statement), False)
            statement, after_block = [], False
            start_line = line
        else:
            if not c.isspace() and not "".join(statement).strip():
                start_line = line  # the statement's first character
            statement.append(c)
            if after_block and not c.isspace() and c not in ")":
                # `} name;` after a struct, or the next declaration after a function body
                text = "".join(statement).strip()
                if not re.match(r"^\w*$", text):
                    after_block = False
        i += 1
    return found


def main():
    definitions = defaultdict(lambda: defaultdict(list))  # library -> name -> [(file, line, kind)]
    for folder in ("core", "kernels", "widgets", "app", "tests"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".cu")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, f), ROOT)
                library = library_of(path)
                if not library:
                    continue
                with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as handle:
                    code, macros = strip_code(handle.read())
                seen = set()
                for name, kind, line in file_local_names(code):
                    if name not in seen:
                        seen.add(name)
                        definitions[library][name].append((path, line, kind))
                for macro in sorted(macros):
                    definitions[library][macro].append((path, 0, "macro"))
    clashes = 0
    for library in sorted(definitions):
        for name, places in sorted(definitions[library].items()):
            if len({p for p, _, _ in places}) < 2:
                continue
            clashes += 1
            where = ", ".join(f"{p}:{l}" if l else p for p, l, _ in places)
            print(f"{library}: {name} ({places[0][2]}) is defined in {len(places)} files: {where}")
    if clashes:
        print(f"{clashes} file-local name(s) defined in more than one file of a library: they clash when the "
              "unity build puts those files in one batch. Rename one, or share one version from a header "
              "(tests/check-unity-names.py).")
        return 1
    print("unity build: no file-local name is defined twice in a library")
    return 0


if __name__ == "__main__":
    sys.exit(main())

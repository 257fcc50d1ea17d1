"""One-line mutation operators for clang-formatted C++ (see docs/testing.md, "Mutants nobody chose").

Each operator turns one source line into variants that differ by one plausible slip: a comparison
or arithmetic operator swapped, && for ||, min for max, a boolean flipped, an integer literal off by
one, a negation dropped, an expression statement deleted. The project is clang-format clean, so a
binary operator always has a space on each side, which tells `a < b` from `std::vector<int>`;
string and character literals and trailing comments are masked before matching, so text inside
them is never mutated.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class LineMutant:
    column: int  # 0-based start of the replaced text in the line
    operator: str  # a short name: "ror", "aor", "lcr", "minmax", "bool", "int", "not", "delete"
    original: str  # the replaced text
    replacement: str
    mutated_line: str


# Relational operators: each to its boundary twin and to its negation.
_RELATIONAL = {
    "<": ["<=", ">="],
    "<=": ["<", ">"],
    ">": [">=", "<="],
    ">=": [">", "<"],
    "==": ["!="],
    "!=": ["=="],
}
_ARITHMETIC = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="]}
_LOGICAL = {"&&": ["||"], "||": ["&&"]}
_SPACED_OPERATOR = re.compile(r"(?<= )(<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|<|>|\+|-|\*|/)(?= )")
_MIN_MAX = re.compile(r"\b(std::)?(min|max)(_element)?\b(?=\s*[(<])")
_BOOLEAN = re.compile(r"\b(true|false)\b")
# A whole numeric token (exponent signs included), mutated only when it is a plain decimal integer.
_NUMBER = re.compile(r"(?<![\w.])\d(?:[\w.']|(?<=[eEpP])[+-])*")
_NEGATION = re.compile(r"(?<=[(\s])!(?=[A-Za-z_(*])")
# An expression statement: a call, member call or assignment to something that already exists.
_EXPRESSION_STATEMENT = re.compile(
    r"^\s*(\+\+|--)?[A-Za-z_][\w:]*(\[[^\]]*\])?((\.|->)[A-Za-z_]\w*)*"
    r"(\s*\(.*\)|\s*(=|\+=|-=|\*=|/=|\|=|&=)\s.*|\+\+|--)\s*;\s*$")
_NOT_A_STATEMENT_START = re.compile(
    r"^\s*(return|break|continue|case|default|goto|using|typedef|namespace|template|static_assert|"
    r"throw|delete|new|co_return|Q_OBJECT|Q_EMIT|emit)\b")


def mask_literals(line: str) -> str:
    """The line with string/char literal contents and a trailing // comment replaced by spaces."""
    out = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "/" and i + 1 < n and line[i + 1] == "/":
            out.append(" " * (n - i))
            break
        if c == "R" and line.startswith('R"', i):  # raw string: R"delim( ... )delim"
            close = line.find("(", i)
            delimiter = line[i + 2:close] if close >= 0 else ""
            end = line.find(")" + delimiter + '"', close + 1) if close >= 0 else -1
            stop = n if end < 0 else end + len(delimiter) + 2
            out.append(" " * (stop - i))
            i = stop
            continue
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            stop = min(j + 1, n)
            out.append(c + " " * max(0, stop - i - 2) + (c if stop - i >= 2 else ""))
            i = stop
            continue
        out.append(c)
        i += 1
    return "".join(out)[:n]


def is_mutable_line(line: str) -> bool:
    """False for lines that hold no code to mutate: blank, comments, preprocessor directives."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("//", "/*", "*", "#"))


def _replace(line: str, start: int, end: int, text: str) -> str:
    return line[:start] + text + line[end:]


def _starts_a_statement(previous: str) -> bool:
    """Whether the line after `previous` begins a statement (not a continuation of one)."""
    stripped = mask_literals(previous).strip()
    return not stripped or not is_mutable_line(previous) or stripped.endswith((";", "{", "}", ":"))


def mutants_of_line(line: str, previous: str = "") -> list:
    """Every one-line mutant of `line` (whose preceding line is `previous`), in a fixed order.
    Mutants that cannot compile are left out where the line shows it: `+` joining a string literal,
    a deleted line that continues a statement."""
    if not is_mutable_line(line):
        return []
    masked = mask_literals(line)
    found = []

    def add(start, end, operator, replacement):
        mutated = _replace(line, start, end, replacement)
        if mutated != line:
            found.append(LineMutant(start, operator, line[start:end], replacement, mutated))

    for m in _SPACED_OPERATOR.finditer(masked):
        op = m.group(1)
        if op in _RELATIONAL:
            # `a<b>` template arguments are unspaced; a spaced `>` after a template closes nothing.
            for r in _RELATIONAL[op]:
                add(m.start(1), m.end(1), "ror", r)
        elif op in _LOGICAL:
            for r in _LOGICAL[op]:
                add(m.start(1), m.end(1), "lcr", r)
        elif op in _ARITHMETIC:
            if op == "+" and (masked[:m.start(1)].rstrip().endswith('"') or masked[m.end(1):].lstrip().startswith('"')):
                continue  # string concatenation
            for r in _ARITHMETIC[op]:
                add(m.start(1), m.end(1), "aor", r)
    for m in _MIN_MAX.finditer(masked):
        name = m.group(2)
        add(m.start(2), m.end(2), "minmax", "max" if name == "min" else "min")
    for m in _BOOLEAN.finditer(masked):
        add(m.start(1), m.end(1), "bool", "false" if m.group(1) == "true" else "true")
    for m in _NUMBER.finditer(masked):
        if not re.fullmatch(r"\d+", m.group(0)) or (len(m.group(0)) > 1 and m.group(0).startswith("0")):
            continue  # floats, hex, suffixed and octal literals stay as they are
        value = int(m.group(0))
        add(m.start(), m.end(), "int", str(value + 1))
        if value > 0:
            add(m.start(), m.end(), "int", str(value - 1))
    for m in _NEGATION.finditer(masked):
        if masked[m.start() + 1:m.start() + 2] == "=":
            continue
        add(m.start(), m.start() + 1, "not", "")
    if (_EXPRESSION_STATEMENT.match(masked) and not _NOT_A_STATEMENT_START.match(masked)
            and _starts_a_statement(previous)):
        add(0, len(line), "delete", "")
    return found


def self_check() -> list:
    """Problems found in the operators' own examples (empty when they behave)."""
    problems = []

    def expect(line, wanted, unwanted=()):
        got = {m.mutated_line for m in mutants_of_line(line)}
        for w in wanted:
            if w not in got:
                problems.append(f"{line!r}: missing mutant {w!r}")
        for u in unwanted:
            if u in got:
                problems.append(f"{line!r}: unexpected mutant {u!r}")

    expect("  if (id < 0 || id >= vocab) {", ["  if (id < 0 || id > vocab) {", "  if (id < 0 && id >= vocab) {",
                                             "  if (id <= 0 || id >= vocab) {", "  if (id < 1 || id >= vocab) {"])
    expect("  std::vector<int64_t> ids = f(a, b);", [], ["  std::vector<int64_t> ids = f(a, b);"])
    if any(m.operator == "ror" for m in mutants_of_line("  std::vector<int64_t> ids = f(a, b);")):
        problems.append("template brackets mutated as comparisons")
    expect('  throw Error("a < b or 3 > 2");', [], ['  throw Error("a <= b or 3 > 2");'])
    if any(m.operator != "delete" for m in mutants_of_line('  log("x + y");  // 1 + 2')):
        problems.append("text inside a string or comment mutated")
    expect("  lo = std::max(lo, c.front().first);", ["  lo = std::min(lo, c.front().first);", ""])
    expect("  length_ = 0;", ["", "  length_ = 1;"])
    expect("  if (!found) return;", ["  if (found) return;"])
    expect("  const bool fused = true;", ["  const bool fused = false;"])
    if any(m.operator == "delete" for m in mutants_of_line("  return x + 1;")):
        problems.append("a return statement offered for deletion")
    if any(m.operator == "delete" for m in mutants_of_line("  Tensor t(a, b);")):
        problems.append("a declaration offered for deletion")
    if any(m.operator == "int" for m in mutants_of_line("  double x = 1e-3 + 0.5;")):
        problems.append("a floating-point literal mutated as an integer")
    if mutants_of_line("#include <vector>") or mutants_of_line("  // a < b"):
        problems.append("a directive or a comment mutated")
    if any(m.operator == "delete" for m in mutants_of_line("      f32(C), D, scan_);", "  auto y = scan(x,")):
        problems.append("a statement's continuation line offered for deletion")
    if any(m.operator == "aor" for m in mutants_of_line('  throw Error(name + " is bad: " + why);')):
        problems.append("string concatenation offered as arithmetic")
    if any(m.operator == "not" for m in mutants_of_line("  if (a != b) {")):
        problems.append("!= taken for a negation")
    return problems

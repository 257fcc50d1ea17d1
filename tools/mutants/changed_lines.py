"""The lines a git diff added, found again in the working tree, and the mutants drawn from them.

A diff's new-side line numbers belong to its head commit; the working tree may have moved since, so
each added line is looked up by its text near its old number. Lines that are gone are skipped.
The draw is deterministic for a seed: candidates are listed in a fixed order, lines are shuffled
with the seed and mutants are taken one per line per round, so a small sample spreads over many
lines instead of piling up on the line with the most operators.
"""

import hashlib
import os
import random
import re
import subprocess
from dataclasses import dataclass

from operators import mutants_of_line

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
SOURCE_SUFFIXES = (".cpp", ".h")


@dataclass(frozen=True)
class Mutant:
    file: str  # repository path
    line: int  # 1-based, in the working tree
    column: int
    operator: str
    original: str
    replacement: str
    line_text: str
    mutated_line: str

    @property
    def id(self) -> str:
        key = f"{self.file}\n{self.line_text}\n{self.column}\n{self.operator}\n{self.replacement}"
        return hashlib.sha1(key.encode()).hexdigest()[:10]

    def describe(self) -> str:
        if self.operator == "delete":
            return f"{self.file}:{self.line} delete `{self.line_text.strip()}`"
        return (f"{self.file}:{self.line} {self.operator}: `{self.original}` -> `{self.replacement}` "
                f"in `{self.line_text.strip()}`")


def added_lines(repo: str, base: str, head: str, paths: list) -> list:
    """(file, new line number, text) for every line the diff base..head (head "" = working tree) added."""
    command = ["git", "-C", repo, "diff", "-U0", "--no-color", "--no-ext-diff", base] + ([head] if head else [])
    out = subprocess.run(command + ["--"] + paths, capture_output=True, text=True, check=True).stdout
    lines, current, number = [], None, 0
    for row in out.splitlines():
        if row.startswith("+++ "):
            target = row[4:]
            current = target[2:] if target.startswith("b/") else None
            if current and not current.endswith(SOURCE_SUFFIXES):
                current = None
        elif row.startswith("@@"):
            m = _HUNK.match(row)
            number = int(m.group(1)) if m else 0
        elif row.startswith("+") and current:
            lines.append((current, number, row[1:]))
            number += 1
        elif row.startswith(" ") and current:
            number += 1
    return lines


def locate(repo: str, added: list, search: int = 200) -> list:
    """The added lines as (file, working-tree line number, text); lines no longer there are dropped."""
    found, cache = [], {}
    for file, number, text in added:
        if file not in cache:
            path = os.path.join(repo, file)
            cache[file] = open(path, encoding="utf-8").read().split("\n") if os.path.exists(path) else []
        rows = cache[file]
        for offset in [0] + [d for k in range(1, search + 1) for d in (k, -k)]:
            i = number - 1 + offset
            if 0 <= i < len(rows) and rows[i] == text:
                found.append((file, i + 1, text))
                break
    return sorted(set(found))


def candidates(repo: str, located: list) -> list:
    out, rows = [], {}
    for file, number, text in located:
        if file not in rows:
            rows[file] = open(os.path.join(repo, file), encoding="utf-8").read().split("\n")
        previous = rows[file][number - 2] if number >= 2 else ""
        for m in mutants_of_line(text, previous):
            out.append(Mutant(file, number, m.column, m.operator, m.original, m.replacement, text, m.mutated_line))
    return out


def draw(all_mutants: list, count: int, seed: int) -> list:
    """`count` mutants, at most one per line until every line has one; same seed, same draw."""
    rng = random.Random(seed)
    by_line = {}
    for m in sorted(all_mutants, key=lambda m: (m.file, m.line, m.column, m.operator, m.replacement)):
        by_line.setdefault((m.file, m.line), []).append(m)
    keys = sorted(by_line)
    rng.shuffle(keys)
    for key in keys:
        rng.shuffle(by_line[key])
    chosen = []
    while len(chosen) < count and any(by_line[k] for k in keys):
        for key in keys:
            if by_line[key] and len(chosen) < count:
                chosen.append(by_line[key].pop())
    return chosen

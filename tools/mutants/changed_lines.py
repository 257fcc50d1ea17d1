"""The lines a git diff added and the mutants drawn from them.

The draw is made on the diff's head commit (or the working tree when the diff ends there), so it
depends only on the commits and the seed, not on what changed in the working tree since: the same
command draws the same mutants after tests or fixes were added. Candidates are listed in a fixed
order, lines are shuffled with the seed and mutants are taken one per line per round, so a small
sample spreads over many lines instead of piling up on the line with the most operators. A drawn
line is found again in the working tree by its text near its old number when it is run
(find_line); a line that is gone from its file (moved or deleted since) is reported as such.
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
        return f"{self.file}:{self.line} {self.operator}: `{self.line_text.strip()}` -> `{self.mutated_line.strip()}`"


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


def source_rows(repo: str, head: str):
    """A function file -> its lines at `head` (a commit), or in the working tree when head is ""."""
    cache = {}

    def rows(file):
        if file not in cache:
            if head:
                shown = subprocess.run(["git", "-C", repo, "show", f"{head}:{file}"], capture_output=True, text=True)
                cache[file] = shown.stdout.split("\n") if shown.returncode == 0 else []
            else:
                path = os.path.join(repo, file)
                cache[file] = open(path, encoding="utf-8").read().split("\n") if os.path.exists(path) else []
        return cache[file]

    return rows


def find_line(rows: list, number: int, text: str, search: int = 200):
    """The 1-based number of the line equal to `text` nearest to `number`, or None."""
    for offset in [0] + [d for k in range(1, search + 1) for d in (k, -k)]:
        i = number - 1 + offset
        if 0 <= i < len(rows) and rows[i] == text:
            return i + 1
    return None


def locate(rows, added: list) -> list:
    """The added lines as (file, line number, text) in the source `rows` gives; lines not there are dropped."""
    found = set()
    for file, number, text in added:
        at = find_line(rows(file), number, text)
        if at is not None:
            found.add((file, at, text))
    return sorted(found)


def candidates(rows, located: list) -> list:
    out = []
    for file, number, text in located:
        previous = rows(file)[number - 2] if number >= 2 else ""
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

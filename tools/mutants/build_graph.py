"""What a source file reaches in a built tree: the objects compiled from it, the programs that link
those objects, and how CTest runs each test program.

- Objects: ninja's dependency log (`ninja -t deps`) lists, for every object, the files its compile
  read. A unity batch reads its .cpp files, and every object reads its headers, so one lookup
  serves both. Paths there are relative to the build folder or go through the include views
  (build/layer_views/<target>/<folder>); both are turned back into repository paths.
- Linking: a static library contributes an object to a program only when the program needs one of
  its symbols, so a program links a source file when it defines one of the file's strong global
  symbols (`nm`). A unity object holds a batch of files; its symbols are attributed to the file
  whose text defines them ("Class::method(" or "name(" at the start of a line). Where none can be
  attributed (a header's inline code, a file of static helpers) the whole objects count.
- Tests: `ctest --show-only=json-v1` gives each test's command, working folder and environment;
  CTestCostData.txt (written by earlier ctest runs) gives its usual duration.
"""

import json
import os
import re
import subprocess
from dataclasses import dataclass, field


@dataclass
class TestProgram:
    name: str
    command: list
    working_directory: str
    environment: dict = field(default_factory=dict)
    usual_s: float = 0.0  # from CTestCostData.txt; 0 when never timed


class BuildGraph:
    def __init__(self, repo: str, build: str):
        self.repo = os.path.realpath(repo)
        self.build = os.path.realpath(build)
        self._deps = None  # object -> set of repository paths it read
        self._symbols = {}  # object or program path -> set of strong global symbols it defines
        self._tests = None

    # --- objects -------------------------------------------------------------------------------
    def _repository_path(self, dep: str):
        path = dep if os.path.isabs(dep) else os.path.normpath(os.path.join(self.build, dep))
        views = os.path.join(self.build, "layer_views") + os.sep
        if path.startswith(views):  # layer_views/<target>/<repository path>
            return path[len(views):].split(os.sep, 1)[1] if os.sep in path[len(views):] else None
        if path.startswith(self.repo + os.sep) and not path.startswith(self.build + os.sep):
            return os.path.relpath(path, self.repo)
        return None

    def _load_deps(self):
        out = subprocess.run(["ninja", "-C", self.build, "-t", "deps"], capture_output=True, text=True,
                             check=True).stdout
        deps, current = {}, None
        for line in out.splitlines():
            if line and not line[0].isspace():
                current = line.split(":", 1)[0]
                deps[current] = set()
            elif line.strip() and current is not None:
                rel = self._repository_path(line.strip())
                if rel:
                    deps[current].add(rel)
        self._deps = deps

    def objects_reading(self, source: str) -> list:
        """Objects (relative to the build folder) whose compile read `source` (a repository path)."""
        if self._deps is None:
            self._load_deps()
        return sorted(o for o, files in self._deps.items() if source in files and not o.endswith(".pch"))

    # --- linking ---------------------------------------------------------------------------------
    def strong_symbols(self, path: str) -> set:
        """Demangled strong global symbols a file defines."""
        full = path if os.path.isabs(path) else os.path.join(self.build, path)
        if full not in self._symbols:
            names = set()
            if os.path.exists(full):
                out = subprocess.run(["nm", "-C", "--defined-only", full], capture_output=True, text=True).stdout
                for line in out.splitlines():
                    parts = line.split(" ", 2)
                    if len(parts) == 3 and parts[1] in ("T", "D", "B", "R"):
                        names.add(parts[2])
            self._symbols[full] = names
        return self._symbols[full]

    @staticmethod
    def _qualified_name(symbol: str) -> list:
        """"ns::Class::method(args) const" -> ["ns", "Class", "method"] (templates left whole)."""
        depth, end = 0, len(symbol)
        for i, c in enumerate(symbol):
            if c in "<(" and depth == 0 and c == "(":
                end = i
                break
            depth += {"<": 1, ">": -1}.get(c, 0)
        return [p for p in re.split(r"::(?![^<]*>)", symbol[:end]) if p]

    def source_symbols(self, source: str, objects: list) -> set:
        """The symbols of `objects` that `source` defines, by the text of its definitions."""
        path = os.path.join(self.repo, source)
        text = open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""
        owned = set()
        for o in objects:
            for symbol in self.strong_symbols(o):
                parts = self._qualified_name(symbol)
                if not parts:
                    continue
                name = re.escape(parts[-1].split("<")[0])
                owner = re.escape(parts[-2].split("<")[0]) + "::" if len(parts) >= 2 else ""
                if (owner and re.search(r"\b" + owner + name + r"\s*\(", text)) or \
                        re.search(r"^[\w:<>,*& ]*\b" + name + r"\s*\(", text, re.M):
                    owned.add(symbol)
        return owned

    def links(self, program: str, symbols: set) -> bool:
        return bool(symbols & self.strong_symbols(program))

    # --- tests -----------------------------------------------------------------------------------
    def tests(self) -> dict:
        if self._tests is None:
            listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=self.build, capture_output=True,
                                     text=True, check=True).stdout
            costs = self._costs()
            tests = {}
            for t in json.loads(listing).get("tests", []):
                environment, working_directory = {}, self.build
                for prop in t.get("properties", []):
                    if prop["name"] == "ENVIRONMENT":
                        for pair in prop["value"]:
                            key, _, value = pair.partition("=")
                            environment[key] = value
                    elif prop["name"] == "WORKING_DIRECTORY":
                        working_directory = prop["value"]
                name = t["name"]
                # ctest leaves the command out while the program is not built yet.
                command = t.get("command") or [os.path.join(self.build, "tests", name)]
                tests[name] = TestProgram(name, command, working_directory, environment, costs.get(name, 0.0))
            self._tests = tests
        return self._tests

    def _costs(self) -> dict:
        path = os.path.join(self.build, "Testing", "Temporary", "CTestCostData.txt")
        costs = {}
        if os.path.exists(path):
            for line in open(path, encoding="utf-8", errors="replace"):
                parts = line.split()
                if len(parts) == 3 and re.fullmatch(r"[\d.]+", parts[2]):
                    costs[parts[0]] = float(parts[2])
        return costs

    def program_file(self, target: str) -> str:
        """The file a ninja target names: a phony alias ("mixerlab") resolves to its one input."""
        out = subprocess.run(["ninja", "-C", self.build, "-t", "query", target], capture_output=True,
                             text=True).stdout.splitlines()
        for i, line in enumerate(out):
            if line.strip() == "input: phony" and i + 1 < len(out):
                return os.path.join(self.build, out[i + 1].strip())
        return os.path.join(self.build, target)

    def ninja_target_of(self, program_path: str) -> str:
        """The ninja target that builds a program given by its absolute path."""
        return os.path.relpath(program_path, self.build)

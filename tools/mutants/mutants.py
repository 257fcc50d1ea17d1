#!/usr/bin/env python3
"""Mutants nobody chose: one-line bugs generated on the lines a diff changed, each built and run
against the tests that link the mutated code; the survivors are printed (docs/testing.md).

  tools/mutants/mutants.py --base f573dba~40 --head f573dba --seed 7 --count 60 --budget-min 240
  tools/mutants/mutants.py --base HEAD --list            # the draw over uncommitted changes, no build
  tools/mutants/mutants.py ... --resume --retry-survivors  # the same draw again, survivors only

For each mutant: the objects compiled from the file are rebuilt (ninja's dependency log says which;
a mutated header rebuilds every object that reads it). A mutant that does not compile is
"stillborn"; one whose objects come out byte-identical is "equivalent" (same machine code, or code
this configuration does not compile, such as CUDA-only branches). Otherwise the test programs that
link the file's code (nm), or start the CLI or GUI program that links it, run one at a time, the
most related first, until one fails: "killed", or none does: "survived". A test that kills a mutant is run once more on the unmutated code; if it fails
there too it is set aside as broken and the mutant is tried again without it. The source is always
restored (also on Ctrl-C; a journal in the build folder restores it after a crash) and what was
rebuilt is rebuilt clean at the end. Results are appended to --results as JSON lines, so a run that
ran out of time continues with --resume.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from build_graph import BuildGraph  # noqa: E402
from changed_lines import added_lines, candidates, draw, find_line, locate, source_rows  # noqa: E402
from operators import self_check  # noqa: E402

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# Programs tests start as child processes, and how a test's source shows that it starts them.
HELPER_PROGRAMS = {"mixerlab": r"runCli|cliPath|MIXERLAB_CLI", "mixerlab-gui": r"guiPath|mixerlab-gui|MIXERLAB_GUI"}
FINAL = ("killed", "survived", "stillborn", "equivalent", "not built here", "gone")


class SourceGuard:
    """Writes one mutated file at a time and always puts the original back."""

    def __init__(self, build: str):
        self.journal = os.path.join(build, "mutants-journal.json")
        self.active = None  # (path, original text)
        if os.path.exists(self.journal):
            saved = json.load(open(self.journal))
            self._write(saved["path"], saved["original"])
            os.remove(self.journal)
            print(f"restored {saved['path']} from an interrupted run's journal")

    @staticmethod
    def _write(path, text):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def apply(self, path, line, mutated_line):
        original = open(path, encoding="utf-8").read()
        rows = original.split("\n")
        rows[line - 1] = mutated_line
        with open(self.journal, "w") as f:
            json.dump({"path": path, "original": original}, f)
        self.active = (path, original)
        self._write(path, "\n".join(rows))

    def restore(self):
        if self.active:
            self._write(*self.active)
            self.active = None
            os.remove(self.journal)


def digest(paths):
    h = hashlib.sha1()
    for p in paths:
        h.update(open(p, "rb").read() if os.path.exists(p) else b"missing")
    return h.hexdigest()


def ninja(build, targets, log):
    if not targets:
        return True
    with open(log, "w") as out:
        return subprocess.run(["ninja", "-C", build] + targets, stdout=out, stderr=subprocess.STDOUT).returncode == 0


def run_test(test, timeout_s):
    """(passed, failed functions or a reason)."""
    env = dict(os.environ)
    env.update(test.environment)
    # Qt Test's crash handler forks for a backtrace and can deadlock on a corrupted heap's lock.
    env["QTEST_DISABLE_CRASH_HANDLER"] = "1"
    try:
        r = subprocess.run(test.command, cwd=test.working_directory, env=env, capture_output=True, text=True,
                           timeout=timeout_s, errors="replace")
    except subprocess.TimeoutExpired:
        return False, [f"timed out after {timeout_s:.0f} s"]
    if r.returncode == 0:
        return True, []
    output = r.stdout + r.stderr
    functions = sorted(set(re.findall(r"^FAIL!  : \w+::(\w+\([^)]*\))", output, re.M)))
    if not functions:
        passed = re.findall(r"^PASS   : \w+::(\w+)", output, re.M)
        functions = [f"exit {r.returncode} after {passed[-1] if passed else 'the start'}"]
    return False, functions


class Runner:
    def __init__(self, args):
        self.args = args
        self.build = os.path.realpath(args.build)
        self.graph = BuildGraph(REPO, self.build)
        self.guard = SourceGuard(self.build)
        self.broken_tests = set()
        self.verified_tests = set()
        self.rebuild_at_end = set()
        self.patch_tests = self._tests_named_by_patches()

    @staticmethod
    def _tests_named_by_patches():
        """repository file -> test programs that catch a kept mutation patch in it."""
        named = {}
        for patch in glob.glob(os.path.join(REPO, "tests", "mutations", "*.patch")):
            text = open(patch, encoding="utf-8", errors="replace").read()
            m = re.search(r"^# expect-fail: (.*)$", text, re.M)
            for file in re.findall(r"^\+\+\+ b/(\S+)", text, re.M):
                named.setdefault(file, set()).update(m.group(1).split() if m else [])
        return named

    @staticmethod
    def _test_source(name):
        sources = glob.glob(os.path.join(REPO, "tests", "*", name + ".cpp"))
        return open(sources[0], encoding="utf-8").read() if sources else ""

    def _relevance(self, mutant, name):
        stem = os.path.splitext(os.path.basename(mutant.file))[0]
        text = self._test_source(name)
        score = 0
        if name in self.patch_tests.get(mutant.file, ()):
            score += 4
        if re.search(r'#include "[^"]*/' + re.escape(stem) + r'\.h"', text):
            score += 2
        if stem in text:
            score += 1
        return score

    def symbols_for(self, mutant, objects):
        """The symbols whose presence in a program means it links the mutated code."""
        owned = set() if mutant.file.endswith(".h") else self.graph.source_symbols(mutant.file, objects)
        if owned:
            return owned
        return set().union(*(self.graph.strong_symbols(o) for o in objects))

    def tests_for(self, mutant, symbols, helpers):
        """Tests that link the mutated code, or start a program that links it."""
        def reaches(test):
            if self.graph.links(test.command[0], symbols):
                return True
            return any(re.search(HELPER_PROGRAMS[h], self._test_source(test.name)) for h in helpers)

        linked = [t for name, t in self.graph.tests().items() if name not in self.broken_tests and reaches(t)]
        return sorted(linked, key=lambda t: (-self._relevance(mutant, t.name), t.usual_s or 1e9, t.name))

    def helpers_for(self, symbols):
        return [p for p in HELPER_PROGRAMS if self.graph.links(self.graph.program_file(p), symbols)]

    def verify_unmutated(self, test, helpers, log):
        """True when `test` passes on the unmutated code (run once per test program)."""
        if test.name in self.verified_tests:
            return True
        ninja(self.build, helpers + [self.graph.ninja_target_of(test.command[0])], log)
        passed, _ = run_test(test, self.timeout_for(test))
        (self.verified_tests if passed else self.broken_tests).add(test.name)
        if not passed:
            print(f"    {test.name} fails on the unmutated code too: set aside as broken")
        return passed

    def timeout_for(self, test):
        return max(self.args.min_timeout_s, 4 * test.usual_s) if test.usual_s else self.args.max_timeout_s

    def evaluate(self, mutant):
        path = os.path.join(REPO, mutant.file)
        rows = open(path, encoding="utf-8").read().split("\n") if os.path.exists(path) else []
        line = find_line(rows, mutant.line, mutant.line_text)
        if line is None:
            return {"status": "gone", "why": "the line is no longer in the file (moved or deleted since the diff)"}
        objects = self.graph.objects_reading(mutant.file)
        if not objects:
            return {"status": "not built here", "why": "no object of this build reads the file"}
        log = os.path.join(self.build, "mutants-last-build.log")
        if not ninja(self.build, objects, log):
            return {"status": "error", "why": f"the unmutated objects do not build (see {log})"}
        objects_full = [os.path.join(self.build, o) for o in objects]
        before = digest(objects_full)
        symbols = self.symbols_for(mutant, objects)
        helpers = self.helpers_for(symbols)
        tests = self.tests_for(mutant, symbols, helpers)
        self.rebuild_at_end.update(objects + helpers + [self.graph.ninja_target_of(t.command[0]) for t in tests])
        try:
            self.guard.apply(path, line, mutant.mutated_line)
            if not ninja(self.build, objects, log):
                return {"status": "stillborn", "why": "does not compile"}
            if digest(objects_full) == before:
                return {"status": "equivalent", "why": "the objects are byte-identical"}
            if not ninja(self.build, helpers, log):
                return {"status": "stillborn", "why": "a program does not link"}
            for test in tests:
                if not ninja(self.build, [self.graph.ninja_target_of(test.command[0])], log):
                    return {"status": "stillborn", "why": f"{test.name} does not link"}
                passed, functions = run_test(test, self.timeout_for(test))
                if not passed:
                    result = {"status": "killed", "killed_by": test.name, "functions": functions}
                    break
            else:
                why = "no test failed" if tests else "no test program links the mutated code"
                return {"status": "survived", "why": why, "tests": [t.name for t in tests]}
        finally:
            self.guard.restore()
        if self.verify_unmutated(test, helpers, log):
            return result
        return self.evaluate(mutant)  # again, without the broken test

    def rebuild_clean(self):
        if self.rebuild_at_end:
            print("rebuilding what the mutants touched, unmutated ...")
            ninja(self.build, sorted(self.rebuild_at_end), os.path.join(self.build, "mutants-last-build.log"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="HEAD~1", help="diff from this commit (default HEAD~1)")
    parser.add_argument("--head", default="", help="diff to this commit (default: the working tree)")
    parser.add_argument("--paths", nargs="+", default=["core", "kernels", "app", "widgets"],
                        help="folders whose changed lines are mutated (default: the product code)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=60, help="mutants to draw (default 60)")
    parser.add_argument("--budget-min", type=float, default=240, help="start no mutant after this many minutes")
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--results", default=None, help="JSON lines file (default <build>/mutants-results.jsonl)")
    parser.add_argument("--resume", action="store_true", help="skip mutants already in --results")
    parser.add_argument("--retry-survivors", action="store_true",
                        help="with --resume: run the survivors again (after adding tests for them)")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID", help="run only these mutants of the draw")
    parser.add_argument("--list", action="store_true", help="print the draw and stop (no build)")
    parser.add_argument("--min-timeout-s", type=float, default=120, help="least time a test gets (default 120)")
    parser.add_argument("--max-timeout-s", type=float, default=900, help="time for a test never timed (900)")
    parser.add_argument("--self-check", action="store_true", help="check the operators on their examples")
    args = parser.parse_args()

    if args.self_check:
        problems = self_check()
        print("\n".join(problems) if problems else "mutation operators: all examples behave")
        return 1 if problems else 0

    rows = source_rows(REPO, args.head)
    located = locate(rows, added_lines(REPO, args.base, args.head, args.paths))
    pool = candidates(rows, located)
    chosen = draw(pool, args.count, args.seed)
    if args.only:
        chosen = [m for m in chosen if m.id in args.only]
    print(f"{len(located)} changed lines, {len(pool)} candidate mutants, {len(chosen)} drawn with seed {args.seed}")
    if args.list:
        for i, m in enumerate(chosen, 1):
            print(f"[{i}] {m.id} {m.describe()}")
        return 0

    results_path = args.results or os.path.join(os.path.realpath(args.build), "mutants-results.jsonl")
    done = {}
    if args.resume and os.path.exists(results_path):
        for row in open(results_path):
            record = json.loads(row)
            retry = args.retry_survivors and record.get("status") == "survived"
            if record.get("status") in FINAL and not retry:
                done[record["id"]] = record  # a later line for the same mutant replaces an earlier one
            else:
                done.pop(record["id"], None)
    elif os.path.exists(results_path):
        os.remove(results_path)
    runner = Runner(args)

    def stop(signum, _frame):
        runner.guard.restore()
        print(f"stopped by signal {signum}; the source is restored")
        sys.exit(130)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    started = time.time()
    records = []
    for i, mutant in enumerate(chosen, 1):
        if mutant.id in done:
            records.append(done[mutant.id])
            continue
        if time.time() - started > args.budget_min * 60:
            records.append({"id": mutant.id, "status": "not run", "why": "time budget spent"})
            continue
        t0 = time.time()
        result = runner.evaluate(mutant)
        record = {"id": mutant.id, "file": mutant.file, "line": mutant.line, "operator": mutant.operator,
                  "original": mutant.original, "replacement": mutant.replacement, "line_text": mutant.line_text,
                  "mutated_line": mutant.mutated_line, "seconds": round(time.time() - t0, 1), **result}
        records.append(record)
        with open(results_path, "a") as f:
            f.write(json.dumps(record) + "\n")
        if result["status"] == "killed":
            detail = "by " + result["killed_by"] + ": " + ", ".join(result["functions"][:2])
        else:
            detail = result.get("why", "")
        print(f"[{i}/{len(chosen)}] {result['status'].upper():10s} {mutant.describe()}  {detail} "
              f"({record['seconds']:.0f} s)", flush=True)
    runner.rebuild_clean()
    by_status = {}
    for r in records:
        by_status[r["status"]] = by_status.get(r["status"], 0) + 1
    killed, survived = by_status.get("killed", 0), by_status.get("survived", 0)
    print("summary: " + ", ".join(f"{n} {s}" for s, n in sorted(by_status.items())))
    if killed + survived:
        print(f"survival rate: {survived}/{killed + survived} = {100.0 * survived / (killed + survived):.1f}% "
              "(stillborn, equivalent, unbuilt and gone mutants left out)")
    described = {m.id: m.describe() for m in chosen}
    for r in records:
        if r["status"] == "survived":
            print(f"  SURVIVED {r['id']} {described.get(r['id'], r.get('file', ''))}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())

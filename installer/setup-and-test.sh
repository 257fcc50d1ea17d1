#!/usr/bin/env bash
# The README's second command (and what CI runs): install dependencies, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash installer/install-deps.sh
# Cheap checks first (seconds, no build): the mutation patches still apply, the sources are
# clang-format clean, no two files of a library define the same file-local name (they would
# clash in the unity build), and the mutant generator's operators behave on their examples.
bash tests/mutations/check-apply.sh
bash installer/check-format.sh
python3 tests/check-unity-names.py
python3 tools/mutants/mutants.py --self-check
# Tests on (setup-and-run.sh may have configured build/ before). A compiler warning in project code
# fails the run: the build log is read for them instead of compiling with -Werror, so build/ keeps
# one set of flags for setup-and-run.sh, the tests and tests/mutations/run.sh (where a mutation
# that only adds a warning must not count as caught).
build_log=$(mktemp --suffix=-mixerlab-build.log)
bash installer/build.sh -DMIXERLAB_BUILD_TESTS=ON 2>&1 | tee "$build_log"
warnings=$(grep -E ': warning: ' "$build_log" | grep -v -E '^/usr/' | sort -u || true)
rm -f "$build_log"
if [[ -n "$warnings" ]]; then
  echo "$warnings"
  echo "error: $(echo "$warnings" | wc -l) compiler warning(s) in project code (listed above): fix them" >&2
  exit 1
fi
cd build
# As root, the multi-node test (two ranks in two network namespaces) and the Slurm tests (a real
# slurmctld and slurmd on loopback, started by the tests) must run: they fail instead of skipping
# when the namespaces or the daemons cannot be made.
if [[ "$(id -u)" -eq 0 ]]; then export MIXERLAB_REQUIRE_NETNS=1 MIXERLAB_REQUIRE_SLURM=1; fi
ctest --output-on-failure --timeout 900 -j2
# The libFuzzer targets need a second, clang + sanitizer build of the core (about 15 minutes on 2
# cores), so CI runs them only when asked: MIXERLAB_CI_FUZZ=1 (MIXERLAB_FUZZ_SECONDS per target,
# default 10). See docs/fuzzing.md.
if [[ "${MIXERLAB_CI_FUZZ:-0}" == 1 ]]; then
  cd ..
  if command -v clang++ >/dev/null; then
    fuzz/run.sh "${MIXERLAB_FUZZ_SECONDS:-10}"
  else
    echo "MIXERLAB_CI_FUZZ=1 but clang++ is not installed (apt-get install clang): fuzzers skipped"
  fi
fi

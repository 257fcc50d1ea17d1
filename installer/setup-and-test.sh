#!/usr/bin/env bash
# The README's second command (and what CI runs): install dependencies, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash installer/install-deps.sh
bash installer/build.sh
cd build
ctest --output-on-failure --timeout 900 -j1
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

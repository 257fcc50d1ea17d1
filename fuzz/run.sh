#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each for N seconds
# (default 10) on its seed corpus in fuzz/corpus/<name>/, plus what it finds (kept in
# build-fuzz/corpus/<name>/). Exits non-zero on the first crash, leak or sanitizer report; the
# input that caused it is left in build-fuzz/ as crash-*. With MIXERLAB_FUZZ_RUNS=N a target also
# stops after N executions (whichever comes first). See docs/fuzzing.md.
#   fuzz/run.sh [seconds-per-target] [target ...]
#   MIXERLAB_FUZZ_RUNS=1000000 fuzz/run.sh 1800     # a million executions or 30 minutes per target
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(project_file safetensors metrics checkpoint_state tokenizer tokenizer_json import)
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMIXERLAB_BUILD_FUZZERS=ON -DMIXERLAB_BUILD_GUI=OFF -DMIXERLAB_BUILD_TESTS=OFF -DMIXERLAB_USE_PCH=OFF >/dev/null
ninja -C build-fuzz "${targets[@]/%/_fuzzer}"
# LibTorch is not built with ASan: its allocations at exit are not leaks of ours.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export MIXERLAB_FUZZ_TOKENIZER="$PWD/tests/fixtures/hf_llama_bpe_tokenizer.json"  # tokenizer_fuzzer's tokenizer
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  echo "== $t: ${seconds} s"
  runs=()
  [[ -n "${MIXERLAB_FUZZ_RUNS:-}" ]] && runs=(-runs="$MIXERLAB_FUZZ_RUNS")
  (cd build-fuzz && "./fuzz/${t}_fuzzer" -max_total_time="$seconds" "${runs[@]}" -print_final_stats=1 "corpus/$t" "../fuzz/corpus/$t" 2>&1 |
     grep -E "^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" || true)
  if ls build-fuzz/crash-* >/dev/null 2>&1; then echo "crash found: $(ls build-fuzz/crash-*)"; exit 1; fi
done

#!/usr/bin/env bash
# Mutation check: applies each deliberate bug in tests/mutations/*.patch to the source tree, rebuilds
# the test programs its "expect-fail:" line names, runs them and reports which test functions
# failed (a program that crashes or hangs past MIXERLAB_MUTATION_TEST_TIMEOUT_S, default 900 s, also
# catches it). A mutation that no named test catches is "SURVIVED" and the script exits non-zero.
# The source is restored after every mutation (also on Ctrl-C), and the tests are rebuilt clean at
# the end. See docs/testing.md.
#
#   tests/mutations/run.sh [-B build-dir] [name ...]     (names without .patch; default: all)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build
if [[ "${1:-}" == "-B" ]]; then
  build=$2
  shift 2
fi
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"
export QT_QPA_PLATFORM=offscreen
# A bug that corrupts the heap makes Qt Test's crash handler fork for a backtrace, which can deadlock
# on the malloc lock: without the handler the program just dies of its signal (and is caught).
export QTEST_DISABLE_CRASH_HANDLER=1
test_timeout_s=${MIXERLAB_MUTATION_TEST_TIMEOUT_S:-900}

if [[ $# -gt 0 ]]; then
  patches=()
  for name in "$@"; do patches+=("tests/mutations/$name.patch"); done
else
  patches=(tests/mutations/*.patch)
fi

applied=""
restore() {
  if [[ -n "$applied" ]]; then
    git apply -R "$applied" && applied=""
  fi
}
trap 'restore; exit 130' INT TERM

survived=0
all_targets=()
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  read -r -a targets <<<"$(sed -n 's/^# expect-fail: //p' "$patch")"
  all_targets+=("${targets[@]}")
  if ! git apply --check "$patch" 2>/dev/null; then
    echo "$name: ERROR patch does not apply (the code moved: update the patch)"
    survived=1
    continue
  fi
  git apply "$patch" && applied=$patch
  # The CLI too: core tests that drive `mixerlab` as a child process must run the mutant.
  if ! ninja -C "$build" "${targets[@]}" mixerlab >"/tmp/mutation-$name-build.log" 2>&1; then
    echo "$name: CAUGHT at compile time (see /tmp/mutation-$name-build.log)"
    restore
    continue
  fi
  failed=()
  for target in "${targets[@]}"; do
    output=$(timeout -k 10 "$test_timeout_s" "$build/tests/$target" 2>&1)
    status=$?
    if [[ $status -eq 124 || $status -eq 137 ]]; then
      failed+=("$target: hung (no end within ${test_timeout_s} s)")
      continue
    fi
    while read -r line; do
      [[ -n "$line" ]] && failed+=("$target: ${line}")
    done < <(echo "$output" | sed -n 's/^FAIL!  : [A-Za-z0-9_]*::\([A-Za-z0-9_]*([^)]*)\).*/\1/p' | sort -u)
    # A test program killed by a signal (the bug crashed it) prints no FAIL line: that catches it too,
    # in the function after the last one that passed.
    if [[ $status -gt 128 ]] && ! echo "$output" | grep -q '^FAIL!'; then
      last_pass=$(echo "$output" | sed -n 's/^PASS   : [A-Za-z0-9_]*::\([A-Za-z0-9_]*\).*/\1/p' | tail -1)
      failed+=("$target: crashed (exit $status) in the test after ${last_pass:-the start}")
    fi
  done
  restore
  if [[ ${#failed[@]} -eq 0 ]]; then
    echo "$name: SURVIVED (no test in ${targets[*]} failed)"
    survived=1
  else
    echo "$name: caught by"
    printf '    %s\n' "${failed[@]}"
  fi
done
echo "rebuilding the unmutated tests ..."
ninja -C "$build" $(printf '%s\n' "${all_targets[@]}" | sort -u) >/dev/null || exit 1
exit $survived

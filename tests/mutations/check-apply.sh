#!/usr/bin/env bash
# Cheap check of the mutation patches (no build): every tests/mutations/*.patch must still apply to
# the source tree (`git apply --check`), must have its "# expect-fail:" line, and every test program
# that line names must exist as tests/<folder>/NAME.cpp. A patch that no longer applies means its
# code moved; tests/mutations/run.sh would report it only after a long build. Exits non-zero on any
# problem. See docs/testing.md.
#
#   tests/mutations/check-apply.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

bad=0
count=0
for patch in tests/mutations/*.patch; do
  count=$((count + 1))
  name=$(basename "$patch" .patch)
  if ! errors=$(git apply --check "$patch" 2>&1); then
    echo "$name: does not apply (the code moved: update the patch, see docs/testing.md)"
    echo "$errors" | sed 's/^/    /'
    bad=1
  fi
  targets=$(sed -n 's/^# expect-fail: *//p' "$patch")
  if [[ -z "${targets// /}" ]]; then
    echo "$name: no \"# expect-fail: test_name ...\" line (add the test programs that must catch the bug)"
    bad=1
    continue
  fi
  for target in $targets; do
    if ! compgen -G "tests/*/$target.cpp" >/dev/null; then
      echo "$name: expect-fail names $target, but there is no tests/*/$target.cpp (fix the name)"
      bad=1
    fi
  done
done

if [[ $bad -ne 0 ]]; then
  echo "mutation patches: problems above (tests/mutations/check-apply.sh)"
  exit 1
fi
echo "mutation patches: all $count apply and name existing tests"

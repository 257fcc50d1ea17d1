#!/usr/bin/env bash
# Checks that every tracked C++/CUDA source (and every new one git does not ignore) is formatted as .clang-format says (clang-format 14,
# which installer/install-deps.sh installs; another version may format differently). Prints the files
# that are not, and the command that formats them; exits non-zero if any is not. Changes nothing.
#
#   installer/check-format.sh
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format}
if ! command -v "$format" >/dev/null; then
  echo "check-format.sh: $format not found: run installer/install-deps.sh (Debian package clang-format)" >&2
  exit 2
fi
version=$("$format" --version)
[[ "$version" == *"version 14."* ]] ||
  echo "check-format.sh: warning: expected clang-format 14, found: $version (results may differ)" >&2

# One clang-format per batch of files; it names each unformatted file in its warnings.
patterns=('*.cpp' '*.h' '*.cu' '*.cuh')
files=()
while IFS= read -r -d '' file; do
  [[ -f "$file" ]] && files+=("$file")  # a tracked file deleted in the work tree is not checked
  # (new files count too: a change is checked before it is committed, as in a fresh clone)
done < <(git ls-files -z --cached --others --exclude-standard "${patterns[@]}")
report=$(printf '%s\0' "${files[@]}" | xargs -0 "$format" --dry-run --Werror 2>&1) && status=0 || status=$?
mapfile -t unformatted < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)

if [[ $status -ne 0 && ${#unformatted[@]} -eq 0 ]]; then
  echo "check-format.sh: $format failed:" >&2
  echo "$report" >&2
  exit 2
fi
if [[ ${#unformatted[@]} -gt 0 ]]; then
  echo "${#unformatted[@]} file(s) not formatted as .clang-format says:"
  printf '  %s\n' "${unformatted[@]}"
  echo "fix them with:"
  if [[ ${#unformatted[@]} -le 10 ]]; then
    echo "  $format -i ${unformatted[*]}"
  else
    echo "  git ls-files -z ${patterns[*]@Q} | xargs -0 $format -i"
  fi
  exit 1
fi
echo "all C++ sources are formatted"

#!/usr/bin/env bash
# Configures and builds MixerLab into build/ (ccache-accelerated). The GUI is part of the build when
# MIXERLAB_BUILD_GUI is on (the default) and Qt 6 and QCustomPlot are found.
#
#   installer/build.sh [extra cmake args]                   configure, build everything
#   installer/build.sh --target NAME... [extra cmake args]  configure, build only those targets
#
# MIXERLAB_BUILD_TARGETS="NAME ..." in the environment does the same as --target. A named target this
# configuration does not have (mixerlab-gui without the GUI) is skipped with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

read -r -a targets <<<"${MIXERLAB_BUILD_TARGETS:-}"
cmake_args=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--target" ]]; then
    shift
    while [[ $# -gt 0 && "$1" != -* ]]; do
      targets+=("$1")
      shift
    done
  else
    cmake_args+=("$1")
    shift
  fi
done

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
if [[ ${#targets[@]} -eq 0 ]]; then
  cmake --build build -j"$jobs"
  exit 0
fi
present=()
for target in "${targets[@]}"; do
  if ninja -C build -t query "$target" >/dev/null 2>&1; then
    present+=("$target")
  else
    echo "build.sh: this configuration has no target $target: skipped"
  fi
done
[[ ${#present[@]} -gt 0 ]] || { echo "build.sh: none of the targets ${targets[*]} exists" >&2; exit 1; }
cmake --build build -j"$jobs" --target "${present[@]}"

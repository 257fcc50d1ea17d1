#!/usr/bin/env bash
# Configures and builds MixerLab into build/ (ccache-accelerated). Builds the GUI when Qt Widgets
# and QCustomPlot are installed. Usage: installer/build.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$jobs"

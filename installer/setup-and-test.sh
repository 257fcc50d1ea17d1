#!/usr/bin/env bash
# The README's second command (and what CI runs): install dependencies, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash installer/install-deps.sh
bash installer/build.sh
cd build
ctest --output-on-failure --timeout 900 -j1

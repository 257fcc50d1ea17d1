#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main job on the bundled demo
# project: the desktop GUI when a display is available, otherwise the headless CLI demo (trains the
# demo project's runs one after another and prints their loss).
set -euo pipefail
cd "$(dirname "$0")/.."
bash installer/install-deps.sh
# Only the two programs it runs (the GUI runs the CLI for its jobs); the tests are left to
# setup-and-test.sh. A GUI-less configuration (MIXERLAB_BUILD_GUI=OFF) skips mixerlab-gui.
bash installer/build.sh --target mixerlab mixerlab-gui
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/gui/mixerlab-gui ]; then
  exec build/app/gui/mixerlab-gui projects/demo/project.json
fi
echo "no display: running the headless demo (mixerlab demo projects/demo/project.json)"
build/app/cli/mixerlab demo projects/demo/project.json
build/app/cli/mixerlab runs projects/demo/project.json

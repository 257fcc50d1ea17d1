#!/usr/bin/env bash
# Installs every Debian 12 package MixerLab needs to build, test and run (idempotent: a second run
# only checks). Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libtorch-dev                 # LibTorch 1.13 (CPU), no TorchConfig.cmake: cmake/MixerLabTorch.cmake falls back
  libopenblas0-pthread         # LibTorch calls the system BLAS; the default reference BLAS is ~20x slower
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev
  libqcustomplot-dev           # provides the QCustomPlotQt6 CMake target
  libsentencepiece-dev sentencepiece
  libzstd-dev zlib1g-dev zstd  # compressed corpora (.gz, .zst); the zstd tool checks a damaged file
  libpcre2-dev                 # PCRE2: the regex pre-tokenizers of byte-level (GPT-2, Llama-3) tokenizer.json files
  libspdlog-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libgloo-dev openssh-client openssh-server
  xvfb xauth                   # headless GUI tests and screenshots
  iproute2                     # ip netns: the multi-node test puts two ranks in two network namespaces
  slurm-wlm munge              # a real Slurm on loopback for the cluster tests (tests/slurm_cluster.h)
  clang-format                 # clang-format 14: installer/check-format.sh
  python3                      # tests/check-unity-names.py (setup-and-test.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "all ${#PACKAGES[@]} packages already installed"
fi

# LibTorch must resolve libblas.so.3 to OpenBLAS, not the reference implementation.
blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || true)
case "$blas" in
  *openblas*) echo "BLAS: $blas" ;;
  *) echo "warning: libblas.so.3 resolves to $blas, not OpenBLAS; run: update-alternatives --config libblas.so.3-x86_64-linux-gnu" >&2 ;;
esac

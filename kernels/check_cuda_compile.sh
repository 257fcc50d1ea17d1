#!/usr/bin/env bash
# Compile check of the CUDA kernels without a CUDA LibTorch or a GPU: every kernels/cuda/*.cu with
# nvcc alone (they include no torch headers), for each architecture given (default: those the
# CMake build targets), plus a host-only syntax check of the torch-facing wrappers against the
# installed LibTorch headers when they include ATen/cuda (Debian's do). Nothing is run.
#   kernels/check_cuda_compile.sh [arch ...]        e.g. kernels/check_cuda_compile.sh 80 90
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda_root=$(dirname "$(dirname "$nvcc")")
if [[ $# -gt 0 ]]; then
  archs=("$@")
elif "$nvcc" --list-gpu-arch 2>/dev/null | grep -q compute_70; then
  archs=(70 80 90)
else
  archs=(75 80 90)  # CUDA 13 dropped sm_70
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for cu in kernels/cuda/*.cu; do
  for arch in "${archs[@]}"; do
    if "$nvcc" -std=c++17 -O3 -I. -arch="sm_$arch" -c "$cu" -o "$out/$(basename "$cu" .cu)_$arch.o"; then
      echo "ok      $cu sm_$arch"
    else
      echo "FAILED  $cu sm_$arch"
      status=1
    fi
  done
done
# The wrappers: a syntax check only (linking needs libtorch_cuda). Debian's LibTorch lacks one
# generated header; an empty stand-in is enough for the syntax.
torch_api=/usr/include/torch/csrc/api/include
if [[ -f /usr/include/ATen/cuda/CUDAContext.h ]]; then
  mkdir -p "$out/stub/c10/cuda/impl"
  [[ -f /usr/include/c10/cuda/impl/cuda_cmake_macros.h ]] || : >"$out/stub/c10/cuda/impl/cuda_cmake_macros.h"
  for cpp in kernels/cuda/*.cpp kernels/causal_token_mix.cpp kernels/residual_layer_norm.cpp kernels/selective_scan.cpp; do
    if ${CXX:-g++} -std=c++17 -fsyntax-only -DMIXERLAB_WITH_CUDA=1 -I. -I"$out/stub" -I"$torch_api" \
        -I"$cuda_root/include" "$cpp"; then
      echo "ok      $cpp (host syntax, MIXERLAB_WITH_CUDA)"
    else
      echo "FAILED  $cpp (host syntax, MIXERLAB_WITH_CUDA)"
      status=1
    fi
  done
else
  echo "skipped the wrappers' syntax check: no ATen/cuda headers under /usr/include"
fi
exit $status

#!/usr/bin/env bash
# Packs a GPU build made on this CPU machine (docs/gpu-build.md, "Build here, run there") into
# .gpucarry/ of the repository, for the device tool's carry: the build folder without objects
# (programs, shared layer libraries, CTest files) and the Debian libraries the programs need that a
# GPU image lacks (sentencepiece, spdlog, fmt, Qt Core/Test and theirs). The link-only torch stubs
# are left out: the GPU machine's own PyTorch libraries load instead.
#
#   tools/gpu/pack-build.sh BUILD_DIR     (e.g. /work/gpubuild; it must sit at the same path there)
set -euo pipefail
build=${1:?usage: pack-build.sh BUILD_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
carry=$repo/.gpucarry
rm -rf "$carry" && mkdir -p "$carry/lib"
grep -qx '/.gpucarry/' "$repo/.git/info/exclude" 2>/dev/null || echo '/.gpucarry/' >>"$repo/.git/info/exclude"
parent=$(dirname "$build") name=$(basename "$build")
( cd "$parent" && find "$name" -type f \( -perm -u+x -o -name '*.so' -o -name 'CTestTestfile.cmake' \) \
    ! -path '*/CMakeFiles/*' ! -name '*.o' -print0 |
  xargs -0 strip --strip-unneeded 2>/dev/null || true )
( cd "$parent" && find "$name" \( -type f -o -type l \) ! -path '*/CMakeFiles/*' ! -name '*.o' ! -name '*.a' \
    ! -name '*.gch' ! -name '*.ninja*' ! -name 'compile_commands.json' -print0 |
  tar --null -T - -cf - | xz -T0 -6 >"$carry/build.tar.xz" )
# Debian libraries the programs link that are not PyTorch's, CUDA's or glibc's
find "$build" -type f \( -perm -u+x -o -name '*.so' \) ! -path '*/CMakeFiles/*' -print0 | xargs -0 ldd 2>/dev/null |
  awk '/=> \/(usr\/)?lib\/x86_64-linux-gnu\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux-x86-64|libz|libgomp)\.so' |
  while read -r lib; do cp -L "$lib" "$carry/lib/"; done
# SentencePiece is dlopened (core/data/sentencepiece_runtime.cpp), so ldd does not list it: the
# Debian build, with its protobuf bundled inside, is the one MixerLab is built and tested against.
cp -L /usr/lib/x86_64-linux-gnu/libsentencepiece.so.0 /usr/lib/x86_64-linux-gnu/libsentencepiece_train.so.0 "$carry/lib/"
ls "$carry/lib"
tar -C "$carry" -cf - lib | xz -T0 -6 >"$carry/lib.tar.xz" && rm -rf "$carry/lib"
du -sh "$carry" "$carry"/*

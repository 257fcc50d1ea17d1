#!/usr/bin/env bash
# Builds MixerLab's core, CLI and test programs on a GPU machine that has a CUDA PyTorch but no
# Debian packages and no internet (docs/gpu-build.md). Two steps:
#
#   installer/gpu-node.sh pack [DIR]          here, on Debian 12 with internet: downloads the .deb
#                                             files the core and its tests need into DIR (default
#                                             gpu-debs/, about 17 MB); copy DIR to the GPU machine
#   installer/gpu-node.sh build [DIR] [BUILD] there: unpacks DIR into DIR/root (no root rights, no
#                                             dpkg database), configures against the PyTorch's
#                                             LibTorch and the unpacked libraries, builds into
#                                             BUILD (default build-gpu) and prints how to run
#   installer/gpu-node.sh env [DIR]           prints the LD_LIBRARY_PATH line the built programs need
#
# Gloo is not carried: the PyTorch wheel has its own inside libtorch_cpu, and Debian's would clash.
# Qt Core and Qt Test come along only because the test programs are Qt Test programs; the GUI is
# not built there.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  libsentencepiece-dev libsentencepiece0
  libpcre2-dev libpcre2-8-0    # tokenizer.json regex pre-tokenizers
  libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
  libcli11-dev nlohmann-json3-dev libsqlite3-dev
  libzstd-dev libzstd1 zlib1g-dev zlib1g  # compressed corpora (core/data/compressed_reader.cpp)
  # Qt Test programs (Core + Test, moc) and the libraries Qt Core loads
  qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin libqt6core6 libqt6test6
  libicu72 libdouble-conversion3 libpcre2-16-0 libb2-1 libmd4c0
)

step=${1:-}
debs=${2:-gpu-debs}
root="$debs/root"
libdir="$root/usr/lib/x86_64-linux-gnu"

unpack() {
  [[ -d "$debs" ]] || { echo "error: $debs not found: run 'installer/gpu-node.sh pack' on a Debian 12 machine and copy it here" >&2; exit 1; }
  if [[ ! -f "$root/.unpacked" ]]; then
    mkdir -p "$root"
    for f in "$debs"/*.deb; do dpkg-deb -x "$f" "$root" 2>/dev/null || {
      # dpkg-deb may be missing on a non-Debian image: a .deb is an ar archive holding data.tar.*
      (tmp=$(mktemp -d) && cd "$tmp" && ar x "$OLDPWD/$f" && tar -xf data.tar.* -C "$OLDPWD/$root" && rm -rf "$tmp")
    }; done
    # The .pc files name /usr as their prefix: point them at the unpacked tree.
    sed -i "s|^prefix=/usr$|prefix=$(cd "$root" && pwd)/usr|" "$libdir"/pkgconfig/*.pc
    # Debian's unversioned .so links are absolute (/usr/lib/...): make them relative.
    for link in "$libdir"/*.so; do
      [[ -L "$link" ]] && ln -sf "$(basename "$(readlink "$link")")" "$link"
    done
    touch "$root/.unpacked"
  fi
}

case "$step" in
  pack)
    mkdir -p "$debs"
    (cd "$debs" && apt-get download "${PACKAGES[@]}")
    du -sh "$debs"
    ;;
  env)
    echo "export LD_LIBRARY_PATH=$(cd "$libdir" && pwd)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
    ;;
  build)
    build=${3:-build-gpu}
    unpack
    abs_root=$(cd "$root" && pwd)
    torch_prefix=${TORCH_PREFIX-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')}
    export LD_LIBRARY_PATH="$abs_root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PKG_CONFIG_PATH="$abs_root/usr/lib/x86_64-linux-gnu/pkgconfig:$abs_root/usr/share/pkgconfig"
    torch_include="$torch_prefix/../../include"
    [[ -z "$torch_prefix" || -d "$torch_include/gloo" ]] ||
      echo "warning: $torch_include has no gloo/ headers: core/distributed needs them (docs/gpu-build.md)" >&2
    cuda=OFF
    command -v nvcc >/dev/null && cuda=ON
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DMIXERLAB_BUILD_GUI=OFF -DMIXERLAB_WITH_CUDA=$cuda \
      -DCMAKE_PREFIX_PATH="$torch_prefix;$abs_root/usr;$abs_root/usr/lib/x86_64-linux-gnu/cmake" \
      -DQT_HOST_PATH="$abs_root/usr"
    [[ -n "${CONFIGURE_ONLY:-}" ]] && exit 0
    ninja -C "$build"
    echo "built. Before running: $(bash "$0" env "$debs")"
    echo "then: cd $build && ctest --output-on-failure   (GPU rows of test_kernel_references run there)"
    ;;
  *)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac

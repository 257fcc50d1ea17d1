#!/usr/bin/env bash
# Run on a GPU machine: packs what a CPU machine needs to compile and link MixerLab against this
# machine's PyTorch wheel (headers, CMake config, the dynamic symbol tables of its libraries) into
# OUT, plus a description of the machine. See docs/gpu-build.md ("Building here, running there").
set -uo pipefail
out=${1:?usage: collect-sdk.sh OUTDIR}
mkdir -p "$out"
torch_dir=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
site=$(dirname "$torch_dir")
{
  echo "== torch"; python3 -c 'import torch;print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.get_device_name(0), torch.cuda.nccl.version(), torch._C._GLIBCXX_USE_CXX11_ABI)'
  echo "torch_dir=$torch_dir"
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvcc"; nvcc --version
  echo "== gcc"; gcc --version | head -1; g++ --version | head -1
  echo "== cmake"; cmake --version | head -1; ninja --version
  echo "== os"; cat /etc/os-release | head -3; ldd --version | head -1; nproc; free -g | head -2
  echo "== ncu"; which ncu; ls /opt/nvidia 2>/dev/null
  echo "== libstdc++"; strings /usr/lib/x86_64-linux-gnu/libstdc++.so.6 | grep GLIBCXX_3.4.3 | tail -2
  echo "== torch lib"; ls -la "$torch_dir/lib"
  echo "== nvidia libs"; ls -d "$site"/nvidia/*/lib; ls "$site"/nvidia/*/lib | head -80
  echo "== ldd torch_cuda"; ldd "$torch_dir/lib/libtorch_cuda.so"
  echo "== qt"; ls /usr/lib/x86_64-linux-gnu/ | grep -i qt | head
} > "$out/machine.txt" 2>&1
tar -C "$torch_dir" -cf - include share/cmake | xz -T0 -6 | split -b 15M - "$out/torch-sdk.tar.xz."
( cd "$torch_dir/lib" && for f in *.so*; do echo "### $f"; readelf -d -W "$f" | grep -E "SONAME|NEEDED"; readelf --dyn-syms -W "$f"; done ) | xz -T0 -6 > "$out/torch-syms.txt.xz"
ls -la "$out"

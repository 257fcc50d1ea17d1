#!/usr/bin/env bash
# Per-kernel GPU time of one bf16 training step, MixerLab's against the PyTorch reference's, read
# with Nsight Compute (one pass per kernel: gpu__time_duration). Runs on the GPU machine over a
# packed build (tools/gpu/pack-build.sh), as first-light.sh. Writes OUT/kernels-*.csv and a summary
# of the kernels by total time (tools/gpu/kernel_summary.py).
#
#   [PROFILE_REFERENCE=0] tools/gpu/kernel-profile.sh OUT [ARCH D_MODEL]      (default: masked_mixer 1024)
set -u
out=${1:?usage: kernel-profile.sh OUT [ARCH D_MODEL]}
arch=${2:-masked_mixer} width=${3:-1024}
budget_s=600 log_name=profile.log
source "$(dirname "$0")/device-env.sh"
ncu_args=(--metrics gpu__time_duration.sum --csv --print-units base --target-processes all --clock-control none)
# two steps each (one warm-up, one timed), the same model, batch and precision
timeout 200 ncu "${ncu_args[@]}" $ml bench cell --arch $arch --d-model $width --layers 8 --context 512 --batch 32 \
  --vocab 4096 --heads 4 --steps 1 --warmup 1 --device cuda --precision bf16 >"$out/kernels-mixerlab.csv" 2>"$out/ncu-mixerlab.err"
short=${arch/masked_mixer/mixer}
# PROFILE_REFERENCE=0: MixerLab's step alone (the reference's profile does not change between rounds)
[[ ${PROFILE_REFERENCE:-1} == 1 ]] && timeout 200 ncu "${ncu_args[@]}" python3 bench/pytorch_reference/bench_train.py --archs $short --d-models $width --layers 8 \
  --context 512 --tokens-per-step 16384 --steps 1 --warmup 1 --device cuda --precision bf16 >"$out/kernels-pytorch.csv" 2>"$out/ncu-pytorch.err"
[[ -f $out/kernels-pytorch.csv ]] || : >"$out/kernels-pytorch.csv"
python3 tools/gpu/kernel_summary.py "$out/kernels-mixerlab.csv" "$out/kernels-pytorch.csv" | tee "$out/kernel-summary.txt"

#!/usr/bin/env bash
# One round of GPU speed measurements, on the GPU machine over a packed build
# (tools/gpu/pack-build.sh), within a time budget, side by side in one sitting: the GPU rows of
# the kernel and mixer-path tests, bf16 demo training through each mixer stack path, the D=1024 N=8
# mixer training step on each stack path (MIXERLAB_MIXER_STACK) alternating with the PyTorch
# reference, Llama D=512 N=8 beside its reference, the kernels (bf16 residual + LayerNorm, the
# selective scan against its memory bound), decoding, and an Nsight Compute profile of the mixer step.
#
#   [SKIP='step|step...'] tools/gpu/speed-round.sh OUT BUDGET_S
set -u
out=${1:?usage: speed-round.sh OUT BUDGET_S}
budget_s=${2:-420}
log_name=speed-round.log
source "$(dirname "$0")/device-env.sh"
bench=$out/bench.log
W=/tmp/sr
mkdir -p $W

if ! $ml --version >>"$log" 2>&1; then
  echo "mixerlab does not start:" | tee -a "$log"; ldd $ml | grep -i "not found" | tee -a "$log"; exit 1
fi
step probe 20 "nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; python3 -c 'import torch; print(torch.__version__, torch.version.cuda)'"
step gpu-tests 90 "cd $B && ctest -R 'test_kernel_references|test_mixer_stack_paths|test_mixed_precision|test_train_step' --output-on-failure -V 2>&1 | grep -E 'PASS|FAIL|SKIP|QWARN|Totals|tests passed|relative error' | grep -v ': PASS' | head -80"

# The demo mixer trained in bf16 through each path: the eval losses should agree closely.
P=/work/main/projects/demo/project.json
for path in modules fused; do
  step "train-$path" 60 "MIXERLAB_MIXER_STACK=$path $ml train $P --run mixer --device cuda --precision bf16 --out $W/runs --run-id mixer-$path | tail -1; grep -h eval_loss $W/runs/mixer-$path/metrics.jsonl | tail -3"
done

grid="--grid --d-models 1024 --layers 8 --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16"
ref="python3 /work/main/bench/pytorch_reference/bench_train.py --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16"
cellargs="--d-model 1024 --layers 8 --context 512 --batch 32 --vocab 4096 --heads 4 --steps 20 --warmup 5 --device cuda --precision bf16 --phases"
for round in 1 2; do
  step "mixer-fused-$round" 40 "$ml bench train $grid --archs mixer --json $out/mixer-fused-$round.json 2>&1 | tee -a $bench | tail -1"
  step "mixer-token-major-$round" 40 "MIXERLAB_MIXER_STACK=token_major $ml bench train $grid --archs mixer --json $out/mixer-token-major-$round.json 2>&1 | tee -a $bench | tail -1"
  step "mixer-modules-$round" 40 "MIXERLAB_MIXER_STACK=modules $ml bench train $grid --archs mixer --json $out/mixer-modules-$round.json 2>&1 | tee -a $bench | tail -1"
  step "mixer-pytorch-$round" 60 "$ref --archs mixer --d-models 1024 --layers 8 --phases --json $out/mixer-pytorch-$round.json 2>&1 | tee -a $bench | tail -2"
done
step phases-mixer 40 "for path in fused modules; do echo \$path; MIXERLAB_MIXER_STACK=\$path $ml bench cell --arch masked_mixer $cellargs | tail -1 | tee -a $bench; done"
step llama 90 "$ml bench train --grid --archs llama --d-models 512 --layers 8 --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16 --json $out/llama.json 2>&1 | tee -a $bench | tail -1; $ref --archs llama --d-models 512 --layers 8 --phases --json $out/llama-pytorch.json 2>&1 | tee -a $bench | tail -2"
step kernels 60 "$ml bench kernels --device cuda --batch 16 --width 1024 --lengths 512 --repeats 10 2>&1 | tee -a $bench"
step generate 90 "$ml bench generate --device cuda --d-model 512 --layers 8 --prompts 64,480 --batch 1,16 --repeats 3 2>&1 | tee -a $bench"
step generate-graphs 90 "MIXERLAB_DECODE_GRAPHS=on $ml bench generate --device cuda --arch masked_mixer --arch mamba --d-model 512 --layers 8 --prompts 64,480 --batch 1,16 --repeats 3 2>&1 | tee -a $bench"
step memory 60 "$ml bench memory --device cuda --archs mixer llama --d-model 512 --layers 8 --contexts 512 1024 2048 4096 --tokens-per-step 16384 --steps 2 --warmup 1 --precision bf16 2>&1 | tee -a $bench | tail -8"
step profile 150 "PROFILE_REFERENCE=0 bash /work/main/tools/gpu/kernel-profile.sh $out/profile"
step compile 150 "$ref --archs mixer --d-models 1024 --layers 8 --compile 2>&1 | tee -a $bench | tail -2"
echo "total $((SECONDS - start_s)) s" | tee -a "$log"

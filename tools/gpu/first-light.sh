#!/usr/bin/env bash
# GPU first light: runs on the GPU machine over a build made on a CPU machine
# (tools/gpu/pack-build.sh), within a time budget, writing its logs to OUT. Each step has its own
# timeout and the script goes on when one fails, so whatever ran comes back. docs/gpu-build.md says
# what it checks and what it found.
#
#   [SKIP='step|step...'] tools/gpu/first-light.sh OUT BUDGET_S
set -u
out=${1:?usage: first-light.sh OUT BUDGET_S}
budget_s=${2:-540}
bench=$out/bench.log
source "$(dirname "$0")/device-env.sh"
W=/tmp/fl
mkdir -p $W

if ! $ml --version >>"$log" 2>&1; then  # nothing else can run: say why at once
  echo "mixerlab does not start:" | tee -a "$log"; ldd $ml | grep -i "not found" | tee -a "$log"; exit 1
fi
step probe 30 "$ml probe; nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv"
# where a test program crashes: a backtrace (cuda-gdb also debugs host code; gdb is not installed)
step backtraces 60 "ldconfig -p | grep -i sentencepiece; for t in test_mamba test_tokenizer test_transformer_variants; do echo \"--- \$t\"; cd /tmp && timeout 18 cuda-gdb -batch -ex run -ex bt --args $B/tests/\$t 2>&1 | grep -vE '^\[(New|Thread|Detaching)|^PASS' | tail -25; done"
step kernel-tests 90 "cd $B && ctest -R 'test_kernel_references|test_mixed_precision|test_rank_device|test_train_step' --output-on-failure -V 2>&1 | grep -E 'PASS|FAIL|SKIP|QWARN|Totals|tests passed|relative error' | head -150"

ctest_started_s=$((SECONDS - start_s))
( cd $B && timeout -k 5 $((budget_s / 2)) ctest -j8 --timeout 200 -E 'test_kernel_references' >$out/ctest.log 2>&1 ) &
ctest_pid=$!

# --- training on cuda: fp32, bf16, fp16; two fp32 runs (determinism); a kill and resume -----------
P=/work/main/projects/demo/project.json
for prec in fp32 bf16 fp16; do
  step "train-$prec" 60 "$ml train $P --run mixer --device cuda --precision $prec --out $W/runs --run-id mixer-$prec | tail -4; grep -h eval_loss $W/runs/mixer-$prec/metrics.jsonl | tail -6"
done
step train-fp32-again 60 "$ml train $P --run mixer --device cuda --precision fp32 --out $W/runs --run-id mixer-fp32-again | tail -2"
step kill-resume 120 "
  $ml train $P --run mixer --device cuda --precision fp32 --out $W/runs --run-id mixer-killed >/dev/null 2>&1 &
  pid=\$!
  for i in \$(seq 1 600); do sleep 0.1; ls $W/runs/mixer-killed/checkpoints 2>/dev/null | grep -q step-00000150 && break; done
  kill -9 \$pid; wait \$pid; echo killed after checkpoints: \$(ls $W/runs/mixer-killed/checkpoints)
  $ml train $P --run mixer --device cuda --precision fp32 --out $W/runs --run-id mixer-killed --resume | tail -2
  python3 /work/main/tools/gpu/compare_runs.py $W/runs/mixer-fp32 $W/runs/mixer-fp32-again $W/runs/mixer-killed"
step train-llama-bf16 60 "$ml train $P --run transformer --device cuda --precision bf16 --out $W/runs --run-id llama-bf16 | tail -2; grep -h eval_loss $W/runs/llama-bf16/metrics.jsonl | tail -3"

# --- analysis on the GPU against the CPU ------------------------------------------------------------
C=$W/runs/mixer-fp32
step generate 60 "for d in cuda cpu; do $ml generate --checkpoint $C --prompt 'Once upon a time' --greedy --max-new-tokens 60 --device \$d --json > $W/gen-\$d.json; done; python3 /work/main/tools/gpu/compare_runs.py --generate $W/gen-cuda.json $W/gen-cpu.json"
step generate-llama 60 "for d in cuda cpu; do $ml generate --checkpoint $W/runs/llama-bf16 --prompt 'Once upon a time' --greedy --max-new-tokens 60 --device \$d --json > $W/genl-\$d.json; done; python3 /work/main/tools/gpu/compare_runs.py --generate $W/genl-cuda.json $W/genl-cpu.json"
step invert 120 "for d in cuda cpu; do $ml invert --checkpoint $C --eval-texts 4 --layer 1 --layer last --iterations 300 --device \$d --quiet --json > $W/inv-\$d.json; done; python3 /work/main/tools/gpu/compare_runs.py --invert $W/inv-cuda.json $W/inv-cpu.json"
step retrieval 90 "for d in cuda cpu; do $ml retrieval build --checkpoint $C --synthetic 96 --out $W/ret-\$d --device \$d 2>&1 | tail -1; done; python3 /work/main/tools/gpu/compare_runs.py --retrieval $W/ret-cuda $W/ret-cpu"

# --- NCCL: one GPU rank through launch; NCCL against Gloo on the same data -----------------------
for be in nccl gloo; do
  step "launch-$be" 90 "$ml launch --nproc 1 --backend $be -- train $P --run mixer --device cuda --precision fp32 --max-steps 100 --out $W/runs --run-id dp-$be 2>&1 | grep -iE 'error' | head -5; grep -h 'data parallel' $W/runs/dp-$be/log.txt"
done
step nccl-vs-gloo 20 "python3 /work/main/tools/gpu/compare_runs.py $W/runs/dp-nccl $W/runs/dp-gloo"

# --- the whole suite, run beside the checks above (none of them is timed) --------------------------
echo "=== ctest: waiting (started at $ctest_started_s s)" >>"$log"
wait $ctest_pid; echo "=== ctest: rc $? at $((SECONDS - start_s)) s" | tee -a "$log"
tail -30 $out/ctest.log >>"$log"

# --- speed ---------------------------------------------------------------------------------
step bench-kernels 60 "$ml bench kernels --device cuda 2>&1 | tee -a $bench"
# Mixer D=1024 N=8 and Llama D=512 N=8 at T=512, 16,384 tokens per step, bf16: the fused AdamW
# (the default on a GPU) against the foreach ops and LibTorch's loop (MIXERLAB_OPTIMIZER), then each
# step split into forward / backward / optimizer, beside the PyTorch reference's split.
grid="--grid --d-models 1024 --layers 8 --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16"
cellargs="--d-model 1024 --layers 8 --context 512 --batch 32 --vocab 4096 --heads 4 --steps 20 --warmup 5 --device cuda --precision bf16 --phases"
step bench-train-mixer 90 "$ml bench train $grid --archs mixer --json $out/mixerlab-train.json 2>&1 | tee -a $bench | tail -3"
step bench-train-mixer-library 90 "MIXERLAB_OPTIMIZER=library $ml bench train $grid --archs mixer 2>&1 | tee -a $bench | tail -2"
step bench-train-mixer-foreach 90 "MIXERLAB_OPTIMIZER=foreach $ml bench train $grid --archs mixer 2>&1 | tee -a $bench | tail -2"
step phases-mixer 60 "$ml bench cell --arch masked_mixer $cellargs | tail -1 | tee -a $bench; MIXERLAB_OPTIMIZER=library $ml bench cell --arch masked_mixer $cellargs | tail -1 | tee -a $bench"
step bench-train-ref 120 "python3 /work/main/bench/pytorch_reference/bench_train.py --archs mixer --d-models 1024 --layers 8 --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16 --phases --json $out/pytorch-train.json 2>&1 | tee -a $bench | tail -3"
llama="--d-models 512 --layers 8 --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16"
step bench-train-llama 150 "$ml bench train --grid --archs llama $llama --json $out/mixerlab-llama.json 2>&1 | tee -a $bench | tail -2; MIXERLAB_OPTIMIZER=library $ml bench train --grid --archs llama $llama 2>&1 | tee -a $bench | tail -2; $ml bench cell --arch llama ${cellargs/--d-model 1024/--d-model 512} | tail -1 | tee -a $bench; python3 /work/main/bench/pytorch_reference/bench_train.py --archs llama $llama --phases 2>&1 | tee -a $bench | tail -3"
step profilers 10 "command -v nsys ncu nvcc; ls /usr/local/cuda*/bin 2>/dev/null | grep -iE 'nsys|ncu' ; ls -d /opt/nvidia/* 2>/dev/null"
step bench-generate 60 "$ml bench generate --device cuda --d-model 512 --layers 8 --prompts 64,480 2>&1 | tee -a $bench"
step bench-memory 90 "$ml bench memory --device cuda --archs mixer llama --d-model 512 --layers 8 --contexts 512 1024 2048 4096 --tokens-per-step 16384 --steps 2 --warmup 1 --precision bf16 2>&1 | tee -a $bench"
step ncu-token-mix 90 "ncu --kernel-name regex:mixTile --launch-count 3 --section SpeedOfLight --clock-control none $ml bench kernels --device cuda --lengths 512 --repeats 1 --batch 32 --width 1024 2>&1 | grep -E 'mixTile|Throughput|Duration|Elapsed' | head -30"
step bench-train-ref-compile 150 "python3 /work/main/bench/pytorch_reference/bench_train.py --archs mixer --d-models 1024 --layers 8 --context 512 --tokens-per-step 16384 --steps 20 --warmup 5 --device cuda --precision bf16 --compile 2>&1 | tee -a $bench"
echo "total $((SECONDS - start_s)) s" | tee -a "$log"

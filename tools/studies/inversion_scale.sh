#!/usr/bin/env bash
# The inversion-scale study of docs/inversion.md: does "a small embedding does not invert" survive a
# descent matched to the embedding's scale? Inverts a masked mixer (D=256) and a Llama (D=128, 4 heads),
# 4 blocks each, T=64, with both embedding inits (N(0,1) and N(0,0.02)), at every layer, with the
# research's descent (--scale research: z0 ~ N(0,1), eta 0.02 -> 0.002) and the scale-aware one
# (--scale embedding: both times the embedding's standard deviation), untrained and, with
# --train-steps N > 0, after N training steps on the demo corpus. Prints one Markdown table: mean
# normalised Hamming distance (top-5) per layer over the first 4 eval documents.
#
#   tools/studies/inversion_scale.sh [--mixerlab build/app/cli/mixerlab] [--out DIR] [--train-steps N]
#                                    [--iterations 500] [--texts 4]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
mixerlab=$repo/build/app/cli/mixerlab
out=$(mktemp -d --suffix=-inversion-scale)
train_steps=0
iterations=500
texts=4
while [[ $# -gt 0 ]]; do
  case $1 in
    --mixerlab) mixerlab=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --train-steps) train_steps=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --texts) texts=$2; shift 2 ;;
    *) echo "unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
data=$repo/projects/demo/data
cat > "$out/project.json" <<EOF
{
  "corpus": {"train": "$data/stories-b.txt", "eval": "$data/stories-a.txt", "format": "blank_line"},
  "tokenizer": {"vocab_size": 1024},
  "defaults": {
    "model": {"n_layers": 4, "context_length": 64, "n_heads": 4},
    "train": {"device": "cpu", "max_steps": $(( train_steps > 0 ? train_steps : 1 )), "batch_size": 16, "learning_rate": 0.0005, "warmup_steps": 20, "seed": 3,
              "eval_every": 100, "checkpoint_every": 100, "log_every": 50, "batch_mode": "padded"}
  },
  "runs": [
    {"name": "mixer-unit", "model": {"arch": "masked_mixer", "d_model": 256}},
    {"name": "mixer-small", "model": {"arch": "masked_mixer", "d_model": 256, "options": {"embedding_init_std": 0.02}}},
    {"name": "llama-small", "model": {"arch": "llama", "d_model": 128}},
    {"name": "llama-unit", "model": {"arch": "llama", "d_model": 128, "options": {"embedding_init_std": 1.0}}}
  ]
}
EOF
declare -A label=([mixer-unit]="mixer D=256, N(0,1) (research)" [mixer-small]="mixer D=256, N(0,0.02)"
                  [llama-small]="Llama D=128, N(0,0.02) (research)" [llama-unit]="Llama D=128, N(0,1)")
runs=(mixer-unit mixer-small llama-small llama-unit)
states=(untrained)
if (( train_steps > 0 )); then
  states+=(trained)
  for run in "${runs[@]}"; do
    "$mixerlab" train "$out/project.json" --run "$run" --out "$out/runs" >"$out/train-$run.log" 2>&1 ||
      { echo "training $run failed: see $out/train-$run.log" >&2; exit 1; }
  done
fi
echo "| model | state | descent | layers 0-4 (mean Hamming top-5) | final L1 / target L1, deepest layer |"
echo "|---|---|---|---|---|"
for run in "${runs[@]}"; do
  for state in "${states[@]}"; do
    for scale in research embedding; do
      if [[ $state == untrained ]]; then source=(--untrained "$out/project.json" --run "$run")
      else source=(--checkpoint "$out/runs/$run"); fi
      json=$out/$run-$state-$scale.json
      "$mixerlab" invert "${source[@]}" --eval-texts "$texts" --layer all --iterations "$iterations" \
        --scale "$scale" --device cpu --json --quiet >"$json"
      python3 - "$json" "${label[$run]}" "$state" "$scale" <<'PY'
import json, sys
path, name, state, scale = sys.argv[1:5]
results = json.load(open(path))["results"]
layers = sorted({r["layer"] for r in results})
mean = lambda xs: sum(xs) / len(xs)
ham = [mean([r["hamming_top_k"] for r in results if r["layer"] == k]) for k in layers]
deep = [r for r in results if r["layer"] == layers[-1]]
rel = mean([r["final_loss"] / r["target_l1"] for r in deep if r["target_l1"] > 0])
s = results[0]["embedding_std"]
print(f"| {name} | {state} | {scale} (s = {s:.3g}, eta0 = {results[0]['learning_rate']:.3g}) | "
      + ", ".join(f"{h:.3f}" for h in ham) + f" | {rel:.3g} |")
PY
    done
  done
done
echo
echo "(files in $out)"

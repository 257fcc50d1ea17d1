#!/usr/bin/env python3
"""Comparisons for tools/gpu/first-light.sh, printed as one line each.

  compare_runs.py RUN_A RUN_B [RUN_C ...]   losses step by step and final weights, each run against A
  compare_runs.py --generate A.json B.json  greedy token ids of two `generate --json` outputs
  compare_runs.py --invert A.json B.json    Hamming per text and layer of two `invert --json` outputs
  compare_runs.py --retrieval DIR_A DIR_B   embeddings of two `retrieval build` folders
"""
import hashlib
import json
import math
import os
import sys


def metrics(run):
    rows = {}
    for line in open(os.path.join(run, "metrics.jsonl")):
        line = line.strip()
        if line:
            r = json.loads(line)
            rows.setdefault(r["step"], {}).update(r)
    return rows


def latest_weights(run):
    ck = os.path.join(run, "checkpoints")
    steps = sorted(d for d in os.listdir(ck) if d.startswith("step-"))
    return os.path.join(ck, steps[-1], "model.safetensors"), steps[-1]


def tensors(path):
    """A safetensors file as {name: torch tensor} (its format: 8-byte header size, JSON header, data)."""
    import struct
    import torch
    kinds = {"F32": torch.float32, "F64": torch.float64, "BF16": torch.bfloat16, "F16": torch.float16,
             "I64": torch.int64, "I32": torch.int32}
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        begin, end = meta["data_offsets"]
        data = bytearray(blob[8 + n + begin:8 + n + end])
        out[name] = torch.frombuffer(data, dtype=kinds[meta["dtype"]]).reshape(meta["shape"]) if data else \
            torch.zeros(meta["shape"], dtype=kinds[meta["dtype"]])
    return out


def compare_runs(runs):
    base = metrics(runs[0])
    base_w, base_step = latest_weights(runs[0])
    base_hash = hashlib.sha256(open(base_w, "rb").read()).hexdigest()
    print(f"{runs[0]}: last checkpoint {base_step}, sha256 {base_hash[:16]}; final eval "
          f"{[base[s]['eval_loss'] for s in sorted(base) if 'eval_loss' in base[s]][-1]:.6f}")
    for run in runs[1:]:
        other = metrics(run)
        worst = {"train_loss": 0.0, "eval_loss": 0.0}
        common = sorted(set(base) & set(other))
        for s in common:
            for k in worst:
                if k in base[s] and k in other[s]:
                    worst[k] = max(worst[k], abs(base[s][k] - other[s][k]))
        w, step = latest_weights(run)
        h = hashlib.sha256(open(w, "rb").read()).hexdigest()
        diff = 0.0
        if h != base_hash:
            a, b = tensors(base_w), tensors(w)
            diff = max(float((a[n].double() - b[n].double()).abs().max()) for n in a)
        print(f"{run}: {len(common)} common steps; max |d train_loss| {worst['train_loss']:.3g}, "
              f"max |d eval_loss| {worst['eval_loss']:.3g}; last checkpoint {step} "
              f"{'IDENTICAL weights' if h == base_hash else f'weights differ, max |d| {diff:.3g}'}")


def compare_generate(a, b):
    x, y = json.load(open(a)), json.load(open(b))
    same = x["ids"] == y["ids"]
    first = next((i for i, (p, q) in enumerate(zip(x["ids"], y["ids"])) if p != q), None)
    print(f"greedy ids {'IDENTICAL' if same else 'DIFFER from token ' + str(first)} ({len(x['ids'])} vs "
          f"{len(y['ids'])} tokens); {x.get('device', '?')} {x['tokens_per_s']:.1f} tokens/s, "
          f"{y.get('device', '?')} {y['tokens_per_s']:.1f} tokens/s; decoder {x['decoder']}")
    print("text:", x["text"][:200].replace("\n", " "))


def compare_invert(a, b):
    x, y = json.load(open(a))["results"], json.load(open(b))["results"]
    for p, q in zip(x, y):
        print(f"layer {p['layer']}: hamming_exact {p['hamming_exact']:.3f} ({p['device'][:28]}, {p['elapsed_ms']:.0f} ms) "
              f"vs {q['hamming_exact']:.3f} ({q['device'][:12]}, {q['elapsed_ms']:.0f} ms); top5 "
              f"{p['hamming_top5']:.3f} vs {q['hamming_top5']:.3f}")


def compare_retrieval(a, b):
    x, y = tensors(os.path.join(a, "embeddings.safetensors")), tensors(os.path.join(b, "embeddings.safetensors"))
    for name in sorted(x):
        p, q = x[name].double(), y[name].double()
        rel = float((p - q).abs().max() / max(float(q.abs().max()), 1e-30))
        cos = float((p * q).sum(-1).div(p.norm(dim=-1) * q.norm(dim=-1)).min()) if p.dim() == 2 else math.nan
        print(f"{name} {tuple(p.shape)}: max relative difference {rel:.3g}, lowest cosine {cos:.6f}")


def main():
    args = sys.argv[1:]
    if args[0] == "--generate":
        compare_generate(*args[1:3])
    elif args[0] == "--invert":
        compare_invert(*args[1:3])
    elif args[0] == "--retrieval":
        compare_retrieval(*args[1:3])
    else:
        compare_runs(args)


if __name__ == "__main__":
    main()

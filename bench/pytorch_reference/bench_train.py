#!/usr/bin/env python3
"""PyTorch reference for `mixerlab bench train --grid`: trains the same grid cells (architecture x
d_model x layers at one context, a fixed number of tokens per step, random tokens) with plain PyTorch
and prints / writes the same JSON fields (tokens_per_s, mfu, peak_memory_bytes, ...), so
bench/compare.py can put MixerLab's figures beside PyTorch's cell by cell.

The step is the HF-Trainer-style step MixerLab's trainer also runs: forward under autocast, the
loss in fp32, backward (scaled by GradScaler for fp16), gradient clipping at 1.0 (after unscaling),
AdamW lr 5e-4. --precision bf16 is autocast in bf16 without a scaler; --compile and --fused-adamw
are the "tuned" knobs (torch.compile of the model, AdamW(fused=True) on CUDA). Attention is
F.scaled_dot_product_attention (PyTorch 2.x), or the same causal softmax attention written out on
PyTorch 1.13, which has no SDPA (models.causal_attention).

Each cell runs in a child process of this script (as in MixerLab) so a cell that runs out of memory
is reported as "OOM" and its peak memory is its own. Peak memory: torch.cuda.max_memory_allocated
on a GPU, ru_maxrss on the CPU. MFU = training FLOPs per token (models.training_flops_per_token,
MixerLab's model_cost formula) x tokens/s / peak FLOP/s; the peak comes from the same GPU table as
MixerLab's, --peak-tflops, or a measured fp32/bf16 matmul on the CPU.

    python3 bench/pytorch_reference/bench_train.py --device cuda --precision bf16 --json pytorch.json
    python3 bench/compare.py mixerlab.json pytorch.json
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FLOP_FORMULA = (
    "FLOPs per step = training_flops_per_token x tokens per step (MixerLab's model_cost: 3 x forward, "
    "forward = the matrix products at 2 FLOPs per multiply-add, masked zeros and full T x T attention "
    "included, + 2*D*V head). MFU = FLOPs per step / median step time / peak FLOP/s."
)

# Dense peak TFLOP/s: (name part, bf16, fp16 if different else 0, fp32 without TF32); first match wins.
GPU_PEAKS = [
    ("H200", 989.0, 0.0, 67.0),
    ("H100 PCIe", 756.0, 0.0, 51.0),
    ("H100 NVL", 835.0, 0.0, 60.0),
    ("H100", 989.0, 0.0, 67.0),
    ("A100", 312.0, 0.0, 19.5),
    ("V100-PCIE", 0.0, 112.0, 14.0),
    ("V100", 0.0, 125.0, 15.7),
]


def gpu_peak_flops(name, precision):
    for part, bf16, fp16, fp32 in GPU_PEAKS:
        if part in name:
            tflops = {"fp32": fp32, "bf16": bf16, "fp16": fp16 or bf16}[precision]
            return tflops * 1e12 if tflops > 0 else None
    return None


def measure_cpu_peak(precision, n=2048, repeats=5):
    import torch

    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    a, b = torch.randn(n, n).to(dtype), torch.randn(n, n).to(dtype)
    c = a @ b
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        torch.mm(a, b, out=c)
        best = max(best, 2.0 * n**3 / (time.perf_counter() - start))
    return best


def run_cell(spec):
    """Trains one cell in this process and returns its record (raises on failure)."""
    import torch
    from models import build_model, count_parameters, shifted_cross_entropy, training_flops_per_token

    device = torch.device(spec["device"])
    precision = spec["precision"]
    if device.type == "cpu" and precision == "fp16":
        raise ValueError("fp16 autocast is a GPU setting; use bf16 or fp32 on the CPU")
    if spec["threads"] > 0:
        torch.set_num_threads(spec["threads"])
    torch.manual_seed(0)
    record = dict(spec)
    record["baseline_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    model = build_model(spec["arch"], spec["vocab"], spec["d_model"], spec["layers"], spec["context"], spec["heads"])
    model.to(device).train()
    record["params"] = count_parameters(model)
    fused = spec["fused_adamw"] and device.type == "cuda"
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, **({"fused": True} if fused else {}))
    forward = torch.compile(model) if spec["compile"] else model
    scaler = torch.cuda.amp.GradScaler() if precision == "fp16" else None
    autocast_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    ids = torch.randint(0, spec["vocab"], (spec["batch"], spec["context"]), device=device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)

    def phase_end(phases, name, since):
        """With phases: waits for the device and records the phase's milliseconds; returns the new start."""
        if phases is None:
            return since
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        now = time.perf_counter()
        phases[name] = 1000.0 * (now - since)
        return now

    def step(phases=None):
        since = phase_end(phases, "start", time.perf_counter())
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
            logits = forward(ids)
        loss = shifted_cross_entropy(logits, ids)  # fp32: the logits are upcast first
        since = phase_end(phases, "forward", since)
        if scaler is not None:
            scaler.scale(loss).backward()
            since = phase_end(phases, "backward", since)
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)  # skips the update when the gradients hold inf/NaN
            scaler.update()
        else:
            loss.backward()
            since = phase_end(phases, "backward", since)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        phase_end(phases, "optimizer", since)
        return loss.item()  # waits for the device

    loss = 0.0
    for _ in range(spec["warmup"]):
        loss = step()
    step_ms = []
    for _ in range(spec["steps"]):
        start = time.perf_counter()
        loss = step()
        step_ms.append(1000.0 * (time.perf_counter() - start))
    median_ms = statistics.median(step_ms)
    if spec.get("phases"):  # as many steps again, the device synchronised between the phases
        split = [dict() for _ in range(spec["steps"])]
        for phases in split:
            step(phases)
        record["phase_ms_median"] = {name: statistics.median(p[name] for p in split)
                                     for name in ("forward", "backward", "optimizer")}
    tokens = spec["batch"] * spec["context"]
    record.update(
        status="ok",
        step_ms_median=median_ms,
        step_ms_mean=statistics.fmean(step_ms),
        step_ms_min=min(step_ms),
        step_ms_max=max(step_ms),
        tokens_per_s=tokens / (median_ms / 1000.0),
        training_flops_per_token=training_flops_per_token(
            spec["arch"], spec["vocab"], spec["d_model"], spec["layers"], spec["context"]
        ),
        final_loss=loss,
        threads=torch.get_num_threads(),
    )
    if device.type == "cuda":
        record["peak_memory_bytes"] = torch.cuda.max_memory_allocated(device)
        record["peak_memory_source"] = "torch.cuda.max_memory_allocated"
        record["device_name"] = torch.cuda.get_device_name(device)
    else:
        record["peak_memory_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        record["peak_memory_source"] = "cpu: peak resident set of the cell process (ru_maxrss)"
        record["device_name"] = "cpu"
    return record


def cell_main(spec_text):
    spec = json.loads(spec_text)
    try:
        record = run_cell(spec)
    except Exception as error:  # noqa: BLE001 - every failure becomes the cell's status
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        out_of_memory = isinstance(error, MemoryError) or "out of memory" in str(error) or "can't allocate" in str(error)
        record = dict(spec, status="OOM" if out_of_memory else "failed", error=text)
    print(json.dumps(record), flush=True)
    return 0 if record["status"] == "ok" else 4 if record["status"] == "OOM" else 1


def run_in_child(spec, timeout_s):
    try:
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--cell", json.dumps(spec)],
            capture_output=True, text=True, timeout=timeout_s or None,
        )
    except subprocess.TimeoutExpired:
        return dict(spec, status="timeout", error=f"no result after {timeout_s} s")
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    last = (done.stderr.strip().splitlines() or [""])[-1]
    killed = done.returncode == -9 or "out of memory" in done.stderr
    return dict(spec, status="OOM" if killed else "failed", error=f"exit {done.returncode}: {last}")


def parse_list(text, kind=int):
    return [kind(x) for x in text.split(",") if x]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--cell":
        return cell_main(sys.argv[2])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--archs", default="mixer,llama,transfixer,mamba")
    p.add_argument("--d-models", default="256,512,1024")
    p.add_argument("--layers", default="8,16")
    p.add_argument("--context", type=int, default=512)
    p.add_argument("--vocab", type=int, default=4096)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--tokens-per-step", type=int, default=16384)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--device", default="cuda")
    p.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (tuned variant)")
    p.add_argument("--fused-adamw", action="store_true", help="AdamW(fused=True) on CUDA (tuned variant)")
    p.add_argument("--phases", action="store_true",
                   help="then time forward, backward and optimizer apart (device synchronised between)")
    p.add_argument("--peak-tflops", type=float, default=0.0)
    p.add_argument("--cell-timeout-s", type=float, default=0.0)
    p.add_argument("--json", help="write every cell to this file")
    a = p.parse_args()

    import torch

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    if a.compile and not hasattr(torch, "compile"):
        sys.exit(f"--compile needs PyTorch 2.0 or later; this is {torch.__version__} (run without --compile)")
    batch = max(1, a.tokens_per_step // a.context)
    if a.peak_tflops > 0:
        peak, source = a.peak_tflops * 1e12, "--peak-tflops"
    elif a.device.startswith("cuda"):
        name = torch.cuda.get_device_name(torch.device(a.device))
        peak, source = gpu_peak_flops(name, a.precision), f"GPU table ({name})"
    else:
        peak = measure_cpu_peak(a.precision)
        source = f"measured: best of 5 2048x2048 {a.precision} matmuls, {torch.get_num_threads()} threads"
    print(f"pytorch {torch.__version__}, {a.device}, {a.precision}, compile={a.compile}, batch {batch} x {a.context}")
    print(f"peak {peak / 1e9:.1f} GFLOP/s ({source})" if peak else f"peak unknown ({source}): pass --peak-tflops")
    print(FLOP_FORMULA)
    print(f"{'arch':<13} {'d_model':>7} {'layers':>6} {'params':>10} {'ms/step':>10} {'tokens/s':>12} {'MFU':>7} {'peak mem':>10}")
    cells = []
    for arch in a.archs.split(","):
        for d_model in parse_list(a.d_models):
            for layers in parse_list(a.layers):
                spec = dict(arch="masked_mixer" if arch == "mixer" else arch, d_model=d_model, layers=layers,
                            context=a.context, vocab=a.vocab, heads=a.heads, batch=batch,
                            tokens_per_step=batch * a.context, steps=a.steps, warmup=a.warmup, threads=a.threads,
                            device=a.device, precision=a.precision, compile=a.compile, fused_adamw=a.fused_adamw,
                            phases=a.phases)
                if spec["arch"] == "mamba":
                    record = dict(spec, status="skipped", error="no Mamba in the PyTorch reference")
                else:
                    record = run_in_child(spec, a.cell_timeout_s)
                record["peak_flops_per_s"] = peak
                record["mfu"] = (record["training_flops_per_token"] * record["tokens_per_s"] / peak
                                 if record["status"] == "ok" and peak else None)
                cells.append(record)
                if record["status"] == "ok":
                    mfu = f"{100 * record['mfu']:.2f}%" if record["mfu"] is not None else "n/a"
                    print(f"{record['arch']:<13} {d_model:>7} {layers:>6} {record['params'] / 1e6:>9.2f}M "
                          f"{record['step_ms_median']:>10.1f} {record['tokens_per_s']:>12.0f} {mfu:>7} "
                          f"{record['peak_memory_bytes'] / 2**30:>6.2f} GiB  ok", flush=True)
                    if "phase_ms_median" in record:
                        print("    phases (ms, medians): " + ", ".join(
                            f"{k} {v:.2f}" for k, v in record["phase_ms_median"].items()), flush=True)
                else:
                    print(f"{record['arch']:<13} {d_model:>7} {layers:>6}  {record['status']}: {record.get('error', '')}",
                          flush=True)
    if a.json:
        with open(a.json, "w") as out:
            json.dump({"benchmark": "train_grid", "implementation": f"pytorch {torch.__version__}",
                       "peak_flops_per_s": peak, "peak_flops_source": source, "flop_formula": FLOP_FORMULA,
                       "cells": cells}, out, indent=2)
        print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

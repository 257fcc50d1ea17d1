#!/usr/bin/env python3
"""Joins two benchmark JSON files (`mixerlab bench train --grid --json A` and
bench/pytorch_reference/bench_train.py --json B, or two MixerLab runs) cell by cell on
(arch, d_model, layers, context, precision) and prints each cell's figures and the ratios A / B:
tokens/s (> 1: A is faster), MFU, peak memory (< 1: A uses less). Cells present in only one file,
or not "ok" in either, are listed with their status.

    python3 bench/compare.py mixerlab.json pytorch.json
"""
import json
import sys


def key(cell):
    arch = "masked_mixer" if cell["arch"] == "mixer" else cell["arch"]
    return (arch, cell["d_model"], cell["layers"], cell["context"], cell.get("precision", "fp32"))


def ratio(a, b):
    return f"{a / b:7.2f}x" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b else "    n/a"


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        a_doc = json.load(f)
    with open(argv[2]) as f:
        b_doc = json.load(f)
    a_cells = {key(c): c for c in a_doc["cells"]}
    b_cells = {key(c): c for c in b_doc["cells"]}
    print(f"A = {argv[1]} ({a_doc.get('implementation', 'mixerlab')}), B = {argv[2]} "
          f"({b_doc.get('implementation', 'mixerlab')})")
    print(f"{'arch':<13} {'d_model':>7} {'layers':>6} {'context':>7} {'prec':>5} | {'tok/s A':>10} {'tok/s B':>10} "
          f"{'A/B':>8} | {'MFU A':>7} {'MFU B':>7} {'A/B':>8} | {'mem A/B':>8}")
    for k in sorted(set(a_cells) | set(b_cells)):
        a, b = a_cells.get(k), b_cells.get(k)
        head = f"{k[0]:<13} {k[1]:>7} {k[2]:>6} {k[3]:>7} {k[4]:>5} | "
        if a is None or b is None or a.get("status") != "ok" or b.get("status") != "ok":
            status_a = a.get("status") if a else "missing"
            status_b = b.get("status") if b else "missing"
            print(head + f"A {status_a}, B {status_b}")
            continue
        mfu_a, mfu_b = a.get("mfu"), b.get("mfu")
        mfu_text = lambda m: f"{100 * m:6.2f}%" if isinstance(m, (int, float)) else "    n/a"
        print(head + f"{a['tokens_per_s']:>10.0f} {b['tokens_per_s']:>10.0f} {ratio(a['tokens_per_s'], b['tokens_per_s'])} | "
              f"{mfu_text(mfu_a)} {mfu_text(mfu_b)} {ratio(mfu_a, mfu_b)} | "
              f"{ratio(a.get('peak_memory_bytes'), b.get('peak_memory_bytes'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Sums Nsight Compute's per-kernel gpu__time_duration (a --csv export) by kernel name, for two
profiles side by side (MixerLab's step and the PyTorch reference's): which kernels take the time,
and where the two differ. Used by tools/gpu/kernel-profile.sh.

    python3 kernel_summary.py MIXERLAB.csv PYTORCH.csv [TOP]"""
import csv
import io
import re
import sys
from collections import defaultdict


def kernel_times(path):
    """{short kernel name: [total ns, launches]} from an ncu --csv file (other lines skipped)."""
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    totals = defaultdict(lambda: [0.0, 0])
    if start < 0:
        return totals
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = re.sub(r"\(.*", "", row.get("Kernel Name", "?"))[:90]
        value = float(row["Metric Value"].replace(",", ""))
        totals[name][0] += value
        totals[name][1] += 1
    return totals


def main():
    ours, theirs = kernel_times(sys.argv[1]), kernel_times(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    for label, table in (("mixerlab", ours), ("pytorch", theirs)):
        total = sum(v[0] for v in table.values())
        launches = sum(v[1] for v in table.values())
        print(f"== {label}: {total / 1e6:.2f} ms GPU time in {launches} kernels (two steps)")
        for name, (ns, n) in sorted(table.items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"{ns / 1e6:9.3f} ms {n:6d}x  {name}")


if __name__ == "__main__":
    main()

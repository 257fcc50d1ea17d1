#!/usr/bin/env python3
"""Builds link-only stand-ins for a PyTorch wheel's shared libraries from their dynamic symbol tables.

A CPU machine without the wheel (its libraries are ~1 GB) can then compile and link MixerLab against
the wheel's headers: every stub has the real library's SONAME and defines the same symbols (functions
as empty bodies, objects and thread-locals with their real sizes, so copy relocations are sized
right), so the programs it links load the real libraries on the GPU machine. The stubs never run.

usage: make-link-stubs.py SYMS.txt OUT_LIB_DIR   (SYMS.txt: tools/gpu/collect-sdk.sh's torch-syms)
"""
import os
import re
import subprocess
import sys

SKIP = {"libtorch_python.so", "libgomp.so.1"}  # not linked by C++ programs; libgomp comes from gcc


def parse(path):
    libs, current = {}, None
    row = re.compile(r"^\s*\d+:\s+[0-9a-f]+\s+(\S+)\s+(\w+)\s+(\w+)\s+\w+\s+(\S+)\s+(\S+)")
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("### "):
            current = line[4:].strip()
            libs[current] = {"soname": current, "needed": [], "symbols": []}
            continue
        if current is None:
            continue
        if "(SONAME)" in line:
            libs[current]["soname"] = line.split("[", 1)[1].split("]", 1)[0]
        elif "(NEEDED)" in line:
            libs[current]["needed"].append(line.split("[", 1)[1].split("]", 1)[0])
        else:
            m = row.match(line)
            if m:
                size, kind, bind, ndx, name = m.groups()
                if ndx == "UND" or bind == "LOCAL" or not name:
                    continue
                name = name.split("@", 1)[0]
                size = int(size, 0) if size.startswith("0x") else int(size)
                libs[current]["symbols"].append((name, kind, bind, size))
    return libs


def assembly(symbols):
    out, seen = [], set()
    for name, kind, bind, size in symbols:
        if name in seen:
            continue
        seen.add(name)
        binding = ".weak" if bind == "WEAK" else ".globl"
        if kind == "TLS":
            out += [".section .tbss,\"awT\",@nobits", f"{binding} {name}", f".type {name},@tls_object",
                    f".size {name},{max(size, 1)}", f"{name}:", f".zero {max(size, 1)}"]
        elif kind == "OBJECT":
            typ = "@gnu_unique_object" if bind == "UNIQUE" else "@object"
            if bind == "UNIQUE":
                binding = ".globl"
            out += [".data", f"{binding} {name}", f".type {name},{typ}", f".size {name},{max(size, 1)}",
                    f"{name}:", f".zero {max(size, 1)}"]
        else:
            typ = "@gnu_indirect_function" if kind == "IFUNC" else "@function"
            out += [".text", f"{binding} {name}", f".type {name},{typ if kind != 'NOTYPE' else '@function'}",
                    f"{name}:", "ret"]
    return "\n".join(out) + "\n"


def main():
    syms, lib_dir = sys.argv[1], sys.argv[2]
    os.makedirs(lib_dir, exist_ok=True)
    for lib, info in parse(syms).items():
        if lib in SKIP:
            continue
        asm = os.path.join(lib_dir, lib + ".stub.s")
        with open(asm, "w") as f:
            f.write(assembly(info["symbols"]))
        target = os.path.join(lib_dir, lib)
        subprocess.run(["gcc", "-shared", "-nostdlib", "-o", target, asm, f"-Wl,-soname,{info['soname']}"],
                       check=True)
        os.remove(asm)
        print(f"{lib}: {len(info['symbols'])} symbols")


if __name__ == "__main__":
    main()

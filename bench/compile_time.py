#!/usr/bin/env python3
"""Compile time of long elementwise chains: shardc -O3 --timing on chains of
N kernels (exp, then N-1 adds each reading the previous result and the
input), sharded over 2 ranks; sc-fuse makes each one fused kernel.

    python3 bench/compile_time.py [--build build] [--sizes 1000,4000,20000]
                                  [--baseline PATH-TO-ANOTHER-shardc]

Prints a Markdown table: per chain length, the whole compile and sc-fuse
(seconds, from --timing), for shardc and, with --baseline, for the other
binary too, run alternately in one session so the ratio is side by side.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain(n):
    """The model text of an n-kernel chain over a 4x8 input on 2 ranks."""
    shard = '{sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}'
    t = "tensor<4x8xf32>"
    lines = ['sc.mesh @m ["x"=2]',
             f"func.func @main(%x: {t} {shard}) -> {t} {{",
             f"  %s0 = sc.exp %x : {t}"]
    for i in range(1, n):
        lines.append(f"  %s{i} = sc.add %s{i - 1}, %x : ({t}, {t}) -> {t}")
    lines += [f"  return %s{n - 1} : {t}", "}"]
    return "\n".join(lines) + "\n"


def timed(shardc, model, out):
    """(total s, sc-fuse s) from shardc's --timing report."""
    r = subprocess.run([shardc, model, "-O3", "--timing", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    total = re.search(r"Total Execution Time: ([0-9.]+)", r.stderr)
    fuse = re.search(r"([0-9.]+) \(\s*[0-9.]+%\)\s+ScFuse", r.stderr)
    if not total or not fuse:
        raise RuntimeError("no --timing report:\n" + r.stderr)
    return float(total.group(1)), float(fuse.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--sizes", default="1000,4000,20000")
    p.add_argument("--baseline", help="another shardc to time alongside")
    args = p.parse_args()
    shardc = os.path.join(args.build, "bin", "shardc")
    binaries = [("shardc", shardc)]
    if args.baseline:
        binaries.append(("baseline", args.baseline))
    header = "| kernels |"
    rule = "|---:|"
    for name, _ in binaries:
        header += f" {name} total (s) | {name} sc-fuse (s) |"
        rule += "---:|---:|"
    print(header)
    print(rule)
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            model = os.path.join(tmp, f"chain{n}.mlir")
            with open(model, "w") as f:
                f.write(chain(n))
            row = f"| {n} |"
            for _, binary in binaries:
                total, fuse = timed(binary, model,
                                    os.path.join(tmp, "out.shardbin"))
                row += f" {total:.2f} | {fuse:.3f} |"
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

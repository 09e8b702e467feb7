#!/usr/bin/env python3
"""An FNO spectral convolution over a field split along H: shardc's
DFT-as-GEMM partial spectra against gathering the field first, side by side
in one run, on the CPU backend with in-process ranks.

    python3 bench/spectral.py [--build build] [--ranks 2,4] [--size 256]
                              [--channels 32] [--modes 16] [--runs 3]

The layer is FNO's: rfft2, two corners of modes x modes mixed by complex
weights (one sc.einsum with a constant product table), zero blocks, irfft2
back to the field's split. "partial spectra": as written, each rank
transforms its rows and the kept modes are all-reduced. "gather first": the
same layer after an sc.reshard that replicates the field, which is what a
transform that needs whole dims (an FFT on each rank) starts with. Per rank
count: the slowest rank's time per run (one kernel thread per rank) and the
bytes a rank receives, from `shardc --emit=plan`. Prints a Markdown table.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from ring_schedule import slowest_ms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model(ranks, size, channels, modes, gather):
    c, n, m = channels, size, modes
    half = n // 2 + 1
    field = f"tensor<1x{c}x{n}x{n}xf32>"
    spec = f"tensor<1x{c}x{n}x{half}x2xf32>"
    corner = f"tensor<1x{c}x{m}x{m}x2xf32>"
    weight = f"tensor<{c}x{c}x{m}x{m}x2xf32>"
    split = '#sc.sharding<@mesh, [{}, {}, {"x"}, {}]>'
    whole = '#sc.sharding<@mesh, [{}, {}, {}, {}]>'
    x = "%x"
    lines = [f'sc.mesh @mesh ["x"={ranks}]',
             f"func.func @main(%x: {field} {{sc.sharding = {split}}}, "
             f"%w1: {weight}, %w2: {weight}) -> ({field} "
             f"{{sc.sharding = {split}}}) {{"]
    if gather:
        lines.append(f"  %g = sc.reshard %x : {field} to {whole}")
        x = "%g"
    lines += [
        f"  %f = sc.rfft {x} {{dims = array<i64: 2, 3>}} : ({field}) -> {spec}",
        f"  %lo = sc.slice %f {{start = array<i64: 0, 0, 0, 0, 0>, end = "
        f"array<i64: 1, {c}, {m}, {m}, 2>}} : ({spec}) -> {corner}",
        f"  %hi = sc.slice %f {{start = array<i64: 0, 0, {n - m}, 0, 0>, end = "
        f"array<i64: 1, {c}, {n}, {m}, 2>}} : ({spec}) -> {corner}",
        "  %t = sc.constant dense<[[[1.0, 0.0], [0.0, 1.0]], "
        "[[0.0, 1.0], [-1.0, 0.0]]]> : tensor<2x2x2xf32>",
        f'  %a = sc.einsum %lo, %w1, %t {{equation = "bixyp,ioxyq,pqc->boxyc"}}'
        f" : ({corner}, {weight}, tensor<2x2x2xf32>) -> {corner}",
        f'  %b = sc.einsum %hi, %w2, %t {{equation = "bixyp,ioxyq,pqc->boxyc"}}'
        f" : ({corner}, {weight}, tensor<2x2x2xf32>) -> {corner}",
        f"  %z = sc.constant dense<0.0> : tensor<1x{c}x{n - 2 * m}x{m}x2xf32>",
        f"  %cat = sc.concat %a, %z, %b {{dim = 2}} : ({corner}, "
        f"tensor<1x{c}x{n - 2 * m}x{m}x2xf32>, {corner}) -> "
        f"tensor<1x{c}x{n}x{m}x2xf32>",
        f"  %p = sc.pad %cat {{pad = array<i64: 0, 0, 0, {half - m}>}} : "
        f"(tensor<1x{c}x{n}x{m}x2xf32>) -> {spec}",
        f"  %y = sc.irfft %p {{dims = array<i64: 2, 3>, sizes = array<i64: "
        f"{n}, {n}>}} : ({spec}) -> {field}",
        f"  return %y : {field}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def compile_model(build, tmp, name, text):
    src = os.path.join(tmp, name + ".mlir")
    art = os.path.join(tmp, name + ".shardbin")
    with open(src, "w") as f:
        f.write(text)
    shardc = os.path.join(build, "bin", "shardc")
    c = subprocess.run([shardc, src, "-o", art], capture_output=True, text=True)
    if c.returncode != 0:
        sys.exit(c.stderr)
    plan = subprocess.run([shardc, src, "--emit=plan"], capture_output=True,
                          text=True).stdout
    received = max(int(b) for b in re.findall(r"received: (\d+)", plan))
    return art, received


def timed_pair(build, first, second, runs):
    """Each artifact's slowest-rank ms per run, best of 2 rounds that
    alternate the two, so drift on a noisy machine hits both alike."""
    a = b = float("inf")
    for _ in range(2):
        a = min(a, slowest_ms(build, first, runs, False))
        b = min(b, slowest_ms(build, second, runs, False))
    return a, b


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--ranks", default="2,4")
    p.add_argument("--size", type=int, default=256)
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--modes", type=int, default=16)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    n, c, m = args.size, args.channels, args.modes
    print(f"FNO spectral convolution, 1x{c}x{n}x{n}, {m}x{m} modes per "
          f"corner, {os.cpu_count()} cores, 1 thread per rank")
    print()
    print("| ranks | partial spectra (ms) | gather first (ms) | gather / "
          "partial | received per rank: partial / gather (KiB) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in (int(r) for r in args.ranks.split(",")):
            part, part_bytes = compile_model(
                args.build, tmp, "partial%d" % ranks,
                model(ranks, n, c, m, False))
            gath, gath_bytes = compile_model(
                args.build, tmp, "gather%d" % ranks,
                model(ranks, n, c, m, True))
            a, b = timed_pair(args.build, part, gath, args.runs)
            print(f"| {ranks} | {a:.1f} | {b:.1f} | {b / a:.2f}x | "
                  f"{part_bytes / 1024:.0f} / {gath_bytes / 1024:.0f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

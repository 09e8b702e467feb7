#!/usr/bin/env python3
"""A cumulative op over a sequence split across ranks: shardc's carry (one
all-gather of each shard's totals) against gathering the sequence first,
side by side in one run, on the CPU backend with in-process ranks.

    python3 bench/scan.py [--build build] [--ranks 2,4] [--length 262144]
                          [--channels 16] [--op cumsum] [--runs 3]

The model is `op(x, dim=-1)` on (1, channels, length), split along the
sequence, the result split the same way. "carry": as written: each rank
scans its shard from the fold of the shards before it. "gather first": an
sc.reshard replicates the sequence, every rank scans all of it, and the
result is sliced back to the split (what a scan that needs the whole dim
starts with). Per rank count: the slowest rank's time per run (one kernel
thread per rank) and the bytes a rank receives, from `shardc --emit=plan`.
Prints a Markdown table.
"""
import argparse
import os
import sys
import tempfile

from spectral import compile_model, timed_pair

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model(ranks, length, channels, op, gather):
    seq = f"tensor<1x{channels}x{length}xf32>"
    split = '#sc.sharding<@mesh, [{}, {}, {"x"}]>'
    whole = '#sc.sharding<@mesh, [{}, {}, {}]>'
    x = "%x"
    lines = [f'sc.mesh @mesh ["x"={ranks}]',
             f"func.func @main(%x: {seq} {{sc.sharding = {split}}}) -> "
             f"({seq} {{sc.sharding = {split}}}) {{"]
    if gather:
        lines.append(f"  %g = sc.reshard %x : {seq} to {whole}")
        x = "%g"
    lines += [f"  %y = sc.{op} {x} {{dim = -1 : i64}} : ({seq}) -> {seq}",
              f"  return %y : {seq}", "}"]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--ranks", default="2,4")
    p.add_argument("--length", type=int, default=262144)
    p.add_argument("--channels", type=int, default=16)
    p.add_argument("--op", default="cumsum",
                   choices=["cumsum", "cumprod", "cummax", "cummin",
                            "logcumsumexp"])
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    n, c = args.length, args.channels
    print(f"{args.op} over a split sequence, 1x{c}x{n}, {os.cpu_count()} "
          f"cores, 1 thread per rank")
    print()
    print("| ranks | carry (ms) | gather first (ms) | gather / carry | "
          "received per rank: carry / gather (KiB) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in (int(r) for r in args.ranks.split(",")):
            carry, carry_bytes = compile_model(
                args.build, tmp, "carry%d" % ranks,
                model(ranks, n, c, args.op, False))
            gath, gath_bytes = compile_model(
                args.build, tmp, "gather%d" % ranks,
                model(ranks, n, c, args.op, True))
            a, b = timed_pair(args.build, carry, gath, args.runs)
            print(f"| {ranks} | {a:.2f} | {b:.2f} | {b / a:.2f}x | "
                  f"{carry_bytes / 1024:.2f} / {gath_bytes / 1024:.0f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

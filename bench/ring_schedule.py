#!/usr/bin/env python3
"""Causal ring attention: the balanced schedule against the plain ring,
side by side in one run, on the CPU backend with in-process ranks.

    python3 bench/ring_schedule.py [--build build] [--ranks 3,4] [--seq 2048]
                                   [--heads 4] [--dim 64] [--runs 3]

Per ring size P, the slowest rank's time per run with the default
(balanced) schedule and with `shard-run --plain-rings`, one kernel thread
per rank. The balanced ring folds 1 + P - ceil(P/2) blocks in a row instead
of P, but moves no work off the whole: its gain shows only where the P
ranks run at once (at least P cores; the table says how many there are).
Prints a Markdown table.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model(ranks, seq, heads, dim):
    t = "tensor<1x%dx%dx%dxf32>" % (heads, seq, dim)
    split = ('{sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>}')
    return f"""sc.mesh @mesh ["x"={ranks}]
func.func @main(%q: {t} {split}, %k: {t} {split}, %v: {t} {split}) -> {t} {{
  %y = sc.scaled_dot_product_attention %q, %k, %v {{is_causal = true}} : ({t}, {t}, {t}) -> {t}
  return %y : {t}
}}
"""


def slowest_ms(build, artifact, runs, plain):
    cmd = [os.path.join(build, "bin", "shard-run"), artifact, "--random-inputs",
           "--seed", "1", "--bench", str(runs), "--threads", "1"]
    if plain:
        cmd.append("--plain-rings")
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr.strip())
    rows = re.findall(r"^(\d+)\s+([\d.]+)\s+([\d.]+)\s", out.stdout, re.M)
    if not rows:
        sys.exit("no per-rank table in shard-run's output:\n" + out.stdout)
    return max(float(mean) for _, mean, _ in rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--ranks", default="3,4")
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    print(f"causal SDPA, 1x{args.heads}x{args.seq}x{args.dim}, "
          f"{os.cpu_count()} cores, 1 thread per rank")
    print()
    print("| ranks | folds in a row (plain / balanced) | plain ring (ms) "
          "| balanced (ms) | plain / balanced |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in (int(r) for r in args.ranks.split(",")):
            src = os.path.join(tmp, "ring%d.mlir" % ranks)
            art = os.path.join(tmp, "ring%d.shardbin" % ranks)
            with open(src, "w") as f:
                f.write(model(ranks, args.seq, args.heads, args.dim))
            c = subprocess.run([os.path.join(args.build, "bin", "shardc"), src,
                                "-o", art], capture_output=True, text=True)
            if c.returncode != 0:
                sys.exit(c.stderr)
            near = (ranks + 1) // 2 - 1 if ranks >= 3 else 0
            # Alternate, so drift on a noisy machine hits both alike.
            plain = balanced = float("inf")
            for _ in range(2):
                plain = min(plain, slowest_ms(args.build, art, args.runs, True))
                balanced = min(balanced,
                               slowest_ms(args.build, art, args.runs, False))
            print(f"| {ranks} | {ranks} / {ranks - near} | {plain:.1f} | "
                  f"{balanced:.1f} | {plain / balanced:.2f}x |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

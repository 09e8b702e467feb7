#!/usr/bin/env python3
"""CPU-backend benchmark: per model, time and arena bytes per rank on its
mesh against the same model on 1 rank, side by side in one run.

    python3 bench/bench.py [--build build] [--runs 3] [--models unet2d,...]

Models: unet2d, convnet3d, attention (examples/) and unet2d-bf16 (the UNet
in bf16).

Prints a Markdown table. A model the partitioner refuses gets shardc's
first diagnostic line instead of a number; the 1-rank row is always
measured.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {
    "unet2d": "examples/unet2d.mlir",
    "convnet3d": "examples/convnet3d.mlir",
    "attention": "examples/attention.mlir",
    # The UNet with every f32 tensor bf16 (stored in 16 bits, computed in
    # f32 with eager PyTorch's rounding): written out by `model_source`.
    "unet2d-bf16": "examples/unet2d.mlir",
}
BF16 = {"unet2d-bf16"}


def model_source(name, tmp):
    """The model file of `name`: an example, or its bf16 version."""
    src = os.path.join(ROOT, MODELS[name])
    if name not in BF16:
        return src
    out = os.path.join(tmp, name + ".mlir")
    with open(src) as f, open(out, "w") as g:
        g.write(re.sub(r"xf32>", "xbf16>", f.read()))
    return out


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def bench(build, artifact, ranks, runs):
    """Per-rank (mean ms, arena text, workspace text) from `shard-run
    --bench`."""
    cmd = [os.path.join(build, "bin", "shard-run"), artifact,
           "--random-inputs", "--seed", "1", "--bench", str(runs)]
    if ranks:
        cmd += ["--ranks", str(ranks)]
    out = run(cmd)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    rows = re.findall(
        r"^(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+ \w+)\s+([\d.]+ \w+)$",
        out.stdout, re.M)
    if not rows:
        raise RuntimeError("no per-rank table in shard-run's output:\n" +
                           out.stdout)
    return [(float(mean), arena, ws) for _, mean, _, arena, ws in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--models", default=",".join(MODELS))
    args = p.parse_args()
    shardc = os.path.join(args.build, "bin", "shardc")
    print("| model | ranks | time per run (ms, slowest rank) | arena per rank "
          "| workspace per rank | vs 1 rank |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            src = model_source(name, tmp)
            one = os.path.join(tmp, name + "-1.shardbin")
            c = run([shardc, src, "--unpartitioned", "-o", one])
            if c.returncode != 0:
                sys.exit(c.stderr)
            base = bench(args.build, one, 1, args.runs)
            base_ms = max(ms for ms, _, _ in base)
            print(f"| {name} | 1 | {base_ms:.1f} | {base[0][1]} | "
                  f"{base[0][2]} | 1.00 |")
            sharded = os.path.join(tmp, name + "-n.shardbin")
            c = run([shardc, src, "-o", sharded])
            if c.returncode != 0:
                first = (c.stderr.strip().splitlines() or [""])[0]
                print(f"| {name} | mesh | — | — | — | {first} |")
            else:
                res = bench(args.build, sharded, 0, args.runs)
                slow = max(ms for ms, _, _ in res)
                arenas = " / ".join(a for _, a, _ in res)
                spaces = " / ".join(w for _, _, w in res)
                print(f"| {name} | {len(res)} | {slow:.1f} | {arenas} | "
                      f"{spaces} | {base_ms / slow:.2f}x |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

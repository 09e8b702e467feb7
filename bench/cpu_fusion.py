#!/usr/bin/env python3
"""CPU backend: the fused evaluator against the plain kernels, side by side
in one run. The issue asks the CPU target to run the fused regions at least
as fast as the kernels they replace.

    python3 bench/cpu_fusion.py [--build build] [--runs 2] [--model unet2d]

--model names an example (examples/NAME.mlir) or is a model's path (such as
bench/models/masks.mlir: a where() and a mean over a mask).

Compiles the example at -O2 (no fusion: Unary, Binary, Reduce steps) and at
-O3 (sc-fuse: ElementwiseFused, ReductionFused), runs both on their mesh with
`shard-run --profile`, alternating -O2 and -O3 runs, and prints a Markdown
table: per rank, the time of the elementwise and reduction steps (Unary,
Binary, Compare, Select, Cast, Reduce, ElementwiseFused, ReductionFused) and of all steps (the
profile's total) at each level, means over --runs timed runs, the best of
--rounds alternations.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import profile_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The elementwise and reduction steps at either level (-O3 keeps some plain
# steps, e.g. a Reduce whose input another step also reads).
ELEMENTWISE = ("Unary", "Binary", "Compare", "Select", "Cast", "Reduce",
               "ElementwiseFused", "ReductionFused")


def profile(build, artifact, runs):
    """{opcode: [ms per rank]} and the per-rank totals from --profile."""
    out = subprocess.run(
        [os.path.join(build, "bin", "shard-run"), artifact, "--random-inputs",
         "--seed", "1", "--bench", str(runs), "--profile", "--profile-top",
         "0"], capture_output=True, text=True, check=True).stdout
    rows, total = profile_table.parse(out)
    return {op: ms for op, (_, ms, _, _) in rows.items()}, total


def summed(rows, opcodes, rank):
    return sum(rows[o][rank] for o in opcodes if o in rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--model", default="unet2d")
    p.add_argument("--rounds", type=int, default=2,
                   help="alternations of -O2 and -O3; the best is kept")
    args = p.parse_args()
    src = args.model if args.model.endswith(".mlir") else os.path.join(
        ROOT, "examples", args.model + ".mlir")
    with tempfile.TemporaryDirectory() as tmp:
        arts = {}
        for level in ("2", "3"):
            arts[level] = os.path.join(tmp, "O%s.shardbin" % level)
            subprocess.run([os.path.join(args.build, "bin", "shardc"), src,
                            "-O" + level, "-o", arts[level]], check=True)
        best = {}
        for _ in range(args.rounds):
            for level in ("2", "3"):
                rows, total = profile(args.build, arts[level], args.runs)
                if level not in best or sum(total) < sum(best[level][1]):
                    best[level] = (rows, total)
    (plain, plainTotal), (fused, fusedTotal) = best["2"], best["3"]
    print("| %s rank | -O2 elementwise + reduction ms | -O3 (fused) ms "
          "| -O3 / -O2 | -O2 all steps ms | -O3 all steps ms |"
          % os.path.splitext(os.path.basename(args.model))[0])
    print("|---|---|---|---|---|---|")
    for r in range(len(plainTotal)):
        a, b = summed(plain, ELEMENTWISE, r), summed(fused, ELEMENTWISE, r)
        print("| %d | %.1f | %.1f | %.2f | %.1f | %.1f |"
              % (r, a, b, b / a if a else 0, plainTotal[r], fusedTotal[r]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

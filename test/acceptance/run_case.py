#!/usr/bin/env python3
"""Runs one ACCEPTANCE.md case through the tools, as a ctest.

  partitioned: shardc CASE -o X; shard-run X --ranks N --random-inputs
               --check --atol A --rtol R   (N ranks against 1, same inputs)
  pending:     the partitioner cannot handle the case yet. Passes only if
               shardc refuses it with a "not implemented" diagnostic AND
               the unpartitioned model compiles and runs through shard-run on
               one rank. That proves parsing, lowering, the prepare checks and
               that every kernel runs on the case's real shapes, but not the
               numbers: there is nothing independent to compare with until
               the N-rank program exists (the kernels' numbers are checked
               against reference loops in the cpu gtests). It fails loudly
               (XPASS) once the partitioner accepts the case, so that it gets
               promoted.

With --mpiexec the run goes through `MPIEXEC -n N shard-run ...` (the MPI
backend) instead of in-process ranks. With --backend cuda the case is
compiled with --target=cuda (generated kernels in a fatbin) and every rank
runs on the one GPU, ranks as threads of one process (local multi-rank
mode); without a GPU it exits 3, ctest's skip code for these tests (1, a
failure, when SHARDRT_REQUIRE_GPU is set: shard-run decides). With
--host-cuda as well, it runs on the CUDA backend built for the host
(shard-run-hostcuda, runtime/engine/test/hostcuda), so everywhere;
--run-flag=--comm --run-flag=nccl then joins its ranks over the host's
NCCL; with --mpiexec too, its ranks are processes of shard-run-hostcuda
joined by NCCL bootstrapped over MPI.
"""
import argparse
import math
import os
import re
import shlex
import subprocess
import sys


# shard-run's exit status when the backend cannot run here (no GPU).
SKIP = 3


def run(cmd, env=None):
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    sys.stdout.write(r.stdout)
    sys.stdout.write(r.stderr)
    return r


def weight_bounds(case):
    """--random-bound options drawing conv/linear weights and biases like
    PyTorch's default init (uniform, bound 1/sqrt(fan_in)), read from the
    case's argument comments (`//   %name  (shape)  description`), so that
    activations stay O(1) and the f32 tolerances mean what they say."""
    bounds, fan_in = [], None
    args = [m for m in re.finditer(r"^\s*//\s+%(\w+)\s+\(([\d,]*)\)\s+(.*)$",
                                   open(case).read(), re.M)]
    for index, m in enumerate(args):
        shape = [int(d) for d in m.group(2).split(",") if d]
        what = m.group(3).lower()
        if "weight" in what and "norm" not in what and len(shape) >= 2:
            fan_in = math.prod(shape[1:])
            bounds.append(f"arg{index}={1 / math.sqrt(fan_in):.9g}")
        elif "bias" in what and "norm" not in what and fan_in:
            bounds.append(f"arg{index}={1 / math.sqrt(fan_in):.9g}")
    return [x for b in bounds for x in ("--random-bound", b)]


def run_on_host_cuda(a, target, art, check):
    """The artifact on the CUDA backend built for the host: its generated
    kernels (--emit=kernels) built into a library that the stand-in driver
    loads, every rank a thread of shard-run-hostcuda (with --mpiexec, a
    process of it)."""
    cxx, include = a.host_cuda.split(",", 1)
    source = art[:-len(".shardbin")] + ".cu"
    library = art[:-len(".shardbin")] + ".so"
    shardc = os.path.join(a.bin_dir, "shardc")
    if run([shardc] + target + ["--emit=kernels", "-o", source]).returncode:
        return 1
    if run([cxx, "-shared", "-fPIC", "-O1", "-x", "c++", "-I", include,
            source, "-o", library]).returncode:
        return 1
    env = dict(os.environ, SHARDRT_HOSTCUDA_KERNELS=library)
    shard_run = os.path.join(a.bin_dir, "shard-run-hostcuda")
    ranks = ["--ranks", str(a.world)]
    launcher = []
    if a.mpiexec:
        launcher, ranks = shlex.split(a.mpiexec) + ["-n", str(a.world)], []
    r = run(launcher + [shard_run, art] + ranks + check +
            ["--backend", "cuda"], env=env)
    return 0 if r.returncode == 0 else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--case", required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--atol", required=True)
    p.add_argument("--rtol", required=True)
    p.add_argument("--mode", choices=["pending", "partitioned"], required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--mpiexec", default="",
                   help="launcher command line, e.g. 'mpiexec --oversubscribe'")
    p.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--host-cuda", metavar="CXX,INCLUDE", default="",
                   help="with --backend cuda: run on the CUDA backend built "
                        "for the host (shard-run-hostcuda), its generated "
                        "kernels built by CXX against INCLUDE "
                        "(runtime/engine/test/hostcuda/include)")
    p.add_argument("--shardc-flag", action="append", default=[],
                   help="an extra flag for shardc (repeatable)")
    p.add_argument("--run-flag", action="append", default=[],
                   help="an extra flag for shard-run (repeatable)")
    p.add_argument("--artifact", default="",
                   help="with --backend cuda: run this artifact, compiled "
                        "beforehand from the case with --target=cuda, "
                        "instead of compiling it (a GPU machine without "
                        "shardc: scripts/gpu-session)")
    a = p.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(a.case))[0]
    shardc = os.path.join(a.bin_dir, "shardc")
    shard_run = os.path.join(a.bin_dir, "shard-run")
    # Variants of one case run at once: each has its own files.
    variant = a.backend + ("-host" if a.host_cuda else "") + (
        "-mpi" if a.mpiexec else "") + "".join(
        f.replace("=", "-") for f in a.shardc_flag + a.run_flag)
    art = os.path.join(a.workdir, name + "." + variant + ".shardbin")
    check = ["--random-inputs", "--seed", "7", "--check",
             "--atol", a.atol, "--rtol", a.rtol] + weight_bounds(a.case) + \
        a.run_flag

    def launch(artifact, ranks, flags):
        if a.mpiexec:
            return run(shlex.split(a.mpiexec) + ["-n", str(ranks), shard_run,
                                                 artifact] + flags)
        return run([shard_run, artifact, "--ranks", str(ranks)] + flags)

    if a.backend == "cuda":
        if a.mode != "partitioned":
            print("SKIP: pending cases run on the CPU backend only")
            return SKIP
        target = [a.case, "--target=cuda"] + a.shardc_flag
        if a.artifact:
            art = a.artifact
        elif run([shardc] + target + ["-o", art]).returncode != 0:
            return 1
        if a.host_cuda:
            return run_on_host_cuda(a, target, art, check)
        r = launch(art, a.world, check + ["--backend", "cuda"])
        return r.returncode if r.returncode in (0, SKIP) else 1

    if a.mode == "partitioned":
        if run([shardc, a.case, "-o", art]).returncode != 0:
            return 1
        return 0 if launch(art, a.world, check).returncode == 0 else 1

    r = run([shardc, a.case, "-o", art])
    if r.returncode == 0:
        print("XPASS: shardc now partitions this case; switch it to "
              "'partitioned' in test/acceptance/CMakeLists.txt")
        return 1
    if "not implemented" not in r.stderr:
        print("FAIL: shardc refused the case for another reason")
        return 1
    if run([shardc, a.case, "--unpartitioned", "-o", art]).returncode != 0:
        return 1
    if launch(art, 1, ["--random-inputs", "--seed", "7"]).returncode != 0:
        return 1
    print(f"PENDING-OK: {name} runs unpartitioned; waits for the partitioner "
          f"to run on {a.world} ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())

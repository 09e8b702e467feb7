#!/usr/bin/env python3
"""GPU benchmark: UNet-2D (ACCEPTANCE.md row 24's model) on one GPU at 1024^2
and 2048^2, shardc at 1 rank against PyTorch eager and torch.compile on the
same model and the same weights, side by side in one run.

    python3 bench/gpu_unet.py [--build build] [--sizes 1024,2048] [--runs 20]
                              [--device cuda|cpu] [--no-compile]
                              [--artifacts DIR]

Needs a GPU, numpy and torch (the device machine has them). `--device cpu
--sizes 64` is a dry run of everything but the device: the same CUDA
artifact on the CPU backend (its fused kernels keep their bodies) against
PyTorch on the CPU, so that a mistake in this script or in its copy of the
network shows before GPU time is spent. For each size it
  1. writes the model at that size (examples/gen_models.py, unpartitioned)
     and compiles it with `shardc --unpartitioned --target=cuda`;
  2. draws the input and every weight once (PyTorch's default init bounds)
     and saves them as .npy files;
  3. runs `shard-run --backend cuda --bench RUNS` on them, keeping the
     output, and times the same forward pass in PyTorch eager and
     torch.compile with CUDA events (f32, TF32 off for both, as shardc);
  4. checks shardc's output against eager's (max abs error) and measures
     the device's copy bandwidth (a large device-to-device copy);
  5. runs shardc once more with `shard-run --profile` (every step timed with
     events on the stream; kept apart from the timed runs above) for the
     fused kernels' achieved bandwidth (operand bytes / time), the library
     convolutions' and GEMMs' arithmetic rate, and where the time goes.
Prints Markdown tables for docs/benchmarks.md, with the date and device.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import gen_models  # noqa: E402
import profile_table  # noqa: E402


def model_text(size):
    """The UNet of gen_models at `size` x `size` (its sharding is ignored:
    the model is compiled --unpartitioned)."""
    gen_models.UNET_INPUT = (1, 4, size, size)
    gen_models.UNET_EXTENTS = gen_models.array_split(size, 4)
    text, _ = gen_models.gen_unet()
    return text


def unet_forward(torch, x, params, groups=8):
    """The same network as gen_models.gen_unet, argument order included."""
    F = torch.nn.functional
    it = iter(params)

    def conv(h, stride=1, padding=1):
        w, b = next(it), next(it)
        return F.conv2d(h, w, b, stride=stride, padding=padding)

    def block(h):
        for _ in range(2):
            h = conv(h)
            gw, gb = next(it), next(it)
            h = F.silu(F.group_norm(h, groups, gw, gb, eps=1e-5))
        return h

    # gen_models declares all parameters first, in order of use.
    enc = [block(x)]
    h = enc[0]
    for _ in range(1, 4):
        h = conv(h, stride=2)
        h = block(h)
        enc.append(h)
    for level in range(3, 0, -1):
        h = F.interpolate(h, scale_factor=2.0, mode="nearest")
        h = conv(h)
        h = block(torch.cat([h, enc[level - 1]], 1))
    return conv(h, padding=0)


def draw_params(torch, size):
    """Input and weights in argument order: conv weights and biases uniform
    in 1/sqrt(fan_in) (PyTorch's default init), group-norm affine values
    near 1 and 0 so that the norm is not the identity."""
    g = torch.Generator().manual_seed(0)
    signature = model_text(size).split("func.func", 1)[1].split(") ->", 1)[0]
    shapes = [[int(d) for d in s.split("x")]
              for s in re.findall(r"%\w+: tensor<([\dx]+)xf32>", signature)]
    tensors, fan_in, previous = [], 1, []
    for i, shape in enumerate(shapes):
        u = torch.rand(shape, generator=g) * 2 - 1
        if i == 0:
            t = u
        elif len(shape) == 4:
            fan_in = shape[1] * shape[2] * shape[3]
            t = u / fan_in ** 0.5
        elif len(previous) == 4:  # the bias after a conv weight
            t = u / fan_in ** 0.5
        else:  # group-norm gamma, then beta
            t = 0.1 * u + (1.0 if len(tensors[-1].shape) == 1 and
                           len(shapes[i - 2]) == 4 else 0.0)
        previous = shape
        tensors.append(t)
    return tensors


def time_torch(torch, fn, runs, device):
    """ms per call of fn after one warm-up call: CUDA events on the GPU,
    the host clock on the CPU."""
    fn()
    if device == "cpu":
        start = time.perf_counter()
        for _ in range(runs):
            fn()
        return (time.perf_counter() - start) * 1e3 / runs
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(runs):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / runs


def copy_bandwidth(torch):
    a = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = time_torch(torch, lambda: b.copy_(a), 20, "cuda")
    return 2 * a.numel() / (ms * 1e-3) / 1e9  # read + write, GB/s


FUSED = ("ElementwiseFused", "ReductionFused")
LIBRARY = ("Conv", "ConvTranspose", "Matmul", "Linear")


def profile_rows(profile, opcodes):
    """{opcode: (steps, ms per run, GB/s, GFLOP/s)} of `opcodes` in a
    one-rank `shard-run --profile` table; a rate printed as "-" is None."""
    rows, _ = profile_table.parse(profile)
    return {op: (steps, ms[0], gbs, gflops)
            for op, (steps, ms, gbs, gflops) in rows.items() if op in opcodes}


def run_shardc(args, tmp, size, host, np):
    """Compiles the model, runs it on the inputs and weights `host` (timed,
    then profiled): (ms per run, output .npy path, profile text)."""
    # The CPU dry run runs the same CUDA artifact: its fused kernels keep
    # their bodies, which the CPU backend evaluates. A GPU machine without
    # shardc runs artifacts compiled beforehand (scripts/gpu-session).
    if args.artifacts:
        art = os.path.join(args.artifacts, "unet%d.shardbin" % size)
    else:
        src = os.path.join(tmp, "unet%d.mlir" % size)
        art = os.path.join(tmp, "unet%d.shardbin" % size)
        with open(src, "w") as f:
            f.write(model_text(size))
        subprocess.run([os.path.join(args.build, "bin", "shardc"), src,
                        "--unpartitioned", "--target=cuda", "-o", art],
                       check=True)
    flags = ["--backend", args.device]
    for i, t in enumerate(host):
        path = os.path.join(tmp, "arg%d.npy" % i)
        np.save(path, t.numpy())
        flags += ["--input", "arg%d=%s" % (i, path)]
    out = os.path.join(tmp, "y%d.npy" % size)
    run = [os.path.join(args.build, "bin", "shard-run"), art]
    r = subprocess.run(run + ["--bench", str(args.runs),
                              "--output", "result0=" + out] + flags,
                       capture_output=True, text=True, check=True)
    ms = float(re.search(r"^0\s+([\d.]+)", r.stdout, re.M).group(1))
    prof = subprocess.run(
        run + ["--bench", str(max(args.runs // 4, 2)), "--profile",
               "--profile-top", "10"] + flags,
        capture_output=True, text=True, check=True).stdout
    return ms, out, prof[prof.index("profile:"):].strip()


def run_torch(args, torch, host):
    """PyTorch on the same inputs: (eager's output, eager ms,
    torch.compile ms or None)."""
    dev = [t.to(args.device) for t in host]
    with torch.no_grad():
        eager = lambda: unet_forward(torch, dev[0], dev[1:])  # noqa: E731
        want = eager()
        eager_ms = time_torch(torch, eager, args.runs, args.device)
        compile_ms = None
        if not args.no_compile:
            compiled = torch.compile(
                lambda x, *w: unet_forward(torch, x, w))
            run_c = lambda: compiled(*dev)  # noqa: E731
            compile_ms = time_torch(torch, run_c, args.runs, args.device)
    return want.cpu().numpy(), eager_ms, compile_ms


def opt(value, spec):
    """value formatted with spec, or "-" where there is none."""
    return "-" if value is None else spec % value


def table(header, lines):
    """A Markdown table: header cells, then one list of cells per line."""
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for cells in lines:
        print("| " + " | ".join(cells) + " |")


def print_tables(rows, bw, where):
    print("Measured %s on %s%s.\n"
          % (datetime.date.today().isoformat(), where,
             "" if bw is None else "; device copy bandwidth %.0f GB/s" % bw))
    table(["UNet-2D input", "shardc (1 rank) ms", "PyTorch eager ms",
           "torch.compile ms", "shardc / eager", "max abs err vs eager"],
          [["1x4x%dx%d" % (size, size), "%.2f" % ms, "%.2f" % eager_ms,
            opt(compile_ms, "%.2f"), "%.2fx" % (ms / eager_ms), "%.2e" % err]
           for size, ms, eager_ms, compile_ms, err, _ in rows])
    print("\nFused kernels (profiled run; bandwidth = operand bytes / time%s):"
          "\n" % ("" if bw is None else ", against the %.0f GB/s copy" % bw))

    def profiled(opcodes):
        for size, _, _, _, _, prof in rows:
            for opcode, row in sorted(profile_rows(prof, opcodes).items()):
                yield "1x4x%dx%d" % (size, size), opcode, row

    table(["UNet-2D input", "kernels", "steps", "ms per run", "GB/s",
           "of copy bandwidth"],
          [[size, opcode, "%d" % steps, "%.3f" % ms, opt(gbs, "%.1f"),
            opt(None if bw is None or gbs is None else 100 * gbs / bw,
                "%.0f%%")]
           for size, opcode, (steps, ms, gbs, _) in profiled(FUSED)])
    print("\nLibrary steps (profiled run; convolutions and GEMMs, 2 flops per "
          "multiply-add, FP32 without TF32):\n")
    table(["UNet-2D input", "opcode", "steps", "ms per run", "TFLOP/s"],
          [[size, opcode, "%d" % steps, "%.3f" % ms,
            opt(None if gflops is None else gflops / 1e3, "%.2f")]
           for size, opcode, (steps, ms, _, gflops) in profiled(LIBRARY)])
    for size, _, _, _, _, text in rows:
        print("\nWhere shardc's time goes at 1x4x%dx%d (`shard-run "
              "--profile`):\n\n```\n%s\n```" % (size, size, text))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--sizes", default="1024,2048")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                   help="cpu: a dry run of the whole script on the CPU "
                   "backend and PyTorch on the CPU, to check the script "
                   "and the model's equivalence before GPU time is spent")
    p.add_argument("--no-compile", action="store_true",
                   help="skip torch.compile")
    p.add_argument("--artifacts", default="",
                   help="run DIR/unet<size>.shardbin, compiled beforehand "
                   "with --unpartitioned --target=cuda, instead of calling "
                   "shardc (a GPU machine without it: scripts/gpu-session)")
    args = p.parse_args()
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    where = (torch.cuda.get_device_name(0) if args.device == "cuda"
             else "the CPU (dry run)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            host = draw_params(torch, size)
            ms, out, prof = run_shardc(args, tmp, size, host, np)
            want, eager_ms, compile_ms = run_torch(args, torch, host)
            err = float(np.abs(np.load(out) - want).max())
            rows.append((size, ms, eager_ms, compile_ms, err, prof))
    bw = copy_bandwidth(torch) if args.device == "cuda" else None
    print_tables(rows, bw, where)
    return 0


if __name__ == "__main__":
    sys.exit(main())

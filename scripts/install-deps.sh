#!/usr/bin/env bash
# Installs the Debian packages shardc builds with, if any is missing.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

packages=(cmake ninja-build g++ ccache python3
          libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools lld-22
          libgtest-dev libbenchmark-dev
          libflatbuffers-dev flatbuffers-compiler libopenmpi-dev openmpi-bin
          libopenblas-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "[shardc] installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The CUDA toolkit is optional (no GPU is needed to compile CUDA code); when it
# is installed under /usr/local/cuda, make nvcc visible to CMake.
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "[shardc] CUDA toolkit found at /usr/local/cuda (add /usr/local/cuda/bin to PATH to use it directly)"
fi

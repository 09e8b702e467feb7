//===- HostCudaKernels.cpp - The CUDA backend's kernels on the host -------===//
//
// CudaKernels.cu built by the host compiler against include/cuda_runtime.h:
// the same kernels and launchers, in the inline namespace `host`, running
// their blocks as fibers (HostCuda.cpp). The engine's unit tests call them
// on host memory, so the kernels' own code (block reductions, warp
// shuffles, grid-stride loops), not a copy of it, is checked without a GPU.
//
//===----------------------------------------------------------------------===//

#include "../../lib/cuda/CudaKernels.cu"

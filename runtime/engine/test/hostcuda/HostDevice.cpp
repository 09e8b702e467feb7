//===- HostDevice.cpp - shardrt::cuda's device helpers on the host --------===//
//
// runtime/lib/cuda/Device.cu built against include/cuda_runtime.h, for the
// host build of the CUDA backend.
//
//===----------------------------------------------------------------------===//

#include "../../../lib/cuda/Device.cu"

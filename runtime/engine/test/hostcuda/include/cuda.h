//===- cuda.h - The driver API's types on the host --------------*- C++ -*-===//
//
// What the CUDA backend names of the driver API; it reaches the functions
// through cudaGetDriverEntryPointByVersion (HostCudaRuntime.cpp gives the
// host's). A module is the whole program: cuModuleGetFunction finds kernel
// `name` by its host launcher `name__host` (see HostCudaRuntime.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_CUDA_H
#define SHARDRT_HOSTCUDA_CUDA_H

#include "cuda_runtime.h"

typedef int CUresult;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_LAUNCH_FAILED 719
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef cudaStream_t CUstream;

/// A kernel's host launcher, which shardc emits beside each generated
/// kernel under SHARDRT_HOSTCUDA: the kernel's parameters as cuLaunchKernel
/// passes them, run on `stream` like a launch.
typedef void (*ShardrtHostKernelFn)(void **params, unsigned grid,
                                    unsigned threads, cudaStream_t stream);

#endif // SHARDRT_HOSTCUDA_CUDA_H

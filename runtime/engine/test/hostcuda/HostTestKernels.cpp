//===- HostTestKernels.cpp - CudaBackendTest's kernel on the host ---------===//
//
// The kernel CudaBackendTest loads through the driver API, with its host
// launcher, for the host build of the CUDA backend (the stand-in driver
// finds `test_fused0__host` among the program's symbols).
//
//===----------------------------------------------------------------------===//

#include "../cuda/test_kernels.cu"

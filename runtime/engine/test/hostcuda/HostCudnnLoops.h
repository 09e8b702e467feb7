//===- HostCudnnLoops.h - The arithmetic of the stand-in cuDNN -*- C++ -*-===//
//
// The convolutions and pooling that HostCudnn.cpp runs once it has checked
// a call: plain loops written from the operations' definitions over
// tensors held with three spatial dims (leading unit dims added),
// independent of the CPU backend's kernels that the tests compare with.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDRT_HOSTCUDA_HOSTCUDNNLOOPS_H
#define SHARDRT_HOSTCUDA_HOSTCUDNNLOOPS_H

#include <cstdint>

namespace hostcudnn {

constexpr int kSpatial = 3; // problems are held with three spatial dims

/// A 4- or 5-d NC(D)HW tensor as N, C and three spatial dims, leading unit
/// dims added (stride 0).
struct Geometry {
  int64_t n = 0, c = 0, sp[kSpatial] = {1, 1, 1};
  int64_t strideN = 0, strideC = 0, strideSp[kSpatial] = {0, 0, 0};
  int64_t spatialSize() const { return sp[0] * sp[1] * sp[2]; }
};
Geometry geometryOf(const int *dims, const int *strides, int nb);

/// TF32 keeps 10 of float's 23 mantissa bits (round to nearest even).
float toTf32(float v);

/// A convolution from `in` (x; dx of a backward-data call) to `out` (y;
/// dy), weights K x C/groups x kernel, dense.
struct ConvProblem {
  Geometry in, out;
  int64_t groups = 1, kernel[kSpatial] = {1, 1, 1};
  int64_t pad[kSpatial] = {0, 0, 0}, stride[kSpatial] = {1, 1, 1},
          dilation[kSpatial] = {1, 1, 1};
  int64_t kernelVolume() const { return kernel[0] * kernel[1] * kernel[2]; }
};

/// cuDNN's output extent of one spatial dim (0 when the kernel's span
/// exceeds the padded input).
int64_t convOutExtent(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                      int64_t dilation);

/// y = alpha * conv(x, w) + beta * y; beta 0 does not read y.
void convForward(const ConvProblem &p, const float *x, const float *w, float *y,
                 float alpha, float beta, bool tf32);
/// dx = alpha * conv^T(dy, w) + beta * dx.
void convBackwardData(const ConvProblem &p, const float *w, const float *dy,
                      float *dx, float alpha, float beta, bool tf32);

/// Max, or an average dividing by the whole window (padding counted) or by
/// the elements inside the input.
enum class PoolKind { Max, AverageOverWindow, AverageOverInside };
struct PoolProblem {
  Geometry in, out;
  int64_t window[kSpatial], pad[kSpatial], stride[kSpatial];
  PoolKind kind;
  bool propagateNan; ///< a max with a NaN in its window is NaN
};
/// y = alpha * pool(x) + beta * y.
void poolForward(const PoolProblem &p, const float *x, float *y, float alpha,
                 float beta);

} // namespace hostcudnn

#endif // SHARDRT_HOSTCUDA_HOSTCUDNNLOOPS_H

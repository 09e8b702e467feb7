//===- ConvRegionPlan.h - Convs over output regions -------------*- C++ -*-===//
//
// cuDNN's convolution pads both sides of a dim equally. The artifact's
// convs pad pad_lo before and whatever the output extent implies after, and
// a conv over an output region (the interior or a boundary part that
// sc-overlap-halos splits off) touches the tensor's edge on one side only:
// both are asymmetric. This plans such a conv as a library conv with
// symmetric padding over a view of the input, whose output holds the region
// after `skip` leading extra outputs (and maybe some trailing ones); when
// there are none the library writes the region in place, otherwise into a
// temporary that a box copy crops. Free of CUDA headers, so the CPU unit
// tests check the plan with the CPU conv on machines without a GPU. A
// transposed conv's padding is asymmetric the same way (output_padding, a
// shard's crop) and is planned likewise (planConvTransposeDim).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_CONVREGIONPLAN_H
#define SHARDRT_ENGINE_CUDA_CONVREGIONPLAN_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace shardrt::exec::cuda {

/// One spatial dim of a conv over output positions [lo, hi).
struct ConvRegionDim {
  int64_t inBegin = 0, inExtent = 0; ///< the input view
  int64_t pad = 0;                   ///< on both sides of the view
  int64_t outExtent = 0;             ///< of the library conv's output
  int64_t skip = 0;                  ///< its leading outputs before position lo
};

struct ConvRegionPlan {
  std::vector<ConvRegionDim> dims; ///< per spatial dim
  /// The library's output is exactly the region (no temporary, no crop).
  bool inPlace = true;
};

/// The attributes of one spatial dim, as the CPU conv reads them: the
/// input extent, kernel extent, stride, padding before, dilation, and the
/// output positions [lo, hi) to compute.
struct ConvDimAttrs {
  int64_t in = 0, kernel = 0, stride = 1, padLo = 0, dilation = 1;
  int64_t lo = 0, hi = 0;
};

/// Plans one dim; false when the region is empty or reads no input at all
/// (nothing a library conv can express).
inline bool planConvRegionDim(const ConvDimAttrs &a, ConvRegionDim &d) {
  if (a.hi <= a.lo || a.stride < 1 || a.dilation < 1 || a.kernel < 1)
    return false;
  int64_t span = a.dilation * (a.kernel - 1);
  int64_t first = a.lo * a.stride - a.padLo;
  int64_t last = (a.hi - 1) * a.stride - a.padLo + span;
  int64_t begin = std::max<int64_t>(first, 0);
  int64_t end = std::min<int64_t>(last + 1, a.in);
  if (end <= begin)
    return false;
  int64_t padBefore = begin - first, padAfter = last + 1 - end;
  // Output j of the library conv reads from view position j*s - pad;
  // position lo reads from -padBefore. With pad = padBefore + skip*s (at
  // least padAfter), output j = lo + (j - skip) for j >= skip.
  int64_t skip =
      (std::max<int64_t>(0, padAfter - padBefore) + a.stride - 1) / a.stride;
  d.inBegin = begin;
  d.inExtent = end - begin;
  d.pad = padBefore + skip * a.stride;
  d.outExtent = (d.inExtent + 2 * d.pad - span - 1) / a.stride + 1;
  d.skip = skip;
  return d.outExtent >= skip + (a.hi - a.lo);
}

inline bool planConvRegion(const std::vector<ConvDimAttrs> &dims,
                           ConvRegionPlan &plan) {
  plan = ConvRegionPlan();
  for (const ConvDimAttrs &a : dims) {
    ConvRegionDim d;
    if (!planConvRegionDim(a, d))
      return false;
    plan.inPlace = plan.inPlace && d.skip == 0 && d.outExtent == a.hi - a.lo;
    plan.dims.push_back(d);
  }
  return true;
}

/// One spatial dim of a transposed conv as cuDNN's backward-data conv with
/// `pad` on both sides: its output has `extent` positions (the extent
/// whose forward conv gives back the input's), of which [skip, skip + out)
/// are y's.
struct ConvTransposeDim {
  int64_t pad = 0, extent = 0, skip = 0;
};

/// The CPU kernel adds x[i] w[k] into y[o] for o = i*stride - padLo +
/// k*dilation, 0 <= o < out: its padding after is whatever `out` implies
/// (output_padding, or a shard's crop). A symmetric pad p = padLo - skip
/// puts o at o + skip, and the extents X whose forward conv has `in`
/// outputs are [nat, nat + stride - 1], nat = (in-1)*stride - 2p + span +
/// 1; the smallest skip whose range reaches skip + out is taken. False when
/// even skip = padLo cannot (outputs past every contribution).
inline bool planConvTransposeDim(int64_t in, int64_t kernel, int64_t stride,
                                 int64_t padLo, int64_t dilation, int64_t out,
                                 ConvTransposeDim &d) {
  if (in < 1 || out < 1 || kernel < 1 || stride < 1 || dilation < 1 ||
      padLo < 0)
    return false;
  int64_t span = dilation * (kernel - 1);
  int64_t nat0 = (in - 1) * stride - 2 * padLo + span + 1;
  int64_t skip = std::max<int64_t>(0, out - nat0 - stride + 1);
  if (skip > padLo)
    return false;
  d.pad = padLo - skip;
  d.skip = skip;
  d.extent = std::max<int64_t>(nat0 + 2 * skip, skip + out);
  return true;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_CONVREGIONPLAN_H

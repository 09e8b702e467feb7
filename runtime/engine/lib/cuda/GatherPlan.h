//===- GatherPlan.h - Outputs gathered through per-dim index maps -*- C++
//-*-===//
//
// Reflect, replicate and circular pads and broadcasts write every output
// element from one input element found dim by dim: through the CPU
// kernel's own per-dim index table (cpu::padIndexMap, PyTorch's rules,
// crops included), through the output index itself, or through none (a
// broadcast dim: stride 0). The tables are made once on the host and
// packed into one buffer uploaded once per step; one kernel evaluates
// `gatherSource` per output element. Runs of dims that read the input in
// order merge into one. Compare and Select read each broadcast operand
// through a view of its own (`compareValues` is the predicate). Free of
// CUDA headers, so the CPU unit tests run the plans against cpu::pad,
// cpu::broadcastTo, cpu::compare and cpu::select.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_CUDA_GATHERPLAN_H
#define SHARDRT_ENGINE_CUDA_GATHERPLAN_H

#include "BoxCopyPlan.h" // kMaxBoxRank, SHARDRT_HOST_DEVICE
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace shardrt::exec::cuda {

/// The gather once its tables lie where the kernel reads them.
struct GatherView {
  int rank = 0;
  long long count = 0; ///< output elements
  long long outExt[kMaxBoxRank] = {};
  /// Input elements per step of the source index along each dim.
  long long srcStride[kMaxBoxRank] = {};
  /// Per dim: the source index of each output index; null: the output
  /// index itself.
  const long long *map[kMaxBoxRank] = {};
};

struct GatherPlan {
  std::vector<long long> tables; ///< to upload; empty when no dim has one
  long long tableAt[kMaxBoxRank] = {};
  GatherView shape;
  GatherView at(const void *base) const {
    GatherView v = shape;
    for (int d = 0; d < v.rank; ++d)
      v.map[d] = tableAt[d] < 0
                     ? nullptr
                     : static_cast<const long long *>(base) + tableAt[d];
    return v;
  }
};

namespace detail {

/// Builds the plan from per-dim output extents, input strides and tables
/// (empty: identity), merging a dim into the next when both are identity
/// and it steps the input by exactly the next dim's whole extent.
inline bool finishGather(const std::vector<int64_t> &outExt,
                         const std::vector<long long> &stride,
                         const std::vector<std::vector<long long>> &maps,
                         GatherPlan &plan) {
  std::vector<long long> ext, str;
  std::vector<const std::vector<long long> *> map;
  long long count = 1;
  for (size_t d = 0; d < outExt.size(); ++d) {
    count *= outExt[d];
    bool identity = maps[d].empty();
    if (outExt[d] == 1 && identity)
      continue; // index 0: no offset
    if (identity && !map.empty() && map.back()->empty() &&
        str.back() == stride[d] * outExt[d]) {
      ext.back() *= outExt[d];
      str.back() = stride[d];
      continue;
    }
    ext.push_back(outExt[d]);
    str.push_back(stride[d]);
    map.push_back(&maps[d]);
  }
  if (ext.size() > size_t(kMaxBoxRank))
    return false;
  plan = GatherPlan();
  GatherView &v = plan.shape;
  v.rank = int(ext.size());
  v.count = count;
  for (int d = 0; d < v.rank; ++d) {
    v.outExt[d] = ext[size_t(d)];
    v.srcStride[d] = str[size_t(d)];
    plan.tableAt[d] =
        map[size_t(d)]->empty() ? -1 : (long long)plan.tables.size();
    plan.tables.insert(plan.tables.end(), map[size_t(d)]->begin(),
                       map[size_t(d)]->end());
  }
  return true;
}

inline std::vector<long long> rowMajor(const std::vector<int64_t> &shape) {
  std::vector<long long> stride(shape.size());
  long long next = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    stride[d] = next;
    next *= shape[d];
  }
  return stride;
}

} // namespace detail

/// A non-constant pad (or crop) of x by lo / hi per dim; false when some
/// output element takes the fill value (nothing left of a dim to reflect)
/// or more than kMaxBoxRank dims remain.
inline bool planPadGather(const std::vector<int64_t> &x,
                          const std::vector<int64_t> &lo,
                          const std::vector<int64_t> &hi, cpu::PadMode mode,
                          GatherPlan &plan) {
  std::vector<int64_t> out(x.size());
  std::vector<std::vector<long long>> maps(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    out[d] = x[d] + lo[d] + hi[d];
    if (lo[d] == 0 && hi[d] == 0)
      continue;
    for (int64_t s : cpu::padIndexMap(x[d], lo[d], hi[d], mode)) {
      if (s < 0)
        return false;
      maps[d].push_back(s);
    }
  }
  return detail::finishGather(out, detail::rowMajor(x), maps, plan);
}

/// x broadcast to `out` (x right-aligned, each dim 1 or out's).
inline bool planBroadcastGather(const std::vector<int64_t> &x,
                                const std::vector<int64_t> &out,
                                GatherPlan &plan) {
  std::vector<int64_t> padded(out.size() - std::min(out.size(), x.size()), 1);
  padded.insert(padded.end(), x.begin(), x.end());
  if (padded.size() != out.size())
    return false;
  std::vector<long long> stride = detail::rowMajor(padded);
  for (size_t d = 0; d < out.size(); ++d)
    if (padded[d] == 1)
      stride[d] = 0;
  return detail::finishGather(
      out, stride, std::vector<std::vector<long long>>(out.size()), plan);
}

/// The input element that output element i copies.
SHARDRT_HOST_DEVICE inline long long gatherSource(const GatherView &v,
                                                  long long i) {
  long long src = 0;
  for (int d = v.rank - 1; d >= 0; --d) {
    long long o = i % v.outExt[d];
    i /= v.outExt[d];
    src += (v.map[d] ? v.map[d][o] : o) * v.srcStride[d];
  }
  return src;
}

/// cpu::compare's predicate (IEEE: only ne holds for a NaN).
SHARDRT_HOST_DEVICE inline bool compareValues(cpu::CompareKind kind, float a,
                                              float b) {
  switch (kind) {
  case cpu::CompareKind::Eq:
    return a == b;
  case cpu::CompareKind::Ne:
    return a != b;
  case cpu::CompareKind::Lt:
    return a < b;
  case cpu::CompareKind::Le:
    return a <= b;
  case cpu::CompareKind::Gt:
    return a > b;
  case cpu::CompareKind::Ge:
    return a >= b;
  }
  return false;
}

} // namespace shardrt::exec::cuda

#endif // SHARDRT_ENGINE_CUDA_GATHERPLAN_H

//===- PartitionLocal.h - What the op-family lowerings share ---*- C++ -*-===//
//
// The op families whose local program differs from the global op's
// (PartitionStats.cpp: norms, softmax, means; PartitionAttention.cpp:
// attention rings and causal masks) emit instructions on each rank's
// program through Emit, and ask which mesh axes split a value's dims.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_LIB_PARTITIONLOCAL_H
#define SHARDC_COMPILER_LIB_PARTITIONLOCAL_H

#include "Partition.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <vector>

namespace shardc::sc {
class ScaledDotProductAttentionOp;
} // namespace shardc::sc

namespace shardc::partition {

namespace art = shardrt::artifact;

using Shape = std::vector<int64_t>;

inline int64_t product(const Shape &s, size_t from = 0,
                       size_t to = size_t(-1)) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i)
    p *= s[i];
  return p;
}

inline Shape broadcast(const Shape &a, const Shape &b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = x == 1 ? y : x;
  }
  return out;
}

/// Instructions on one rank's program, each into a fresh buffer.
struct Emit {
  ProgramBuilder &b;

  const Shape &shape(uint32_t x) const { return b.buffers[x].shape; }
  uint32_t tmp(Shape s) { return b.temporary(fb::DType::F32, std::move(s)); }
  uint32_t unary(const char *fn, uint32_t x) {
    uint32_t y = tmp(shape(x));
    b.emit(fb::Opcode::Unary, {x}, {y}).str = fn;
    return y;
  }
  uint32_t binary(const char *fn, uint32_t x, uint32_t z) {
    uint32_t y = tmp(broadcast(shape(x), shape(z)));
    b.emit(fb::Opcode::Binary, {x, z}, {y}).str = fn;
    return y;
  }
  uint32_t reduce(const char *fn, uint32_t x, std::vector<int64_t> dims,
                  bool keepdim) {
    Shape out;
    for (size_t d = 0; d < shape(x).size(); ++d) {
      bool reduced = llvm::is_contained(dims, int64_t(d));
      if (!reduced)
        out.push_back(shape(x)[d]);
      else if (keepdim)
        out.push_back(1);
    }
    uint32_t y = tmp(out);
    art::InstructionSpec &inst = b.emit(fb::Opcode::Reduce, {x}, {y});
    inst.str = fn;
    inst.ints = dims;
    return y;
  }
  uint32_t reshape(uint32_t x, Shape s) {
    uint32_t y = b.temporary(b.buffers[x].dtype, std::move(s));
    b.emit(fb::Opcode::Copy, {x}, {y});
    return y;
  }
  uint32_t slice(uint32_t x, Shape start, Shape out, Shape step = {}) {
    uint32_t y = b.temporary(b.buffers[x].dtype, std::move(out));
    art::InstructionSpec &inst = b.emit(fb::Opcode::Slice, {x}, {y});
    inst.ints = start;
    if (step.empty())
      step.assign(start.size(), 1);
    inst.ints.insert(inst.ints.end(), step.begin(), step.end());
    return y;
  }
  uint32_t fill(Shape s, double value) {
    uint32_t y = tmp(std::move(s));
    b.emit(fb::Opcode::Fill, {}, {y}).floats = {value};
    return y;
  }
  uint32_t broadcastTo(uint32_t x, Shape s) {
    uint32_t y = tmp(std::move(s));
    b.emit(fb::Opcode::BroadcastTo, {x}, {y});
    return y;
  }
  uint32_t concat(uint32_t x, uint32_t z, int64_t dim) {
    Shape out = shape(x);
    out[dim] += shape(z)[dim];
    uint32_t y = tmp(out);
    b.emit(fb::Opcode::Concat, {x, z}, {y}).ints = {dim};
    return y;
  }
  uint32_t permute(uint32_t x, std::vector<int64_t> perm) {
    Shape out;
    for (int64_t p : perm)
      out.push_back(shape(x)[p]);
    uint32_t y = tmp(out);
    b.emit(fb::Opcode::Permute, {x}, {y}).ints = perm;
    return y;
  }
  /// torch.matmul of two matrices or batches of them (rank >= 2 each),
  /// their batch dims broadcast.
  uint32_t matmul(uint32_t x, uint32_t z) {
    Shape xs = shape(x), zs = shape(z);
    Shape out = broadcast(Shape(xs.begin(), xs.end() - 2),
                          Shape(zs.begin(), zs.end() - 2));
    out.push_back(xs[xs.size() - 2]);
    out.push_back(zs.back());
    uint32_t y = tmp(out);
    b.emit(fb::Opcode::Matmul, {x, z}, {y});
    return y;
  }
};

/// The mesh axes a value's dims `dims` are split over, ascending: the group
/// of the statistics merges (whose member order is immaterial; a gather of
/// one split lists that split's own order instead).
inline std::vector<int> splitAxes(const ValueSharding &s,
                                  const std::vector<int64_t> &dims) {
  std::vector<int> out;
  for (int64_t d : dims) {
    const std::vector<int> &axes = s.layout.dims[d].axes;
    out.insert(out.end(), axes.begin(), axes.end());
  }
  llvm::sort(out);
  return out;
}

/// Whether `v` is split along any of `dims`.
inline bool splitAny(Partitioner &p, mlir::Value v,
                     const std::vector<int64_t> &dims) {
  return !splitAxes(p.shardingOf(v), dims).empty();
}

/// Attention whose key sequence is split: a ring over the key split's
/// group (PartitionAttention.cpp). `in` holds each operand's buffers per
/// rank.
mlir::LogicalResult
lowerRingAttention(Partitioner &p, sc::ScaledDotProductAttentionOp op,
                   const std::vector<std::vector<uint32_t>> &in);

/// A cumulative op whose scanned dim `dim` is split: a carry from the
/// shards before each rank (PartitionScan.cpp). `kind` is the runtime
/// Scan's; `in` holds the input's buffers per rank.
mlir::LogicalResult lowerSplitScan(Partitioner &p, mlir::Operation *op,
                                   llvm::StringRef kind, int64_t dim,
                                   const std::vector<uint32_t> &in);

} // namespace shardc::partition

#endif // SHARDC_COMPILER_LIB_PARTITIONLOCAL_H

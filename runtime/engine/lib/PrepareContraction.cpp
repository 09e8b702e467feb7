//===- PrepareContraction.cpp - matmul, linear, attention -----------------===//

#include "Prepare.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

namespace shardrt::exec {
namespace {

using fb::DType;
using fb::Opcode;

/// A batched operand: its rows x cols matrices repeated over the batch dims
/// `batch`, read with a batch stride, or first materialised at the output's
/// batch shape when it broadcasts in a way a single stride cannot express.
struct BatchedOperand {
  uint32_t slot = 0;
  Shape batch;        // its own batch dims, padded to the output's
  int64_t matrix = 0; // elements per matrix
  int64_t stride = 0; // 0: one matrix for every batch entry
  bool materialise = false;
};

BatchedOperand batchOperand(uint32_t slot, const Shape &batch,
                            const Shape &outBatch, int64_t matrix) {
  BatchedOperand o{slot, padShape(batch, outBatch.size()), matrix, matrix,
                   false};
  if (numElements(batch) == 1)
    o.stride = 0;
  else if (o.batch != outBatch)
    o.materialise = true;
  return o;
}

/// Pointer to the operand's data laid out for the GEMM loop.
const float *batchData(RunContext &rc, const BatchedOperand &o,
                       const Shape &outBatch, std::vector<float> &scratch) {
  const float *p = slotPtr<float>(rc, o.slot);
  if (!o.materialise)
    return p;
  Shape from = o.batch, to = outBatch;
  from.push_back(o.matrix);
  to.push_back(o.matrix);
  scratch.resize(size_t(numElements(to)));
  cpu::broadcastTo(p, from, scratch.data(), to, sizeof(float));
  return scratch.data();
}

StatusOr<RunFn> prepareMatmul(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 2, 2, 1));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx));
  Shape a = inSlot(inst, ctx, 0).shape, b = inSlot(inst, ctx, 1).shape;
  if (a.empty() || b.empty())
    return invalid("matmul of a 0-d tensor");
  bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec)
    a.insert(a.begin(), 1);
  if (bVec)
    b.push_back(1);
  int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k)
    return invalid("contracts " + std::to_string(k) + " with " +
                   std::to_string(b[b.size() - 2]) + " elements");
  Shape aBatch(a.begin(), a.end() - 2), bBatch(b.begin(), b.end() - 2);
  SHARDRT_ASSIGN_OR_RETURN(Shape batch, broadcastShapes({aBatch, bBatch}));
  Shape expected = batch;
  if (!aVec)
    expected.push_back(m);
  if (!bVec)
    expected.push_back(n);
  SHARDRT_RETURN_IF_ERROR(
      requireShape(outSlot(inst, ctx, 0), expected, "the output"));
  // BLAS takes 32-bit sizes.
  SHARDRT_RETURN_IF_ERROR(requireBlasDims({m, n, k}, "a matmul"));
  Shape outBatch = batch;
  BatchedOperand ao = batchOperand(inIdx(inst, 0), aBatch, outBatch, m * k);
  BatchedOperand bo = batchOperand(inIdx(inst, 1), bBatch, outBatch, k * n);
  int64_t count = numElements(outBatch);
  uint32_t y = outIdx(inst, 0);
  auto scratch = std::make_shared<std::array<std::vector<float>, 2>>();
  return RunFn([=](RunContext &rc) {
    const float *pa = batchData(rc, ao, outBatch, (*scratch)[0]);
    const float *pb = batchData(rc, bo, outBatch, (*scratch)[1]);
    cpu::batchedGemm(count, m, n, k, pa, ao.stride, pb, bo.stride,
                     slotPtr<float>(rc, y));
    return Status();
  });
}

StatusOr<RunFn> prepareLinear(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 2, 3, 1));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx));
  const Shape &x = inSlot(inst, ctx, 0).shape, &w = inSlot(inst, ctx, 1).shape;
  if (x.empty() || w.size() != 2 || w[1] != x.back())
    return invalid("linear of " + shapeStr(x) + " with a weight of " +
                   shapeStr(w) + "; the weight must be (out, " +
                   (x.empty() ? "in" : std::to_string(x.back())) + ")");
  int64_t in = w[1], out = w[0];
  if (numInputs(inst) == 3 && inSlot(inst, ctx, 2).shape != Shape{out})
    return invalid("the bias has shape " +
                   shapeStr(inSlot(inst, ctx, 2).shape) + "; expected (" +
                   std::to_string(out) + ",)");
  Shape expected = x;
  expected.back() = out;
  SHARDRT_RETURN_IF_ERROR(
      requireShape(outSlot(inst, ctx, 0), expected, "the output"));
  int64_t rows = numElements(Shape(x.begin(), x.end() - 1));
  SHARDRT_RETURN_IF_ERROR(requireBlasDims({in, out, rows}, "a linear"));
  uint32_t xi = inIdx(inst, 0), wi = inIdx(inst, 1), y = outIdx(inst, 0);
  uint32_t bi = numInputs(inst) == 3 ? inIdx(inst, 2) : UINT32_MAX;
  return RunFn([=](RunContext &rc) {
    cpu::linear(slotPtr<float>(rc, xi), rows, in, slotPtr<float>(rc, wi),
                optionalSlot(rc, bi), out, slotPtr<float>(rc, y));
    return Status();
  });
}

StatusOr<RunFn> prepareAttention(const fb::Instruction &inst,
                                 const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(const AttentionStep a, decodeAttention(inst, ctx));
  // One (l, s) mask for every batch entry, or one per entry; a mask that
  // broadcasts any other way is materialised at (batch..., l, s) first.
  bool materialise = false;
  int64_t maskBatch = 1;
  if (a.mask != AttentionStep::Mask::None) {
    Shape tail(a.maskShape.end() - 2, a.maskShape.end());
    Shape maskBatchDims(a.maskShape.begin(), a.maskShape.end() - 2);
    if (!(tail == Shape{a.l, a.s} && numElements(maskBatchDims) == 1)) {
      maskBatch = a.batch;
      materialise = a.maskShape != a.fullMask;
    }
  }
  bool maskBool = a.mask == AttentionStep::Mask::Bool;
  size_t maskElem = maskBool ? 1 : 4;
  WorkspacePlan::Ref full;
  if (materialise) {
    SHARDRT_ASSIGN_OR_RETURN(
        full,
        ctx.reserveWorkspace(uint64_t(numElements(a.fullMask)) * maskElem));
  }
  return RunFn([=](RunContext &rc) -> Status {
    const void *mask = a.maskSlot == kNoSlot ? nullptr : rc.slots[a.maskSlot];
    if (materialise) {
      uint8_t *at = full.data();
      cpu::broadcastTo(mask, a.maskShape, at, a.fullMask, maskElem);
      mask = at;
    }
    cpu::sdpa(a.batch, a.l, a.s, a.e, a.ev, slotPtr<float>(rc, a.q),
              slotPtr<float>(rc, a.k), slotPtr<float>(rc, a.v), mask, maskBool,
              maskBatch, a.causal, a.scale, slotPtr<float>(rc, a.y));
    return Status();
  });
}

} // namespace

StatusOr<AttentionStep> decodeAttention(const fb::Instruction &inst,
                                        const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 3, 4, 1));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx, 3));
  IntReader ints(inst);
  AttentionStep a;
  a.causal = ints.next() != 0;
  bool hasMask = ints.next() != 0;
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (hasMask != (numInputs(inst) == 4))
    return invalid("has_mask disagrees with the number of inputs");
  std::vector<double> floats = floatAttrs(inst);
  if (floats.size() != 1 || !std::isfinite(floats[0]))
    return invalid("needs one finite scale");
  a.scale = floats[0];
  const Shape &q = inSlot(inst, ctx, 0).shape, &k = inSlot(inst, ctx, 1).shape,
              &v = inSlot(inst, ctx, 2).shape;
  if (q.size() < 2 || k.size() != q.size() || v.size() != q.size())
    return invalid("q, k and v must have the same rank >= 2");
  Shape batch(q.begin(), q.end() - 2);
  if (Shape(k.begin(), k.end() - 2) != batch ||
      Shape(v.begin(), v.end() - 2) != batch)
    return Status::unimplemented(
        "attention with q, k, v batch dims that differ (" + shapeStr(q) + ", " +
        shapeStr(k) + ", " + shapeStr(v) + ")");
  a.l = q[q.size() - 2];
  a.e = q.back();
  a.s = k[k.size() - 2];
  a.ev = v.back();
  if (k.back() != a.e || v[v.size() - 2] != a.s)
    return invalid("q " + shapeStr(q) + ", k " + shapeStr(k) + " and v " +
                   shapeStr(v) + " do not match");
  SHARDRT_RETURN_IF_ERROR(requireBlasDims({a.l, a.s, a.e, a.ev}, "attention"));
  Shape expected = batch;
  expected.push_back(a.l);
  expected.push_back(a.ev);
  SHARDRT_RETURN_IF_ERROR(
      requireShape(outSlot(inst, ctx, 0), expected, "the output"));
  a.batch = numElements(batch);
  a.q = inIdx(inst, 0);
  a.k = inIdx(inst, 1);
  a.v = inIdx(inst, 2);
  a.y = outIdx(inst, 0);
  a.fullMask = batch;
  a.fullMask.push_back(a.l);
  a.fullMask.push_back(a.s);
  if (hasMask) {
    const SlotInfo &mask = inSlot(inst, ctx, 3);
    if (mask.dtype != DType::I1 && mask.dtype != DType::F32)
      return invalid("the mask must be bool or f32");
    StatusOr<Shape> b = broadcastShapes({mask.shape, a.fullMask});
    if (!b.ok() || *b != a.fullMask)
      return invalid("the mask " + shapeStr(mask.shape) +
                     " does not broadcast to " + shapeStr(a.fullMask));
    a.mask = mask.dtype == DType::I1 ? AttentionStep::Mask::Bool
                                     : AttentionStep::Mask::Float;
    a.maskShape = padShape(mask.shape, a.fullMask.size());
    a.maskSlot = inIdx(inst, 3);
  }
  return a;
}

StatusOr<cpu::NeighborhoodParams>
decodeNeighborhood(const fb::Instruction &inst, const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 3, 3, 1));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx, 3));
  const Shape &q = inSlot(inst, ctx, 0).shape, &k = inSlot(inst, ctx, 1).shape;
  IntReader ints(inst);
  int64_t r = ints.next();
  if (r < 1 || r > 3 || q.size() != size_t(r) + 3)
    return invalid("neighborhood attention of rank " + std::to_string(r) +
                   " needs (B, spatial..., heads, dim) operands; q is " +
                   shapeStr(q));
  std::vector<int64_t> kernel = ints.next(r), dilation = ints.next(r),
                       qOffset = ints.next(r), kvOffset = ints.next(r),
                       global = ints.next(r);
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  std::vector<double> floats = floatAttrs(inst);
  if (floats.size() != 1 || !std::isfinite(floats[0]))
    return invalid("needs one finite scale");
  // v is k but for its head dim, which the output takes (q's otherwise).
  const Shape &v = inSlot(inst, ctx, 2).shape;
  if (k.size() != q.size() || k[0] != q[0] || k[r + 1] != q[r + 1] ||
      k[r + 2] != q[r + 2] || v.size() != k.size() ||
      !std::equal(k.begin(), k.end() - 1, v.begin()))
    return invalid("q " + shapeStr(q) + ", k " + shapeStr(k) + " and v " +
                   shapeStr(v) + " do not match");
  Shape y = q;
  y.back() = v.back();
  SHARDRT_RETURN_IF_ERROR(requireShape(outSlot(inst, ctx, 0), y, "the output"));
  cpu::NeighborhoodParams p;
  p.rank = int(r);
  p.batch = q[0];
  p.heads = q[r + 1];
  p.dim = q[r + 2];
  p.valueDim = v.back();
  p.scale = floats[0];
  const int64_t kMax = int64_t(1) << 30;
  for (int64_t d = 0; d < r; ++d) {
    int64_t K = kernel[d], D = dilation[d], L = global[d];
    if (K < 1 || K % 2 == 0 || D < 1 || K > kMax || D > kMax || L > kMax ||
        qOffset[d] < 0 || kvOffset[d] < 0 || qOffset[d] > kMax ||
        kvOffset[d] > kMax || qOffset[d] + q[d + 1] > L ||
        kvOffset[d] + k[d + 1] > L)
      return invalid("window parameters of spatial dim " + std::to_string(d) +
                     " are out of range");
    // Every residue class mod D must hold a whole window.
    if ((L - (D - 1) + D - 1) / D < K)
      return invalid("spatial dim " + std::to_string(d) + " of size " +
                     std::to_string(L) + " is smaller than kernel " +
                     std::to_string(K) + " x dilation " + std::to_string(D));
    // (Skipped for an empty output, whose extents are then only bounded by
    // 2^40. Not for an empty q: a zero q/k head dim still averages v.)
    for (int64_t i = qOffset[d];
         numElements(y) > 0 && i < qOffset[d] + q[d + 1]; ++i) {
      int64_t first = cpu::neighborhoodWindowStart(i, L, K, D),
              last = first + (K - 1) * D;
      if (first < kvOffset[d] || last >= kvOffset[d] + k[d + 1])
        return invalid("query " + std::to_string(i) + " of spatial dim " +
                       std::to_string(d) + " needs keys [" +
                       std::to_string(first) + ", " + std::to_string(last) +
                       "], outside the local keys");
    }
    p.qExtent[d] = q[d + 1];
    p.kvExtent[d] = k[d + 1];
    p.kernel[d] = K;
    p.dilation[d] = D;
    p.qOffset[d] = qOffset[d];
    p.kvOffset[d] = kvOffset[d];
    p.global[d] = L;
  }
  return p;
}

namespace {

StatusOr<RunFn> prepareNeighborhood(const fb::Instruction &inst,
                                    const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(cpu::NeighborhoodParams p,
                           decodeNeighborhood(inst, ctx));
  uint32_t qi = inIdx(inst, 0), ki = inIdx(inst, 1), vi = inIdx(inst, 2),
           y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::neighborhoodAttention(p, slotPtr<float>(rc, qi),
                               slotPtr<float>(rc, ki), slotPtr<float>(rc, vi),
                               slotPtr<float>(rc, y));
    return Status();
  });
}

} // namespace

StatusOr<RunFn> prepareContraction(const fb::Instruction &inst,
                                   const PrepareContext &ctx) {
  switch (inst.opcode()) {
  case Opcode::Matmul:
    return prepareMatmul(inst, ctx);
  case Opcode::Linear:
    return prepareLinear(inst, ctx);
  case Opcode::Attention:
    return prepareAttention(inst, ctx);
  case Opcode::NeighborhoodAttention:
    return prepareNeighborhood(inst, ctx);
  default:
    return unsupportedOpcode(inst);
  }
}

} // namespace shardrt::exec

//===- PrepareCompute.cpp - Elementwise, reductions, norms, GEMM ----------===//

#include "Collectives.h"
#include "Prepare.h"
#include "shardrt/artifact/Artifact.h"
#include "shardrt/cpu/Kernels.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace shardrt::exec {
namespace {

using fb::DType;
using fb::Opcode;

template <typename E>
StatusOr<E> lookup(const std::map<std::string, E> &table,
                   const std::string &key, const char *what) {
  auto it = table.find(key);
  if (it == table.end())
    return invalid("unknown " + std::string(what) + " '" + key + "'");
  return it->second;
}

} // namespace

StatusOr<cpu::UnaryKind> unaryKind(const std::string &mode) {
  static const std::map<std::string, cpu::UnaryKind> kinds = {
#define SHARDRT_UNARY_FUNCTION(name, kind, call) {#name, cpu::UnaryKind::kind},
#include "shardrt/artifact/ElementwiseFunctions.def"
  };
  return lookup(kinds, mode, "unary op");
}

StatusOr<cpu::BinaryKind> binaryKind(const std::string &mode) {
  static const std::map<std::string, cpu::BinaryKind> binaries = {
#define SHARDRT_BINARY_FUNCTION(name, kind, call)                              \
  {#name, cpu::BinaryKind::kind},
#include "shardrt/artifact/ElementwiseFunctions.def"
  };
  return lookup(binaries, mode, "binary op");
}

static StatusOr<cpu::ScanKind> scanKind(const std::string &mode) {
  static const std::map<std::string, cpu::ScanKind> kinds = {
      {"sum", cpu::ScanKind::Sum},
      {"prod", cpu::ScanKind::Prod},
      {"max", cpu::ScanKind::Max},
      {"min", cpu::ScanKind::Min},
      {"logsumexp", cpu::ScanKind::LogSumExp}};
  return lookup(kinds, mode, "scan");
}

StatusOr<ScanStep> decodeScan(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  bool totalsOnly = inst.opcode() == Opcode::ScanTotals;
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, totalsOnly ? 1 : 2, 1));
  ScanStep step;
  SHARDRT_ASSIGN_OR_RETURN(step.kind, scanKind(strAttr(inst)));
  SHARDRT_RETURN_IF_ERROR(requireF32(inst, ctx));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  bool fromTotals = numInputs(inst) == 2;
  IntReader ints(inst);
  int64_t dim = ints.next();
  // A Scan from totals names how many it folds, or leaves it to the rank's
  // place in the group its mesh axes name, so that every member of the
  // group runs the same instruction.
  bool named = fromTotals && inst.ints() && inst.ints()->size() == 2;
  int64_t before = named ? ints.next() : 0;
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (dim < 0 || dim >= int64_t(in.shape.size()))
    return invalid("scan dim " + std::to_string(dim) +
                   " is out of range for shape " + shapeStr(in.shape));
  Shape line = in.shape;
  line[dim] = 1;
  line.push_back(cpu::kPackedScanFloats);
  SHARDRT_RETURN_IF_ERROR(
      requireShape(out, totalsOnly ? line : in.shape, "the output"));
  for (int64_t d = 0; d < dim; ++d)
    step.outer *= in.shape[d];
  for (size_t d = size_t(dim) + 1; d < in.shape.size(); ++d)
    step.inner *= in.shape[d];
  step.len = in.shape[dim];
  step.x = inIdx(inst, 0);
  step.y = outIdx(inst, 0);
  bool grouped = inst.mesh_axes() && inst.mesh_axes()->size() > 0;
  if (named && grouped)
    return invalid("names both how many totals it folds and a group");
  if (totalsOnly && grouped) {
    // The group's last member's totals are never read.
    SHARDRT_ASSIGN_OR_RETURN(Group group, groupOf(inst, ctx));
    step.unread = group.index + 1 == group.ranks.size();
  }
  if (fromTotals) {
    const SlotInfo &totals = inSlot(inst, ctx, 1);
    step.members = totals.shape.size() == line.size() ? totals.shape[dim] : 0;
    line[dim] = step.members;
    SHARDRT_RETURN_IF_ERROR(requireShape(totals, line, "the shards' totals"));
    if (named && (before < 1 || before > step.members))
      return invalid("folds the totals of " + std::to_string(before) +
                     " shards before it, of " + std::to_string(step.members));
    if (!named) {
      SHARDRT_ASSIGN_OR_RETURN(Group group, groupOf(inst, ctx));
      if (int64_t(group.ranks.size()) != step.members)
        return invalid("has the totals of " + std::to_string(step.members) +
                       " shards for a group of " +
                       std::to_string(group.ranks.size()));
      before = int64_t(group.index);
    }
    step.totals = inIdx(inst, 1);
    step.before = before;
  }
  return step;
}

namespace {

StatusOr<RunFn> prepareUnary(const fb::Instruction &inst,
                             const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_ASSIGN_OR_RETURN(cpu::UnaryKind kind, unaryKind(strAttr(inst)));
  SHARDRT_RETURN_IF_ERROR(
      requireDType(inSlot(inst, ctx, 0), DType::F32, "the input"));
  SHARDRT_RETURN_IF_ERROR(
      requireDType(outSlot(inst, ctx, 0), DType::F32, "the output"));
  SHARDRT_RETURN_IF_ERROR(requireShape(
      outSlot(inst, ctx, 0), inSlot(inst, ctx, 0).shape, "the output"));
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  int64_t n = numElements(inSlot(inst, ctx, 0).shape);
  cpu::UnaryKind k = kind;
  return RunFn([=](RunContext &rc) {
    cpu::unary(k, slotPtr<float>(rc, x), slotPtr<float>(rc, y), n);
    return Status();
  });
}

/// Operand shapes padded to the output's rank, after checking that they
/// broadcast to exactly the output's shape.
StatusOr<std::vector<Shape>> broadcastOperands(const fb::Instruction &inst,
                                               const PrepareContext &ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < numInputs(inst); ++i)
    shapes.push_back(inSlot(inst, ctx, i).shape);
  SHARDRT_ASSIGN_OR_RETURN(Shape out, broadcastShapes(shapes));
  SHARDRT_RETURN_IF_ERROR(
      requireShape(outSlot(inst, ctx, 0), out, "the output"));
  for (Shape &s : shapes)
    s = padShape(s, out.size());
  return shapes;
}

StatusOr<RunFn> prepareBinary(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 2, 2, 1));
  bool isCompare = inst.opcode() == Opcode::Compare;
  SHARDRT_RETURN_IF_ERROR(
      requireDType(inSlot(inst, ctx, 0), DType::F32, "input 0"));
  SHARDRT_RETURN_IF_ERROR(
      requireDType(inSlot(inst, ctx, 1), DType::F32, "input 1"));
  SHARDRT_RETURN_IF_ERROR(requireDType(
      outSlot(inst, ctx, 0), isCompare ? DType::I1 : DType::F32, "the output"));
  SHARDRT_ASSIGN_OR_RETURN(std::vector<Shape> shapes,
                           broadcastOperands(inst, ctx));
  Shape a = shapes[0], b = shapes[1], o = outSlot(inst, ctx, 0).shape;
  o = padShape(o, a.size());
  uint32_t ia = inIdx(inst, 0), ib = inIdx(inst, 1), iy = outIdx(inst, 0);
  if (isCompare) {
    SHARDRT_ASSIGN_OR_RETURN(cpu::CompareKind kind, compareKind(strAttr(inst)));
    return RunFn([=](RunContext &rc) {
      cpu::compare(kind, slotPtr<float>(rc, ia), a, slotPtr<float>(rc, ib), b,
                   slotPtr<uint8_t>(rc, iy), o);
      return Status();
    });
  }
  SHARDRT_ASSIGN_OR_RETURN(cpu::BinaryKind kind, binaryKind(strAttr(inst)));
  return RunFn([=](RunContext &rc) {
    cpu::binary(kind, slotPtr<float>(rc, ia), a, slotPtr<float>(rc, ib), b,
                slotPtr<float>(rc, iy), o);
    return Status();
  });
}

StatusOr<RunFn> prepareSelect(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 3, 3, 1));
  SHARDRT_RETURN_IF_ERROR(
      requireDType(inSlot(inst, ctx, 0), DType::I1, "the condition"));
  DType t = outSlot(inst, ctx, 0).dtype;
  if (inSlot(inst, ctx, 1).dtype != t || inSlot(inst, ctx, 2).dtype != t)
    return invalid("the selected values and the output differ in dtype");
  if (t != DType::F32 && t != DType::I1)
    return Status::unimplemented("select of " +
                                 std::string(fb::EnumNameDType(t)));
  SHARDRT_ASSIGN_OR_RETURN(std::vector<Shape> s, broadcastOperands(inst, ctx));
  Shape o = padShape(outSlot(inst, ctx, 0).shape, s[0].size());
  size_t bytes = t == DType::F32 ? 4 : 1;
  uint32_t c = inIdx(inst, 0), a = inIdx(inst, 1), b = inIdx(inst, 2),
           y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::select(slotPtr<uint8_t>(rc, c), s[0], rc.slots[a], s[1], rc.slots[b],
                s[2], rc.slots[y], o, bytes);
    return Status();
  });
}

StatusOr<RunFn> prepareCast(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_ASSIGN_OR_RETURN(cpu::ElemType f,
                           castElemType(inSlot(inst, ctx, 0).dtype));
  SHARDRT_ASSIGN_OR_RETURN(cpu::ElemType t,
                           castElemType(outSlot(inst, ctx, 0).dtype));
  SHARDRT_RETURN_IF_ERROR(requireShape(
      outSlot(inst, ctx, 0), inSlot(inst, ctx, 0).shape, "the output"));
  int64_t n = numElements(inSlot(inst, ctx, 0).shape);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::cast(f, rc.slots[x], t, rc.slots[y], n);
    return Status();
  });
}

StatusOr<RunFn> prepareBroadcastTo(const fb::Instruction &inst,
                                   const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  if (in.dtype != out.dtype)
    return invalid("the input and output differ in dtype");
  // The input broadcasts to the output's shape (not to its own).
  StatusOr<Shape> target = broadcastShapes({in.shape, out.shape});
  if (!target.ok() || *target != out.shape)
    return invalid("the input " + shapeStr(in.shape) +
                   " does not broadcast to the output " + shapeStr(out.shape));
  Shape xs = padShape(in.shape, out.shape.size()), ys = out.shape;
  size_t bytes = artifact::dtypeSize(in.dtype);
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::broadcastTo(rc.slots[x], xs, rc.slots[y], ys, bytes);
    return Status();
  });
}

StatusOr<RunFn> prepareReduce(const fb::Instruction &inst,
                              const PrepareContext &ctx) {
  static const std::map<std::string, cpu::ReduceKind> kinds = {
      {"sum", cpu::ReduceKind::Sum},
      {"mean", cpu::ReduceKind::Mean},
      {"amax", cpu::ReduceKind::Max},
      {"amin", cpu::ReduceKind::Min}};
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  SHARDRT_ASSIGN_OR_RETURN(cpu::ReduceKind kind,
                           lookup(kinds, strAttr(inst), "reduction"));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(in, DType::F32, "the input"));
  SHARDRT_RETURN_IF_ERROR(requireDType(out, DType::F32, "the output"));
  std::vector<bool> reduced(in.shape.size(), false);
  IntReader ints(inst);
  for (size_t i = 0; i < ints.size(); ++i) {
    int64_t d = ints.next();
    if (d < 0 || d >= int64_t(in.shape.size()) || reduced[d])
      return invalid("reduces dim " + std::to_string(d) + " of a rank-" +
                     std::to_string(in.shape.size()) +
                     " input (out of range or repeated)");
    reduced[d] = true;
  }
  int64_t kept = 1, count = 1;
  for (size_t d = 0; d < in.shape.size(); ++d)
    (reduced[d] ? count : kept) *= in.shape[d];
  if (numElements(out.shape) != kept)
    return invalid("the output has " + std::to_string(numElements(out.shape)) +
                   " elements; reducing " + shapeStr(in.shape) + " leaves " +
                   std::to_string(kept));
  if (count == 0 &&
      (kind == cpu::ReduceKind::Max || kind == cpu::ReduceKind::Min))
    return invalid("amax/amin over zero elements");
  cpu::ReduceKind k = kind;
  Shape xs = in.shape;
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::reduce(k, slotPtr<float>(rc, x), xs, reduced, slotPtr<float>(rc, y));
    return Status();
  });
}

StatusOr<RunFn> prepareSoftmax(const fb::Instruction &inst,
                               const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 1, 1));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(in, DType::F32, "the input"));
  SHARDRT_RETURN_IF_ERROR(requireDType(out, DType::F32, "the output"));
  SHARDRT_RETURN_IF_ERROR(requireShape(out, in.shape, "the output"));
  IntReader ints(inst);
  int64_t dim = ints.next(), log = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  if (dim < 0 || dim >= int64_t(in.shape.size()))
    return invalid("softmax dim " + std::to_string(dim) +
                   " is out of range for shape " + shapeStr(in.shape));
  Shape xs = in.shape;
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  return RunFn([=](RunContext &rc) {
    cpu::softmax(slotPtr<float>(rc, x), xs, dim, log != 0,
                 slotPtr<float>(rc, y));
    return Status();
  });
}

StatusOr<RunFn> prepareScan(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_ASSIGN_OR_RETURN(ScanStep step, decodeScan(inst, ctx));
  Shape xs = inSlot(inst, ctx, 0).shape;
  int64_t dim = inst.ints()->Get(0);
  if (step.unread)
    return RunFn([=](RunContext &rc) {
      float *y = slotPtr<float>(rc, step.y);
      std::fill(y, y + step.outer * step.inner * cpu::kPackedScanFloats, 0.f);
      return Status();
    });
  if (inst.opcode() == Opcode::ScanTotals)
    return RunFn([=](RunContext &rc) {
      cpu::scanTotals(step.kind, slotPtr<float>(rc, step.x), xs, dim,
                      slotPtr<float>(rc, step.y));
      return Status();
    });
  // The carries are made each run, from that run's gathered totals.
  auto init = std::make_shared<std::vector<double>>(
      step.totals == UINT32_MAX ? 0 : size_t(step.outer * step.inner));
  return RunFn([=](RunContext &rc) {
    if (step.totals != UINT32_MAX)
      cpu::scanCarries(step.kind, slotPtr<float>(rc, step.totals), step.outer,
                       step.members, step.inner, step.before, init->data());
    cpu::scan(step.kind, slotPtr<float>(rc, step.x), xs, dim,
              init->empty() ? nullptr : init->data(),
              slotPtr<float>(rc, step.y));
    return Status();
  });
}

/// Optional affine parameters: weight/bias slots (UINT32_MAX when absent),
/// each with `channels` elements.
struct Affine {
  uint32_t weight = UINT32_MAX, bias = UINT32_MAX;
};

StatusOr<Affine> decodeAffine(const fb::Instruction &inst,
                              const PrepareContext &ctx, size_t first,
                              bool hasWeight, bool hasBias,
                              const Shape &paramShape) {
  if (numInputs(inst) != first + hasWeight + hasBias)
    return invalid("has " + std::to_string(numInputs(inst)) +
                   " inputs; has_weight/has_bias say " +
                   std::to_string(first + hasWeight + hasBias));
  Affine a;
  size_t i = first;
  for (auto [present, slot, what] :
       {std::tuple{hasWeight, &a.weight, "the weight"},
        std::tuple{hasBias, &a.bias, "the bias"}}) {
    if (!present)
      continue;
    SHARDRT_RETURN_IF_ERROR(
        requireDType(inSlot(inst, ctx, i), DType::F32, what));
    if (numElements(inSlot(inst, ctx, i).shape) != numElements(paramShape))
      return invalid(std::string(what) + " has shape " +
                     shapeStr(inSlot(inst, ctx, i).shape) + "; expected " +
                     std::to_string(numElements(paramShape)) + " elements");
    *slot = inIdx(inst, i++);
  }
  return a;
}

StatusOr<RunFn> prepareNorm(const fb::Instruction &inst,
                            const PrepareContext &ctx) {
  SHARDRT_RETURN_IF_ERROR(checkOperands(inst, ctx, 1, 5, 1));
  const SlotInfo &in = inSlot(inst, ctx, 0), &out = outSlot(inst, ctx, 0);
  SHARDRT_RETURN_IF_ERROR(requireDType(in, DType::F32, "the input"));
  SHARDRT_RETURN_IF_ERROR(requireDType(out, DType::F32, "the output"));
  SHARDRT_RETURN_IF_ERROR(requireShape(out, in.shape, "the output"));
  std::vector<double> floats = floatAttrs(inst);
  if (floats.size() != 1 || !(floats[0] >= 0) || !std::isfinite(floats[0]))
    return invalid("needs one finite, non-negative eps");
  double eps = floats[0];
  IntReader ints(inst);
  bool hasWeight = ints.next() != 0, hasBias = ints.next() != 0;
  int64_t param = ints.next();
  SHARDRT_RETURN_IF_ERROR(ints.finish());
  std::string kind = strAttr(inst);
  Shape xs = in.shape;
  uint32_t x = inIdx(inst, 0), y = outIdx(inst, 0);
  if (kind == "layer") {
    if (param < 1 || param > int64_t(xs.size()))
      return invalid("normalizes " + std::to_string(param) +
                     " trailing dims of a rank-" + std::to_string(xs.size()) +
                     " input");
    Shape normalized(xs.end() - param, xs.end());
    int64_t inner = numElements(normalized),
            outer = numElements(xs) / std::max<int64_t>(inner, 1);
    SHARDRT_ASSIGN_OR_RETURN(
        Affine af, decodeAffine(inst, ctx, 1, hasWeight, hasBias, normalized));
    return RunFn([=](RunContext &rc) {
      cpu::layerNorm(slotPtr<float>(rc, x), outer, inner,
                     optionalSlot(rc, af.weight), optionalSlot(rc, af.bias),
                     eps, slotPtr<float>(rc, y));
      return Status();
    });
  }
  if (xs.size() < 2)
    return invalid(kind + " norm needs an (N, C, ...) input; got " +
                   shapeStr(xs));
  int64_t n = xs[0], c = xs[1],
          spatial = numElements(xs) / std::max<int64_t>(n * c, 1);
  if (kind == "group") {
    if (param < 1 || c % param != 0)
      return invalid(std::to_string(c) + " channels do not split into " +
                     std::to_string(param) + " groups");
    SHARDRT_ASSIGN_OR_RETURN(
        Affine af, decodeAffine(inst, ctx, 1, hasWeight, hasBias, {c}));
    return RunFn([=](RunContext &rc) {
      cpu::groupNorm(slotPtr<float>(rc, x), n, c, spatial, param,
                     optionalSlot(rc, af.weight), optionalSlot(rc, af.bias),
                     eps, slotPtr<float>(rc, y));
      return Status();
    });
  }
  if (kind == "batch") {
    if (numInputs(inst) < 3)
      return invalid("batch norm needs the running mean and variance");
    for (size_t i : {1, 2}) {
      SHARDRT_RETURN_IF_ERROR(requireDType(inSlot(inst, ctx, i), DType::F32,
                                           "a running statistic"));
      if (numElements(inSlot(inst, ctx, i).shape) != c)
        return invalid("a running statistic has shape " +
                       shapeStr(inSlot(inst, ctx, i).shape) + "; expected (" +
                       std::to_string(c) + ",)");
    }
    SHARDRT_ASSIGN_OR_RETURN(
        Affine af, decodeAffine(inst, ctx, 3, hasWeight, hasBias, {c}));
    uint32_t mean = inIdx(inst, 1), var = inIdx(inst, 2);
    return RunFn([=](RunContext &rc) {
      cpu::batchNormInference(
          slotPtr<float>(rc, x), n, c, spatial, slotPtr<float>(rc, mean),
          slotPtr<float>(rc, var), optionalSlot(rc, af.weight),
          optionalSlot(rc, af.bias), eps, slotPtr<float>(rc, y));
      return Status();
    });
  }
  return invalid("unknown norm kind '" + kind + "'");
}

} // namespace

StatusOr<cpu::ElemType> castElemType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return cpu::ElemType::F32;
  case DType::I1:
    return cpu::ElemType::Bool;
  case DType::BF16:
    return cpu::ElemType::BF16;
  case DType::F16:
    return cpu::ElemType::F16;
  case DType::I64:
    return cpu::ElemType::I64;
  default:
    return Status::unimplemented("cast from or to " +
                                 std::string(fb::EnumNameDType(dtype)));
  }
}

StatusOr<cpu::ElemType> fusedElemType(DType dtype) {
  if (dtype == DType::I64)
    return invalid("a fused kernel reads or writes I64; int64 buffers are "
                   "only cast and moved");
  return castElemType(dtype);
}

StatusOr<cpu::CompareKind> compareKind(const std::string &name) {
  static const std::map<std::string, cpu::CompareKind> compares = {
      {"eq", cpu::CompareKind::Eq}, {"ne", cpu::CompareKind::Ne},
      {"lt", cpu::CompareKind::Lt}, {"le", cpu::CompareKind::Le},
      {"gt", cpu::CompareKind::Gt}, {"ge", cpu::CompareKind::Ge}};
  return lookup(compares, name, "predicate");
}

StatusOr<RunFn> prepareCompute(const fb::Instruction &inst,
                               const PrepareContext &ctx) {
  switch (inst.opcode()) {
  case Opcode::Unary:
    return prepareUnary(inst, ctx);
  case Opcode::Binary:
  case Opcode::Compare:
    return prepareBinary(inst, ctx);
  case Opcode::Select:
    return prepareSelect(inst, ctx);
  case Opcode::Cast:
    return prepareCast(inst, ctx);
  case Opcode::BroadcastTo:
    return prepareBroadcastTo(inst, ctx);
  case Opcode::Reduce:
    return prepareReduce(inst, ctx);
  case Opcode::Softmax:
    return prepareSoftmax(inst, ctx);
  case Opcode::Scan:
  case Opcode::ScanTotals:
    return prepareScan(inst, ctx);
  case Opcode::Norm:
    return prepareNorm(inst, ctx);
  default:
    return unsupportedOpcode(inst);
  }
}

} // namespace shardrt::exec

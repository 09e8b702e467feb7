//===- Prepare.h - Decoding instructions into runnable steps ----*- C++ -*-===//
//
// Each instruction is decoded once per session into a RunFn that captures
// its kernel parameters and slot indices. Decoding checks everything a
// kernel would otherwise trust (operand counts, dtypes, shapes, attribute
// ranges), so an artifact that passed the loader and the prepare step cannot
// make a kernel read or write outside its slots.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_PREPARE_H
#define SHARDRT_ENGINE_PREPARE_H

#include "Workspace.h"
#include "shardrt/Status.h"
#include "shardrt/artifact/shardbin_generated.h"
#include "shardrt/cpu/Kernels.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace shardrt {
namespace comm {
class Communicator;
}
namespace exec {

using Shape = std::vector<int64_t>;

struct SlotInfo {
  fb::DType dtype = fb::DType::F32;
  Shape shape;
  bool hasShape = false;
  uint64_t bytes = 0;

  /// Bytes of the tensor the slot holds (its extent for untyped scratch).
  uint64_t tensorBytes() const;
};

/// A buffer slot of the artifact as the steps see it (its offset apart).
SlotInfo slotInfo(const fb::BufferSlot &slot);

struct RunContext {
  std::vector<void *> slots; // resolved base pointer of every slot
  comm::Communicator *comm = nullptr;
};

using RunFn = std::function<Status(RunContext &)>;

/// A step that stages or scratches, prepared outside a session (no
/// workspace to reserve in).
inline Status noWorkspace() {
  return Status::failedPrecondition("this step needs a session's workspace");
}

/// FailedPrecondition naming `what` ("an all-reduce") when a step that
/// communicates runs without a communicator.
inline Status needsCommunicator(const RunContext &rc, const char *what) {
  if (rc.comm)
    return Status();
  return Status::failedPrecondition(std::string(what) +
                                    " needs a communicator");
}

struct ExchangeState; // PrepareComm.cpp

/// One send or receive of a halo exchange, resolved for this rank: the
/// peer's world rank, and the box [lo, lo + box) of `slot` it reads or
/// writes.
struct BoxTransfer {
  bool send = false;
  int peer = 0;
  int tag = 0;
  uint32_t slot = 0;
  Shape slotShape, lo, box;
  size_t elemBytes = 0, bytes = 0;
};

/// Halo exchanges that one instruction starts and a later Wait completes, so
/// that the interior of the consuming op runs while the halo is in flight.
/// One per session: the start and the Wait share the exchange's state.
class PendingExchanges {
public:
  PendingExchanges();
  ~PendingExchanges();
  PendingExchanges(const PendingExchanges &) = delete;
  PendingExchanges &operator=(const PendingExchanges &) = delete;

  void add(uint32_t instruction, std::shared_ptr<ExchangeState> state);
  /// The exchange started by `instruction`, claimed by the Wait being
  /// prepared; InvalidArgument when there is none or it was claimed before.
  StatusOr<std::shared_ptr<ExchangeState>> claim(uint32_t instruction);
  /// After preparing: every started exchange has its Wait.
  Status checkAllClaimed() const;
  /// After a failed run: completes the transfers still in flight (under the
  /// communicator's timeout) so that the next run starts clean.
  void drain();

private:
  struct Entry {
    std::shared_ptr<ExchangeState> state;
    bool claimed = false;
  };
  std::vector<std::pair<uint32_t, Entry>> entries_;
};

struct PrepareContext {
  const std::vector<SlotInfo> &slots;
  int rank = 0;
  std::vector<int64_t> meshShape;
  std::vector<int64_t> meshCoords;
  /// The index of the instruction being prepared in its rank program.
  uint32_t instruction = 0;
  /// Where started exchanges meet their Wait; null: none may be deferred.
  PendingExchanges *pending = nullptr;
  /// The session's communicator (the one every run gets); null in a world
  /// of one without one.
  comm::Communicator *comm = nullptr;
  /// Where steps reserve host memory beyond the arena; null: none may.
  WorkspacePlan *workspace = nullptr;
  /// SessionOptions::balanceCausalRings.
  bool balanceCausalRings = true;

  /// Reserves `bytes` of workspace for this instruction alone.
  StatusOr<WorkspacePlan::Ref> reserveWorkspace(uint64_t bytes) const {
    if (!workspace)
      return noWorkspace();
    return workspace->reserve(bytes, instruction, instruction);
  }
};

/// Decodes one instruction; the error message names what is wrong (the
/// caller adds which instruction).
StatusOr<RunFn> prepareInstruction(const fb::Instruction &inst,
                                   const PrepareContext &ctx);

// Per family (PrepareCompute.cpp, PrepareContraction.cpp,
// PrepareWindowed.cpp, PrepareData.cpp, PrepareComm.cpp);
// prepareInstruction routes each opcode to its family.
StatusOr<RunFn> prepareCompute(const fb::Instruction &inst,
                               const PrepareContext &ctx);
StatusOr<RunFn> prepareWindowed(const fb::Instruction &inst,
                                const PrepareContext &ctx);
StatusOr<RunFn> prepareContraction(const fb::Instruction &inst,
                                   const PrepareContext &ctx);
StatusOr<RunFn> prepareData(const fb::Instruction &inst,
                            const PrepareContext &ctx);
StatusOr<RunFn> prepareComm(const fb::Instruction &inst,
                            const PrepareContext &ctx);
/// PrepareRing.cpp.
StatusOr<RunFn> prepareRingAttention(const fb::Instruction &inst,
                                     const PrepareContext &ctx);
StatusOr<RunFn> prepareElementwiseFused(const fb::Instruction &inst,
                                        const PrepareContext &ctx);
StatusOr<RunFn> prepareReductionFused(const fb::Instruction &inst,
                                      const PrepareContext &ctx);

/// A HaloExchange's transfers, checked (peers inside the mesh, tags below
/// the one reserved for group collectives), and whether it only starts
/// (a later Wait completes it).
struct ExchangeTransfers {
  std::vector<BoxTransfer> transfers;
  bool startOnly = false;
};
StatusOr<ExchangeTransfers> exchangeTransfers(const fb::Instruction &inst,
                                              const PrepareContext &ctx);

/// The CPU kernel of a Unary or Binary mode (the schema's names).
StatusOr<cpu::UnaryKind> unaryKind(const std::string &mode);
StatusOr<cpu::BinaryKind> binaryKind(const std::string &mode);

//===----------------------------------------------------------------------===//
// Helpers shared by the families
//===----------------------------------------------------------------------===//

/// Reads an instruction's ints in order, remembering the first shortfall.
class IntReader {
public:
  explicit IntReader(const fb::Instruction &inst);
  int64_t next();
  std::vector<int64_t> next(size_t n);
  /// Ok when exactly all ints were consumed.
  Status finish() const;
  size_t size() const { return size_; }
  /// True once a read went past the end.
  bool overrun() const { return shortfall_; }

private:
  const flatbuffers::Vector<int64_t> *ints_;
  size_t size_, pos_ = 0;
  bool shortfall_ = false;
};

/// Reads the iteration space and the reduced dims (ascending) of a
/// ReductionFused header: `reduced` flags each dim of `domain`.
Status readReductionHeader(IntReader &ints, Shape &domain,
                           std::vector<bool> &reduced);

/// An Interpolate's mode and its parameters for `cpu::interpolate`, checked.
struct InterpolateStep {
  cpu::InterpMode mode{};
  cpu::InterpParams params;
  /// bf16 or f16 in and out: a nearest mode, which only gathers.
  bool halfFloats = false;
};
StatusOr<InterpolateStep> decodeInterpolate(const fb::Instruction &inst,
                                            const PrepareContext &ctx);

/// A Scan or ScanTotals, checked: its input viewed (outer, len, inner)
/// around the scanned dim, and for a Scan that starts from earlier shards'
/// totals, their slot, their count `members` and how many of them
/// (`before`) it folds. The one reader of both, for the CPU and CUDA steps.
struct ScanStep {
  cpu::ScanKind kind{};
  int64_t outer = 1, len = 0, inner = 1;
  uint32_t x = 0, y = 0;
  uint32_t totals = UINT32_MAX; ///< none: start from the identity
  int64_t members = 0, before = 0;
  /// A ScanTotals on its group's last member: nobody reads its totals, so
  /// it writes zeros without reading x.
  bool unread = false;
};
StatusOr<ScanStep> decodeScan(const fb::Instruction &inst,
                              const PrepareContext &ctx);

/// A Conv or ConvTranspose for `cpu::conv` / `cpu::convTranspose`, checked
/// (shapes, groups, window ranges, a Conv's optional output region, the
/// bias): the one reader of its ints, for the CPU and CUDA steps and the
/// profile's FLOP count.
struct ConvStep {
  cpu::ConvParams params;
  bool transposed = false;
  /// The ints name the output box to compute (params.regionLo/Hi); without
  /// one the step writes the whole output.
  bool hasRegion = false;
  uint32_t x = 0, w = 0, y = 0, bias = UINT32_MAX; ///< bias: none
  /// A Conv's input may be bf16 or f16 (widened as im2col packs it).
  cpu::ElemType xType = cpu::ElemType::F32;
};
StatusOr<ConvStep> decodeConv(const fb::Instruction &inst,
                              const PrepareContext &ctx);

/// A Pool for cpu::maxPool or cpu::avgPool, checked.
struct PoolStep {
  cpu::PoolParams params;
  bool isMax = false;
  uint32_t x = 0, y = 0;
};
StatusOr<PoolStep> decodePool(const fb::Instruction &inst,
                              const PrepareContext &ctx);

/// A Pad's mode by its name (constant, reflect, replicate, circular).
StatusOr<cpu::PadMode> padMode(const std::string &name);
/// A Compare's predicate by its name (eq, ne, lt, le, gt, ge).
StatusOr<cpu::CompareKind> compareKind(const std::string &name);
/// The cpu::ElemType a Cast converts from or to (f32, i1, bf16, f16, i64).
StatusOr<cpu::ElemType> castElemType(fb::DType dtype);
/// castElemType for fused kernels, which read and write f32, bool, bf16 and
/// f16 only (int64 indices are only cast and moved).
StatusOr<cpu::ElemType> fusedElemType(fb::DType dtype);

/// An Attention (scaled dot-product attention) for `cpu::sdpa`, checked:
/// `batch` problems of q (l, e), k (s, e), v (s, ev) -> y (l, ev).
struct AttentionStep {
  int64_t batch = 0, l = 0, s = 0, e = 0, ev = 0;
  bool causal = false;
  double scale = 1.0;
  enum class Mask { None, Bool, Float } mask = Mask::None;
  /// The mask's shape right-aligned to `fullMask` (batch..., l, s), to
  /// which it broadcasts.
  Shape maskShape, fullMask;
  uint32_t q = 0, k = 0, v = 0, y = 0, maskSlot = UINT32_MAX;
};
StatusOr<AttentionStep> decodeAttention(const fb::Instruction &inst,
                                        const PrepareContext &ctx);

/// A NeighborhoodAttention's windows for `cpu::neighborhoodAttention`,
/// checked (every query's window among the local keys).
StatusOr<cpu::NeighborhoodParams>
decodeNeighborhood(const fb::Instruction &inst, const PrepareContext &ctx);

std::string shapeStr(const Shape &shape);
int64_t numElements(const Shape &shape);
Status invalid(const std::string &message);

/// Checks the operand counts (inputs in [minIn, maxIn], exactly `outs`
/// outputs) and that every operand slot has a shape.
Status checkOperands(const fb::Instruction &inst, const PrepareContext &ctx,
                     size_t minIn, size_t maxIn, size_t outs);
const SlotInfo &inSlot(const fb::Instruction &inst, const PrepareContext &ctx,
                       size_t i);
const SlotInfo &outSlot(const fb::Instruction &inst, const PrepareContext &ctx,
                        size_t i);
/// The CPU kernels compute in f32 (bools as bytes).
Status requireDType(const SlotInfo &slot, fb::DType dtype,
                    const std::string &what);
Status requireShape(const SlotInfo &slot, const Shape &expected,
                    const std::string &what);
/// The first `inputs` inputs (all when SIZE_MAX) and every output are f32.
Status requireF32(const fb::Instruction &inst, const PrepareContext &ctx,
                  size_t inputs = SIZE_MAX);
/// BLAS takes 32-bit sizes: every GEMM dimension must be below 2^31.
Status requireBlasDims(std::initializer_list<int64_t> dims, const char *op);
/// numpy broadcasting of `shapes`; InvalidArgument when incompatible.
StatusOr<Shape> broadcastShapes(const std::vector<Shape> &shapes);
/// `shape` left-padded with 1s to `rank` dims.
Shape padShape(const Shape &shape, size_t rank);

/// Unimplemented: the CPU backend has no step for this opcode.
Status unsupportedOpcode(const fb::Instruction &inst);

/// The slot index of input/output i.
inline uint32_t inIdx(const fb::Instruction &inst, size_t i) {
  return inst.inputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
}
inline uint32_t outIdx(const fb::Instruction &inst, size_t i) {
  return inst.outputs()->Get(static_cast<flatbuffers::uoffset_t>(i));
}
inline size_t numInputs(const fb::Instruction &inst) {
  return inst.inputs() ? inst.inputs()->size() : 0;
}
inline std::string strAttr(const fb::Instruction &inst) {
  return inst.str() ? inst.str()->str() : std::string();
}
inline std::vector<double> floatAttrs(const fb::Instruction &inst) {
  std::vector<double> v;
  if (inst.floats())
    v.assign(inst.floats()->begin(), inst.floats()->end());
  return v;
}

template <typename T> T *slotPtr(RunContext &rc, uint32_t slot) {
  return static_cast<T *>(rc.slots[slot]);
}

/// Marks an absent optional operand (bias, affine weight).
constexpr uint32_t kNoSlot = UINT32_MAX;
/// The f32 data of an optional operand, or null.
inline const float *optionalSlot(RunContext &rc, uint32_t slot) {
  return slot == kNoSlot ? nullptr : slotPtr<float>(rc, slot);
}

} // namespace exec
} // namespace shardrt

#endif // SHARDRT_ENGINE_PREPARE_H

//===- TestArtifacts.cpp --------------------------------------------------===//

#include "TestArtifacts.h"

namespace shardrt::artifact::test {

using fb::DType;
using fb::Opcode;

BufferSlotSpec tensorSlot(uint64_t offset, DType dtype,
                          std::vector<int64_t> shape) {
  BufferSlotSpec slot;
  slot.offset = offset;
  slot.bytes = tensorBytes(dtype, shape);
  slot.dtype = dtype;
  slot.shape = std::move(shape);
  return slot;
}

std::vector<uint8_t> pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = uint8_t(seed * 31 + i * 7 + (i >> 8));
  return bytes;
}

namespace {

TransferSpec transfer(fb::TransferKind kind, std::vector<int32_t> peer,
                      bool periodic, uint32_t slot, std::vector<int64_t> lo,
                      std::vector<int64_t> hi, uint32_t tag) {
  TransferSpec t;
  t.kind = kind;
  t.peer = std::move(peer);
  t.periodic = periodic;
  t.slot = slot;
  t.lo = std::move(lo);
  t.hi = std::move(hi);
  t.tag = tag;
  return t;
}

InstructionSpec op(Opcode opcode, std::vector<uint32_t> inputs,
                   std::vector<uint32_t> outputs) {
  InstructionSpec inst;
  inst.opcode = opcode;
  inst.inputs = std::move(inputs);
  inst.outputs = std::move(outputs);
  return inst;
}

/// Rows are split 4 + 3 over x: the top class owns 4, the bottom 3, and each
/// exchanges one halo row with the other (non-periodic) and one column with
/// its y neighbour (periodic).
InstructionSpec haloExchange(bool top, int64_t h) {
  using fb::TransferKind;
  using namespace rich;
  int32_t dx = top ? 1 : -1;
  InstructionSpec inst = op(Opcode::HaloExchange, {kFieldSlot}, {kHaloSlot});
  int64_t sendRow = top ? h - 1 : 0, recvRow = top ? h + 1 : 0;
  inst.transfers = {
      transfer(TransferKind::Send, {dx, 0}, false, kFieldSlot, {0, sendRow, 0},
               {2, sendRow + 1, 3}, 1),
      transfer(TransferKind::Recv, {dx, 0}, false, kHaloSlot, {0, recvRow, 0},
               {2, recvRow + 1, 3}, 1),
      transfer(TransferKind::Send, {0, 1}, true, kFieldSlot, {0, 0, 2},
               {2, h, 3}, 2),
      transfer(TransferKind::Recv, {0, -1}, true, kHaloSlot, {0, 1, 0},
               {2, h + 1, 1}, 2),
  };
  return inst;
}

TensorDescSpec fieldTensor(std::string name) {
  TensorDescSpec t;
  t.name = std::move(name);
  t.dtype = DType::F32;
  t.shape = {2, 7, 6};
  t.dims = {{{}, {2}}, {{0}, {4, 3}}, {{1}, {3, 3}}};
  return t;
}

} // namespace

RankClassSpec richClass(bool top) {
  using namespace rich;
  int64_t h = top ? 4 : 3;
  RankClassSpec rc;
  rc.name = top ? "top" : "bottom";
  rc.ranks = top ? std::vector<int32_t>{0, 1} : std::vector<int32_t>{2, 3};
  rc.arenaBytes = 1024;
  BufferSlotSpec scratch;
  scratch.offset = 960;
  scratch.bytes = 64;
  rc.buffers = {tensorSlot(0, DType::F32, {2, h, 3}),
                tensorSlot(128, DType::F32, {2, h + 2, 3}),
                tensorSlot(320, DType::F32, {2, 2, 3, 3}),
                tensorSlot(512, DType::F32, {2}),
                tensorSlot(576, DType::F32, {h}),
                tensorSlot(640, DType::F32, {2, h, 3}),
                tensorSlot(768, DType::F32, {2, h, 3}),
                tensorSlot(896, DType::F32, {2}),
                scratch};
  InstructionSpec copy = op(Opcode::Copy, {kFieldSlot}, {kHaloSlot});
  copy.ints = {0, 0, 0, 0, 1, 0};
  InstructionSpec wait = op(Opcode::Wait, {}, {});
  wait.ints = {0};
  InstructionSpec conv =
      op(Opcode::Conv, {kHaloSlot, kWeightSlot, kBiasSlot}, {kTmpSlot});
  conv.ints = {1, 1, 1, 0, 1, 1, 1};
  conv.str = "cudnn";
  InstructionSpec fused =
      op(Opcode::ElementwiseFused, {kTmpSlot, kPosSlot}, {kOutSlot});
  fused.kernel = 0;
  fused.floats = {0.5, -1.25};
  InstructionSpec reduce =
      op(Opcode::ReductionFused, {kOutSlot, kScratchSlot}, {kSumSlot});
  reduce.kernel = 1;
  InstructionSpec allReduce = op(Opcode::AllReduce, {kSumSlot}, {kSumSlot});
  allReduce.meshAxes = {0};
  allReduce.reduce = fb::ReduceKind::Sum;
  rc.program = {
      haloExchange(top, h), copy, wait, conv, fused, reduce, allReduce};
  rc.inputSlots = {kFieldSlot};
  rc.outputSlots = {kOutSlot, kSumSlot};
  rc.constants = {{kWeight, kWeightSlot}, {kBias, kBiasSlot}, {kPos, kPosSlot}};
  return rc;
}

ArtifactWriter richWriter() {
  ArtifactWriter w({"x", "y"}, {2, 2});
  w.setProducer("shardrt artifact tests");
  w.addRankClass(richClass(true));
  w.addRankClass(richClass(false));
  w.addInput(fieldTensor("field"));
  w.addOutput(fieldTensor("out"));
  TensorDescSpec sum;
  sum.name = "sum";
  sum.shape = {2};
  sum.dims = {{{}, {2}}};
  sum.partial = fb::ReduceKind::Sum;
  sum.partialAxes = {1};
  w.addOutput(sum);
  std::vector<int32_t> all = {0, 1, 2, 3};
  w.addConstant(
      {"conv.w", DType::F32, 64, {{all, {2, 2, 3, 3}, pattern(144, 1)}}});
  w.addConstant({"conv.b", DType::F32, 16, {{all, {2}, pattern(8, 2)}}});
  w.addConstant(
      {"pos",
       DType::F32,
       64,
       {{{0, 1}, {4}, pattern(16, 3)}, {{2, 3}, {3}, pattern(12, 4)}}});
  // Same bytes as conv.w: must share its blob.
  w.addConstant(
      {"conv.w.copy", DType::F32, 64, {{all, {2, 2, 3, 3}, pattern(144, 1)}}});
  w.addKernelSymbol("fused_add_relu");
  w.addKernelSymbol("reduce_sum");
  w.addKernelBinary(
      {"sm_90", fb::KernelFormat::Cubin, {0, 1}, pattern(200, 5)});
  w.addKernelBinary(
      {"x86_64", fb::KernelFormat::SharedObject, {0, 1}, pattern(300, 6)});
  return w;
}

ArtifactWriter smallWriter() {
  ArtifactWriter w({"x"}, {2});
  TensorDescSpec a;
  a.name = "a";
  a.shape = {5};
  a.dims = {{{0}, {3, 2}}};
  w.addInput(a);
  a.name = "b";
  w.addOutput(a);
  w.addConstant({"k",
                 DType::F32,
                 64,
                 {{{0}, {3}, pattern(12, 7)}, {{1}, {2}, pattern(8, 8)}}});
  w.addKernelSymbol("add");
  w.addKernelBinary(
      {"x86_64", fb::KernelFormat::SharedObject, {0}, pattern(40, 9)});
  for (int32_t r = 0; r < 2; ++r) {
    int64_t n = r == 0 ? 3 : 2;
    RankClassSpec rc;
    rc.ranks = {r};
    rc.arenaBytes = 128;
    rc.buffers = {tensorSlot(0, DType::F32, {n}),
                  tensorSlot(64, DType::F32, {n}),
                  tensorSlot(96, DType::F32, {2})};
    // Each rank sends its first element to the other and receives the
    // other's into its last; the all-reduce is on a shape both hold.
    InstructionSpec send = op(Opcode::SendRecv, {0}, {0});
    send.transfers = {transfer(fb::TransferKind::Send, {r == 0 ? 1 : -1}, false,
                               0, {0}, {1}, 0),
                      transfer(fb::TransferKind::Recv, {r == 0 ? 1 : -1}, false,
                               0, {n - 1}, {n}, 0)};
    InstructionSpec add = op(Opcode::ElementwiseFused, {0, 1}, {0});
    add.kernel = 0;
    InstructionSpec allReduce = op(Opcode::AllReduce, {2}, {2});
    allReduce.meshAxes = {0};
    allReduce.reduce = fb::ReduceKind::Max;
    rc.program = {send, add, allReduce};
    rc.inputSlots = {0};
    rc.outputSlots = {0};
    rc.constants = {{0, 1}};
    w.addRankClass(rc);
  }
  return w;
}

} // namespace shardrt::artifact::test

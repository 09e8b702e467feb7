//===- EnginePrepareTest.cpp - Malformed programs rejected at prepare -----===//
//
// The checks a session makes when it is prepared: attribute counts, ranges
// and overflows, output shapes, operands, dtypes and unknown kinds, writes
// to inputs or constants, slots that are misaligned, too large or overlap
// an instruction's inputs; each error names the failing instruction.
//
//===----------------------------------------------------------------------===//

#include "EngineTestSupport.h"

#include "shardrt/Engine.h"
#include "shardrt/artifact/ArtifactWriter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace shardrt {
namespace {

using namespace enginetest;

//===----------------------------------------------------------------------===//
// Malformed programs are rejected when a session is prepared
//===----------------------------------------------------------------------===//

TEST(EnginePrepare, WrongNumberOfInts) {
  Shape s = {2, 3};
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Softmax, {{s}}, {s}, {1}}.prepareStatus()),
               kInvalid, {"instruction 0 (Softmax)", "integer attributes"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Softmax, {{s}}, {s}, {1, 0, 0}}.prepareStatus()),
               kInvalid, {"has 3 integer attributes"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Permute, {{s}}, {{3, 2}}, {1}}.prepareStatus()),
               kInvalid, {"(Permute)", "integer attributes"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 1, 4, 4}}, {{1, 1, 3, 3}}},
                               {{1, 1, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "integer attributes"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Attention,
                               {{{2, 3}}, {{2, 3}}, {{2, 3}}},
                               {{2, 3}},
                               {0},
                               {1.0}}
                            .prepareStatus()),
                       kInvalid, {"(Attention)", "integer attributes"}));
}

TEST(EnginePrepare, WrongOutputShapes) {
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Unary, {{{2, 3}}}, {{2, 4}}, {}, {}, "relu"}
                    .prepareStatus()),
               kInvalid, {"instruction 0 (Unary)", "(2, 4)", "(2, 3)"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Matmul, {{{2, 3}}, {{3, 4}}}, {{2, 5}}}.prepareStatus()),
      kInvalid, {"(Matmul)", "shape"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Matmul, {{{2, 3}}, {{4, 4}}}, {{2, 4}}}.prepareStatus()),
      kInvalid, {"(Matmul)", "contracts"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Binary, {{{2, 3}}, {{4}}}, {{2, 3}}, {}, {}, "add"}
           .prepareStatus()),
      kInvalid, {"(Binary)", "broadcast"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Copy, {{{2, 3}}}, {{7}}}.prepareStatus()),
               kInvalid, {"(Copy)", "element counts"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Reduce, {{{2, 3}}}, {{3}}, {1}, {}, "sum"}
                    .prepareStatus()),
               kInvalid, {"(Reduce)", "elements"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Pool,
                               {{{1, 2, 4, 4}}},
                               {{1, 3, 2, 2}},
                               Pool2d().ints(),
                               {},
                               "max"}
                            .prepareStatus()),
                       kInvalid, {"(Pool)", "channels"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Concat, {{{2, 3}}, {{2, 2}}}, {{2, 6}}, {1}}
                    .prepareStatus()),
               kInvalid, {"(Concat)", "sum to 5"}));
  EXPECT_TRUE(rejected(
      (OpCase{
          Opcode::Pad, {{{2, 3}}}, {{3, 3}}, {0, 0, 0, 0}, {0.0}, "constant"}
           .prepareStatus()),
      kInvalid, {"(Pad)", "shape"}));
  // The error names the failing instruction, not the first.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t t = m.slot({4});
  uint32_t y = m.output("y", {5});
  m.op(Opcode::Unary, {x}, {t}, {}, {}, "neg");
  m.op(Opcode::Unary, {t}, {y}, {}, {}, "neg");
  EXPECT_TRUE(rejected(prepare(m.unchecked()), kInvalid,
                       {"rank class 'all' instruction 1 (Unary)"}));
}

TEST(EnginePrepare, MalformedScans) {
  Shape s = {2, 3};
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}}, {s}, {2}, {}, "sum"}.prepareStatus()),
      kInvalid, {"instruction 0 (Scan)", "scan dim 2 is out of range"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}}, {s}, {-1}, {}, "max"}.prepareStatus()),
      kInvalid, {"(Scan)", "scan dim -1"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}}, {s}, {1}, {}, "cumsum"}.prepareStatus()),
      kInvalid, {"(Scan)", "unknown scan 'cumsum'"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}}, {{3, 2}}, {1}, {}, "sum"}.prepareStatus()),
      kInvalid, {"(Scan)", "the output"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}}, {s}, {1, 0}, {}, "sum"}.prepareStatus()),
      kInvalid, {"(Scan)", "integer attributes"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}}, {s}, {}, {}, "sum"}.prepareStatus()),
      kInvalid, {"(Scan)", "integer attributes"}));
  // Earlier shards' totals: x's shape with the dim of size M, then 4; and
  // how many of them to fold, 1 to M.
  Shape totals = {2, 3, 4};
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}, {{2, 3}}}, {s}, {1, 1}, {}, "logsumexp"}
           .prepareStatus()),
      kInvalid, {"(Scan)", "the shards' totals"}));
  EXPECT_TRUE(rejected(
      (OpCase{
          Opcode::Scan, {{s}, {totals, fb::DType::I1}}, {s}, {1, 1}, {}, "prod"}
           .prepareStatus()),
      StatusCode::Unimplemented, {"(Scan)", "input 1 is I1"}));
  // Without a count, the rank's place in the group of its mesh axes (none:
  // a group of one) says how many totals it folds: the totals must be the
  // group's (GroupScanTest runs groups of four).
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}, {totals}}, {s}, {1}, {}, "sum"}
           .prepareStatus()),
      kInvalid, {"(Scan)", "has the totals of 3 shards for a group of 1"}));
  EXPECT_TRUE((OpCase{Opcode::Scan, {{s}, {{2, 1, 4}}}, {s}, {1}, {}, "sum"}
                   .prepareStatus())
                  .ok());
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Scan, {{s}, {totals}}, {s}, {1, 0}, {}, "sum"}
           .prepareStatus()),
      kInvalid, {"(Scan)", "folds the totals of 0 shards before it, of 3"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Scan, {{s}, {totals}}, {s}, {1, 4}, {}, "sum"}
                    .prepareStatus()),
               kInvalid, {"(Scan)", "of 3"}));
  EXPECT_TRUE((OpCase{Opcode::Scan, {{s}, {totals}}, {s}, {1, 3}, {}, "min"}
                   .prepareStatus())
                  .ok());
  // ScanTotals writes one packed total per line.
  EXPECT_TRUE(
      rejected((OpCase{Opcode::ScanTotals, {{s}}, {{2, 1}}, {1}, {}, "sum"}
                    .prepareStatus()),
               kInvalid, {"(ScanTotals)", "the output"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::ScanTotals, {{s}, {s}}, {{2, 1, 4}}, {1}, {}, "sum"}
           .prepareStatus()),
      kInvalid, {"(ScanTotals)"}));
  EXPECT_TRUE((OpCase{Opcode::ScanTotals, {{s}}, {{2, 1, 4}}, {1}, {}, "max"}
                   .prepareStatus())
                  .ok());
}

TEST(EnginePrepare, OutOfRangeDims) {
  Shape s = {2, 3};
  for (OpCase op : {
           OpCase{Opcode::Softmax, {{s}}, {s}, {2, 0}},
           OpCase{Opcode::Softmax, {{s}}, {s}, {-1, 0}},
           OpCase{Opcode::Reduce, {{s}}, {{2}}, {2}, {}, "sum"},
           OpCase{Opcode::Reduce, {{s}}, {{2}}, {1, 1}, {}, "sum"},
           OpCase{Opcode::Permute, {{s}}, {{3, 2}}, {1, 1}},
           OpCase{Opcode::Permute, {{s}}, {{3, 2}}, {1, 2}},
           OpCase{Opcode::Concat, {{s}}, {s}, {2}},
           OpCase{Opcode::Slice, {{s}}, {{1, 2}}, {2, 0, 1, 1}},
           OpCase{Opcode::Slice, {{s}}, {{2, 2}}, {0, 0, 1, 0}},
           OpCase{Opcode::Slice, {{s}}, {{1, 3}}, {0, 1, 1, 1}},
           OpCase{Opcode::Norm, {{s}}, {s}, {0, 0, 3}, {1e-5}, "layer"},
           OpCase{Opcode::Norm,
                  {{{2, 4, 3}}},
                  {{2, 4, 3}},
                  {0, 0, 3},
                  {1e-5},
                  "group"},
           OpCase{Opcode::Pad, {{s}}, {{2, 9}}, {0, 3, 0, 3}, {0.0}, "reflect"},
           OpCase{
               Opcode::Pad, {{s}}, {{0, 3}}, {-2, 0, -1, 0}, {0.0}, "constant"},
           OpCase{Opcode::Conv,
                  {{{1, 1, 4, 4}}, {{1, 1, 3, 3}}},
                  {{1, 1, 2, 2}},
                  {2, 0, 1, 0, 0, 1, 1, 1}},
           OpCase{Opcode::Conv,
                  {{{1, 1, 4, 4}}, {{1, 1, 3, 3}}},
                  {{1, 1, 2, 2}},
                  {4, 1, 1, 0, 0, 1, 1, 1}},
           OpCase{Opcode::Pool,
                  {{{1, 1, 4, 4}}},
                  {{1, 1, 2, 2}},
                  {2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 1, 0, 0},
                  {},
                  "max"},
           OpCase{Opcode::Interpolate,
                  {{{1, 1, 2, 2}}},
                  {{1, 1, 4, 4}},
                  {2, 0, 0, 0, -1, 0, 2, 2},
                  {0.5, 0.5},
                  "nearest"},
           OpCase{Opcode::Interpolate,
                  {{{1, 1, 2, 2}}},
                  {{1, 1, 4, 4}},
                  {2, 0, 0, 0, 0, 0, 2, 2},
                  {0.5, NAN},
                  "nearest"},
       })
    EXPECT_EQ(op.prepareStatus().code(), kInvalid)
        << fb::EnumNameOpcode(op.opcode) << ": "
        << op.prepareStatus().toString();
}

TEST(EnginePrepare, ReflectPadOfAnEmptyShard) {
  // A shard empty along dim 0 still pads dim 1; only a dim that grows needs
  // values to reflect.
  Shape empty = {0, 3};
  EXPECT_TRUE(
      (OpCase{Opcode::Pad, {{empty}}, {{0, 5}}, {0, 1, 0, 1}, {0.0}, "reflect"}
           .prepareStatus()
           .ok()));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Pad, {{empty}}, {{1, 3}}, {1, 0, 0, 0}, {0.0}, "reflect"}
           .prepareStatus()),
      kInvalid, {"reflect padding of 1/0 is too wide for dim 0 of size 0"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Pad, {{{2, 3}}}, {{2, 6}}, {0, 0, 0, 3}, {0.0}, "reflect"}
           .prepareStatus()),
      kInvalid, {"reflect padding of 0/3 is too wide for dim 1 of size 3"}));
}

TEST(EnginePrepare, UnknownStrKinds) {
  Shape s = {1, 2, 4, 4};
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Unary, {{s}}, {s}, {}, {}, "frobnicate"}.prepareStatus()),
      kInvalid, {"(Unary)", "unknown unary op 'frobnicate'"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Binary, {{s}, {s}}, {s}, {}, {}, "xor"}.prepareStatus()),
      kInvalid, {"(Binary)", "'xor'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Compare, {{s}, {s}}, {s, I1}, {}, {}, "add"}
                    .prepareStatus()),
               kInvalid, {"(Compare)", "'add'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Reduce, {{s}}, {{1}}, {0, 1, 2, 3}, {}, "prod"}
                    .prepareStatus()),
               kInvalid, {"(Reduce)", "'prod'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Pool, {{s}}, {s}, Pool2d().ints(), {}, "median"}
                    .prepareStatus()),
               kInvalid, {"(Pool)", "'median'"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Interpolate,
                               {{s}},
                               {s},
                               {2, 0, 0, 0, 0, 0, 4, 4},
                               {1.0, 1.0},
                               "cubic"}
                            .prepareStatus()),
                       kInvalid, {"(Interpolate)", "'cubic'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Pad, {{s}}, {s}, Shape(8, 0), {0.0}, "mirror"}
                    .prepareStatus()),
               kInvalid, {"(Pad)", "'mirror'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Norm, {{s}}, {s}, {0, 0, 1}, {1e-5}, "instance"}
                    .prepareStatus()),
               kInvalid, {"(Norm)", "'instance'"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Unary, {{s}}, {s}, {}, {}, ""}.prepareStatus()),
               kInvalid, {"(Unary)", "unknown"}));
}

TEST(EnginePrepare, OperandsAndAttributes) {
  Shape s = {2, 3};
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Binary, {{s}}, {s}, {}, {}, "add"}.prepareStatus()),
      kInvalid, {"(Binary)", "has 1 inputs; expected 2"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Fill, {{s}}, {s}, {}, {1.0}}.prepareStatus()),
               kInvalid, {"(Fill)", "inputs"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Fill, {}, {s}}.prepareStatus()),
                       kInvalid, {"(Fill)", "fill value"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Norm, {{s}}, {s}, {0, 0, 1}, {NAN}, "layer"}
                    .prepareStatus()),
               kInvalid, {"(Norm)", "eps"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Norm, {{s}}, {s}, {1, 0, 1}, {1e-5}, "layer"}
                    .prepareStatus()),
               kInvalid, {"(Norm)", "has_weight"}));
  EXPECT_TRUE(
      rejected((OpCase{Opcode::Attention, {{s}, {s}, {s}}, {s}, {0, 1}, {1.0}}
                    .prepareStatus()),
               kInvalid, {"(Attention)", "has_mask"}));
  EXPECT_TRUE(rejected(
      (OpCase{Opcode::Attention, {{s}, {s}, {s}}, {s}, {0, 0}, {INFINITY}}
           .prepareStatus()),
      kInvalid, {"(Attention)", "scale"}));
  // The CPU backend computes in f32: other dtypes are Unimplemented.
  EXPECT_TRUE(rejected((OpCase{Opcode::Unary,
                               {{s, fb::DType::F64}},
                               {s, fb::DType::F64},
                               {},
                               {},
                               "neg"}
                            .prepareStatus()),
                       StatusCode::Unimplemented, {"(Unary)", "F64"}));
  // Operands must be tensors, not scratch space.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t scratch = m.scratch(64);
  m.output("y", {4});
  m.op(Opcode::Unary, {x}, {scratch}, {}, {}, "neg");
  EXPECT_TRUE(
      rejected(prepare(m.unchecked()), kInvalid, {"(Unary)", "scratch space"}));
}

TEST(EnginePrepare, InstructionsMayNotWriteInputsOrConstants) {
  {
    Model m;
    uint32_t x = m.input("x", {4});
    uint32_t y = m.output("y", {4});
    m.op(Opcode::Fill, {}, {x}, {}, {1.0});
    m.op(Opcode::Copy, {x}, {y});
    EXPECT_TRUE(rejected(prepare(m.unchecked()), kInvalid,
                         {"instruction 0 (Fill)", "writes slot 0",
                          "constant or a model input"}));
  }
  {
    Model m;
    uint32_t x = m.input("x", {4});
    uint32_t c = m.constant("c", {4}, {1, 2, 3, 4});
    uint32_t y = m.output("y", {4});
    m.op(Opcode::Binary, {x, c}, {y}, {}, {}, "add");
    m.op(Opcode::Unary, {y}, {c}, {}, {}, "neg");
    EXPECT_TRUE(rejected(prepare(m.unchecked()), kInvalid,
                         {"instruction 1 (Unary)", "writes slot 1"}));
  }
}

TEST(EnginePrepare, NeighborhoodWindowsMustBeLocal) {
  // The local tensors hold keys [0, 4) of a global length of 8: query 3's
  // window [2, 4] needs key 4.
  Shape q = {1, 4, 1, 2};
  OpCase op{Opcode::NeighborhoodAttention,
            {{q}, {q}, {q}},
            {q},
            {1, 3, 1, 0, 0, 8},
            {1.0}};
  EXPECT_TRUE(rejected(
      op.prepareStatus(), kInvalid,
      {"(NeighborhoodAttention)", "query 3", "outside the local keys"}));
  // Queries [4, 8) with keys [3, 7): query 6's window [5, 7] needs key 7.
  op.ints = {1, 3, 1, 4, 3, 8};
  EXPECT_TRUE(rejected(op.prepareStatus(), kInvalid, {"query 6"}));
  // A zero q/k head dim still reads v's windows (the output averages them).
  Shape q0 = {1, 4, 1, 0}, v3 = {1, 4, 1, 3};
  OpCase flat{Opcode::NeighborhoodAttention,
              {{q0}, {q0}, {v3}},
              {v3},
              {1, 3, 1, 0, 0, 8},
              {1.0}};
  EXPECT_TRUE(rejected(flat.prepareStatus(), kInvalid, {"query 3"}));
  // Queries [4, 8) with keys [3, 8) is enough.
  Shape k = {1, 5, 1, 2};
  OpCase ok{Opcode::NeighborhoodAttention,
            {{q}, {k}, {k}},
            {q},
            {1, 3, 1, 4, 3, 8},
            {1.0}};
  EXPECT_TRUE(ok.prepareStatus().ok()) << ok.prepareStatus().toString();
  // Even kernels and kernels larger than the tensor.
  op.ints = {1, 2, 1, 0, 0, 4};
  EXPECT_TRUE(rejected(op.prepareStatus(), kInvalid, {"out of range"}));
  op.ints = {1, 5, 1, 0, 0, 4};
  EXPECT_TRUE(rejected(op.prepareStatus(), kInvalid, {"smaller than kernel"}));
}

TEST(EnginePrepare, ConvGroupsMustDivideChannels) {
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 3, 4, 4}}, {{2, 1, 3, 3}}},
                               {{1, 2, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1, 2}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "2 groups do not divide 3"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 4, 4, 4}}, {{3, 2, 3, 3}}},
                               {{1, 3, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1, 2}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "groups do not divide"}));
  EXPECT_TRUE(rejected((OpCase{Opcode::Conv,
                               {{{1, 4, 4, 4}}, {{2, 4, 3, 3}}},
                               {{1, 2, 2, 2}},
                               {2, 1, 1, 0, 0, 1, 1, 2}}
                            .prepareStatus()),
                       kInvalid, {"(Conv)", "weight"}));
}

TEST(EnginePrepare, UnimplementedOpcodes) {
  // Generated kernels are not run by the CPU backend.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t y = m.output("y", {4});
  m.kernelSymbols = {"fused_neg"};
  m.kernels = {{"x86_64", fb::KernelFormat::SharedObject, {0}, Bytes(16, 1)}};
  m.op(Opcode::ElementwiseFused, {x}, {y}).kernel = 0;
  EXPECT_TRUE(
      rejected(prepare(m.bytes()), StatusCode::Unimplemented,
               {"instruction 0 (ElementwiseFused)", "ElementwiseFused"}));
  // Kernel-only fused instructions are still checked first: a backend that
  // runs the kernel trusts their operands and header.
  for (Opcode opcode : {Opcode::ElementwiseFused, Opcode::ReductionFused}) {
    Model bad;
    uint32_t bx = bad.input("x", {4});
    uint32_t by = bad.output("y", {3});
    bad.kernelSymbols = {"fused"};
    bad.kernels = {
        {"x86_64", fb::KernelFormat::SharedObject, {0}, Bytes(16, 1)}};
    InstructionSpec &inst = bad.op(opcode, {bx}, {by});
    inst.kernel = 0;
    if (opcode == Opcode::ReductionFused)
      inst.ints = {1, 4, 1, 0}; // (4) reduced to one output, not 3
    EXPECT_TRUE(rejected(prepare(bad.bytes()), kInvalid,
                         {opcode == Opcode::ElementwiseFused
                              ? "does not broadcast"
                              : "reducing (4,) leaves 1"}));
  }
  // An all-to-all must say how it splits and concatenates, on two dims.
  Model c;
  uint32_t cx = c.input("x", {4, 2});
  uint32_t cy = c.output("y", {4, 2});
  c.op(Opcode::AllToAll, {cx}, {cy}).ints = {0, 4};
  EXPECT_TRUE(rejected(prepare(c.bytes()), kInvalid,
                       {"instruction 0 (AllToAll)", "integer"}));
  Model same;
  uint32_t sx = same.input("x", {4, 2});
  uint32_t sy = same.output("y", {4, 2});
  same.op(Opcode::AllToAll, {sx}, {sy}).ints = {1, 2, 1, 2};
  EXPECT_TRUE(rejected(prepare(same.bytes()), kInvalid,
                       {"instruction 0 (AllToAll)", "same dim 1"}));
  // A reduce-scatter must say how it splits.
  Model rs;
  uint32_t rx = rs.input("x", {4});
  uint32_t ry = rs.output("y", {4});
  rs.op(Opcode::ReduceScatter, {rx}, {ry}).reduce = fb::ReduceKind::Sum;
  EXPECT_TRUE(rejected(prepare(rs.bytes()), kInvalid,
                       {"instruction 0 (ReduceScatter)", "integer"}));
}

TEST(EnginePrepare, OverflowingAttributes) {
  // Values whose negation or sum overflows int64 are rejected, not computed.
  const int64_t kMin = std::numeric_limits<int64_t>::min(),
                kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(
      (OpCase{
          Opcode::Pad, {{{2, 3}}}, {{2, 3}}, {kMin, 0, 0, 0}, {0.0}, "constant"}
           .prepareStatus()
           .code()),
      kInvalid);
  Shape q = {1, 4, 1, 2};
  EXPECT_EQ((OpCase{Opcode::NeighborhoodAttention,
                    {{q}, {q}, {q}},
                    {q},
                    {1, 3, 1, kMax, 0, 8},
                    {1.0}}
                 .prepareStatus()
                 .code()),
            kInvalid);
  EXPECT_EQ(
      (OpCase{Opcode::Slice, {{{4}}}, {{1}}, {kMax, 1}}.prepareStatus().code()),
      kInvalid);
  // Steps outside [1, 2^40] are refused by name, even for one element
  // (the compiler lowers those as 1).
  for (int64_t step : {int64_t(0), (int64_t(1) << 40) + 1})
    EXPECT_TRUE(rejected(
        OpCase{Opcode::Slice, {{{4}}}, {{1}}, {0, step}}.prepareStatus(),
        kInvalid, {"slice of dim 0 has step", "steps are 1 to 2^40"}));
  // A pooling window far wider than the padded input (the max-pool kernel
  // would visit every tap of it).
  Pool2d p;
  p.kernel[0] = int64_t(1) << 30;
  EXPECT_TRUE(rejected(
      (OpCase{
          Opcode::Pool, {{{1, 1, 4, 4}}}, {{1, 1, 1, 4}}, p.ints(), {}, "max"}
           .prepareStatus()),
      kInvalid, {"(Pool)", "wider than the padded input"}));
  // ... but a ceil-mode window may overhang the padding by less than a
  // stride: kernel 3, stride 2 over 4 elements gives 2 windows.
  Pool2d ceil;
  ceil.kernel[1] = 3;
  ceil.stride[1] = 2;
  OpCase ceilOp{Opcode::Pool, {{{1, 1, 1, 4}}}, {{1, 1, 1, 2}}, ceil.ints(), {},
                "max"};
  EXPECT_EQ(ceilOp.run({{1, 5, 2, 7}}), (Floats{5, 7}));
}

TEST(EnginePrepare, SlotsMustBeAlignedAndBounded) {
  {
    // An f32 slot at an odd arena offset.
    Model m;
    uint32_t x = m.input("x", {4});
    uint32_t y = m.output("y", {4});
    m.op(Opcode::Unary, {x}, {y}, {}, {}, "neg");
    m.rc.buffers[y].offset += 2;
    EXPECT_TRUE(rejected(prepare(m.bytes()), kInvalid,
                         {"buffer slot 1", "not aligned"}));
  }
  {
    // A zero-sized slot holds no bytes whatever its other dims; dims
    // multiplying past 2^40 are refused.
    Model m;
    uint32_t x = m.input("x", {0, int64_t(1) << 62});
    uint32_t y = m.output("y", {0, int64_t(1) << 62});
    m.op(Opcode::Unary, {x}, {y}, {}, {}, "neg");
    EXPECT_TRUE(rejected(prepare(m.bytes()), kInvalid, {"2^40"}));
  }
  {
    // Below the bound a zero-sized output is a no-op: the interpolation
    // kernel is never asked to build tables for 2^30 output columns.
    Model m;
    uint32_t x = m.input("x", {1, 0, 2, 4});
    uint32_t y = m.output("y", {1, 0, 3, int64_t(1) << 30});
    m.op(Opcode::Interpolate, {x}, {y}, {2, 0, 0, 0, 0, 0, 2, 4}, {0.5, 0.5},
         "nearest");
    uint32_t z = m.output("z", {0, int64_t(1) << 30});
    m.op(Opcode::Fill, {}, {z}, {}, {1.0});
    StatusOr<std::vector<Floats>> out = runModel(m, {{}});
    ASSERT_TRUE(out.ok()) << out.status().toString();
    EXPECT_TRUE((*out)[0].empty());
  }
}

TEST(EnginePrepare, OutputsMayNotOverlapInputs) {
  Model m;
  uint32_t x = m.input("x", {8});
  uint32_t t = m.slot({8});
  uint32_t u = m.slot({10});
  uint32_t y = m.output("y", {10});
  m.op(Opcode::Copy, {x}, {t});
  m.op(Opcode::Pad, {t}, {u}, {1, 1}, {0.0}, "constant");
  m.op(Opcode::Copy, {u}, {y});
  m.rc.buffers[u].offset = m.rc.buffers[t].offset; // u overlaps t
  EXPECT_TRUE(rejected(prepare(m.bytes()), kInvalid,
                       {"instruction 1 (Pad)", "overlaps", "input slot 1"}));

  // Elementwise ops may write exactly over an input.
  Model e;
  uint32_t ex = e.input("x", {2, 3});
  uint32_t et = e.slot({2, 3});
  uint32_t eu = e.slot({2, 3});
  uint32_t ey = e.output("y", {2, 3});
  e.op(Opcode::Copy, {ex}, {et});
  e.op(Opcode::Unary, {et}, {eu}, {}, {}, "neg");
  e.op(Opcode::Binary, {eu, eu}, {ey}, {}, {}, "mul");
  e.rc.buffers[eu].offset = e.rc.buffers[et].offset;
  StatusOr<std::vector<Floats>> out = runModel(e, {{1, -2, 3, 4, 5, 6}});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  EXPECT_EQ((*out)[0], (Floats{1, 4, 9, 16, 25, 36}));

  // So may a fused elementwise kernel: u = (t - w) * t over three tiles,
  // u written over t, w broadcast.
  Model f;
  const Shape shape = {3, 2000};
  uint32_t fx = f.input("x", shape), fw = f.input("w", {2000});
  uint32_t ft = f.slot(shape), fu = f.slot(shape);
  uint32_t fy = f.output("y", shape);
  f.op(Opcode::Copy, {fx}, {ft});
  InstructionSpec &body = f.op(Opcode::ElementwiseFused, {ft, fw}, {fu});
  body.str = "sub mul";
  body.ints = {0, 1, 2, 0, 3};
  f.op(Opcode::Copy, {fu}, {fy});
  f.rc.buffers[fu].offset = f.rc.buffers[ft].offset;
  Floats xs(6000), ws(2000);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = float(int(i % 97) - 48) / 8.0f;
  for (size_t i = 0; i < ws.size(); ++i)
    ws[i] = float(int(i % 13) - 6) / 4.0f;
  out = runModel(f, {xs, ws});
  ASSERT_TRUE(out.ok()) << out.status().toString();
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ((*out)[0][i], (xs[i] - ws[i % 2000]) * xs[i]) << i;

  // A reduction reads other places than it writes: never in place, even
  // over exactly the input's bytes.
  Model r;
  uint32_t rx = r.input("x", {4, 1});
  uint32_t rt = r.slot({4, 1}), ru = r.slot({4});
  uint32_t ry = r.output("y", {4});
  r.op(Opcode::Copy, {rx}, {rt});
  InstructionSpec &sum = r.op(Opcode::ReductionFused, {rt}, {ru});
  sum.str = "sum";
  sum.ints = {2, 4, 1, 1, 1, 0};
  r.op(Opcode::Copy, {ru}, {ry});
  r.rc.buffers[ru].offset = r.rc.buffers[rt].offset;
  EXPECT_TRUE(rejected(prepare(r.bytes()), kInvalid,
                       {"instruction 1 (ReductionFused)", "overlaps"}));
}

//===----------------------------------------------------------------------===//
// Session::checkPrograms: the same checks, before any session
//===----------------------------------------------------------------------===//

/// Session::checkPrograms on artifact bytes that load.
std::vector<ProgramDefect> checkPrograms(const Bytes &bytes) {
  StatusOr<std::shared_ptr<const Engine>> e =
      Engine::loadFromMemory(bytes.data(), bytes.size());
  EXPECT_TRUE(e.ok()) << e.status().toString();
  return e.ok() ? Session::checkPrograms(**e) : std::vector<ProgramDefect>();
}

TEST(EngineCheckPrograms, SoundProgramsHaveNoDefects) {
  Model m;
  uint32_t x = m.input("x", {2, 3});
  uint32_t t = m.slot({2, 3});
  uint32_t y = m.output("y", {2, 3});
  m.op(Opcode::Unary, {x}, {t}, {}, {}, "relu");
  m.op(Opcode::Softmax, {t}, {y}, {1, 0});
  ASSERT_TRUE(prepare(m.bytes()).ok());
  EXPECT_TRUE(checkPrograms(m.bytes()).empty());
}

TEST(EngineCheckPrograms, NamesTheInstructionCreateRefuses) {
  // The second instruction's output has the wrong shape.
  Model m;
  uint32_t x = m.input("x", {2, 3});
  uint32_t t = m.slot({2, 3});
  uint32_t y = m.output("y", {2, 4});
  m.op(Opcode::Unary, {x}, {t}, {}, {}, "relu");
  m.op(Opcode::Unary, {t}, {y}, {}, {}, "neg");
  std::vector<ProgramDefect> defects = checkPrograms(m.bytes());
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].rankClass, 0u);
  EXPECT_EQ(defects[0].instruction, 1);
  Status created = prepare(m.bytes());
  EXPECT_TRUE(rejected(created, kInvalid,
                       {"instruction 1 (Unary)", "has shape (2, 4)"}));
  EXPECT_EQ(defects[0].status.toString(), created.toString());
}

TEST(EngineCheckPrograms, PassesOverStepsTheCpuDoesNotImplement) {
  // A kernel-only fused step (another backend runs it) is no defect; the
  // check goes on to the malformed step after it.
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t t = m.slot({4});
  uint32_t y = m.output("y", {4});
  m.kernelSymbols = {"fused_neg"};
  m.kernels = {{"x86_64", fb::KernelFormat::SharedObject, {0}, Bytes(16, 1)}};
  m.op(Opcode::ElementwiseFused, {x}, {t}).kernel = 0;
  m.op(Opcode::Softmax, {t}, {y}, {3, 0}); // dim 3 of a 1-d tensor
  EXPECT_TRUE(rejected(prepare(m.bytes()), StatusCode::Unimplemented,
                       {"instruction 0 (ElementwiseFused)"}));
  std::vector<ProgramDefect> defects = checkPrograms(m.bytes());
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].instruction, 1);
  EXPECT_TRUE(
      rejected(defects[0].status, kInvalid, {"instruction 1 (Softmax)"}));
}

TEST(EngineCheckPrograms, ProgramWideDefectsHaveNoInstruction) {
  Model m;
  uint32_t x = m.input("x", {4});
  uint32_t y = m.output("y", {4});
  m.op(Opcode::Unary, {x}, {y}, {}, {}, "neg");
  m.rc.buffers[y].offset += 2; // f32 elements at an odd offset
  std::vector<ProgramDefect> defects = checkPrograms(m.bytes());
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].instruction, -1);
  EXPECT_TRUE(
      rejected(defects[0].status, kInvalid, {"buffer slot 1", "not aligned"}));
}

} // namespace
} // namespace shardrt

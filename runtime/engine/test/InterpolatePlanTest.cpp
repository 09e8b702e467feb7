//===- InterpolatePlanTest.cpp - CUDA interpolation tables, on the CPU ----===//
//
// The CUDA backend's interpolation kernel evaluates `interpolateAt` over the
// packed tables of planInterpolate. Here the same function runs on the host
// over the same packed bytes, for every output element, and must match
// cpu::interpolate: every mode, ranks 1 to 3, align_corners either way,
// upsampling and downsampling, and shards (offsets into a larger global
// input, as the partitioner emits them). Both read the tables of
// cpu::interpolationAxes, so this checks the packing and the blend order;
// PyTorch's coordinate rounding is checked on the CPU kernel itself (the
// acceptance cases against PyTorch) and by the hand-computed case below.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/InterpolatePlan.h"

#include "TestModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

TEST(InterpolatePlan, DeviceEvaluationMatchesTheCpuKernel) {
  enginetest::RandomInts pick(31);
  const cpu::InterpMode modes[] = {cpu::InterpMode::Nearest,
                                   cpu::InterpMode::NearestExact,
                                   cpu::InterpMode::Linear};
  for (int trial = 0; trial < 300; ++trial) {
    cpu::InterpMode mode = modes[trial % 3];
    cpu::InterpParams p;
    p.rank = int(pick(1, 3));
    p.channels = pick(1, 3);
    p.alignCorners = mode == cpu::InterpMode::Linear && pick(0, 1);
    int64_t inVol = 1;
    for (int d = 0; d < p.rank; ++d) {
      int64_t global = pick(1, 7), outGlobal = pick(1, 12);
      // A shard of the output and the input rows it reads (with a halo).
      p.outOffset[d] = pick(0, outGlobal - 1);
      p.out[d] = pick(0, outGlobal - p.outOffset[d]);
      p.inOffset[d] = pick(0, global - 1);
      p.in[d] = global - p.inOffset[d];
      p.inGlobal[d] = global;
      if (p.alignCorners)
        p.scale[d] =
            outGlobal > 1 ? double(global - 1) / double(outGlobal - 1) : 0.0;
      else
        p.scale[d] = double(global) / double(outGlobal);
      inVol *= p.in[d];
    }
    std::vector<float> x(size_t(p.channels * inVol));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(int(i * 7 % 19) - 9) / 4.0f;
    int64_t outputs = p.channels;
    for (int d = 0; d < p.rank; ++d)
      outputs *= p.out[d];
    std::vector<float> want(size_t(outputs), -1.0f);
    InterpolatePlan plan = planInterpolate(mode, p);
    cpu::interpolate(mode, p, x.data(), want.data());
    // The kernel reads the tables where they were uploaded: a copy.
    std::vector<unsigned char> uploaded = plan.bytes;
    InterpolateView view = plan.at(uploaded.data());
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_EQ(view.count, int64_t(want.size()));
    for (long long i = 0; i < view.count; ++i)
      ASSERT_FLOAT_EQ(interpolateAt(view, x.data(), i), want[size_t(i)])
          << "element " << i;
    if (mode == cpu::InterpMode::Linear)
      continue;
    // The nearest modes as gathers of 16-bit patterns: on the device
    // (nearestSourceOf) and on the CPU (interpolateNearest), the f32
    // kernel's very elements.
    std::vector<uint16_t> bits(x.size()), cpuBits(want.size(), 0xffff);
    for (size_t i = 0; i < x.size(); ++i)
      bits[i] = cpu::floatToBf16(x[i]); // exact: quarters of small ints
    cpu::interpolateNearest(mode, p, bits.data(), cpuBits.data(), 2);
    for (long long i = 0; i < view.count; ++i) {
      uint16_t expected = cpu::floatToBf16(want[size_t(i)]);
      ASSERT_EQ(bits[size_t(nearestSourceOf(view, i))], expected) << i;
      ASSERT_EQ(cpuBits[size_t(i)], expected) << i;
    }
  }
}

TEST(InterpolatePlan, NearestUpsamplingReadsTheSourceItSays) {
  // x2 nearest of a 2x3 map: output (i, j) is x[i / 2][j / 2].
  cpu::InterpParams p;
  p.rank = 2;
  p.channels = 1;
  p.in[0] = p.inGlobal[0] = 2;
  p.in[1] = p.inGlobal[1] = 3;
  p.out[0] = 4;
  p.out[1] = 6;
  p.scale[0] = p.scale[1] = 0.5;
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  InterpolatePlan plan = planInterpolate(cpu::InterpMode::Nearest, p);
  InterpolateView view = plan.at(plan.bytes.data());
  ASSERT_EQ(view.count, 24);
  for (long long i = 0; i < 4; ++i)
    for (long long j = 0; j < 6; ++j)
      EXPECT_EQ(interpolateAt(view, x.data(), i * 6 + j),
                x[size_t((i / 2) * 3 + j / 2)]);
}

} // namespace
} // namespace shardrt::exec::cuda

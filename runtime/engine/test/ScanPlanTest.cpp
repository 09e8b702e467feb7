//===- ScanPlanTest.cpp - The CUDA scan kernels, on the CPU ---------------===//
//
// The CUDA backend's Scan folds with the CPU kernel's own step, one thread
// per line, or per chunk of a line when the lines alone would leave the
// device idle (planScanChunks): chunk totals, their exclusive scan into
// carries, and each chunk scanned from its carry. Here CudaKernels.cu's
// kernels, built for the host by hostcuda/, run every kind with and
// without initial values over shapes on both sides of the chunking rule
// (and chunks whose last one is short), and must match cpu::scan within
// float rounding of the reassociated folds; the shards' packed totals and
// the carries folded from them must match cpu::scanTotals and
// cpu::scanCarries.
//
//===----------------------------------------------------------------------===//

#include "../lib/cuda/CudaLaunch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace shardrt::exec::cuda {
namespace {

std::vector<float> randomValues(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(g);
  return v;
}

TEST(ScanPlan, FewLongLinesRunInChunks) {
  // Lines enough to fill the device, or lines too short to split, run one
  // thread per line; a few long lines are chunked, the last chunk short.
  EXPECT_EQ(planScanChunks(1, 1 << 20, 1 << 16).chunks, 1);
  EXPECT_EQ(planScanChunks(4, 64, 1).chunks, 1);
  EXPECT_EQ(planScanChunks(4, 64, 1).chunk, 64); // the whole line
  EXPECT_EQ(planScanChunks(0, 1 << 20, 3).chunks, 1);
  ScanChunking few = planScanChunks(2, 3001, 3);
  EXPECT_GT(few.chunks, 1);
  EXPECT_GE(few.chunk, 64);
  EXPECT_GE(few.chunk * few.chunks, 3001);
  EXPECT_LT(few.chunk * (few.chunks - 1), 3001);
  // At most about 2^16 threads for lines that nearly fill the device.
  ScanChunking many = planScanChunks(1, 1 << 20, 40000);
  EXPECT_LE(many.chunks * 40000, (1 << 16) + 40000);
}

void expectScanMatchesCpu(cpu::ScanKind kind, int64_t outer, int64_t len,
                          int64_t inner, bool withInit) {
  SCOPED_TRACE("kind " + std::to_string(int(kind)) + " shape (" +
               std::to_string(outer) + ", " + std::to_string(len) + ", " +
               std::to_string(inner) + ")" + (withInit ? " from init" : ""));
  std::vector<float> x = randomValues(size_t(outer * len * inner), 7);
  std::vector<float> values = randomValues(size_t(outer * inner), 8);
  std::vector<double> init(values.begin(), values.end());
  const double *start = withInit ? init.data() : nullptr;
  std::vector<float> want(x.size()), got(x.size(), 1234.5f);
  cpu::scan(kind, x.data(), {outer, len, inner}, 1, start, want.data());
  ScanChunking c = planScanChunks(outer, len, inner);
  std::vector<double> carries(size_t(outer * inner * c.chunks));
  ASSERT_EQ(launchScan(got.data(), x.data(), start, carries.data(), outer, len,
                       inner, c, kind, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1.0 + std::fabs(want[i])))
        << "element " << i;
}

/// The shards' totals (ScanTotals) and the carries folded from them, on
/// the host build of the kernels and on the CPU.
void expectTotalsAndCarriesMatchCpu(cpu::ScanKind kind, int64_t outer,
                                    int64_t len, int64_t inner) {
  SCOPED_TRACE("kind " + std::to_string(int(kind)) + " shape (" +
               std::to_string(outer) + ", " + std::to_string(len) + ", " +
               std::to_string(inner) + ")");
  std::vector<float> x = randomValues(size_t(outer * len * inner), 9);
  size_t packed = size_t(outer * inner) * cpu::kPackedScanFloats;
  std::vector<float> want(packed), got(packed, 1234.5f);
  cpu::scanTotals(kind, x.data(), {outer, len, inner}, 1, want.data());
  ScanChunking c = planScanChunks(outer, len, inner);
  std::vector<double> scratch(size_t(outer * inner * c.chunks));
  ASSERT_EQ(launchScanTotals(got.data(), x.data(), scratch.data(), outer, len,
                             inner, c, kind, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  for (size_t i = 0; i < packed; i += cpu::kPackedScanFloats) {
    double w = cpu::unpackScanValue(&want[i]),
           g = cpu::unpackScanValue(&got[i]);
    if (std::isinf(w) || std::isnan(w))
      ASSERT_TRUE(w == g || (std::isnan(w) && std::isnan(g))) << "line " << i;
    else
      ASSERT_NEAR(g, w, 1e-9 * (1.0 + std::fabs(w))) << "line " << i;
  }
  // The same totals read as `len` shards' (members = len, inner lines):
  // the carries before shard len / 2.
  if (len < 2)
    return;
  std::vector<float> shards =
      randomValues(size_t(outer * len * inner) * cpu::kPackedScanFloats, 10);
  for (size_t i = cpu::kPackedScanFloats - 1; i < shards.size();
       i += cpu::kPackedScanFloats)
    shards[i] = float(int(shards[i] * 8)); // exponents
  std::vector<double> wantInit(size_t(outer * inner)),
      gotInit(size_t(outer * inner), -1.0);
  cpu::scanCarries(kind, shards.data(), outer, len, inner, len / 2,
                   wantInit.data());
  ASSERT_EQ(launchScanCarries(gotInit.data(), shards.data(), outer, len, inner,
                              len / 2, kind, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  for (size_t i = 0; i < wantInit.size(); ++i)
    ASSERT_EQ(gotInit[i], wantInit[i]) << "line " << i;
}

TEST(ScanPlan, KernelsMatchTheCpuScan) {
  const cpu::ScanKind kinds[] = {cpu::ScanKind::Sum, cpu::ScanKind::Prod,
                                 cpu::ScanKind::Max, cpu::ScanKind::Min,
                                 cpu::ScanKind::LogSumExp};
  for (cpu::ScanKind kind : kinds)
    for (bool withInit : {false, true}) {
      expectScanMatchesCpu(kind, 2, 3001, 3, withInit); // chunked
      expectScanMatchesCpu(kind, 1, 700, 1, withInit);  // chunked, one line
      expectScanMatchesCpu(kind, 3, 9, 5, withInit);    // a thread per line
    }
  for (cpu::ScanKind kind : kinds) {
    expectTotalsAndCarriesMatchCpu(kind, 2, 3001, 3); // chunked
    expectTotalsAndCarriesMatchCpu(kind, 3, 9, 5);    // a thread per line
    expectTotalsAndCarriesMatchCpu(kind, 2, 0, 3);    // empty lines
  }
}

} // namespace
} // namespace shardrt::exec::cuda

//===- NcclCommTest.cpp - The nccl backend with one rank ------------------===//
//
// Label `gpu`: without a device the tests skip, except the first, which
// checks that joining fails with a status there. With one, a one-rank
// communicator runs the shared conformance checks (host buffers, which the
// backend stages through the device) and device buffers directly.
//
//===----------------------------------------------------------------------===//

#include "CommChecks.h"
#include "shardrt/comm/Nccl.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace shardrt::comm {
namespace {

bool haveGpu() {
  int n = 0;
  bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  return ok;
}

std::unique_ptr<Communicator> oneRank() {
  StatusOr<NcclId> id = createNcclId();
  EXPECT_TRUE(id.ok()) << id.status().toString();
  if (!id.ok())
    return nullptr;
  NcclOptions options;
  options.comm.timeout = std::chrono::milliseconds(20000);
  StatusOr<std::unique_ptr<Communicator>> c =
      createNcclCommunicator(*id, 0, 1, options);
  EXPECT_TRUE(c.ok()) << c.status().toString();
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(NcclComm, JoiningWithoutADeviceIsAStatus) {
  if (haveGpu())
    GTEST_SKIP() << "a GPU is present; the other tests cover it";
  NcclId id{};
  StatusOr<std::unique_ptr<Communicator>> c = createNcclCommunicator(id, 0, 1);
  EXPECT_FALSE(c.ok());
  EXPECT_FALSE(createNcclCommunicator(id, 2, 1).ok()); // rank out of range
  EXPECT_FALSE(wrapNcclCommunicator(nullptr).ok());
}

TEST(NcclComm, OneRankConformance) {
  if (!haveGpu())
    GTEST_SKIP() << "no GPU here";
  std::unique_ptr<Communicator> c = oneRank();
  ASSERT_TRUE(c);
  EXPECT_STREQ(c->backendName(), "nccl");
  EXPECT_TRUE(c->takesDeviceBuffers());
  test::checkAllReduceEverything(*c);
  test::checkAllGatherVEverything(*c);
  test::checkReduceScatterVEverything(*c);
  test::checkAllToAllVEverything(*c);
  test::checkBroadcastEverything(*c);
  test::checkInvalidArguments(*c);
  EXPECT_TRUE(c->barrier().ok());
}

TEST(NcclComm, DeviceBuffersAndGroupedSendRecv) {
  if (!haveGpu())
    GTEST_SKIP() << "no GPU here";
  std::unique_ptr<Communicator> c = oneRank();
  ASSERT_TRUE(c);
  constexpr int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i)
    host[size_t(i)] = float(i) * 0.5f;
  float *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice),
      cudaSuccess);
  // From pageable memory cudaMemcpy may return before the DMA lands, and
  // the communicator's non-blocking stream does not wait for it.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_TRUE(c->allReduce(a, b, n, DataType::F32, ReduceOp::Sum).ok());
  // Two messages to self in one group, matched in posting order.
  std::vector<Request> requests;
  for (int k = 0; k < 2; ++k) {
    StatusOr<Request> r = c->irecv(k ? a : b, n / 2 * sizeof(float), 0, k);
    ASSERT_TRUE(r.ok()) << r.status().toString();
    requests.push_back(std::move(*r));
  }
  // The first message differs from what the all-reduce left in `b`, so a
  // receive that never lands shows.
  std::vector<float> first(host.begin(), host.begin() + n / 2);
  for (float &v : first)
    v += 1000.0f;
  std::vector<float> second(host.begin() + n / 2, host.end());
  for (int k = 0; k < 2; ++k) {
    StatusOr<Request> r =
        c->isend(k ? second.data() : first.data(), n / 2 * sizeof(float), 0, k);
    ASSERT_TRUE(r.ok()) << r.status().toString();
    requests.push_back(std::move(*r));
  }
  Status s = c->waitAll(requests);
  ASSERT_TRUE(s.ok()) << s.toString();
  std::vector<float> gotA(n / 2), gotB(n);
  ASSERT_EQ(
      cudaMemcpy(gotA.data(), a, n / 2 * sizeof(float), cudaMemcpyDeviceToHost),
      cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(gotB.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost),
      cudaSuccess);
  for (int i = 0; i < n / 2; ++i) {
    EXPECT_EQ(gotB[size_t(i)], first[size_t(i)]);
    EXPECT_EQ(gotA[size_t(i)], second[size_t(i)]);
  }
  for (int i = n / 2; i < n; ++i) // the all-reduce's result, untouched
    EXPECT_EQ(gotB[size_t(i)], host[size_t(i)]);
  cudaFree(a);
  cudaFree(b);
}

TEST(NcclComm, EmptyAllToAllVSlotsStageNothing) {
  // A slot of count 0 may have any displacement; staging host buffers
  // must not reach for it (it once staged up to displacement + count).
  if (!haveGpu())
    GTEST_SKIP() << "no GPU here";
  std::unique_ptr<Communicator> c = oneRank();
  ASSERT_TRUE(c);
  float send = 1.0f, recv = -1.0f;
  const std::vector<std::int64_t> none = {0}, far = {std::int64_t(1) << 40};
  Status s = c->allToAllV(&send, none, far, &recv, none, far, DataType::F32);
  EXPECT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(recv, -1.0f);
}

} // namespace
} // namespace shardrt::comm

//===- HostNcclMpiTest.cpp - The nccl communicator across processes -------===//
//
// The `nccl` communicator (Nccl.cpp) bootstrapped over MPI (NcclMpi.cpp) on
// the host's NCCL, one rank per process of an MPI job (HostNcclProcesses.h):
// the conformance checks every backend passes, the same bits on every rank,
// a peer's abort, a mismatched collective, and a clique of another size
// than the job. Linked with MpiCommTest.cpp, whose main runs them under mpirun
// and whose NcclBootstrapAgreesOnTheOutcome test runs here with a device.
//
//===----------------------------------------------------------------------===//

#include "CommChecks.h"
#include "shardrt/comm/Mpi.h"
#include "shardrt/comm/NcclMpi.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

using namespace shardrt;
using namespace shardrt::comm;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::unique_ptr<Communicator> overMpi(std::chrono::milliseconds timeout) {
  NcclOptions options;
  options.comm.timeout = timeout;
  StatusOr<std::unique_ptr<Communicator>> c =
      createNcclCommunicatorOverMpi(options);
  EXPECT_TRUE(c.ok()) << c.status().toString();
  return c.ok() ? std::move(c).value() : nullptr;
}

std::unique_ptr<Communicator> mpiWorld() {
  CommOptions options;
  options.timeout = 20s;
  StatusOr<std::unique_ptr<Communicator>> c = createMpiCommunicator(options);
  EXPECT_TRUE(c.ok()) << c.status().toString();
  return c.ok() ? std::move(c).value() : nullptr;
}

TEST(HostNcclProcesses, Conformance) {
  std::unique_ptr<Communicator> c = overMpi(20s);
  ASSERT_NE(c, nullptr);
  EXPECT_STREQ(c->backendName(), "nccl");
  test::checkAllReduceEverything(*c);
  test::checkAllGatherVEverything(*c);
  test::checkReduceScatterVEverything(*c);
  test::checkAllToAllVEverything(*c);
  test::checkBroadcastEverything(*c);
  test::checkEmptySideAtTheOtherSidesAddress(*c);
  test::checkInvalidArguments(*c);
  // NCCL has no tags: two ranks would have left == right (HostNcclTest).
  if (c->size() >= 3) {
    test::checkRingExchange(*c, 17, 20);
    test::checkRingExchange(*c, 1 << 15, 3);
  }
  EXPECT_TRUE(c->barrier().ok());
}

/// Every rank of an all-reduce gets the same bits, though float sums depend
/// on their order: the members reduce in rank order, as NCCL's ranks agree.
TEST(HostNcclProcesses, AllReduceGivesEveryRankTheSameBits) {
  std::unique_ptr<Communicator> c = overMpi(20s), world = mpiWorld();
  ASSERT_TRUE(c && world);
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(1.0 + 1e-7 * double(i * 7919 % 1009) * (c->rank() + 1)) *
           (c->rank() % 2 ? 3e4f : 1e-3f);
  ASSERT_TRUE(
      c->allReduce(x.data(), x.data(), 1000, DataType::F32, ReduceOp::Sum)
          .ok());
  std::vector<float> rank0 = x;
  ASSERT_TRUE(world->broadcast(rank0.data(), 1000, DataType::F32, 0).ok());
  EXPECT_EQ(std::memcmp(rank0.data(), x.data(), x.size() * sizeof(float)), 0);
}

/// Rank 1 gives up while the others wait in an all-reduce with it under a
/// 60 s deadline: they hear of it (NCCL's remote error) within seconds.
TEST(HostNcclProcesses, APeersAbortStopsTheOthersAtOnce) {
  std::unique_ptr<Communicator> c = overMpi(60s), world = mpiWorld();
  ASSERT_TRUE(c && world);
  if (c->size() < 2)
    GTEST_SKIP() << "needs two ranks";
  if (c->rank() == 1) {
    std::this_thread::sleep_for(300ms); // the others are in the all-reduce
    c->abort(Status::internal("step 3 (Conv) failed"));
  } else {
    std::vector<float> x(10, 1.0f);
    Clock::time_point start = Clock::now();
    Status s =
        c->allReduce(x.data(), x.data(), 10, DataType::F32, ReduceOp::Sum);
    EXPECT_LT(Clock::now() - start, 30s);
    EXPECT_FALSE(s.ok());
    // With three ranks and more, rank 2 may hear first of rank 0, which
    // gives up on hearing of rank 1.
    EXPECT_NE(s.message().find(c->size() == 2 || c->rank() == 0
                                   ? "rank 1 aborted its communicator"
                                   : "aborted its communicator"),
              std::string::npos)
        << s.toString();
  }
  EXPECT_TRUE(world->barrier().ok());
}

/// Ranks that call different collectives at one point each get an error
/// naming it, whichever size they posted, instead of mixing the data.
TEST(HostNcclProcesses, MismatchedCollectivesAreAnErrorOnEveryRank) {
  std::unique_ptr<Communicator> c = overMpi(20s), world = mpiWorld();
  ASSERT_TRUE(c && world);
  if (c->size() < 2)
    GTEST_SKIP() << "needs two ranks";
  // Alike in size, so that only the operation tells them apart.
  std::vector<float> x(12, 1.0f);
  Status s = c->allReduce(x.data(), x.data(), 12, DataType::F32,
                          c->rank() == 0 ? ReduceOp::Sum : ReduceOp::Max);
  EXPECT_FALSE(s.ok());
  // A rank that polls late may hear first of a peer that found it (and
  // then aborted): at least one finds it.
  bool found = s.message().find("different collectives") != std::string::npos;
  EXPECT_TRUE(found ||
              s.message().find("aborted its communicator") != std::string::npos)
      << s.toString();
  EXPECT_EQ(x[0], 1.0f) << "a mismatched collective wrote its result";
  std::int32_t mine = found, any = 0;
  ASSERT_TRUE(
      world->allReduce(&mine, &any, 1, DataType::I32, ReduceOp::Max).ok());
  EXPECT_EQ(any, 1) << "no rank found the mismatch";
}

/// A clique of processes is the whole job, one rank each: joining one of
/// another size fails on every rank, none waits out its deadline. (Every
/// process must join: those that do wait for the others until their
/// deadline, as NCCL's ranks would.)
TEST(HostNcclProcesses, ACliqueOfAnotherSizeFailsOnEveryRank) {
  std::unique_ptr<Communicator> world = mpiWorld();
  ASSERT_NE(world, nullptr);
  NcclId id{};
  if (world->rank() == 0) {
    StatusOr<NcclId> made = createNcclId();
    ASSERT_TRUE(made.ok()) << made.status().toString();
    id = *made;
  }
  ASSERT_TRUE(
      world->broadcast(id.data(), int64_t(id.size()), DataType::Byte, 0).ok());
  NcclOptions options;
  options.comm.timeout = 60s;
  Clock::time_point start = Clock::now();
  StatusOr<std::unique_ptr<Communicator>> c =
      createNcclCommunicator(id, world->rank(), world->size() + 1, options);
  EXPECT_LT(Clock::now() - start, 30s);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("one rank per process"),
            std::string::npos)
      << c.status().toString();
  EXPECT_TRUE(world->barrier().ok());
}

} // namespace

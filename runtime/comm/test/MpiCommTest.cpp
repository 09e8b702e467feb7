//===- MpiCommTest.cpp - The `mpi` backend, run under mpirun --------------===//
//
// One binary, started by ctest as `mpirun -np 2` and `-np 4`. Every rank runs
// every test in the same order (the collectives need that); only rank 0
// prints the usual gtest report, the others print their failures, and a rank
// with a failure aborts the job so that mpirun exits non-zero.
//
//===----------------------------------------------------------------------===//

#include "shardrt/comm/Mpi.h"
#ifdef SHARDRT_TEST_NCCL_MPI
#include "shardrt/comm/NcclMpi.h"

#include <cuda_runtime.h>
#endif

#include "CommChecks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

using namespace shardrt;
using namespace shardrt::comm;
using namespace shardrt::comm::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::unique_ptr<Communicator> makeComm(std::chrono::milliseconds timeout) {
  CommOptions options;
  options.timeout = timeout;
  auto comm = createMpiCommunicator(options);
  EXPECT_TRUE(comm.ok()) << comm.status().toString();
  return comm.ok() ? std::move(comm).value() : nullptr;
}

class MpiComm : public ::testing::Test {
protected:
  void SetUp() override {
    comm = makeComm(20s);
    ASSERT_NE(comm, nullptr);
  }
  std::unique_ptr<Communicator> comm;
};

TEST_F(MpiComm, RankAndSize) {
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(comm->rank(), rank);
  EXPECT_EQ(comm->size(), size);
  EXPECT_STREQ(comm->backendName(), "mpi");
  EXPECT_TRUE(initializeMpi().ok()); // already initialized: a no-op
}

TEST_F(MpiComm, AllReduce) { checkAllReduceEverything(*comm); }
TEST_F(MpiComm, AllGatherV) { checkAllGatherVEverything(*comm); }
TEST_F(MpiComm, ReduceScatterV) { checkReduceScatterVEverything(*comm); }
TEST_F(MpiComm, AllToAllV) { checkAllToAllVEverything(*comm); }
TEST_F(MpiComm, Broadcast) { checkBroadcastEverything(*comm); }
TEST_F(MpiComm, InvalidArguments) { checkInvalidArguments(*comm); }
TEST_F(MpiComm, SizeMismatch) { checkSizeMismatch(*comm); }
TEST_F(MpiComm, NanWinsMaxAndMin) { checkNanWinsMaxAndMin(*comm); }
TEST_F(MpiComm, EmptySideAtTheOtherSidesAddress) {
  checkEmptySideAtTheOtherSidesAddress(*comm);
}

TEST_F(MpiComm, RingExchangeBothDirections) {
  checkRingExchange(*comm, 0, 3);
  checkRingExchange(*comm, 17, 50);
  checkRingExchange(*comm, 1 << 17, 3); // 1 MiB: MPI's rendezvous protocol
}

TEST_F(MpiComm, Barrier) {
  for (int k = 0; k < 10; ++k) {
    Status s = comm->barrier();
    ASSERT_TRUE(s.ok()) << s.toString();
  }
}

TEST_F(MpiComm, ReceiveWithoutSendTimesOut) {
  int peer = (comm->rank() + 1) % comm->size();
  int value = -1;
  StatusOr<Request> request = comm->irecv(&value, 4, peer, 77);
  ASSERT_TRUE(request.ok()) << request.status().toString();
  Clock::time_point start = Clock::now();
  Status s = comm->waitAll(*request, 200ms);
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded) << s.toString();
  EXPECT_NE(
      s.message().find("irecv from rank " + std::to_string(peer) + " (tag 77"),
      std::string::npos)
      << s.toString();
  EXPECT_GE(elapsed, 200ms);
  EXPECT_LT(elapsed, 3s);
  EXPECT_TRUE(request->pending());
  request->reset(); // cancelled: no message may land in `value` later
  EXPECT_EQ(value, -1);
  // Everyone is still in step.
  s = comm->barrier();
  EXPECT_TRUE(s.ok()) << s.toString();
}

TEST_F(MpiComm, NodeLocalRank) {
  // ctest starts every rank on this machine.
  StatusOr<int> local = nodeLocalRank(*comm);
  ASSERT_TRUE(local.ok()) << local.status().toString();
  EXPECT_EQ(*local, comm->rank());
}

#ifdef SHARDRT_TEST_NCCL_MPI
/// Every rank comes back from the NCCL bootstrap in time with the same
/// outcome: a working communicator where every rank has its own GPU, else
/// a status on every rank (without a GPU: Unavailable, naming the missing
/// device), and the ranks stay in step.
TEST_F(MpiComm, NcclBootstrapAgreesOnTheOutcome) {
  NcclOptions options;
  options.comm.timeout = 20s;
  Clock::time_point start = Clock::now();
  StatusOr<std::unique_ptr<Communicator>> nccl =
      createNcclCommunicatorOverMpi(options);
  EXPECT_LT(Clock::now() - start, 60s);
  std::int32_t ok = nccl.ok(), all = 0, any = 0;
  ASSERT_TRUE(comm->allReduce(&ok, &all, 1, DataType::I32, ReduceOp::Min).ok());
  ASSERT_TRUE(comm->allReduce(&ok, &any, 1, DataType::I32, ReduceOp::Max).ok());
  EXPECT_EQ(all, any) << "some ranks joined NCCL and some did not";
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    // EXPECT, not ASSERT: a rank that returned early would leave the others
    // waiting at the barrier below.
    EXPECT_FALSE(nccl.ok());
    EXPECT_EQ(nccl.status().code(), StatusCode::Unavailable);
    EXPECT_NE(nccl.status().message().find("no CUDA device"), std::string::npos)
        << nccl.status().toString();
  } else {
    // Every rank runs on this node: each gets a device of its own when
    // there are enough, and then NCCL must come up.
    if (devices >= comm->size()) {
      EXPECT_TRUE(nccl.ok()) << nccl.status().toString();
    }
    if (nccl.ok()) {
      EXPECT_STREQ((*nccl)->backendName(), "nccl");
      checkAllReduceEverything(**nccl);
    }
  }
  Status s = comm->barrier();
  EXPECT_TRUE(s.ok()) << s.toString();
}
#endif

/// Only rank 0 enters the collective: it must time out, disable collectives
/// on its communicator, and leave the others able to finish theirs.
TEST(MpiCommTimeout, CollectiveWithAMissingPeerTimesOut) {
  auto lonely = makeComm(200ms);
  auto world = makeComm(20s);
  ASSERT_TRUE(lonely && world);
  if (lonely->size() < 2)
    GTEST_SKIP() << "needs two ranks";
  if (lonely->rank() == 0) {
    Clock::time_point start = Clock::now();
    Status s = lonely->barrier();
    EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded) << s.toString();
    EXPECT_NE(s.message().find("barrier on rank 0"), std::string::npos);
    EXPECT_GE(Clock::now() - start, 200ms);
    s = lonely->barrier();
    EXPECT_EQ(s.code(), StatusCode::FailedPrecondition) << s.toString();
  }
  Status s = world->barrier();
  ASSERT_TRUE(s.ok()) << s.toString();
  if (lonely->rank() != 0) {
    // Completes against rank 0's abandoned, still pending barrier.
    ASSERT_TRUE(lonely->setTimeout(10s).ok());
    s = lonely->barrier();
    EXPECT_TRUE(s.ok()) << s.toString();
  }
  // Rank 0 polls here, which lets MPI progress its abandoned barrier.
  s = world->barrier();
  EXPECT_TRUE(s.ok()) << s.toString();
}

/// Rank 1 gives up part way (as Session::run does after a failed step) on
/// two communicators, while the other ranks are in a barrier with it on the
/// first: under a 60 s timeout they must stop at once with its reason, and
/// so must a wait for it on the second, whose collectives are then no longer
/// started. Rank 1's own wait for a message still in flight stops at once as
/// well (its peers stop sending once they hear).
TEST(MpiCommAbort, AFailedRankStopsItsPeersAtOnce) {
  auto first = makeComm(60s), second = makeComm(60s), world = makeComm(20s);
  ASSERT_TRUE(first && second && world);
  if (first->size() < 2)
    GTEST_SKIP() << "needs two ranks";
  const Status why = Status::internal("step 7 (Conv) failed");
  auto expectWithin30s = [](Clock::time_point start) {
    EXPECT_LT(Clock::now() - start, 30s);
  };
  if (first->rank() == 1) {
    int value = -1;
    StatusOr<Request> pending = first->irecv(&value, 4, 0, 9);
    ASSERT_TRUE(pending.ok()) << pending.status().toString();
    std::this_thread::sleep_for(300ms); // the others are in the barrier
    first->abort(why);
    second->abort(why);
    Clock::time_point start = Clock::now();
    Status s = first->waitAll(*pending, 60s);
    expectWithin30s(start);
    EXPECT_EQ(s.code(), StatusCode::Unavailable) << s.toString();
    EXPECT_NE(s.message().find("stopped waiting for irecv from rank 0 (tag "
                               "9, 4 bytes): this rank gave up (Internal: "
                               "step 7 (Conv) failed)"),
              std::string::npos)
        << s.toString();
    pending->reset();
    EXPECT_EQ(value, -1);
    int zero = 0;
    StatusOr<Request> send = first->isend(&zero, 4, 0, 3);
    EXPECT_EQ(send.status().code(), StatusCode::FailedPrecondition);
  } else {
    // Stopped part way through its poll (or, on a slow machine where the
    // notice came first, not started).
    Clock::time_point start = Clock::now();
    Status s = first->barrier();
    expectWithin30s(start);
    EXPECT_EQ(s.code(), StatusCode::Unavailable) << s.toString();
    std::string on = "barrier on rank " + std::to_string(first->rank()) + ": ";
    EXPECT_TRUE(s.message().find(on + "stopped waiting for the other ranks: "
                                      "rank 1 failed: Internal: step 7") !=
                    std::string::npos ||
                s.message().find(on + "not started: rank 1 failed: Internal: "
                                      "step 7") != std::string::npos)
        << s.toString();
    int value = -1;
    StatusOr<Request> request = second->irecv(&value, 4, 1, 3);
    ASSERT_TRUE(request.ok()) << request.status().toString();
    start = Clock::now();
    s = second->waitAll(*request, 60s);
    expectWithin30s(start);
    EXPECT_EQ(s.code(), StatusCode::Unavailable) << s.toString();
    EXPECT_NE(s.message().find("stopped waiting for irecv from rank 1 (tag "
                               "3, 4 bytes): rank 1 failed"),
              std::string::npos)
        << s.toString();
    request->reset();
    EXPECT_EQ(value, -1);
    float x = 1, y = 0;
    start = Clock::now();
    s = second->allReduce(&x, &y, 1, DataType::F32, ReduceOp::Sum);
    expectWithin30s(start);
    EXPECT_EQ(s.code(), StatusCode::Unavailable) << s.toString();
    EXPECT_NE(s.message().find("allReduce on rank " +
                               std::to_string(second->rank()) +
                               ": not started: rank 1 failed"),
              std::string::npos)
        << s.toString();
    // These ranks give up in turn, without telling anyone again.
    first->abort(s);
    second->abort(s);
  }
  Status s = world->barrier();
  EXPECT_TRUE(s.ok()) << s.toString();
}

/// Prints only failures, prefixed with the rank, so that the report of the
/// ranks other than 0 stays short and is not mistaken for rank 0's.
class FailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult &result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                   result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }

private:
  int rank_;
};

} // namespace

int main(int argc, char **argv) {
  // Line-buffered, so that what a rank printed survives MPI_Abort.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  ::testing::InitGoogleTest(&argc, argv);
  // After one failure the ranks are out of step (one left a collective the
  // others are in), so every later test would only wait for its timeout.
  GTEST_FLAG_SET(fail_fast, true);
  if (Status s = initializeMpi(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.toString().c_str());
    return 1;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS();
  if (failed) {
    std::fprintf(stderr, "[rank %d] failed; aborting the job\n", rank);
    // The other ranks may be waiting in a collective this rank left.
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 0; // MPI_Finalize runs at exit (initializeMpi owns MPI)
}

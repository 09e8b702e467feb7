//===- LocalCommTest.cpp - The `local` backend ----------------------------===//

#include "shardrt/comm/Local.h"

#include "CommChecks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

using namespace shardrt;
using namespace shardrt::comm;
using namespace shardrt::comm::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

CommOptions withTimeout(std::chrono::milliseconds timeout) {
  CommOptions options;
  options.timeout = timeout;
  return options;
}

/// Runs `check` on every rank of a world of `size` threads.
template <typename Fn> void onEveryRank(int size, Fn check) {
  Status s = LocalWorld::run(
      size,
      [&](Communicator &c) {
        check(c);
        return Status();
      },
      withTimeout(10s));
  ASSERT_TRUE(s.ok()) << s.toString();
}

/// A world driven by the test's own thread: possible for point-to-point
/// because local sends never wait for their receiver.
std::vector<std::unique_ptr<Communicator>>
makeWorld(int size, std::chrono::milliseconds timeout = 10s) {
  auto world = LocalWorld::create(size, withTimeout(timeout));
  EXPECT_TRUE(world.ok()) << world.status().toString();
  return std::move(world).value();
}

Request expectRequest(StatusOr<Request> r) {
  EXPECT_TRUE(r.ok()) << r.status().toString();
  return r.ok() ? std::move(*r) : Request();
}

//===--- Every collective on world sizes 1..5 -----------------------------===//

class LocalCollectives : public ::testing::TestWithParam<int> {};

TEST_P(LocalCollectives, AllReduce) {
  onEveryRank(GetParam(), checkAllReduceEverything);
}
TEST_P(LocalCollectives, AllGatherV) {
  onEveryRank(GetParam(), checkAllGatherVEverything);
}
TEST_P(LocalCollectives, ReduceScatterV) {
  onEveryRank(GetParam(), checkReduceScatterVEverything);
}
TEST_P(LocalCollectives, AllToAllV) {
  onEveryRank(GetParam(), checkAllToAllVEverything);
}
TEST_P(LocalCollectives, Broadcast) {
  onEveryRank(GetParam(), checkBroadcastEverything);
}
TEST_P(LocalCollectives, NanWinsMaxAndMin) {
  onEveryRank(GetParam(), checkNanWinsMaxAndMin);
}
TEST_P(LocalCollectives, EmptySideAtTheOtherSidesAddress) {
  onEveryRank(GetParam(), checkEmptySideAtTheOtherSidesAddress);
}
TEST_P(LocalCollectives, RingExchangeBothDirections) {
  onEveryRank(GetParam(), [](Communicator &c) {
    checkRingExchange(c, 0, 3);
    checkRingExchange(c, 17, 50);
    checkRingExchange(c, 1 << 17, 3); // 1 MiB halos
  });
}
TEST_P(LocalCollectives, InvalidArguments) {
  onEveryRank(GetParam(), checkInvalidArguments);
}
TEST_P(LocalCollectives, SizeMismatch) {
  onEveryRank(GetParam(), checkSizeMismatch);
}

TEST_P(LocalCollectives, BarrierWaitsForEveryone) {
  constexpr int kRounds = 20;
  std::atomic<int> arrived[kRounds] = {};
  onEveryRank(GetParam(), [&](Communicator &c) {
    for (int k = 0; k < kRounds; ++k) {
      // A late rank makes leaving early visible.
      if (c.rank() == k % c.size())
        std::this_thread::sleep_for(1ms);
      arrived[k].fetch_add(1);
      Status s = c.barrier();
      ASSERT_TRUE(s.ok()) << s.toString();
      EXPECT_EQ(arrived[k].load(), c.size()) << "round " << k;
    }
  });
}

/// Point-to-point traffic from every rank to every rank on several tags, in
/// a random-looking order, to shake out races in the mailboxes.
TEST_P(LocalCollectives, AllPairsTraffic) {
  onEveryRank(GetParam(), [](Communicator &c) {
    int n = c.size(), me = c.rank();
    constexpr int kMessages = 30;
    auto length = [](int from, int to, int k) { return (from + to + k) % 9; };
    std::vector<std::vector<std::int32_t>> out, in;
    std::vector<Request> requests;
    out.reserve(kMessages * n); // the receive buffers must not move
    in.reserve(kMessages * n);
    for (int k = 0; k < kMessages; ++k)
      for (int q = (me + k) % n, j = 0; j < n; ++j, q = (q + 1) % n) {
        out.emplace_back(length(me, q, k), me * 100000 + q * 100 + k);
        requests.push_back(expectRequest(
            c.isend(out.back().data(), out.back().size() * 4, q, k % 3)));
        in.emplace_back(length(q, me, k), -1);
        requests.push_back(expectRequest(
            c.irecv(in.back().data(), in.back().size() * 4, q, k % 3)));
      }
    Status s = c.waitAll(requests);
    ASSERT_TRUE(s.ok()) << s.toString();
    std::size_t index = 0;
    for (int k = 0; k < kMessages; ++k)
      for (int q = (me + k) % n, j = 0; j < n; ++j, q = (q + 1) % n, ++index)
        EXPECT_EQ(in[index], std::vector<std::int32_t>(
                                 length(q, me, k), q * 100000 + me * 100 + k));
  });
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, LocalCollectives, ::testing::Range(1, 6),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return "size" + std::to_string(info.param);
                         });

//===--- Matching, timeouts, errors ---------------------------------------===//

TEST(LocalComm, CreateChecksArguments) {
  EXPECT_EQ(LocalWorld::create(0).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(LocalWorld::create(-3).status().code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(LocalWorld::create(2, withTimeout(0ms)).status().code(),
            StatusCode::InvalidArgument);
  auto world = makeWorld(3);
  ASSERT_EQ(world.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(world[r]->rank(), r);
    EXPECT_EQ(world[r]->size(), 3);
    EXPECT_STREQ(world[r]->backendName(), "local");
  }
  EXPECT_EQ(world[0]->timeout(), 10s);
  EXPECT_EQ(CommOptions().timeout, kDefaultTimeout);
}

TEST(LocalComm, DataTypes) {
  EXPECT_EQ(dataTypeSize(DataType::Byte), 1u);
  EXPECT_EQ(dataTypeSize(DataType::F32), 4u);
  EXPECT_EQ(dataTypeSize(DataType::F64), 8u);
  EXPECT_EQ(dataTypeSize(DataType::I32), 4u);
  EXPECT_EQ(dataTypeSize(DataType::I64), 8u);
  EXPECT_EQ(dataTypeSize(static_cast<DataType>(99)), 0u);
  EXPECT_STREQ(dataTypeName(DataType::F64), "f64");
  EXPECT_STREQ(dataTypeName(static_cast<DataType>(99)), "unknown");
  EXPECT_STREQ(reduceOpName(ReduceOp::Prod), "prod");
  static_assert(dataTypeOf<float>() == DataType::F32);
  static_assert(dataTypeOf<std::int64_t>() == DataType::I64);
  static_assert(dataTypeOf<std::byte>() == DataType::Byte);
}

TEST(LocalComm, MatchesBySourceAndTagInFifoOrder) {
  auto world = makeWorld(3);
  int values[] = {10, 11, 12, 90, 20};
  // Rank 0 sends three on tag 4, then one on tag 9; rank 2 one on tag 4.
  for (int i = 0; i < 4; ++i)
    expectRequest(world[0]->isend(&values[i], 4, 1, i < 3 ? 4 : 9));
  expectRequest(world[2]->isend(&values[4], 4, 1, 4));
  int got[5] = {};
  std::vector<Request> requests;
  requests.push_back(expectRequest(world[1]->irecv(&got[0], 4, 0, 9)));
  requests.push_back(expectRequest(world[1]->irecv(&got[1], 4, 2, 4)));
  for (int i = 2; i < 5; ++i)
    requests.push_back(expectRequest(world[1]->irecv(&got[i], 4, 0, 4)));
  Status s = world[1]->waitAll(requests, 1s);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(std::vector<int>(got, got + 5),
            (std::vector<int>{90, 20, 10, 11, 12}));
}

TEST(LocalComm, PostedReceivesMatchInPostOrder) {
  auto world = makeWorld(2);
  int got[3] = {};
  std::vector<Request> requests;
  for (int &g : got)
    requests.push_back(expectRequest(world[1]->irecv(&g, 4, 0, 1)));
  for (int v : {7, 8, 9})
    expectRequest(world[0]->isend(&v, 4, 1, 1)); // copied at once
  Status s = world[1]->waitAll(requests, 1s);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(std::vector<int>(got, got + 3), (std::vector<int>{7, 8, 9}));
}

/// A copy that counts its calls and fails on a 3-byte message, standing in
/// for the device-aware copy (cudaMemcpy) of CUDA ranks on one GPU.
std::atomic<int> copiedMessages{0};
Status countingCopy(void *dst, const void *src, std::size_t bytes) {
  if (bytes == 3)
    return Status::internal("copy refused 3 bytes");
  ++copiedMessages;
  std::memcpy(dst, src, bytes);
  return Status();
}

TEST(LocalComm, PointToPointUsesTheWorldsCopy) {
  // isend/irecv move messages with CommOptions::copyBytes (once when the
  // receive is posted, twice through the mailbox when it is not), and a
  // world with one takes device buffers; collectives keep std::memcpy.
  CommOptions options = withTimeout(10s);
  EXPECT_FALSE(makeWorld(2)[0]->takesDeviceBuffers());
  options.copyBytes = countingCopy;
  auto made = LocalWorld::create(2, options);
  ASSERT_TRUE(made.ok()) << made.status().toString();
  std::vector<std::unique_ptr<Communicator>> &world = *made;
  EXPECT_TRUE(world[0]->takesDeviceBuffers());
  copiedMessages = 0;
  int posted = 0, buffered = 0, a = 41, b = 42;
  std::vector<Request> requests;
  requests.push_back(expectRequest(world[1]->irecv(&posted, 4, 0, 1)));
  expectRequest(world[0]->isend(&a, 4, 1, 1)); // straight into `posted`
  EXPECT_EQ(copiedMessages.load(), 1);
  expectRequest(world[0]->isend(&b, 4, 1, 2)); // into the mailbox
  requests.push_back(expectRequest(world[1]->irecv(&buffered, 4, 0, 2)));
  Status s = world[1]->waitAll(requests, 1s);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(posted, 41);
  EXPECT_EQ(buffered, 42);
  EXPECT_EQ(copiedMessages.load(), 3);
  // A failing copy is the send's error, not a crash or a lost message.
  char three[3] = {};
  StatusOr<Request> refused = world[0]->isend(three, 3, 1, 3);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("copy refused 3 bytes"),
            std::string::npos);
  // Collectives do not go through it.
  copiedMessages = 0;
  float sums[2] = {1, 2};
  std::thread other([&] {
    float mine = 3;
    EXPECT_TRUE(world[1]
                    ->allReduce(&mine, &mine, 1, DataType::F32, ReduceOp::Sum)
                    .ok());
  });
  EXPECT_TRUE(
      world[0]->allReduce(sums, sums, 1, DataType::F32, ReduceOp::Sum).ok());
  other.join();
  EXPECT_EQ(sums[0], 4.0f);
  EXPECT_EQ(copiedMessages.load(), 0);
}

TEST(LocalComm, ReceiveWithoutSendTimesOut) {
  auto world = makeWorld(2);
  int value = 0;
  Request request = expectRequest(world[0]->irecv(&value, 4, 1, 3));
  Clock::time_point start = Clock::now();
  Status s = world[0]->waitAll(request, 200ms);
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded) << s.toString();
  EXPECT_NE(s.message().find("waitAll on rank 0: irecv from rank 1 (tag 3"),
            std::string::npos)
      << s.toString();
  EXPECT_NE(s.message().find("200 ms"), std::string::npos) << s.toString();
  EXPECT_GE(elapsed, 200ms);
  EXPECT_LT(elapsed, 2s);
  EXPECT_TRUE(request.pending());

  // The request survives the timeout and completes once the message comes.
  int sent = 5;
  expectRequest(world[1]->isend(&sent, 4, 0, 3));
  s = world[0]->waitAll(request, 0ms);
  EXPECT_TRUE(s.ok()) << s.toString();
  EXPECT_FALSE(request.pending());
  EXPECT_EQ(value, 5);
}

TEST(LocalComm, DefaultTimeoutAppliesToWaitAll) {
  auto world = makeWorld(1, 150ms);
  int value = 0;
  Request request = expectRequest(world[0]->irecv(&value, 4, 0, 0));
  Clock::time_point start = Clock::now();
  Status s = world[0]->waitAll(request);
  EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded) << s.toString();
  EXPECT_GE(Clock::now() - start, 150ms);
  ASSERT_TRUE(world[0]->setTimeout(50ms).ok());
  EXPECT_EQ(world[0]->timeout(), 50ms);
}

TEST(LocalComm, PartialCompletionKeepsThePendingRequests) {
  auto world = makeWorld(2);
  int a = 0, b = 0, one = 1, two = 2;
  std::vector<Request> requests;
  requests.push_back(expectRequest(world[0]->irecv(&a, 4, 1, 1)));
  requests.push_back(expectRequest(world[0]->irecv(&b, 4, 1, 2)));
  expectRequest(world[1]->isend(&one, 4, 0, 1));
  Status s = world[0]->waitAll(requests, 50ms);
  EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded);
  EXPECT_NE(s.message().find("tag 2"), std::string::npos) << s.toString();
  EXPECT_FALSE(requests[0].pending());
  EXPECT_TRUE(requests[1].pending());
  EXPECT_EQ(a, 1);
  expectRequest(world[1]->isend(&two, 4, 0, 2));
  s = world[0]->waitAll(requests, 1s);
  EXPECT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(b, 2);
}

TEST(LocalComm, DroppedReceiveIsWithdrawn) {
  auto world = makeWorld(1);
  int first = -1, second = -1, value = 42;
  expectRequest(world[0]->irecv(&first, 4, 0, 2)).reset();
  expectRequest(world[0]->isend(&value, 4, 0, 2));
  Request request = expectRequest(world[0]->irecv(&second, 4, 0, 2));
  Status s = world[0]->waitAll(request, 1s);
  EXPECT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(first, -1);
  EXPECT_EQ(second, 42);
}

TEST(LocalComm, WaitAllRejectsAnotherCommunicatorsRequest) {
  auto world = makeWorld(2);
  int value = 0;
  Request request = expectRequest(world[0]->irecv(&value, 4, 1, 0));
  Status s = world[1]->waitAll(request, 10ms);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.toString();
}

TEST(LocalComm, CollectiveTimeoutNamesThePeerAndDisablesCollectives) {
  auto world = makeWorld(2, 200ms);
  double x = 1;
  Clock::time_point start = Clock::now();
  Status s = world[0]->allReduce(&x, &x, 1, DataType::F64, ReduceOp::Sum);
  EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded) << s.toString();
  EXPECT_NE(s.message().find("allReduce on rank 0: message from rank 1"),
            std::string::npos)
      << s.toString();
  EXPECT_GE(Clock::now() - start, 200ms);
  EXPECT_LT(Clock::now() - start, 2s);

  s = world[0]->barrier();
  EXPECT_EQ(s.code(), StatusCode::FailedPrecondition) << s.toString();
  EXPECT_NE(s.message().find("allReduce"), std::string::npos);

  // Point-to-point is unaffected.
  int v = 3, w = 0;
  expectRequest(world[0]->isend(&v, 4, 0, 0));
  Request r = expectRequest(world[0]->irecv(&w, 4, 0, 0));
  EXPECT_TRUE(world[0]->waitAll(r, 1s).ok());
  EXPECT_EQ(w, 3);
}

TEST(LocalComm, CountMismatchBetweenRanksIsAnError) {
  std::vector<Status> results(2);
  Status s = LocalWorld::run(
      2,
      [&](Communicator &c) {
        // Rank 1 believes it owns three elements, rank 0 that it owns two.
        std::vector<std::int64_t> counts{1, c.rank() == 0 ? 2 : 3};
        std::vector<float> send(counts[c.rank()], 1.0f), recv(4);
        results[c.rank()] = c.allGatherV(send.data(), counts[c.rank()],
                                         recv.data(), counts, DataType::F32);
        return Status();
      },
      withTimeout(2s));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(results[0].code(), StatusCode::InvalidArgument)
      << results[0].toString();
  EXPECT_NE(results[0].message().find("12 bytes"), std::string::npos)
      << results[0].toString();
  EXPECT_TRUE(results[1].ok()) << results[1].toString();
}

TEST(LocalComm, RunReportsTheFirstFailure) {
  Status s = LocalWorld::run(4, [](Communicator &c) {
    if (c.rank() == 2)
      return Status::unavailable("no disk on " + std::to_string(c.rank()));
    return Status();
  });
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_EQ(s.message(), "rank 2: no disk on 2");

  // Two ranks failing on their own: whichever failed first.
  s = LocalWorld::run(4, [](Communicator &c) {
    if (c.rank() >= 2)
      return Status::dataLoss("bad file on " + std::to_string(c.rank()));
    return Status();
  });
  EXPECT_EQ(s.code(), StatusCode::DataLoss);
  EXPECT_TRUE(s.message() == "rank 2: bad file on 2" ||
              s.message() == "rank 3: bad file on 3")
      << s.message();

  s = LocalWorld::run(2, [](Communicator &c) -> Status {
    if (c.rank() == 1)
      throw std::runtime_error("boom");
    return Status();
  });
  EXPECT_EQ(s.code(), StatusCode::Internal);
  EXPECT_EQ(s.message(), "rank 1: exception: boom");
  EXPECT_EQ(LocalWorld::run(0, [](Communicator &) { return Status(); }).code(),
            StatusCode::InvalidArgument);
}

TEST(LocalComm, AFailedRankStopsThePeersWaitingForIt) {
  // Rank 1 fails before its part of a collective and a send: the others
  // stop waiting at once rather than at the (one minute) timeout, and the
  // world reports rank 1's own error, not their waits'.
  std::vector<Status> waits(3);
  auto start = Clock::now();
  Status s = LocalWorld::run(
      3,
      [&](Communicator &c) -> Status {
        if (c.rank() == 1) {
          std::this_thread::sleep_for(50ms); // the others are waiting by now
          return Status::invalidArgument("rank 1's own error");
        }
        float x = 1, y = 0;
        if (c.rank() == 0)
          waits[0] = c.allReduce(&x, &y, 1, DataType::F32, ReduceOp::Sum);
        else {
          StatusOr<Request> r = c.irecv(&y, sizeof y, 1, 7);
          if (!r.ok())
            return r.status();
          waits[2] = c.waitAll(Span<Request>(&*r, 1));
        }
        return c.rank() == 0 ? waits[0] : waits[2];
      },
      withTimeout(60s));
  EXPECT_LT(Clock::now() - start, 30s);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "rank 1: rank 1's own error");
  EXPECT_EQ(waits[0].code(), StatusCode::Unavailable);
  EXPECT_NE(waits[0].message().find("allReduce on rank 0: stopped waiting "
                                    "for message from rank 1"),
            std::string::npos)
      << waits[0].message();
  EXPECT_NE(waits[0].message().find(": rank 1 failed"), std::string::npos);
  EXPECT_EQ(waits[2].code(), StatusCode::Unavailable);
  EXPECT_NE(waits[2].message().find("irecv from rank 1 (tag 7, 4 bytes)"),
            std::string::npos)
      << waits[2].message();
}

TEST(LocalComm, AbortStopsThePeersOfAWorldOnTheCallersThreads) {
  // A world from LocalWorld::create, driven by threads of the test's own:
  // rank 1 aborts while rank 0 waits for its message. Rank 0 stops at once,
  // and rank 1's own later collectives name why it gave up.
  auto comms = LocalWorld::create(2, withTimeout(60s));
  ASSERT_TRUE(comms.ok()) << comms.status().toString();
  Status wait, collective, send;
  auto start = Clock::now();
  std::thread rank0([&] {
    float y = 0;
    StatusOr<Request> r = (*comms)[0]->irecv(&y, sizeof y, 1, 7);
    wait = r.ok() ? (*comms)[0]->waitAll(Span<Request>(&*r, 1)) : r.status();
  });
  std::thread rank1([&] {
    std::this_thread::sleep_for(50ms); // rank 0 is waiting by now
    (*comms)[1]->abort(Status::internal("a kernel failed"));
    float x = 1;
    collective =
        (*comms)[1]->allReduce(&x, &x, 1, DataType::F32, ReduceOp::Sum);
    send = (*comms)[1]->isend(&x, sizeof x, 0, 7).status();
  });
  rank0.join();
  rank1.join();
  EXPECT_LT(Clock::now() - start, 30s);
  EXPECT_EQ(wait.code(), StatusCode::Unavailable) << wait.toString();
  EXPECT_NE(wait.message().find("stopped waiting for irecv from rank 1 "
                                "(tag 7, 4 bytes): rank 1 failed"),
            std::string::npos)
      << wait.message();
  EXPECT_EQ(collective.code(), StatusCode::FailedPrecondition);
  EXPECT_NE(collective.message().find("a kernel failed"), std::string::npos)
      << collective.message();
  // Nor may point-to-point go on: a later run's messages would match the
  // failed run's leftovers.
  EXPECT_EQ(send.code(), StatusCode::FailedPrecondition) << send.toString();
  EXPECT_NE(send.message().find("given up on after a failed run"),
            std::string::npos)
      << send.message();
}

} // namespace

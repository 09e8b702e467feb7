//===- CommChecks.cpp - Argument checks common to every backend -----------===//

#include "CommChecks.h"

namespace shardrt::comm::test {

namespace {

void expectInvalid(const Status &s, const char *what) {
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument)
      << what << ": " << s.toString();
}

void checkPointToPointArguments(Communicator &c) {
  int n = c.size(), me = c.rank();
  char byte = 0;
  expectInvalid(c.isend(&byte, 1, -1, 0).status(), "negative peer");
  expectInvalid(c.isend(&byte, 1, n, 0).status(), "peer == size");
  expectInvalid(c.irecv(&byte, 1, n + 3, 0).status(), "peer > size");
  expectInvalid(c.isend(&byte, 1, me, -1).status(), "negative tag");
  expectInvalid(c.irecv(&byte, 1, me, kMaxTag + 1).status(), "tag > kMaxTag");
  expectInvalid(c.isend(nullptr, 4, me, 0).status(), "null send buffer");
  expectInvalid(c.irecv(nullptr, 4, me, 0).status(), "null recv buffer");
  expectInvalid(c.waitAll({}, std::chrono::milliseconds(-1)),
                "negative timeout");
  expectInvalid(c.setTimeout(std::chrono::milliseconds(0)), "zero timeout");

  // A null buffer is fine for an empty message.
  StatusOr<Request> send = c.isend(nullptr, 0, me, kMaxTag);
  StatusOr<Request> recv = c.irecv(nullptr, 0, me, kMaxTag);
  ASSERT_TRUE(send.ok() && recv.ok());
  std::vector<Request> requests;
  requests.push_back(std::move(*send));
  requests.push_back(std::move(*recv));
  Status s = c.waitAll(requests, std::chrono::seconds(10));
  EXPECT_TRUE(s.ok()) << s.toString();
}

void checkReductionArguments(Communicator &c) {
  int n = c.size();
  std::vector<float> f(16);
  std::vector<std::int64_t> counts(n, 1), longer(n + 1, 1), negative(n, 1);
  negative[n - 1] = -2;
  expectInvalid(
      c.allReduce(f.data(), f.data(), -1, DataType::F32, ReduceOp::Sum),
      "negative count");
  expectInvalid(c.allReduce(nullptr, f.data(), 3, DataType::F32, ReduceOp::Sum),
                "null send");
  expectInvalid(
      c.allReduce(f.data(), f.data(), 3, DataType::Byte, ReduceOp::Max),
      "reduction on bytes");
  expectInvalid(c.allReduce(f.data(), f.data(), 3, static_cast<DataType>(42),
                            ReduceOp::Sum),
                "unknown type");
  expectInvalid(c.allReduce(f.data(), f.data(), 3, DataType::F32,
                            static_cast<ReduceOp>(9)),
                "unknown op");
  expectInvalid(
      c.allReduce(f.data(), f.data() + 1, 3, DataType::F32, ReduceOp::Sum),
      "partially overlapping buffers");
  expectInvalid(c.reduceScatterV(f.data(), f.data() + 8, longer, DataType::F32,
                                 ReduceOp::Sum),
                "reduceScatterV counts of size n+1");
  expectInvalid(c.reduceScatterV(f.data(), f.data() + 8, negative,
                                 DataType::F32, ReduceOp::Sum),
                "reduceScatterV negative count");
  expectInvalid(c.reduceScatterV(f.data(), f.data(), counts, DataType::F32,
                                 ReduceOp::Sum),
                "reduceScatterV overlapping buffers");
}

void checkMovementArguments(Communicator &c) {
  int n = c.size(), me = c.rank();
  std::vector<float> a(64), b(64);
  std::vector<std::int64_t> ones(n, 1), longer(n + 1, 1), displs(n);
  for (int q = 0; q < n; ++q)
    displs[q] = q;
  expectInvalid(c.allGatherV(a.data(), 1, b.data(), longer, DataType::F32),
                "allGatherV counts of size n+1");
  expectInvalid(c.allGatherV(a.data(), 2, b.data(), ones, DataType::F32),
                "allGatherV sendCount != recvCounts[rank]");
  expectInvalid(c.allGatherV(a.data(), 1, nullptr, ones, DataType::F32),
                "allGatherV null recv");
  // In place is this rank's own slot; one element off it is refused.
  std::vector<std::int64_t> twos(n, 2);
  expectInvalid(
      c.allGatherV(a.data() + 2 * me + 1, 2, a.data(), twos, DataType::F32),
      "allGatherV send inside recv, off its own slot");

  std::vector<std::int64_t> badDispls = displs, shortDispls(n - 1);
  badDispls[0] = -1;
  expectInvalid(c.allToAllV(a.data(), ones, shortDispls, b.data(), ones, displs,
                            DataType::F32),
                "allToAllV displs of wrong size");
  expectInvalid(c.allToAllV(a.data(), ones, badDispls, b.data(), ones, displs,
                            DataType::F32),
                "allToAllV negative displacement");
  std::vector<std::int64_t> selfTwo = ones;
  selfTwo[me] = 2;
  expectInvalid(c.allToAllV(a.data(), ones, displs, b.data(), selfTwo, displs,
                            DataType::F32),
                "allToAllV self count mismatch");
  expectInvalid(c.allToAllV(a.data(), ones, displs, a.data(), ones, displs,
                            DataType::F32),
                "allToAllV overlapping buffers");

  expectInvalid(c.broadcast(a.data(), 2, DataType::F32, -1), "negative root");
  expectInvalid(c.broadcast(a.data(), 2, DataType::F32, n), "root == size");
  expectInvalid(c.broadcast(nullptr, 2, DataType::F32, 0), "null buffer");
}

} // namespace

void checkInvalidArguments(Communicator &c) {
  SCOPED_TRACE(rankTag(c) + " invalid arguments");
  checkPointToPointArguments(c);
  checkReductionArguments(c);
  checkMovementArguments(c);
  // None of these disabled the collectives.
  Status s = c.barrier();
  EXPECT_TRUE(s.ok()) << s.toString();
}

} // namespace shardrt::comm::test

//===- CommChecks.h - Backend-independent communicator checks ---*- C++ -*-===//
//
// Every check runs on one rank of any communicator and compares with a
// reference computed here from the inputs of all ranks, which every rank can
// regenerate on its own. The same checks run on `local` (one thread per rank)
// and under mpirun (one process per rank), so both backends are held to the
// same specification.
//
// Inputs are small integers (plus a quarter for floating point): sums and
// products are then exact in any order, so the backends may fold in whatever
// order they like and results still compare exactly.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_TEST_COMMCHECKS_H
#define SHARDRT_COMM_TEST_COMMCHECKS_H

#include "shardrt/comm/Communicator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace shardrt::comm::test {

constexpr ReduceOp kAllOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max,
                                ReduceOp::Min};

/// Calls fn(T{}) for every element type that supports reductions.
template <typename Fn> void forEachType(Fn &&fn) {
  fn(float{});
  fn(double{});
  fn(std::int32_t{});
  fn(std::int64_t{});
}

template <typename T> T exactValue(std::int64_t v) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(v) + static_cast<T>(0.25);
  else
    return static_cast<T>(v);
}

/// Element i of rank r's contribution to a reduction.
template <typename T> T reduceInput(int rank, std::int64_t i, ReduceOp op) {
  if (op == ReduceOp::Prod) {
    // Factors keep the product of 5 ranks small and exact.
    static const int factors[] = {1, 2, -1, 1, -2, 1, 3};
    return static_cast<T>(factors[(rank * 3 + i) % 7]);
  }
  return exactValue<T>((rank * 37 + i * 11) % 29 - 14);
}

template <typename T> T referenceOp(T a, T b, ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return a + b;
  case ReduceOp::Prod:
    return a * b;
  case ReduceOp::Max:
    return a < b ? b : a;
  case ReduceOp::Min:
    return b < a ? b : a;
  }
  return a;
}

/// Reduction over `size` ranks of elements [first, first + count).
template <typename T>
std::vector<T> referenceReduce(int size, std::int64_t first, std::int64_t count,
                               ReduceOp op) {
  std::vector<T> out(count);
  for (std::int64_t i = 0; i < count; ++i) {
    T acc = reduceInput<T>(0, first + i, op);
    for (int r = 1; r < size; ++r)
      acc = referenceOp(acc, reduceInput<T>(r, first + i, op), op);
    out[i] = acc;
  }
  return out;
}

/// Uneven per-rank counts with zeros among them; seed 0 gives all zeros.
inline std::vector<std::int64_t> unevenCounts(int size, int seed) {
  std::vector<std::int64_t> counts(size);
  for (int r = 0; r < size; ++r)
    counts[r] = seed == 0 ? 0 : (r * 7 + seed * 3) % 5 + (r == 1 ? 0 : seed);
  if (size > 2 && seed > 0)
    counts[size - 2] = 0;
  return counts;
}

inline std::int64_t sum(const std::vector<std::int64_t> &v) {
  std::int64_t s = 0;
  for (std::int64_t x : v)
    s += x;
  return s;
}

inline std::string rankTag(const Communicator &c) {
  return "rank " + std::to_string(c.rank()) + " of " + std::to_string(c.size());
}

template <typename T>
void checkAllReduce(Communicator &c, std::int64_t count, ReduceOp op,
                    bool inPlace) {
  SCOPED_TRACE(rankTag(c) + " allReduce " + dataTypeName(dataTypeOf<T>()) +
               " " + reduceOpName(op) + " count " + std::to_string(count) +
               (inPlace ? " in place" : ""));
  std::vector<T> send(count), recv(count, exactValue<T>(-99));
  for (std::int64_t i = 0; i < count; ++i)
    send[i] = reduceInput<T>(c.rank(), i, op);
  T *out = inPlace ? send.data() : recv.data();
  Status s = c.allReduce(send.data(), out, count, dataTypeOf<T>(), op);
  ASSERT_TRUE(s.ok()) << s.toString();
  std::vector<T> got(out, out + count);
  EXPECT_EQ(got, referenceReduce<T>(c.size(), 0, count, op));
}

inline void checkAllReduceEverything(Communicator &c) {
  forEachType([&](auto zero) {
    using T = decltype(zero);
    for (ReduceOp op : kAllOps)
      for (std::int64_t count : {0, 1, 7, 1000})
        for (bool inPlace : {false, true})
          checkAllReduce<T>(c, count, op, inPlace);
  });
}

template <typename T> T gatherInput(int rank, std::int64_t i) {
  return static_cast<T>(rank * 1000 + i);
}

template <typename T>
void checkAllGatherV(Communicator &c, const std::vector<std::int64_t> &counts,
                     bool inPlace) {
  SCOPED_TRACE(rankTag(c) + " allGatherV " + dataTypeName(dataTypeOf<T>()) +
               (inPlace ? " in place" : ""));
  std::vector<T> expected;
  for (int r = 0; r < c.size(); ++r)
    for (std::int64_t i = 0; i < counts[r]; ++i)
      expected.push_back(gatherInput<T>(r, i));
  std::int64_t offset = 0;
  for (int r = 0; r < c.rank(); ++r)
    offset += counts[r];
  std::int64_t mine = counts[c.rank()];
  std::vector<T> send(mine), recv(expected.size(), static_cast<T>(-1));
  for (std::int64_t i = 0; i < mine; ++i)
    (inPlace ? recv[offset + i] : send[i]) = gatherInput<T>(c.rank(), i);
  const T *source = inPlace ? recv.data() + offset : send.data();
  Status s = c.allGatherV(source, mine, recv.data(), counts, dataTypeOf<T>());
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(recv, expected);
}

template <typename T>
void checkReduceScatterV(Communicator &c,
                         const std::vector<std::int64_t> &counts, ReduceOp op) {
  SCOPED_TRACE(rankTag(c) + " reduceScatterV " + dataTypeName(dataTypeOf<T>()) +
               " " + reduceOpName(op));
  std::int64_t total = sum(counts);
  std::vector<T> send(total);
  for (std::int64_t i = 0; i < total; ++i)
    send[i] = reduceInput<T>(c.rank(), i, op);
  std::int64_t offset = 0;
  for (int r = 0; r < c.rank(); ++r)
    offset += counts[r];
  std::vector<T> recv(counts[c.rank()], exactValue<T>(-99));
  Status s =
      c.reduceScatterV(send.data(), recv.data(), counts, dataTypeOf<T>(), op);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(recv, referenceReduce<T>(c.size(), offset, counts[c.rank()], op));
}

/// Elements rank `from` sends to rank `to` in the all-to-all with `seed`.
inline std::int64_t a2aCount(int from, int to, int seed) {
  return (from * 3 + to * 5 + seed) % 4;
}

/// Displacements that leave `gap` unused elements after each block and lay
/// the blocks out in reverse rank order when `reverse`, so that a backend
/// ignoring the displacements cannot pass. Returns the extent.
inline std::int64_t layout(const std::vector<std::int64_t> &counts,
                           std::int64_t gap, bool reverse,
                           std::vector<std::int64_t> &displs) {
  int n = static_cast<int>(counts.size());
  displs.assign(n, 0);
  std::int64_t cursor = 0;
  for (int k = 0; k < n; ++k) {
    int q = reverse ? n - 1 - k : k;
    displs[q] = cursor;
    cursor += counts[q] + gap;
  }
  return cursor;
}

template <typename T> void checkAllToAllV(Communicator &c, int seed) {
  SCOPED_TRACE(rankTag(c) + " allToAllV " + dataTypeName(dataTypeOf<T>()) +
               " seed " + std::to_string(seed));
  int n = c.size(), me = c.rank();
  auto value = [](int from, int to, std::int64_t i) {
    return static_cast<T>(from * 10000 + to * 100 + i);
  };
  std::vector<std::int64_t> sendCounts(n), recvCounts(n), sendDispls,
      recvDispls;
  for (int q = 0; q < n; ++q) {
    sendCounts[q] = a2aCount(me, q, seed);
    recvCounts[q] = a2aCount(q, me, seed);
  }
  std::vector<T> send(layout(sendCounts, 1, true, sendDispls));
  std::vector<T> recv(layout(recvCounts, 2, false, recvDispls),
                      static_cast<T>(-1));
  std::vector<T> expected = recv;
  for (int q = 0; q < n; ++q) {
    for (std::int64_t i = 0; i < sendCounts[q]; ++i)
      send[sendDispls[q] + i] = value(me, q, i);
    for (std::int64_t i = 0; i < recvCounts[q]; ++i)
      expected[recvDispls[q] + i] = value(q, me, i);
  }
  Status s = c.allToAllV(send.data(), sendCounts, sendDispls, recv.data(),
                         recvCounts, recvDispls, dataTypeOf<T>());
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(recv, expected); // the gaps too: nothing written outside slots
}

template <typename T>
void checkBroadcast(Communicator &c, std::int64_t count, int root) {
  SCOPED_TRACE(rankTag(c) + " broadcast " + dataTypeName(dataTypeOf<T>()) +
               " root " + std::to_string(root));
  std::vector<T> expected(count), buffer(count, static_cast<T>(-7));
  for (std::int64_t i = 0; i < count; ++i)
    expected[i] = static_cast<T>(root * 100 + i + 1);
  if (c.rank() == root)
    buffer = expected;
  Status s = c.broadcast(buffer.data(), count, dataTypeOf<T>(), root);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(buffer, expected);
}

inline void checkAllGatherVEverything(Communicator &c) {
  forEachType([&](auto zero) {
    using T = decltype(zero);
    for (int seed = 0; seed < 4; ++seed)
      for (bool inPlace : {false, true})
        checkAllGatherV<T>(c, unevenCounts(c.size(), seed), inPlace);
  });
}

inline void checkReduceScatterVEverything(Communicator &c) {
  forEachType([&](auto zero) {
    using T = decltype(zero);
    for (ReduceOp op : kAllOps)
      for (int seed = 0; seed < 4; ++seed)
        checkReduceScatterV<T>(c, unevenCounts(c.size(), seed), op);
  });
}

inline void checkAllToAllVEverything(Communicator &c) {
  forEachType([&](auto zero) {
    using T = decltype(zero);
    for (int seed = 0; seed < 4; ++seed)
      checkAllToAllV<T>(c, seed);
  });
}

inline void checkBroadcastEverything(Communicator &c) {
  forEachType([&](auto zero) {
    using T = decltype(zero);
    for (int root = 0; root < c.size(); ++root)
      for (std::int64_t count : {0, 1, 33})
        checkBroadcast<T>(c, count, root);
  });
  // Raw bytes: e.g. an artifact read by rank 0 only.
  std::vector<unsigned char> bytes(5, 0);
  if (c.rank() == 0)
    bytes = {1, 2, 3, 4, 5};
  Status s = c.broadcast(bytes.data(), 5, DataType::Byte, 0);
  ASSERT_TRUE(s.ok()) << s.toString();
  EXPECT_EQ(bytes, (std::vector<unsigned char>{1, 2, 3, 4, 5}));
}

/// The halo pattern: every rank sends to and receives from both neighbours
/// at once, some posting sends first and others receives first.
inline void checkRingExchange(Communicator &c, std::int64_t count,
                              int iterations) {
  SCOPED_TRACE(rankTag(c) + " ring exchange of " + std::to_string(count));
  int n = c.size(), me = c.rank();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  // Tags tell the directions apart when left == right (two ranks, or one).
  const int toRightTag = 1, toLeftTag = 2;
  auto value = [](int from, int iteration, std::int64_t i, bool rightward) {
    double v = from * 1e6 + iteration * 1e3 + static_cast<double>(i % 997);
    return rightward ? v : -v;
  };
  for (int it = 0; it < iterations; ++it) {
    std::vector<double> toRight(count), toLeft(count);
    std::vector<double> fromLeft(count, 0.5), fromRight(count, 0.5);
    for (std::int64_t i = 0; i < count; ++i) {
      toRight[i] = value(me, it, i, true);
      toLeft[i] = value(me, it, i, false);
    }
    std::size_t bytes = count * sizeof(double);
    std::vector<Request> requests;
    auto post = [&](StatusOr<Request> r) {
      ASSERT_TRUE(r.ok()) << r.status().toString();
      requests.push_back(std::move(*r));
    };
    auto sends = [&] {
      post(c.isend(toRight.data(), bytes, right, toRightTag));
      post(c.isend(toLeft.data(), bytes, left, toLeftTag));
    };
    auto recvs = [&] {
      post(c.irecv(fromLeft.data(), bytes, left, toRightTag));
      post(c.irecv(fromRight.data(), bytes, right, toLeftTag));
    };
    if ((me + it) % 2 == 0) {
      sends();
      recvs();
    } else {
      recvs();
      sends();
    }
    Status s = c.waitAll(requests);
    ASSERT_TRUE(s.ok()) << s.toString();
    for (const Request &r : requests)
      EXPECT_FALSE(r.pending());
    for (std::int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(fromLeft[i], value(left, it, i, true)) << "i=" << i;
      ASSERT_EQ(fromRight[i], value(right, it, i, false)) << "i=" << i;
    }
  }
}

/// Collectives where every rank but 0 has nothing to receive (or, for the
/// reduce-scatter, rank 0 receives everything) and points its empty receive
/// buffer at its send buffer, as a zero-byte workspace reservation does: it
/// is not in place, and the collectives after it still match (Open MPI took
/// equal buffers for MPI_IN_PLACE, sent nothing, and the next collective
/// hung).
inline void checkEmptySideAtTheOtherSidesAddress(Communicator &c) {
  SCOPED_TRACE(rankTag(c) + " empty side at the other side's address");
  int n = c.size(), me = c.rank();
  std::vector<std::int64_t> zeros(size_t(n), 0), toRoot = zeros, displs(n);
  toRoot[0] = 1;
  std::vector<std::int32_t> sent = {100 + me}, gathered(size_t(n), -1);
  std::vector<std::int64_t> recvCounts =
      me == 0 ? std::vector<std::int64_t>(size_t(n), 1) : zeros;
  for (int q = 0; q < n; ++q)
    displs[size_t(q)] = me == 0 ? q : 0;
  void *recv = me == 0 ? static_cast<void *>(gathered.data())
                       : static_cast<void *>(sent.data());
  Status s = c.allToAllV(sent.data(), toRoot, zeros, recv, recvCounts, displs,
                         DataType::I32);
  ASSERT_TRUE(s.ok()) << s.toString();
  if (me == 0) {
    for (int q = 0; q < n; ++q)
      EXPECT_EQ(gathered[size_t(q)], 100 + q);
  }
  // Rank 0 receives the sum of every rank's n values.
  std::vector<float> values(size_t(n), float(me + 1)), sums(size_t(n), -1.0f);
  std::vector<std::int64_t> scattered = zeros;
  scattered[0] = n;
  void *into = me == 0 ? static_cast<void *>(sums.data())
                       : static_cast<void *>(values.data());
  s = c.reduceScatterV(values.data(), into, scattered, DataType::F32,
                       ReduceOp::Sum);
  ASSERT_TRUE(s.ok()) << s.toString();
  if (me == 0) {
    for (float v : sums)
      EXPECT_EQ(v, float(n * (n + 1) / 2));
  }
  // The next collective still matches.
  std::vector<std::int32_t> all(size_t(n), -1);
  s = c.allGatherV(&sent[0], 1, all.data(),
                   std::vector<std::int64_t>(size_t(n), 1), DataType::I32);
  ASSERT_TRUE(s.ok()) << s.toString();
  for (int q = 0; q < n; ++q)
    EXPECT_EQ(all[size_t(q)], 100 + q);
}

/// All-reduce max and min of floats return NaN wherever any rank holds one,
/// whichever rank it is (torch.amax's rule): element q is NaN on rank q
/// only, the others finite.
inline void checkNanWinsMaxAndMin(Communicator &c) {
  SCOPED_TRACE(rankTag(c) + " NaN in max and min");
  int n = c.size(), me = c.rank();
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    std::vector<float> in(size_t(n) + 1), out(size_t(n) + 1, 0.0f);
    std::vector<double> in64(size_t(n) + 1), out64(size_t(n) + 1, 0.0);
    for (int i = 0; i <= n; ++i) {
      float v = i == me ? std::numeric_limits<float>::quiet_NaN()
                        : float(me * 10 + i);
      in[size_t(i)] = v;
      in64[size_t(i)] = double(v);
    }
    Status s = c.allReduce(in.data(), out.data(), n + 1, DataType::F32, op);
    ASSERT_TRUE(s.ok()) << s.toString();
    s = c.allReduce(in64.data(), out64.data(), n + 1, DataType::F64, op);
    ASSERT_TRUE(s.ok()) << s.toString();
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(std::isnan(out[size_t(i)])) << "element " << i;
      EXPECT_TRUE(std::isnan(out64[size_t(i)])) << "element " << i;
    }
    float last = op == ReduceOp::Max ? float((n - 1) * 10 + n) : float(n);
    EXPECT_EQ(out[size_t(n)], last);
    EXPECT_EQ(out64[size_t(n)], double(last));
  }
}

/// A message of another size than the receive expects is an error on the
/// receiving side, not silent truncation. Uses self-messages only.
inline void checkSizeMismatch(Communicator &c) {
  std::vector<char> big(16, 'x');
  for (auto [sent, expected] : {std::pair<std::size_t, std::size_t>{16, 8},
                                std::pair<std::size_t, std::size_t>{8, 16}}) {
    StatusOr<Request> send = c.isend(big.data(), sent, c.rank(), 5);
    ASSERT_TRUE(send.ok()) << send.status().toString();
    std::vector<char> out(expected);
    StatusOr<Request> recv = c.irecv(out.data(), expected, c.rank(), 5);
    ASSERT_TRUE(recv.ok()) << recv.status().toString();
    std::vector<Request> requests;
    requests.push_back(std::move(*recv));
    requests.push_back(std::move(*send));
    Status s = c.waitAll(requests, std::chrono::seconds(10));
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << s.toString();
    EXPECT_NE(s.message().find("irecv from rank " + std::to_string(c.rank())),
              std::string::npos)
        << s.toString();
  }
}

/// Argument errors are found before any communication, identically on every
/// backend, and leave the communicator usable.
void checkInvalidArguments(Communicator &c);

} // namespace shardrt::comm::test

#endif // SHARDRT_COMM_TEST_COMMCHECKS_H

//===- HostNccl.cpp - NCCL's communicators as threads of one process ------===//
//
// include/nccl.h's calls for ranks that are threads sharing the host device.
// A unique id names a clique; ranks join it with ncclCommInitRankConfig (a
// non-blocking join is in progress until every rank has joined). An
// operation is stream work (HostCudaRuntime's enqueueStep): a group's
// operations on one stream are one step, which, when the stream reaches it,
// posts its parts and is done once every part is. A collective is performed
// by the member whose part arrives last, in rank order; the k-th send from
// a to b meets the k-th receive at b from a. So, as on devices, a rank that
// never reaches its part leaves the others' streams waiting, which the
// caller sees only by polling (cudaEventQuery, ncclCommGetAsyncError) and
// ends with ncclCommAbort. An aborted member's queued work ends at once, and
// an operation it was part of moves no data (its buffers may be freed): its
// peers get an asynchronous error instead.
//
// NCCL's own rules are kept where a caller could get them wrong: buffers
// must be device memory, peers and roots in range, a group's collectives
// alike on every member (kind, count, type, operation, root), sends and
// receives of equal size, and operations only on a communicator that has
// joined. A breach fails the call or, found while running, sets the
// asynchronous error of every member.
//
//===----------------------------------------------------------------------===//

#include "HostNcclOps.h"
#include "HostNcclProcesses.h"
#include "include/nccl.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace hostnccl {

namespace {

template <typename Fn> void withType(ncclDataType_t t, Fn &&fn) {
  switch (t) {
  case ncclInt8:
    return fn(int8_t{});
  case ncclUint8:
    return fn(uint8_t{});
  case ncclInt32:
    return fn(int32_t{});
  case ncclUint32:
    return fn(uint32_t{});
  case ncclInt64:
    return fn(int64_t{});
  case ncclUint64:
    return fn(uint64_t{});
  case ncclFloat32:
    return fn(float{});
  case ncclFloat64:
    return fn(double{});
  default:
    return;
  }
}

/// NCCL's reductions: floating max and min are fmax and fmin (a NaN loses
/// to a number).
template <typename T> T combine(ncclRedOp_t op, T a, T b) {
  switch (op) {
  case ncclProd:
    return T(a * b);
  case ncclMax:
    if constexpr (std::is_floating_point_v<T>)
      return std::fmax(a, b);
    else
      return a < b ? b : a;
  case ncclMin:
    if constexpr (std::is_floating_point_v<T>)
      return std::fmin(a, b);
    else
      return b < a ? b : a;
  default: // sum, avg
    return T(a + b);
  }
}

} // namespace

std::vector<char> collectiveResult(const Op &op,
                                   const std::vector<const void *> &sends) {
  size_t bytes = op.bytes(), n = op.count;
  std::vector<char> result;
  if (bytes == 0) // buffers of no elements may be null: nothing to copy
    return result;
  if (op.kind == Kind::AllReduce || op.kind == Kind::Reduce) {
    withType(op.type, [&](auto t) {
      using T = decltype(t);
      std::vector<T> acc(n), in(n);
      std::memcpy(acc.data(), sends[0], bytes);
      for (size_t r = 1; r < sends.size(); ++r) {
        std::memcpy(in.data(), sends[r], bytes);
        for (size_t i = 0; i < n; ++i)
          acc[i] = combine(op.red, acc[i], in[i]);
      }
      if (op.red == ncclAvg)
        for (T &v : acc)
          v = T(v / T(sends.size()));
      result.resize(bytes);
      std::memcpy(result.data(), acc.data(), bytes);
    });
  } else if (op.kind == Kind::Broadcast) {
    result.resize(bytes);
    std::memcpy(result.data(), sends[size_t(op.root)], bytes);
  } else { // all-gather: every member's block, in rank order
    result.resize(bytes * sends.size());
    for (size_t q = 0; q < sends.size(); ++q)
      std::memcpy(result.data() + q * bytes, sends[q], bytes);
  }
  return result;
}

} // namespace hostnccl

namespace {

using hostnccl::Kind;
using hostnccl::Op;
using hostnccl::typeSize;

struct Collective {
  std::vector<Op> parts;
  int arrived = 0, observed = 0;
  bool done = false;
};
struct Message {
  Op send, recv;
  bool sent = false, posted = false, done = false;
  int observed = 0;
};

struct Member;
struct Clique {
  explicit Clique(int n) : nranks(n), members(size_t(n)) {}
  std::mutex mutex;
  const int nranks;
  std::vector<std::shared_ptr<Member>> members;
  int joined = 0;
  std::map<uint64_t, Collective> collectives;
  std::map<std::tuple<int, int, uint64_t>, Message> messages; // src, dst, k
};

/// A rank's state; queued work keeps it alive after its handle is gone.
struct Member {
  std::shared_ptr<Clique> clique;
  int rank = 0;
  std::atomic<int> asyncError{ncclSuccess};
  std::atomic<bool> aborted{false};
  bool blocking = true; ///< made without config.blocking = 0
  uint64_t nextCollective = 0;
  std::vector<uint64_t> nextSend, nextRecv;
  std::string lastError;
  /// In a clique of processes: this member's end (its clique object then
  /// holds this member only).
  std::shared_ptr<hostnccl::ProcessLink> link;
  /// ncclSuccess once every rank has joined, ncclInProgress until then,
  /// else why joining failed.
  ncclResult_t joinState() {
    if (link)
      return link->joined();
    std::lock_guard<std::mutex> lock(clique->mutex);
    return clique->joined == clique->nranks ? ncclSuccess : ncclInProgress;
  }
  bool allJoined() { return joinState() == ncclSuccess; }
  /// The first error found while running.
  ncclResult_t runError() {
    if (asyncError != ncclSuccess || !link)
      return ncclResult_t(asyncError.load());
    return link->asyncError();
  }
};

} // namespace

struct ncclComm {
  std::shared_ptr<Member> member;
};

namespace {

/// The first byte of a unique id: whether it names a clique of threads or
/// of processes (HostNcclProcesses.h).
constexpr char threadsMark = 'T', processesMark = 'P';

std::mutex registryMutex;
std::map<std::string, std::weak_ptr<Clique>> registry;
thread_local std::string lastCallError;

ncclResult_t refuse(ncclResult_t r, std::string why) {
  lastCallError = std::move(why);
  return r;
}

/// Every member learns of a breach found while running (caller holds the
/// clique's lock).
void breakClique(Clique &c, const std::string &why) {
  for (const std::shared_ptr<Member> &m : c.members)
    if (m) {
      m->asyncError = ncclInvalidUsage;
      m->lastError = why;
    }
}

/// Whether member r is still there to take part (caller holds the lock).
bool present(const Clique &c, int r) {
  const std::shared_ptr<Member> &m = c.members[size_t(r)];
  return m && !m->aborted;
}

void perform(Clique &c, Collective &col) {
  for (int r = 0; r < c.nranks; ++r)
    if (!present(c, r)) {
      breakClique(c, "rank " + std::to_string(r) +
                         " left or aborted during a collective");
      return;
    }
  const Op &first = col.parts[0];
  for (const Op &p : col.parts)
    if (!p.sameCollective(first)) {
      breakClique(c, "members called different collectives at the same "
                     "point");
      return;
    }
  std::vector<const void *> sends;
  for (const Op &p : col.parts)
    sends.push_back(p.send);
  std::vector<char> result = hostnccl::collectiveResult(first, sends);
  for (size_t r = 0; r < col.parts.size(); ++r)
    if ((first.kind != Kind::Reduce || int(r) == first.root) && !result.empty())
      std::memcpy(col.parts[r].recv, result.data(), result.size());
}

/// Posts one part of a step (caller holds the clique's lock).
void arrive(Member &m, const Op &op) {
  Clique &c = *m.clique;
  if (op.kind == Kind::Send || op.kind == Kind::Recv) {
    bool send = op.kind == Kind::Send;
    Message &msg = c.messages[send ? std::make_tuple(m.rank, op.peer, op.seq)
                                   : std::make_tuple(op.peer, m.rank, op.seq)];
    (send ? msg.send : msg.recv) = op;
    (send ? msg.sent : msg.posted) = true;
    if (msg.sent && msg.posted) {
      int src = send ? m.rank : op.peer, dst = send ? op.peer : m.rank;
      if (!present(c, src) || !present(c, dst))
        breakClique(c, "a peer left or aborted during a send");
      else if (msg.send.bytes() != msg.recv.bytes())
        breakClique(c, "a send and its receive differ in size");
      else if (msg.send.bytes())
        std::memmove(msg.recv.recv, msg.send.send, msg.send.bytes());
      msg.done = true;
    }
    return;
  }
  Collective &col = c.collectives[op.seq];
  if (col.parts.empty())
    col.parts.resize(size_t(c.nranks));
  col.parts[size_t(m.rank)] = op;
  if (++col.arrived == c.nranks) {
    perform(c, col);
    col.done = true;
  }
}

/// Whether a posted part is done; once it is, its record goes when every
/// party has seen it (caller holds the clique's lock).
bool settled(Member &m, const Op &op) {
  Clique &c = *m.clique;
  if (op.kind == Kind::Send || op.kind == Kind::Recv) {
    auto key = op.kind == Kind::Send ? std::make_tuple(m.rank, op.peer, op.seq)
                                     : std::make_tuple(op.peer, m.rank, op.seq);
    auto it = c.messages.find(key);
    if (it == c.messages.end() || !it->second.done)
      return false;
    if (++it->second.observed == 2)
      c.messages.erase(it);
    return true;
  }
  auto it = c.collectives.find(op.seq);
  if (it == c.collectives.end() || !it->second.done)
    return false;
  if (++it->second.observed == c.nranks)
    c.collectives.erase(it);
  return true;
}

/// One group's operations on one stream.
struct Step {
  std::vector<std::pair<std::shared_ptr<Member>, Op>> ops;
  std::vector<bool> finished;
  std::vector<std::shared_ptr<hostnccl::Transfer>> transfers; // of processes
  bool posted = false;
  bool poll() {
    if (!posted) {
      finished.assign(ops.size(), false);
      transfers.resize(ops.size());
      for (size_t i = 0; i < ops.size(); ++i) {
        auto &[member, op] = ops[i];
        if (member->aborted)
          continue;
        if (member->link) {
          transfers[i] = member->link->post(op);
          continue;
        }
        std::lock_guard<std::mutex> lock(member->clique->mutex);
        arrive(*member, op);
      }
      posted = true;
    }
    bool all = true;
    for (size_t i = 0; i < ops.size(); ++i) {
      auto &[member, op] = ops[i];
      if (finished[i] || member->aborted) {
        finished[i] = true;
        continue;
      }
      if (member->link) {
        finished[i] = member->link->done(*transfers[i]);
      } else {
        std::lock_guard<std::mutex> lock(member->clique->mutex);
        finished[i] = settled(*member, op);
      }
      all = all && finished[i];
    }
    return all;
  }
};

thread_local int groupDepth = 0;
thread_local std::vector<
    std::pair<cudaStream_t, std::pair<std::shared_ptr<Member>, Op>>>
    grouped;

void launch(cudaStream_t stream, std::shared_ptr<Step> step) {
  shardrt_hostcuda::enqueueStep(stream, [step] { return step->poll(); });
}

/// An operation as the API names it; `peerOrRoot` is the peer of a send
/// or receive, the root of a reduce or broadcast.
Op opOf(Kind kind, const void *send, void *recv, size_t count,
        ncclDataType_t type, int peerOrRoot, ncclRedOp_t red = ncclSum) {
  Op op;
  op.kind = kind;
  op.send = send;
  op.recv = recv;
  op.count = count;
  op.type = type;
  op.red = red;
  (kind == Kind::Send || kind == Kind::Recv ? op.peer : op.root) = peerOrRoot;
  return op;
}

ncclResult_t issue(ncclComm_t comm, Op op, cudaStream_t stream) {
  if (!comm || !comm->member)
    return refuse(ncclInvalidArgument, "no communicator");
  std::shared_ptr<Member> m = comm->member;
  if (!m->allJoined())
    return refuse(ncclInvalidUsage, "the communicator has not joined yet");
  if (m->aborted)
    return refuse(ncclInvalidUsage, "the communicator was aborted");
  if (shardrt_hostcuda::isCapturing(stream))
    return refuse(ncclInvalidUsage, "graph capture of NCCL operations is not "
                                    "emulated");
  int n = m->clique->nranks;
  if (typeSize(op.type) == 0)
    return refuse(ncclInvalidArgument, "unsupported data type");
  if ((op.kind == Kind::Send || op.kind == Kind::Recv) &&
      (op.peer < 0 || op.peer >= n))
    return refuse(ncclInvalidArgument, "peer out of range");
  if ((op.kind == Kind::Reduce || op.kind == Kind::Broadcast) &&
      (op.root < 0 || op.root >= n))
    return refuse(ncclInvalidArgument, "root out of range");
  size_t bytes = op.bytes();
  size_t recvBytes = op.kind == Kind::AllGather ? bytes * size_t(n) : bytes;
  bool reads = op.kind != Kind::Recv &&
               (op.kind != Kind::Broadcast || op.root == m->rank);
  bool writes =
      op.kind != Kind::Send && (op.kind != Kind::Reduce || op.root == m->rank);
  if (bytes && ((reads && !shardrt_hostcuda::deviceRange(op.send, bytes)) ||
                (writes && !shardrt_hostcuda::deviceRange(op.recv, recvBytes))))
    return refuse(ncclInvalidArgument, "a buffer is not device memory");
  if (op.kind == Kind::Send)
    op.seq = m->nextSend[size_t(op.peer)]++;
  else if (op.kind == Kind::Recv)
    op.seq = m->nextRecv[size_t(op.peer)]++;
  else
    op.seq = m->nextCollective++;
  if (groupDepth > 0) {
    grouped.push_back({stream, {m, op}});
  } else {
    auto step = std::make_shared<Step>();
    step->ops.push_back({m, op});
    launch(stream, step);
  }
  return ncclSuccess;
}

} // namespace

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error";
  case ncclSystemError:
    return "unhandled system error";
  case ncclInternalError:
    return "internal error";
  case ncclInvalidArgument:
    return "invalid argument";
  case ncclInvalidUsage:
    return "invalid usage";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  default:
    return "unknown result code";
  }
}

const char *ncclGetLastError(ncclComm_t comm) {
  if (comm && comm->member) {
    // Another member's thread may be writing it: copy under the lock.
    thread_local std::string copy;
    if (comm->member->link) {
      copy = comm->member->link->lastError();
      if (!copy.empty())
        return copy.c_str();
    }
    std::lock_guard<std::mutex> lock(comm->member->clique->mutex);
    if (!comm->member->lastError.empty()) {
      copy = comm->member->lastError;
      return copy.c_str();
    }
  }
  return lastCallError.c_str();
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId) {
  if (!uniqueId)
    return ncclInvalidArgument;
  static std::mutex m;
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard<std::mutex> lock(m);
  for (size_t i = 0; i < NCCL_UNIQUE_ID_BYTES; i += 8) {
    uint64_t v = random();
    std::memcpy(uniqueId->internal + i, &v, 8);
  }
  uniqueId->internal[0] = threadsMark;
#ifdef SHARDRT_HOSTNCCL_PROCESSES
  if (hostnccl::processesRunning())
    uniqueId->internal[0] = processesMark;
#endif
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                    ncclUniqueId commId, int rank,
                                    ncclConfig_t *config) {
  if (!comm)
    return refuse(ncclInvalidArgument, "comm is null");
  *comm = nullptr;
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return refuse(ncclInvalidArgument, "rank " + std::to_string(rank) + " of " +
                                           std::to_string(nranks));
  if (config &&
      (config->size != sizeof(ncclConfig_t) || config->magic != 0xcafebeef))
    return refuse(ncclInvalidArgument,
                  "config not made with NCCL_CONFIG_INITIALIZER");
  int device = 0;
  if (cudaGetDeviceCount(&device) != cudaSuccess || device < 1)
    return refuse(ncclUnhandledCudaError, "no device");
  // A clique of processes is joined over MPI; this process's member has a
  // clique object of its own.
  bool ofProcesses = commId.internal[0] == processesMark;
  std::shared_ptr<Clique> clique;
  if (ofProcesses) {
    clique = std::make_shared<Clique>(nranks);
  } else {
    std::lock_guard<std::mutex> lock(registryMutex);
    std::string key(commId.internal, NCCL_UNIQUE_ID_BYTES);
    for (auto it = registry.begin(); it != registry.end();)
      it = it->second.expired() ? registry.erase(it) : std::next(it);
    clique = registry[key].lock();
    if (!clique) {
      clique = std::make_shared<Clique>(nranks);
      registry[key] = clique;
    }
  }
  auto member = std::make_shared<Member>();
  member->clique = clique;
  member->rank = rank;
  member->nextSend.assign(size_t(nranks), 0);
  member->nextRecv.assign(size_t(nranks), 0);
  member->blocking = !config || config->blocking != 0;
  if (ofProcesses) {
#ifdef SHARDRT_HOSTNCCL_PROCESSES
    uint64_t key = 0;
    std::memcpy(&key, commId.internal + 8, sizeof key);
    member->link = hostnccl::joinProcesses(key, nranks, rank);
#else
    return refuse(ncclInvalidUsage, "this build of the host NCCL joins "
                                    "threads only, not processes");
#endif
  }
  {
    std::lock_guard<std::mutex> lock(clique->mutex);
    if (clique->nranks != nranks || clique->members[size_t(rank)])
      return refuse(ncclInvalidUsage,
                    "ranks disagree on the size, or a rank joined twice");
    clique->members[size_t(rank)] = member;
    ++clique->joined;
  }
  *comm = new ncclComm{member};
  ncclResult_t state = member->joinState();
  while (member->blocking && state == ncclInProgress) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    state = member->joinState();
  }
  if (state != ncclSuccess && state != ncclInProgress)
    return refuse(state,
                  member->link ? member->link->lastError() : "joining failed");
  return state;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                              int rank) {
  return ncclCommInitRankConfig(comm, nranks, commId, rank, nullptr);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
  if (!comm || !asyncError)
    return ncclInvalidArgument;
  ncclResult_t joining = comm->member->joinState();
  *asyncError = joining == ncclSuccess ? comm->member->runError() : joining;
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  return comm ? ncclSuccess : ncclInvalidArgument;
}

namespace {
/// Takes the member out of its clique; with `abort`, under the same lock,
/// so that no peer moves data into its buffers after this returns.
void leave(ncclComm_t comm, bool abort) {
  Member &m = *comm->member;
  {
    std::lock_guard<std::mutex> lock(m.clique->mutex);
    if (abort)
      m.aborted = true;
    if (m.clique->members[size_t(m.rank)] == comm->member)
      m.clique->members[size_t(m.rank)].reset();
  }
  // After the flag: a poll that has not seen it stops at the link.
  if (m.link)
    m.link->leave(abort);
}
} // namespace

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclInvalidArgument;
  leave(comm, false);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm)
    return ncclInvalidArgument;
  leave(comm, true);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!comm || !count)
    return ncclInvalidArgument;
  *count = comm->member->clique->nranks;
  return ncclSuccess;
}
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  if (!comm || !device)
    return ncclInvalidArgument;
  *device = 0;
  return ncclSuccess;
}
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!comm || !rank)
    return ncclInvalidArgument;
  *rank = comm->member->rank;
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (groupDepth == 0)
    return refuse(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--groupDepth > 0)
    return ncclSuccess;
  // One step per stream, its operations in issue order. A group of
  // non-blocking communicators may still be being issued when the call
  // returns (the caller polls ncclCommGetAsyncError), as NCCL's may.
  bool inProgress = false;
  std::vector<std::pair<cudaStream_t, std::shared_ptr<Step>>> steps;
  for (auto &[stream, op] : grouped) {
    inProgress = inProgress || !op.first->blocking;
    auto it =
        std::find_if(steps.begin(), steps.end(),
                     [s = stream](const auto &p) { return p.first == s; });
    if (it == steps.end())
      it = steps.insert(steps.end(), {stream, std::make_shared<Step>()});
    it->second->ops.push_back(op);
  }
  grouped.clear();
  for (auto &[stream, step] : steps)
    launch(stream, step);
  return inProgress ? ncclInProgress : ncclSuccess;
}

ncclResult_t ncclSend(const void *sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return issue(comm, opOf(Kind::Send, sendbuff, nullptr, count, datatype, peer),
               stream);
}
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t stream) {
  return issue(comm, opOf(Kind::Recv, nullptr, recvbuff, count, datatype, peer),
               stream);
}
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t red,
                           ncclComm_t comm, cudaStream_t stream) {
  return issue(
      comm, opOf(Kind::AllReduce, sendbuff, recvbuff, count, datatype, 0, red),
      stream);
}
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t red, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  return issue(
      comm, opOf(Kind::Reduce, sendbuff, recvbuff, count, datatype, root, red),
      stream);
}
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  return issue(comm,
               opOf(Kind::Broadcast, sendbuff, recvbuff, count, datatype, root),
               stream);
}
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                           size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  return issue(
      comm, opOf(Kind::AllGather, sendbuff, recvbuff, sendcount, datatype, 0),
      stream);
}

//===- HostNcclProcesses.cpp - Host NCCL cliques of processes -------------===//
//
// A clique of processes is the whole MPI job, one rank per process. Joining
// duplicates MPI_COMM_WORLD twice (non-blocking: a missing process leaves
// the join in progress, never hung) and gathers every process's (clique,
// size, rank), so that all of them agree on who is who or all fail.
//
// Every message carries a header, the operation as its sender posted it,
// so that a receiver tells a mismatch from data. Sends and receives are MPI
// point to point, tagged by their number between the pair. A collective is
// point to point too: each member sends its input to the members that need
// it and computes the result from all of them in rank order, with the code
// a clique of threads uses (collectiveResult), so that every member's
// result, and a clique of threads', is the same bit for bit.
//
// An aborting member tells every peer over a second communicator; a peer
// learns of it when it next polls, as ncclRemoteError. MPI may still touch
// the buffers of work that never completed: a link left with such work is
// kept until the process exits.
//
//===----------------------------------------------------------------------===//

#include "HostNcclProcesses.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

namespace hostnccl {

namespace {

/// The runtime initializes MPI SERIALIZED, and stream work may be polled
/// from any thread: every MPI call here, and the links' state, under one
/// lock.
std::mutex mpiMutex;

bool mpiRunning() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

/// The operation as its sender posted it, in front of every message.
struct Header {
  int32_t kind = 0, type = 0, red = 0, root = 0;
  uint64_t count = 0, seq = 0;
  static Header of(const Op &op) {
    return {int32_t(op.kind), int32_t(op.type),   int32_t(op.red),
            int32_t(op.root), uint64_t(op.count), op.seq};
  }
  /// Whether a collective posted as `o` is the one posted as this.
  bool sameCollective(const Header &o) const {
    return kind == o.kind && type == o.type && red == o.red && root == o.root &&
           count == o.count;
  }
  size_t bytes() const {
    return size_t(count) * typeSize(ncclDataType_t(type));
  }
};

bool isMessage(const Op &op) {
  return op.kind == Kind::Send || op.kind == Kind::Recv;
}

/// Messages and collectives have tags of their own, numbered by `seq`
/// (MPI's tag bound is at least 32767; MPI keeps each pair's messages of
/// one tag in order, so the numbers may wrap).
int tagOf(const Op &op) {
  return int(op.seq % 16383) * 2 + (isMessage(op) ? 0 : 1);
}

struct Incoming {
  int from = 0; ///< clique rank
  std::vector<char> bytes;
};

struct ProcessTransfer final : Transfer {
  Op op;
  std::vector<MPI_Request> requests; ///< the incoming ones first
  std::vector<MPI_Status> statuses;  ///< one per request
  std::vector<Incoming> incoming;
  std::vector<char> outgoing;
  bool complete = false, failed = false;
};

struct JoinWord {
  uint64_t key = 0;
  int32_t nranks = 0, rank = 0;
};

class Link final : public ProcessLink,
                   public std::enable_shared_from_this<Link> {
public:
  Link(uint64_t key, int nranks, int rank)
      : key_(key), nranks_(nranks), rank_(rank) {}

  /// Posts the two duplications (caller holds mpiMutex).
  void start() {
    if (!mpiRunning())
      return fail(ncclSystemError, "MPI is not running: a clique of "
                                   "processes needs an MPI job");
    if (!joinedKeys().insert(key_).second)
      return fail(ncclInvalidUsage, "this process already joined the clique: "
                                    "a clique of processes has one rank per "
                                    "process");
    if (MPI_Comm_idup(MPI_COMM_WORLD, &data_, &joining_[0]) != MPI_SUCCESS ||
        MPI_Comm_idup(MPI_COMM_WORLD, &notices_, &joining_[1]) != MPI_SUCCESS)
      return fail(ncclSystemError, "MPI_Comm_idup failed");
    stage_ = Stage::Duplicating;
  }

  ncclResult_t joined() override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    advanceJoin();
    if (stage_ == Stage::Joined)
      return ncclSuccess;
    return stage_ == Stage::Failed ? error_ : ncclInProgress;
  }

  ncclResult_t asyncError() override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    readNotices();
    return error_;
  }

  std::string lastError() override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    return why_;
  }

  std::shared_ptr<Transfer> post(const Op &op) override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    auto t = std::make_shared<ProcessTransfer>();
    t->op = op;
    // MPI counts in int; NCCL's larger messages are not emulated.
    if (left_ || op.bytes() + sizeof(Header) > size_t(INT_MAX)) {
      t->failed = true;
      if (!left_)
        fail(ncclInvalidArgument, "a message over 2 GiB: not emulated "
                                  "across processes");
      return t;
    }
    const std::vector<int> &others = others_;
    bool root = op.root == rank_;
    switch (op.kind) {
    case Kind::Send:
      return postParts(t, {}, {op.peer});
    case Kind::Recv:
      return postParts(t, {op.peer}, {});
    case Kind::AllReduce:
    case Kind::AllGather:
      return postParts(t, others, others);
    case Kind::Reduce:
      return root ? postParts(t, others, {}) : postParts(t, {}, {op.root});
    case Kind::Broadcast:
      return root ? postParts(t, {}, others) : postParts(t, {op.root}, {});
    }
    return t;
  }

  bool done(Transfer &transfer) override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    auto &t = static_cast<ProcessTransfer &>(transfer);
    // After leave() returns nothing more is written into the member's
    // buffers (they may be freed).
    if (left_)
      return false;
    readNotices();
    if (t.complete || t.failed)
      return t.complete;
    int flag = 0;
    int rc = MPI_Testall(int(t.requests.size()), t.requests.data(), &flag,
                         t.statuses.data());
    if (rc != MPI_SUCCESS) {
      // A message longer than its receive; MPI may still hold the rest of
      // the transfer's requests, so it stays pending.
      t.failed = true;
      fail(ncclInvalidUsage, mismatch(t.op));
      return false;
    }
    if (!flag)
      return false;
    forget(t);
    if (!deliver(t, t.statuses)) {
      t.failed = true;
      fail(ncclInvalidUsage, mismatch(t.op));
      return false;
    }
    t.complete = true;
    return true;
  }

  void leave(bool abort) override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    if (left_)
      return;
    left_ = true;
    joinedKeys().erase(key_);
    bool running = mpiRunning();
    if (abort && running && stage_ == Stage::Joined) {
      for (int r = 0; r < nranks_; ++r)
        if (r != rank_) {
          MPI_Request request = MPI_REQUEST_NULL;
          if (MPI_Isend(&rank_, 1, MPI_INT, worldOf_[size_t(r)], 0, notices_,
                        &request) == MPI_SUCCESS)
            MPI_Request_free(&request);
        }
    }
    // Work that never completed is given up: receives cancelled, every
    // request freed (none is left at MPI_Finalize). MPI may still write the
    // handles or the buffers, or read the notice: the link is kept.
    for (const std::shared_ptr<ProcessTransfer> &t : pending_)
      for (size_t i = 0; running && i < t->requests.size(); ++i)
        if (t->requests[i] != MPI_REQUEST_NULL) {
          if (i < t->incoming.size())
            MPI_Cancel(&t->requests[i]);
          MPI_Request_free(&t->requests[i]);
        }
    if (abort || !pending_.empty() || stage_ == Stage::Duplicating ||
        stage_ == Stage::Gathering) {
      graveyard().push_back(shared_from_this());
      return;
    }
    if (running) {
      if (data_ != MPI_COMM_NULL)
        MPI_Comm_free(&data_);
      if (notices_ != MPI_COMM_NULL)
        MPI_Comm_free(&notices_);
    }
  }

private:
  enum class Stage { Duplicating, Gathering, Joined, Failed };

  static std::set<uint64_t> &joinedKeys() {
    static std::set<uint64_t> keys;
    return keys;
  }
  static std::vector<std::shared_ptr<Link>> &graveyard() {
    static auto *links = new std::vector<std::shared_ptr<Link>>();
    return *links;
  }

  /// Records the first error; a failure while joining ends the join.
  void fail(ncclResult_t error, const std::string &why) {
    if (error_ == ncclSuccess) {
      error_ = error;
      why_ = why;
    }
    if (stage_ != Stage::Joined)
      stage_ = Stage::Failed;
  }

  std::string mismatch(const Op &op) const {
    return isMessage(op) ? "a send and its receive differ in size"
                         : "members called different collectives at the same "
                           "point";
  }

  void advanceJoin() {
    int flag = 0;
    if (stage_ == Stage::Duplicating) {
      if (MPI_Testall(2, joining_, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return fail(ncclSystemError, "MPI_Comm_idup failed");
      if (!flag)
        return;
      MPI_Comm_set_errhandler(data_, MPI_ERRORS_RETURN);
      MPI_Comm_set_errhandler(notices_, MPI_ERRORS_RETURN);
      int size = 0;
      MPI_Comm_size(data_, &size);
      mine_ = {key_, nranks_, rank_};
      words_.assign(size_t(size), {});
      if (MPI_Iallgather(&mine_, sizeof mine_, MPI_BYTE, words_.data(),
                         sizeof mine_, MPI_BYTE, data_,
                         &joining_[0]) != MPI_SUCCESS)
        return fail(ncclSystemError, "MPI_Iallgather failed");
      stage_ = Stage::Gathering;
    }
    if (stage_ == Stage::Gathering) {
      if (MPI_Test(&joining_[0], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return fail(ncclSystemError, "MPI_Iallgather failed");
      if (flag)
        agreeOnRanks();
    }
  }

  /// Every process's word on the clique: one key and size, the job's size,
  /// each rank once.
  void agreeOnRanks() {
    worldOf_.assign(size_t(nranks_), -1);
    bool agree = int(words_.size()) == nranks_;
    for (size_t w = 0; agree && w < words_.size(); ++w) {
      const JoinWord &word = words_[w];
      agree = word.key == key_ && word.nranks == nranks_ && word.rank >= 0 &&
              word.rank < nranks_ && worldOf_[size_t(word.rank)] < 0;
      if (agree)
        worldOf_[size_t(word.rank)] = int(w);
    }
    for (int r = 0; agree && r < nranks_; ++r)
      if (r != rank_)
        others_.push_back(r);
    if (!agree)
      return fail(ncclInvalidUsage,
                  "the MPI job's " + std::to_string(words_.size()) +
                      " processes did not all join this clique of " +
                      std::to_string(nranks_) +
                      " ranks, one rank each (a clique of processes is the "
                      "whole job, one rank per process)");
    stage_ = Stage::Joined;
  }

  /// Posts `t`'s receives from `from` and sends to `to`.
  std::shared_ptr<Transfer> postParts(const std::shared_ptr<ProcessTransfer> &t,
                                      const std::vector<int> &from,
                                      const std::vector<int> &to) {
    const Op &op = t->op;
    Header header = Header::of(op);
    size_t expected = op.bytes();
    int tag = tagOf(op);
    for (int peer : from) {
      t->incoming.push_back(
          {peer, std::vector<char>(sizeof header + expected)});
      std::vector<char> &bytes = t->incoming.back().bytes;
      t->requests.push_back(MPI_REQUEST_NULL);
      if (MPI_Irecv(bytes.data(), int(bytes.size()), MPI_BYTE,
                    worldOf_[size_t(peer)], tag, data_,
                    &t->requests.back()) != MPI_SUCCESS)
        t->failed = true;
    }
    if (!to.empty()) {
      t->outgoing.resize(sizeof header + expected);
      std::memcpy(t->outgoing.data(), &header, sizeof header);
      if (expected)
        std::memcpy(t->outgoing.data() + sizeof header, op.send, expected);
    }
    for (int peer : to) {
      t->requests.push_back(MPI_REQUEST_NULL);
      if (MPI_Isend(t->outgoing.data(), int(t->outgoing.size()), MPI_BYTE,
                    worldOf_[size_t(peer)], tag, data_,
                    &t->requests.back()) != MPI_SUCCESS)
        t->failed = true;
    }
    t->statuses.resize(t->requests.size());
    if (t->failed)
      fail(ncclSystemError, "MPI could not post a message");
    pending_.push_back(t);
    return t;
  }

  void forget(const ProcessTransfer &t) {
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                  [&](const auto &p) { return p.get() == &t; }),
                   pending_.end());
  }

  /// Checks what came and writes the results; false on a mismatch.
  bool deliver(ProcessTransfer &t, const std::vector<MPI_Status> &statuses) {
    const Op &op = t.op;
    Header mine = Header::of(op);
    std::vector<const void *> sends(size_t(nranks_), nullptr);
    // This member's input as its peers got it (copied when posted).
    sends[size_t(rank_)] =
        t.outgoing.empty() ? op.send : t.outgoing.data() + sizeof(Header);
    for (size_t i = 0; i < t.incoming.size(); ++i) {
      Incoming &in = t.incoming[i];
      int count = 0;
      MPI_Get_count(&statuses[i], MPI_BYTE, &count);
      Header theirs;
      if (size_t(count) != in.bytes.size())
        return false;
      std::memcpy(&theirs, in.bytes.data(), sizeof theirs);
      if (isMessage(op) ? theirs.bytes() != mine.bytes()
                        : !theirs.sameCollective(mine))
        return false;
      sends[size_t(in.from)] = in.bytes.data() + sizeof theirs;
    }
    size_t bytes = op.bytes();
    if (op.kind == Kind::Recv) {
      if (bytes)
        std::memcpy(op.recv, sends[size_t(op.peer)], bytes);
      return true;
    }
    bool writes =
        op.kind != Kind::Send && (op.kind != Kind::Reduce || op.root == rank_);
    if (writes) {
      std::vector<char> result = collectiveResult(op, sends);
      if (!result.empty())
        std::memcpy(op.recv, result.data(), result.size());
    }
    return true;
  }

  /// Peers' aborts: the first becomes this member's error.
  void readNotices() {
    if (stage_ != Stage::Joined || left_ || !mpiRunning())
      return;
    for (;;) {
      int flag = 0, from = -1;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, 0, notices_, &flag, &status) !=
              MPI_SUCCESS ||
          !flag)
        return;
      MPI_Recv(&from, 1, MPI_INT, status.MPI_SOURCE, 0, notices_,
               MPI_STATUS_IGNORE);
      fail(ncclRemoteError, "rank " + std::to_string(from) +
                                " aborted its communicator: the operations "
                                "it was part of will not complete");
    }
  }

  const uint64_t key_;
  const int nranks_;
  int rank_; ///< also the abort notice's payload
  Stage stage_ = Stage::Failed;
  ncclResult_t error_ = ncclSuccess;
  std::string why_;
  MPI_Comm data_ = MPI_COMM_NULL, notices_ = MPI_COMM_NULL;
  MPI_Request joining_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  JoinWord mine_;
  std::vector<JoinWord> words_;
  std::vector<int> worldOf_; ///< clique rank -> MPI_COMM_WORLD rank
  std::vector<int> others_;  ///< every clique rank but this one
  std::vector<std::shared_ptr<ProcessTransfer>> pending_;
  bool left_ = false;
};

} // namespace

bool processesRunning() {
  std::lock_guard<std::mutex> lock(mpiMutex);
  int size = 0;
  return mpiRunning() && MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS &&
         size > 1;
}

std::shared_ptr<ProcessLink> joinProcesses(uint64_t key, int nranks, int rank) {
  auto link = std::make_shared<Link>(key, nranks, rank);
  std::lock_guard<std::mutex> lock(mpiMutex);
  link->start();
  return link;
}

} // namespace hostnccl

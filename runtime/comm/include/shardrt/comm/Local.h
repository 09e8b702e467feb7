//===- Local.h - All ranks as threads of one process ------------*- C++ -*-===//
//
// The `local` backend: a world of N ranks inside one process, one thread per
// rank. It runs the partitioned program on a single machine without MPI (the
// CPU backend and the end-to-end numerical tests use it), so its semantics
// must match `mpi` exactly: same matching rules, same errors.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_LOCAL_H
#define SHARDRT_COMM_LOCAL_H

#include "shardrt/Status.h"
#include "shardrt/comm/Communicator.h"

#include <functional>
#include <memory>
#include <vector>

namespace shardrt::comm {

class LocalWorld {
public:
  /// One Communicator per rank (element r has rank r), all sharing one set of
  /// mailboxes. Each must be driven by its own thread; they may be destroyed
  /// in any order. InvalidArgument unless size >= 1 and the timeout > 0.
  static StatusOr<std::vector<std::unique_ptr<Communicator>>>
  create(int size, const CommOptions &options = {});

  /// Creates a world, runs `body` on every rank on its own thread, joins them
  /// and returns Ok or the first failure, prefixed with its rank's number.
  /// A rank's failure aborts the world: the other ranks' waits for messages
  /// that have not arrived return Unavailable at once instead of at their
  /// timeout. An exception escaping `body` becomes Internal.
  static Status run(int size, const std::function<Status(Communicator &)> &body,
                    const CommOptions &options = {});
};

} // namespace shardrt::comm

#endif // SHARDRT_COMM_LOCAL_H

//===- Workspace.h - Host memory the steps use beyond the arena -*- C++ -*-===//
//
// Steps that pack boxes or blocks for the communicator (halo exchanges,
// group collectives, collectives whose blocks are not packed in their slots)
// stage them in host memory, and a few compute steps need scratch (an
// attention mask broadcast to full size). That memory is planned once per
// session like the arena: each step reserves its bytes for the instructions
// during which it holds them (a started exchange from its start to its
// Wait), and reservations whose instructions do not overlap share bytes.
// The session allocates the one block when it has prepared its program,
// beside the arena, so that a run never allocates and never fails for want
// of it, and reports its size beside the arena's.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_WORKSPACE_H
#define SHARDRT_ENGINE_WORKSPACE_H

#include "shardrt/Status.h"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::exec {

class WorkspacePlan {
public:
  /// A reservation: where its bytes are once the plan is finished.
  struct Ref {
    const WorkspacePlan *plan = nullptr;
    size_t index = SIZE_MAX;

    /// The reserved bytes, 64-byte aligned; only after finish() succeeded
    /// (a session's steps run only then).
    uint8_t *data() const {
      assert(plan && plan->finished_ && index < plan->reservations_.size());
      return plan->block_ + plan->reservations_[index].offset;
    }
  };

  WorkspacePlan() = default;
  WorkspacePlan(const WorkspacePlan &) = delete;
  WorkspacePlan &operator=(const WorkspacePlan &) = delete;
  ~WorkspacePlan();

  /// Reserves `bytes` for instructions `first` through `last`; before
  /// finish().
  Ref reserve(uint64_t bytes, uint32_t first, uint32_t last);
  /// Keeps `ref`'s bytes until instruction `last` too (a started exchange's
  /// Wait).
  void extendTo(Ref ref, uint32_t last);
  /// Reservations made so far: a mark for forgetSince().
  size_t reservations() const { return reservations_.size(); }
  /// Frees the bytes of the reservations made since `mark`: the steps that
  /// made them will not run (a backend runs their instruction natively).
  /// Their Refs stay valid, for nothing.
  void forgetSince(size_t mark);
  /// Places every reservation and allocates the block they span; after the
  /// whole program is prepared. Unavailable when it cannot be allocated.
  Status finish();

  /// Bytes the placed reservations span: the block's size.
  uint64_t bytes() const { return total_; }

private:
  struct Reservation {
    uint64_t bytes = 0, offset = 0;
    uint32_t first = 0, last = 0;
  };
  std::vector<Reservation> reservations_;
  uint64_t total_ = 0;
  uint8_t *block_ = nullptr;
  bool finished_ = false;
};

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_WORKSPACE_H

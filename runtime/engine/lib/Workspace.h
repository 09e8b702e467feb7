//===- Workspace.h - Host memory the steps use beyond the arena -*- C++ -*-===//
//
// Steps that pack boxes or blocks for the communicator (halo exchanges,
// group collectives, collectives whose blocks are not packed in their slots)
// stage them in host memory, and a few compute steps need scratch (an
// attention mask broadcast to full size). That memory is planned once per
// session like the arena: each step reserves its bytes for the instructions
// during which it holds them (a started exchange from its start to its
// Wait), and reservations whose instructions do not overlap share bytes.
// The session then holds one block, allocated at the first run that uses
// it, and reports its size beside the arena's.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ENGINE_WORKSPACE_H
#define SHARDRT_ENGINE_WORKSPACE_H

#include "shardrt/Status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::exec {

class WorkspacePlan {
public:
  /// A reservation; valid for the plan that made it.
  struct Ref {
    size_t index = SIZE_MAX;
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
  /// Places every reservation; after the whole program is prepared.
  void finish();

  /// Bytes the placed reservations span (what the block will hold).
  uint64_t plannedBytes() const { return total_; }
  /// Bytes allocated so far: 0 until a run staged something.
  uint64_t heldBytes() const { return block_ ? total_ : 0; }

  /// Where `ref`'s bytes are, 64-byte aligned; allocates the block at the
  /// first call. Unavailable when it cannot be allocated.
  StatusOr<uint8_t *> at(Ref ref);

private:
  struct Reservation {
    uint64_t bytes = 0, offset = 0;
    uint32_t first = 0, last = 0;
  };
  std::vector<Reservation> reservations_;
  uint64_t total_ = 0;
  bool finished_ = false;
  uint8_t *block_ = nullptr;
};

} // namespace shardrt::exec

#endif // SHARDRT_ENGINE_WORKSPACE_H

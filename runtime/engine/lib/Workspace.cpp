//===- Workspace.cpp - Host memory the steps use beyond the arena ---------===//

#include "Workspace.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>

namespace shardrt::exec {
namespace {

constexpr uint64_t kAlign = 64;

uint64_t alignUp(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

} // namespace

WorkspacePlan::~WorkspacePlan() { std::free(block_); }

WorkspacePlan::Ref WorkspacePlan::reserve(uint64_t bytes, uint32_t first,
                                          uint32_t last) {
  reservations_.push_back({bytes, 0, first, std::max(first, last)});
  return Ref{this, reservations_.size() - 1};
}

void WorkspacePlan::extendTo(Ref ref, uint32_t last) {
  Reservation &r = reservations_[ref.index];
  r.last = std::max(r.last, last);
}

void WorkspacePlan::forgetSince(size_t mark) {
  for (size_t i = mark; i < reservations_.size(); ++i)
    reservations_[i].bytes = 0;
}

Status WorkspacePlan::finish() {
  std::free(block_);
  block_ = nullptr;
  finished_ = false;
  // Largest first, each at the lowest offset clear of the placed ones that
  // are held during an instruction it is held in too. The placed ones are
  // filed under every instruction they are held in, so each reservation
  // looks only at those that share an instruction with it (reservations
  // are short: one step, or an exchange's start to its Wait).
  std::vector<size_t> order(reservations_.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return reservations_[a].bytes > reservations_[b].bytes;
  });
  uint32_t instructions = 0;
  for (const Reservation &r : reservations_)
    if (r.bytes > 0)
      instructions = std::max(instructions, r.last + 1);
  std::vector<std::vector<size_t>> heldAt(instructions);
  std::vector<size_t> seenBy(reservations_.size(), SIZE_MAX);
  std::vector<std::pair<uint64_t, uint64_t>> taken; // [offset, end)
  total_ = 0;
  for (size_t i : order) {
    Reservation &r = reservations_[i];
    r.offset = 0;
    if (r.bytes == 0)
      continue; // forgotten, or nothing to stage: needs no bytes
    taken.clear();
    for (uint32_t t = r.first; t <= r.last; ++t)
      for (size_t j : heldAt[t]) {
        if (seenBy[j] == i)
          continue;
        seenBy[j] = i;
        const Reservation &q = reservations_[j];
        taken.push_back({q.offset, q.offset + alignUp(q.bytes)});
      }
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0, need = alignUp(r.bytes);
    for (const auto &[lo, hi] : taken) {
      if (offset + need <= lo)
        break;
      offset = std::max(offset, hi);
    }
    r.offset = offset;
    total_ = std::max(total_, offset + need);
    for (uint32_t t = r.first; t <= r.last; ++t)
      heldAt[t].push_back(i);
  }
  if (total_ > 0) {
    block_ = static_cast<uint8_t *>(std::aligned_alloc(kAlign, total_));
    if (!block_)
      return Status::unavailable("cannot allocate " + std::to_string(total_) +
                                 " bytes of workspace");
  }
  finished_ = true;
  return Status();
}

} // namespace shardrt::exec

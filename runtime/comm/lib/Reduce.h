//===- Reduce.h - Elementwise reductions on host buffers --------*- C++ -*-===//
//
// Internal to shardrt_comm: the `local` backend reduces with these. Kept apart
// from the backend so that a CPU executor can reuse them for partial values.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_COMM_LIB_REDUCE_H
#define SHARDRT_COMM_LIB_REDUCE_H

#include "shardrt/comm/Communicator.h"

#include <cstddef>
#include <cstdint>

namespace shardrt::comm::detail {

/// acc[i] = acc[i] op in[i] for i < count. `type` must not be Byte. The
/// buffers may alias exactly but not partially.
void reduceInto(void *acc, const void *in, std::int64_t count, DataType type,
                ReduceOp op);

} // namespace shardrt::comm::detail

#endif // SHARDRT_COMM_LIB_REDUCE_H

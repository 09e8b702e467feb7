//===- Reduce.cpp - Elementwise reduction kernels -------------------------===//

#include "Reduce.h"

#include <algorithm>
#include <type_traits>

namespace shardrt::comm::detail {

namespace {

/// Integer sums and products go through the unsigned type so that overflow
/// wraps instead of being undefined behaviour.
template <typename T> T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T> T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename T>
void reduceTyped(T *acc, const T *in, std::int64_t count, ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    for (std::int64_t i = 0; i < count; ++i)
      acc[i] = wrapAdd(acc[i], in[i]);
    return;
  case ReduceOp::Prod:
    for (std::int64_t i = 0; i < count; ++i)
      acc[i] = wrapMul(acc[i], in[i]);
    return;
  // A NaN wins wherever it sits, as torch.amax and torch.amin give it
  // (std::max keeps or drops it by operand order). b != b only for NaN.
  case ReduceOp::Max:
    for (std::int64_t i = 0; i < count; ++i)
      acc[i] = acc[i] < in[i] || in[i] != in[i] ? in[i] : acc[i];
    return;
  case ReduceOp::Min:
    for (std::int64_t i = 0; i < count; ++i)
      acc[i] = in[i] < acc[i] || in[i] != in[i] ? in[i] : acc[i];
    return;
  }
}

} // namespace

void reduceInto(void *acc, const void *in, std::int64_t count, DataType type,
                ReduceOp op) {
  switch (type) {
  case DataType::F32:
    return reduceTyped(static_cast<float *>(acc),
                       static_cast<const float *>(in), count, op);
  case DataType::F64:
    return reduceTyped(static_cast<double *>(acc),
                       static_cast<const double *>(in), count, op);
  case DataType::I32:
    return reduceTyped(static_cast<std::int32_t *>(acc),
                       static_cast<const std::int32_t *>(in), count, op);
  case DataType::I64:
    return reduceTyped(static_cast<std::int64_t *>(acc),
                       static_cast<const std::int64_t *>(in), count, op);
  case DataType::Byte:
    return; // rejected by Communicator before it gets here
  }
}

} // namespace shardrt::comm::detail

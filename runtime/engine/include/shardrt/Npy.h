//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// Versions 1.0 to 3.0 of the format, C order, little-endian f32/f64/f16/
// i32/i64/bool. The reader checks everything it is given (magic, header
// length, the header dictionary, shape overflow, the exact data size) and
// reports a malformed file as an error, never as a crash. NumPy has no
// bfloat16: BF16 arrays are written as (exactly widened) f32.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_NPY_H
#define SHARDRT_NPY_H

#include "shardrt/Engine.h"
#include "shardrt/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardrt {

struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // C order, little-endian
};

StatusOr<NpyArray> readNpy(const std::string &path);
StatusOr<NpyArray> parseNpy(const uint8_t *bytes, size_t size);
std::vector<uint8_t> encodeNpy(const NpyArray &array);
Status writeNpy(const std::string &path, const NpyArray &array);

/// Converts f64 data to f32 (NumPy's default float is f64); other dtypes
/// are returned unchanged.
NpyArray toF32(NpyArray array);
/// Rounds f64, f32, f16 or bf16 data to `target` (bf16 or f16; NumPy has no
/// bfloat16) to nearest even, through f32 as torch's .to() does; other
/// dtypes and targets are returned unchanged.
NpyArray toHalfFloat(NpyArray array, DType target);

} // namespace shardrt

#endif // SHARDRT_NPY_H

//===- ReductionTiling.h - How a generated reduction kernel maps threads -===//
//
// shardc generates one CUDA kernel per fused reduction and the CUDA backend
// launches it; both read the mapping of its 256 threads from here. A
// reduction whose reduced elements lie contiguously (softmax over the last
// dim, group_norm's statistics) gives each output a block whose threads
// stride over those elements, so a warp reads consecutive floats. One whose
// outputs lie contiguously instead (softmax over the channels of NCHW, a mean
// over the batch) would make that block read one float per stride of the
// outputs; it gives a block 32 consecutive outputs (a warp reads them side by
// side) and splits their reduced range over 8 lanes of warps. So does a
// reduction of at most 32 elements, which would leave most of a row block's
// threads idle.
//
// Every kernel computes the same result for any grid and any number of
// chunks: the mapping only decides how the backend sizes the grid, so an
// artifact and a runtime that disagree on it run correctly, if slower.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_REDUCTIONTILING_H
#define SHARDRT_ARTIFACT_REDUCTIONTILING_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardrt::artifact {

enum class ReductionTiling {
  /// Block u reduces chunk u % chunks of output u / chunks.
  RowPerBlock,
  /// Block u reduces chunk u % chunks of the kOutputTile outputs from
  /// (u / chunks) * kOutputTile, kReductionLanes warps splitting the chunk.
  OutputTiles,
};

constexpr int64_t kOutputTile = 32;
constexpr int64_t kReductionLanes = 8;
/// Reductions of at most this many elements use output tiles.
constexpr int64_t kSmallReduction = 32;

/// The tiling of a reduction over the row-major space `domain` of the dims
/// where `reduced` is set (same length).
inline ReductionTiling reductionTiling(const std::vector<int64_t> &domain,
                                       const std::vector<bool> &reduced) {
  int64_t count = 1;
  for (size_t d = 0; d < domain.size() && d < reduced.size(); ++d)
    if (reduced[d])
      count *= domain[d];
  if (count <= kSmallReduction)
    return ReductionTiling::OutputTiles;
  // The innermost dim longer than 1 decides which side is contiguous.
  for (size_t d = domain.size(); d-- > 0;)
    if (domain[d] > 1)
      return d < reduced.size() && reduced[d] ? ReductionTiling::RowPerBlock
                                              : ReductionTiling::OutputTiles;
  return ReductionTiling::RowPerBlock;
}

} // namespace shardrt::artifact

#endif // SHARDRT_ARTIFACT_REDUCTIONTILING_H

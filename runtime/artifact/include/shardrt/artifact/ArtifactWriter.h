//===- ArtifactWriter.h - Building a .shardbin ------------------*- C++ -*-===//
//
// A plain C++ description of an artifact (no MLIR, no FlatBuffers builder in
// the interface) turned into the bytes of a .shardbin. The compiler's artifact
// emitter fills these structs; runtime tests use them to make artifacts.
//
// Constant and kernel bytes go to the blob region, each distinct content once:
// shards with identical bytes (a replicated weight, two constants that happen
// to be equal) share one copy.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_ARTIFACTWRITER_H
#define SHARDRT_ARTIFACT_ARTIFACTWRITER_H

#include "shardrt/Status.h"
#include "shardrt/artifact/IntList.h"
#include "shardrt/artifact/shardbin_generated.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardrt::artifact {

/// Bytes destined for the blob region: owned, or borrowed from the caller
/// (who keeps them alive until serialize()/writeFile() returns) so that the
/// compiler can hand over gigabytes of weights without copying them.
class BlobBytes {
public:
  BlobBytes() = default;
  BlobBytes(std::vector<uint8_t> owned);
  static BlobBytes borrow(const void *data, size_t size);

  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  std::shared_ptr<const std::vector<uint8_t>> owned_;
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

struct BufferSlotSpec {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  fb::DType dtype = fb::DType::F32;
  /// The tensor the slot holds; none for untyped scratch space.
  std::optional<std::vector<int64_t>> shape;
};

struct TransferSpec {
  fb::TransferKind kind = fb::TransferKind::Send;
  std::vector<int32_t> peer; ///< relative mesh offset, one per mesh axis
  bool periodic = false;
  uint32_t slot = 0;
  std::vector<int64_t> lo, hi; ///< half-open box in the slot
  uint32_t tag = 0;
};

struct InstructionSpec {
  fb::Opcode opcode = fb::Opcode::Invalid;
  std::vector<uint32_t> inputs, outputs;
  int32_t kernel = -1; ///< index into the kernel symbols
  IntList ints;        ///< copies share one list (see IntList.h)
  std::vector<double> floats;
  std::string str;
  std::vector<uint32_t> meshAxes;
  fb::ReduceKind reduce = fb::ReduceKind::None;
  std::vector<TransferSpec> transfers;
};

struct ConstantBindingSpec {
  uint32_t constant = 0;
  uint32_t slot = 0;
};

struct RankClassSpec {
  std::string name;
  std::vector<int32_t> ranks;
  uint64_t arenaBytes = 0;
  std::vector<BufferSlotSpec> buffers;
  std::vector<InstructionSpec> program;
  std::vector<uint32_t> inputSlots, outputSlots;
  std::vector<ConstantBindingSpec> constants;
};

struct DimShardingSpec {
  std::vector<uint32_t> meshAxes; ///< major first; empty: not sharded
  std::vector<int64_t> extents;   ///< one per shard, always explicit
};

struct TensorDescSpec {
  std::string name;
  fb::DType dtype = fb::DType::F32;
  std::vector<int64_t> shape;
  std::vector<DimShardingSpec> dims;
  fb::ReduceKind partial = fb::ReduceKind::None;
  std::vector<uint32_t> partialAxes;
};

struct ConstantShardSpec {
  std::vector<int32_t> ranks;
  std::vector<int64_t> shape;
  BlobBytes data;
};

struct ConstantSpec {
  std::string name;
  fb::DType dtype = fb::DType::F32;
  uint32_t alignment = 64;
  std::vector<ConstantShardSpec> shards;
};

struct KernelBinarySpec {
  std::string target;
  fb::KernelFormat format = fb::KernelFormat::Cubin;
  std::vector<uint32_t> symbols;
  BlobBytes data;
};

/// Bytes of a dense tensor of `shape` (no overflow checks: for specs that
/// the caller knows to be sane).
uint64_t tensorBytes(fb::DType dtype, const std::vector<int64_t> &shape);

class ArtifactWriter {
public:
  /// world size = product of meshShape.
  ArtifactWriter(std::vector<std::string> meshAxisNames,
                 std::vector<int32_t> meshShape);

  void setProducer(std::string producer) { producer_ = std::move(producer); }
  /// Overrides the world size derived from the mesh (tests of the checks).
  void setWorldSize(int32_t worldSize) { worldSize_ = worldSize; }

  /// Each returns the index the artifact refers to the added item by.
  uint32_t addRankClass(RankClassSpec rankClass);
  uint32_t addInput(TensorDescSpec tensor);
  uint32_t addOutput(TensorDescSpec tensor);
  uint32_t addConstant(ConstantSpec constant);
  uint32_t addKernelSymbol(std::string symbol);
  uint32_t addKernelBinary(KernelBinarySpec kernel);
  /// Embeds a complete world-size-1 artifact of the unpartitioned model
  /// (shard-run --check runs it); empty bytes: none.
  void setReference(BlobBytes artifactBytes) {
    reference_ = std::move(artifactBytes);
  }

  /// What was added, for emitters that fill an item in several steps (and
  /// tests that break one detail of a valid artifact).
  RankClassSpec &rankClass(uint32_t index) { return rankClasses_.at(index); }
  TensorDescSpec &input(uint32_t index) { return inputs_.at(index); }
  TensorDescSpec &output(uint32_t index) { return outputs_.at(index); }
  ConstantSpec &constant(uint32_t index) { return constants_.at(index); }
  KernelBinarySpec &kernelBinary(uint32_t index) { return kernels_.at(index); }

  /// The complete file, after running every check the reader runs on it.
  StatusOr<std::vector<uint8_t>> serialize() const;
  /// The same without the semantic checks, for tests that need malformed
  /// artifacts.
  std::vector<uint8_t> serializeUnchecked() const;
  /// Checks like serialize(), then streams the file to `path` without first
  /// gathering the weights into one buffer.
  Status writeFile(const std::string &path) const;

private:
  struct Layout;
  Layout layout() const;

  std::vector<std::string> meshAxisNames_;
  std::vector<int32_t> meshShape_;
  int32_t worldSize_;
  std::string producer_ = "shardrt ArtifactWriter";
  std::vector<RankClassSpec> rankClasses_;
  std::vector<TensorDescSpec> inputs_, outputs_;
  std::vector<ConstantSpec> constants_;
  std::vector<std::string> kernelSymbols_;
  std::vector<KernelBinarySpec> kernels_;
  BlobBytes reference_;
};

} // namespace shardrt::artifact

#endif // SHARDRT_ARTIFACT_ARTIFACTWRITER_H

//===- ArtifactWriter.cpp - Building a .shardbin --------------------------===//

#include "shardrt/artifact/ArtifactWriter.h"

#include "Validate.h"
#include "shardrt/artifact/Format.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>

namespace shardrt::artifact {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

//===----------------------------------------------------------------------===//
// Specs
//===----------------------------------------------------------------------===//

BlobBytes::BlobBytes(std::vector<uint8_t> owned)
    : owned_(std::make_shared<const std::vector<uint8_t>>(std::move(owned))),
      data_(owned_->data()), size_(owned_->size()) {}

BlobBytes BlobBytes::borrow(const void *data, size_t size) {
  BlobBytes b;
  b.data_ = static_cast<const uint8_t *>(data);
  b.size_ = size;
  return b;
}

uint64_t tensorBytes(fb::DType dtype, const std::vector<int64_t> &shape) {
  uint64_t bytes = dtypeSize(dtype);
  for (int64_t d : shape)
    bytes *= uint64_t(d);
  return bytes;
}

ArtifactWriter::ArtifactWriter(std::vector<std::string> meshAxisNames,
                               std::vector<int32_t> meshShape)
    : meshAxisNames_(std::move(meshAxisNames)),
      meshShape_(std::move(meshShape)) {
  int64_t world = 1;
  for (int32_t n : meshShape_)
    world *= n;
  worldSize_ = int32_t(world);
}

uint32_t ArtifactWriter::addRankClass(RankClassSpec rankClass) {
  rankClasses_.push_back(std::move(rankClass));
  return uint32_t(rankClasses_.size() - 1);
}
uint32_t ArtifactWriter::addInput(TensorDescSpec tensor) {
  inputs_.push_back(std::move(tensor));
  return uint32_t(inputs_.size() - 1);
}
uint32_t ArtifactWriter::addOutput(TensorDescSpec tensor) {
  outputs_.push_back(std::move(tensor));
  return uint32_t(outputs_.size() - 1);
}
uint32_t ArtifactWriter::addConstant(ConstantSpec constant) {
  constants_.push_back(std::move(constant));
  return uint32_t(constants_.size() - 1);
}
uint32_t ArtifactWriter::addKernelSymbol(std::string symbol) {
  kernelSymbols_.push_back(std::move(symbol));
  return uint32_t(kernelSymbols_.size() - 1);
}
uint32_t ArtifactWriter::addKernelBinary(KernelBinarySpec kernel) {
  kernels_.push_back(std::move(kernel));
  return uint32_t(kernels_.size() - 1);
}

//===----------------------------------------------------------------------===//
// Blob region
//===----------------------------------------------------------------------===//

namespace {

struct BlobPiece {
  uint64_t offset; // in the blob region
  const uint8_t *data;
  size_t size;
};

/// Places blob contents 64-byte aligned, each distinct content once.
class BlobPlacer {
public:
  fb::BlobRef place(const BlobBytes &bytes) {
    if (bytes.size() == 0)
      return fb::BlobRef(0, 0);
    auto key = std::make_pair(uint64_t(bytes.size()),
                              xxh64(bytes.data(), bytes.size()));
    for (size_t index : byContent_[key]) {
      const BlobPiece &p = pieces_[index];
      if (std::memcmp(p.data, bytes.data(), bytes.size()) == 0)
        return fb::BlobRef(p.offset, p.size);
    }
    uint64_t offset =
        (end_ + kBlobAlignment - 1) / kBlobAlignment * kBlobAlignment;
    pieces_.push_back({offset, bytes.data(), bytes.size()});
    byContent_[key].push_back(pieces_.size() - 1);
    end_ = offset + bytes.size();
    return fb::BlobRef(offset, bytes.size());
  }
  std::vector<BlobPiece> takePieces() { return std::move(pieces_); }
  uint64_t size() const { return end_; }

private:
  std::vector<BlobPiece> pieces_;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<size_t>> byContent_;
  uint64_t end_ = 0;
};

//===----------------------------------------------------------------------===//
// FlatBuffer
//===----------------------------------------------------------------------===//

// Empty vectors and strings are left out of the FlatBuffer (readers treat
// absent and empty alike): smaller artifacts, and no 8-byte vectors without
// elements, which the builder does not align.
template <typename T> const std::vector<T> *nonEmpty(const std::vector<T> &v) {
  return v.empty() ? nullptr : &v;
}
const char *nonEmpty(const std::string &s) {
  return s.empty() ? nullptr : s.c_str();
}

/// Long int lists, stored once and referenced by every instruction that
/// carries them. A collective's list has an extent per member, and ranks
/// whose programs differ elsewhere (each slicing at its own offset) carry
/// it in one class each: copied, classes x members ints (2 GB at 16384
/// ranks). A FlatBuffer may point to one vector from many tables.
class SharedIntLists {
public:
  explicit SharedIntLists(FlatBufferBuilder &b) : b_(b) {}

  Offset<flatbuffers::Vector<int64_t>> operator()(const IntList &ints) {
    if (ints.empty())
      return 0;
    if (ints.size() <= kShareAbove)
      return b_.CreateVector(ints.vector());
    // Copies of one IntList share storage: found without comparing.
    auto known = byStorage_.find(ints.data());
    if (known != byStorage_.end())
      return known->second;
    auto [at, added] = offsets_.try_emplace(ints.vector());
    if (added)
      at->second = b_.CreateVector(ints.vector());
    // The key stays valid while `ints` (or a copy) lives; the writer's
    // specs outlive serialisation.
    byStorage_[ints.data()] = at->second;
    return at->second;
  }

private:
  /// Short lists are cheaper to repeat than to look up.
  static constexpr size_t kShareAbove = 16;
  FlatBufferBuilder &b_;
  std::map<std::vector<int64_t>, Offset<flatbuffers::Vector<int64_t>>> offsets_;
  std::unordered_map<const int64_t *, Offset<flatbuffers::Vector<int64_t>>>
      byStorage_;
};

Offset<fb::Instruction> buildInstruction(FlatBufferBuilder &b,
                                         const InstructionSpec &spec,
                                         SharedIntLists &intLists) {
  std::vector<Offset<fb::Transfer>> transfers;
  for (const TransferSpec &t : spec.transfers)
    transfers.push_back(fb::CreateTransferDirect(
        b, t.kind, nonEmpty(t.peer), t.periodic, t.slot, nonEmpty(t.lo),
        nonEmpty(t.hi), t.tag));
  auto vectorOf = [&](const auto *v) { return v ? b.CreateVector(*v) : 0; };
  auto inputs = vectorOf(nonEmpty(spec.inputs));
  auto outputs = vectorOf(nonEmpty(spec.outputs));
  auto ints = intLists(spec.ints);
  auto floats = vectorOf(nonEmpty(spec.floats));
  auto str = spec.str.empty() ? 0 : b.CreateString(spec.str);
  auto meshAxes = vectorOf(nonEmpty(spec.meshAxes));
  auto transferList = vectorOf(nonEmpty(transfers));
  return fb::CreateInstruction(b, spec.opcode, inputs, outputs, spec.kernel,
                               ints, floats, str, meshAxes, spec.reduce,
                               transferList);
}

Offset<fb::RankClass> buildRankClass(FlatBufferBuilder &b,
                                     const RankClassSpec &spec,
                                     SharedIntLists &intLists) {
  std::vector<Offset<fb::BufferSlot>> buffers;
  for (const BufferSlotSpec &s : spec.buffers)
    buffers.push_back(fb::CreateBufferSlotDirect(
        b, s.offset, s.bytes, s.dtype, s.shape ? nonEmpty(*s.shape) : nullptr,
        s.shape.has_value()));
  std::vector<Offset<fb::Instruction>> program;
  for (const InstructionSpec &inst : spec.program)
    program.push_back(buildInstruction(b, inst, intLists));
  std::vector<Offset<fb::ConstantBinding>> constants;
  for (const ConstantBindingSpec &c : spec.constants)
    constants.push_back(fb::CreateConstantBinding(b, c.constant, c.slot));
  return fb::CreateRankClassDirect(
      b, nonEmpty(spec.name), nonEmpty(spec.ranks), spec.arenaBytes,
      nonEmpty(buffers), nonEmpty(program), nonEmpty(spec.inputSlots),
      nonEmpty(spec.outputSlots), nonEmpty(constants));
}

Offset<fb::TensorDesc> buildTensor(FlatBufferBuilder &b,
                                   const TensorDescSpec &spec) {
  std::vector<Offset<fb::DimSharding>> dims;
  for (const DimShardingSpec &d : spec.dims)
    dims.push_back(fb::CreateDimShardingDirect(b, nonEmpty(d.meshAxes),
                                               nonEmpty(d.extents)));
  return fb::CreateTensorDescDirect(b, nonEmpty(spec.name), spec.dtype,
                                    nonEmpty(spec.shape), nonEmpty(dims),
                                    spec.partial, nonEmpty(spec.partialAxes));
}

Offset<fb::Constant> buildConstant(FlatBufferBuilder &b,
                                   const ConstantSpec &spec,
                                   BlobPlacer &blobs) {
  std::vector<Offset<fb::ConstantShard>> shards;
  for (const ConstantShardSpec &s : spec.shards) {
    fb::BlobRef ref = blobs.place(s.data);
    shards.push_back(fb::CreateConstantShardDirect(b, nonEmpty(s.ranks),
                                                   nonEmpty(s.shape), &ref));
  }
  return fb::CreateConstantDirect(b, nonEmpty(spec.name), spec.dtype,
                                  spec.alignment, nonEmpty(shards));
}

Offset<fb::KernelBinary> buildKernel(FlatBufferBuilder &b,
                                     const KernelBinarySpec &spec,
                                     BlobPlacer &blobs) {
  fb::BlobRef ref = blobs.place(spec.data);
  return fb::CreateKernelBinaryDirect(b, nonEmpty(spec.target), spec.format,
                                      nonEmpty(spec.symbols), &ref);
}

template <typename Spec, typename Build>
auto buildAll(const std::vector<Spec> &specs, Build build) {
  std::vector<decltype(build(specs.front()))> offsets;
  for (const Spec &s : specs)
    offsets.push_back(build(s));
  return offsets;
}

using Sink = std::function<bool(const uint8_t *, size_t)>;

bool emitZeros(const Sink &sink, uint64_t n) {
  static const uint8_t zeros[kBlobAlignment] = {};
  for (; n > 0; n -= std::min<uint64_t>(n, kBlobAlignment))
    if (!sink(zeros, std::min<uint64_t>(n, kBlobAlignment)))
      return false;
  return true;
}

} // namespace

/// Everything the file holds after the header, in pieces.
struct ArtifactWriter::Layout {
  flatbuffers::DetachedBuffer flatBuffer; // size-prefixed
  std::vector<BlobPiece> blobs;
  uint64_t blobBytes = 0;

  uint64_t blobStart() const { return blobRegionOffset(flatBuffer.size() - 4); }
  uint64_t fileSize() const { return blobStart() + blobBytes; }

  /// Feeds the payload to `sink`; false as soon as the sink fails.
  bool emitPayload(const Sink &sink) const {
    if (!sink(flatBuffer.data(), flatBuffer.size()) ||
        !emitZeros(sink, blobStart() - kHeaderSize - flatBuffer.size()))
      return false;
    uint64_t at = 0;
    for (const BlobPiece &p : blobs) {
      if (!emitZeros(sink, p.offset - at) || !sink(p.data, p.size))
        return false;
      at = p.offset + p.size;
    }
    return true;
  }

  std::vector<uint8_t> header() const {
    Xxh64 hash;
    emitPayload([&](const uint8_t *d, size_t n) {
      hash.update(d, n);
      return true;
    });
    Header h;
    h.payloadSize = fileSize() - kHeaderSize;
    h.checksum = hash.digest();
    std::vector<uint8_t> bytes(kHeaderSize);
    encodeHeader(h, bytes.data());
    return bytes;
  }

  /// The whole file in memory.
  std::vector<uint8_t> gather() const {
    std::vector<uint8_t> file = header();
    file.reserve(fileSize());
    emitPayload([&](const uint8_t *d, size_t n) {
      file.insert(file.end(), d, d + n);
      return true;
    });
    return file;
  }
};

ArtifactWriter::Layout ArtifactWriter::layout() const {
  FlatBufferBuilder b;
  BlobPlacer blobs;
  SharedIntLists intLists(b);
  auto classes = buildAll(rankClasses_, [&](const RankClassSpec &s) {
    return buildRankClass(b, s, intLists);
  });
  auto tensor = [&](const TensorDescSpec &s) { return buildTensor(b, s); };
  auto inputs = buildAll(inputs_, tensor);
  auto outputs = buildAll(outputs_, tensor);
  auto constants = buildAll(constants_, [&](const ConstantSpec &s) {
    return buildConstant(b, s, blobs);
  });
  auto kernels = buildAll(kernels_, [&](const KernelBinarySpec &s) {
    return buildKernel(b, s, blobs);
  });
  std::vector<Offset<flatbuffers::String>> axisNames;
  for (const std::string &name : meshAxisNames_)
    axisNames.push_back(b.CreateString(name));
  auto mesh = fb::CreateMeshDirect(b, &axisNames, &meshShape_);
  auto symbols = b.CreateVectorOfStrings(kernelSymbols_);
  fb::BlobRef reference = blobs.place(reference_);
  auto root = fb::CreateArtifact(
      b, kFormatVersion, b.CreateString(producer_), mesh, worldSize_,
      b.CreateVector(classes), b.CreateVector(inputs), b.CreateVector(outputs),
      b.CreateVector(constants), symbols, b.CreateVector(kernels), blobs.size(),
      reference.bytes() ? &reference : nullptr);
  fb::FinishSizePrefixedArtifactBuffer(b, root);
  Layout layout;
  layout.flatBuffer = b.Release();
  layout.blobBytes = blobs.size();
  layout.blobs = blobs.takePieces();
  return layout;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

namespace {

Status check(const flatbuffers::DetachedBuffer &flatBuffer) {
  if (Status s = detail::verifyFlatBuffer(flatBuffer.data(), flatBuffer.size());
      !s.ok())
    return Status::internal("ArtifactWriter produced an unverifiable "
                            "FlatBuffer: " +
                            s.message());
  std::vector<int32_t> rankToClass;
  return detail::validateArtifact(
      *fb::GetSizePrefixedArtifact(flatBuffer.data()), rankToClass);
}

} // namespace

std::vector<uint8_t> ArtifactWriter::serializeUnchecked() const {
  return layout().gather();
}

StatusOr<std::vector<uint8_t>> ArtifactWriter::serialize() const {
  Layout l = layout();
  if (Status s = check(l.flatBuffer); !s.ok())
    return s;
  return l.gather();
}

Status ArtifactWriter::writeFile(const std::string &path) const {
  Layout l = layout();
  if (Status s = check(l.flatBuffer); !s.ok())
    return s;
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Status::unavailable("cannot create '" + path +
                               "': " + std::strerror(errno));
  std::vector<uint8_t> header = l.header();
  auto write = [&](const uint8_t *d, size_t n) {
    return std::fwrite(d, 1, n, f) == n;
  };
  bool ok = write(header.data(), header.size()) && l.emitPayload(write);
  int savedErrno = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (ok)
    return Status();
  // Leave no half-written artifact behind; readers would reject it anyway,
  // but a stale file with the right name misleads people.
  std::remove(path.c_str());
  return Status::unavailable("cannot write '" + path +
                             "': " + std::strerror(savedErrno));
}

} // namespace shardrt::artifact

//===- Artifact.cpp - Loading a .shardbin ---------------------------------===//

#include "shardrt/artifact/Artifact.h"

#include "Validate.h"
#include "shardrt/artifact/Format.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardrt::artifact {

size_t dtypeSize(fb::DType dtype) {
  switch (dtype) {
  case fb::DType::F32:
  case fb::DType::I32:
    return 4;
  case fb::DType::F16:
  case fb::DType::BF16:
    return 2;
  case fb::DType::F64:
  case fb::DType::I64:
    return 8;
  case fb::DType::I1:
    return 1;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

/// The file's bytes, kept alive as long as the Artifact: root() and every
/// ByteSpan point into them.
struct Artifact::Storage {
  const uint8_t *data = nullptr;
  size_t size = 0;
  // Exactly one of these owns `data` (neither for an empty file).
  void *heap = nullptr;
  void *mapping = nullptr;

  Storage() = default;
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  ~Storage() {
    std::free(heap);
    if (mapping)
      ::munmap(mapping, size);
  }
};

namespace {

std::string errnoMessage(const std::string &what, const std::string &path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

/// Closes a file descriptor on every return path.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

StatusOr<Artifact> Artifact::load(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::invalidArgument(errnoMessage("cannot open", path));
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return Status::invalidArgument(errnoMessage("cannot stat", path));
  if (!S_ISREG(st.st_mode))
    return Status::invalidArgument("'" + path + "' is not a regular file");
  auto storage = std::make_unique<Storage>();
  storage->size = size_t(st.st_size);
  if (storage->size > 0) {
    // Mapping instead of reading: weights can be large and most of them go
    // straight to a device, so copying them into the heap first is waste.
    void *p =
        ::mmap(nullptr, storage->size, PROT_READ, MAP_PRIVATE, fd, /*off=*/0);
    if (p == MAP_FAILED)
      return Status::unavailable(errnoMessage("cannot map", path));
    storage->mapping = p;
    storage->data = static_cast<const uint8_t *>(p);
  }
  StatusOr<Artifact> artifact = fromStorage(std::move(storage));
  if (!artifact.ok())
    return Status(artifact.status().code(),
                  path + ": " + artifact.status().message());
  return artifact;
}

StatusOr<Artifact> Artifact::loadFromMemory(const void *data, size_t size) {
  auto storage = std::make_unique<Storage>();
  storage->size = size;
  if (size > 0) {
    // Rounded up below, which must not wrap: no real artifact is this big.
    if (size > SIZE_MAX - kBlobAlignment)
      return Status::invalidArgument(
          "a shardbin artifact of " + std::to_string(size) +
          " bytes is larger than any allocation can hold");
    // aligned_alloc wants a multiple of the alignment.
    size_t rounded =
        (size + kBlobAlignment - 1) / kBlobAlignment * kBlobAlignment;
    storage->heap = std::aligned_alloc(kBlobAlignment, rounded);
    if (!storage->heap)
      return Status::unavailable("cannot allocate " + std::to_string(size) +
                                 " bytes for a shardbin artifact");
    std::memcpy(storage->heap, data, size);
    storage->data = static_cast<const uint8_t *>(storage->heap);
  }
  return fromStorage(std::move(storage));
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

StatusOr<Artifact> Artifact::fromStorage(std::unique_ptr<Storage> storage) {
  const uint8_t *file = storage->data;
  size_t size = storage->size;
  StatusOr<Header> header = decodeHeader(file, size);
  if (!header.ok())
    return header.status();
  if (Status s = verifyChecksum(*header, file, size); !s.ok())
    return s;

  size_t payload = size - kHeaderSize;
  if (payload < 4)
    return Status::dataLoss("truncated shardbin artifact: no FlatBuffer "
                            "after the header");
  const uint8_t *fbStart = file + kHeaderSize;
  uint64_t fbSize = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(fbStart);
  if (fbSize > payload - 4)
    return Status::dataLoss("truncated shardbin artifact: the FlatBuffer "
                            "claims " +
                            std::to_string(fbSize) + " bytes, " +
                            std::to_string(payload - 4) + " remain");
  if (Status s = detail::verifyFlatBuffer(fbStart, 4 + fbSize); !s.ok())
    return s;
  const fb::Artifact *root = fb::GetSizePrefixedArtifact(fbStart);

  if (root->format_version() != header->formatVersion)
    return Status::dataLoss(
        "corrupted shardbin artifact: the header says format version " +
        std::to_string(header->formatVersion) + ", the contents " +
        std::to_string(root->format_version()));
  uint64_t blobStart = blobRegionOffset(fbSize);
  if (blobStart > size || size - blobStart != root->blob_bytes())
    return Status::dataLoss(
        "corrupted shardbin artifact: the blob region should hold " +
        std::to_string(root->blob_bytes()) + " bytes from offset " +
        std::to_string(blobStart) + " in a file of " + std::to_string(size));
  for (uint64_t i = kHeaderSize + 4 + fbSize; i < blobStart; ++i)
    if (file[i] != 0)
      return Status::dataLoss("corrupted shardbin artifact: nonzero padding "
                              "before the blob region");

  std::vector<int32_t> rankToClass;
  if (Status s = detail::validateArtifact(*root, rankToClass); !s.ok())
    return s;
  ByteSpan blob{file + blobStart, size_t(root->blob_bytes())};
  return Artifact(std::move(storage), root, blob, std::move(rankToClass));
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

Artifact::Artifact(std::unique_ptr<Storage> storage, const fb::Artifact *root,
                   ByteSpan blob, std::vector<int32_t> rankToClass)
    : storage_(std::move(storage)), root_(root), blob_(blob),
      rankToClass_(std::move(rankToClass)) {}

Artifact::Artifact(Artifact &&) noexcept = default;
Artifact &Artifact::operator=(Artifact &&) noexcept = default;
Artifact::~Artifact() = default;

std::string_view Artifact::producer() const {
  const flatbuffers::String *s = root_->producer();
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

uint32_t Artifact::numRankClasses() const {
  return root_->rank_classes()->size();
}

int32_t Artifact::rankClassOf(int32_t rank) const {
  if (rank < 0 || size_t(rank) >= rankToClass_.size())
    return -1;
  return rankToClass_[rank];
}

const fb::RankClass &Artifact::rankClass(uint32_t index) const {
  return *root_->rank_classes()->Get(index);
}

std::vector<int64_t> Artifact::meshCoordinates(int32_t rank) const {
  return detail::meshCoordinates(detail::meshShape(*root_), rank);
}

LocalShard Artifact::localShard(const fb::TensorDesc &tensor,
                                int32_t rank) const {
  std::vector<int64_t> mesh = detail::meshShape(*root_);
  return detail::localShardAt(tensor, mesh,
                              detail::meshCoordinates(mesh, rank));
}

ByteSpan Artifact::constantShard(uint32_t constant, int32_t rank) const {
  const fb::Constant &c = *root_->constants()->Get(constant);
  if (!c.shards())
    return {};
  for (const fb::ConstantShard *shard : *c.shards()) {
    if (!shard->ranks())
      continue;
    for (int32_t r : *shard->ranks())
      if (r == rank)
        return {blob_.data + shard->data()->offset(),
                size_t(shard->data()->bytes())};
  }
  return {};
}

ByteSpan Artifact::kernelBinary(uint32_t kernel) const {
  const fb::BlobRef *ref = root_->kernels()->Get(kernel)->data();
  return {blob_.data + ref->offset(), size_t(ref->bytes())};
}

ByteSpan Artifact::fileBytes() const {
  return {storage_->data, storage_->size};
}

} // namespace shardrt::artifact

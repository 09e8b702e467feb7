//===- Engine.cpp - Loading artifacts and describing their tensors --------===//

#include "shardrt/Engine.h"
#include "shardrt/artifact/Artifact.h"

namespace shardrt {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  }
  return "unknown";
}

size_t dtypeSize(DType dtype) {
  return artifact::dtypeSize(static_cast<fb::DType>(dtype));
}

namespace {

const char *partialName(fb::ReduceKind kind) {
  switch (kind) {
  case fb::ReduceKind::None:
    return "";
  case fb::ReduceKind::Sum:
    return "sum";
  case fb::ReduceKind::Max:
    return "max";
  case fb::ReduceKind::Min:
    return "min";
  case fb::ReduceKind::Prod:
    return "prod";
  case fb::ReduceKind::Mean:
    return "mean";
  }
  return "unknown";
}

TensorInfo describe(const fb::TensorDesc &desc) {
  TensorInfo t;
  t.name = desc.name() ? desc.name()->str() : std::string();
  t.dtype = static_cast<DType>(desc.dtype());
  if (desc.shape())
    t.shape.assign(desc.shape()->begin(), desc.shape()->end());
  for (uint32_t d = 0; desc.dims() && d < desc.dims()->size(); ++d) {
    const fb::DimSharding &ds = *desc.dims()->Get(d);
    DimSplit split;
    if (ds.mesh_axes())
      split.meshAxes.assign(ds.mesh_axes()->begin(), ds.mesh_axes()->end());
    if (ds.extents())
      split.extents.assign(ds.extents()->begin(), ds.extents()->end());
    t.dims.push_back(std::move(split));
  }
  t.partial = partialName(desc.partial());
  if (desc.partial_axes())
    t.partialAxes.assign(desc.partial_axes()->begin(),
                         desc.partial_axes()->end());
  return t;
}

} // namespace

Engine::~Engine() = default;

StatusOr<std::shared_ptr<const Engine>>
Engine::fromArtifact(artifact::Artifact artifact) {
  std::shared_ptr<Engine> engine(new Engine());
  engine->artifact_ = std::make_unique<artifact::Artifact>(std::move(artifact));
  const fb::Artifact &root = engine->artifact_->root();
  // Not told apart by comparing the vectors: an artifact may (validly) use
  // one FlatBuffer vector for both.
  for (uint32_t i = 0; root.inputs() && i < root.inputs()->size(); ++i)
    engine->inputs_.push_back(describe(*root.inputs()->Get(i)));
  for (uint32_t i = 0; root.outputs() && i < root.outputs()->size(); ++i)
    engine->outputs_.push_back(describe(*root.outputs()->Get(i)));
  if (const fb::BlobRef *ref = root.reference(); ref && ref->bytes() > 0) {
    artifact::ByteSpan blob = engine->artifact_->blobRegion();
    StatusOr<artifact::Artifact> inner = artifact::Artifact::loadFromMemory(
        blob.data + ref->offset(), size_t(ref->bytes()));
    if (!inner.ok())
      return Status(inner.status().code(), "the embedded reference model: " +
                                               inner.status().message());
    if (inner->worldSize() != 1 || inner->root().reference())
      return Status::invalidArgument(
          "the embedded reference model must be a world-size-1 artifact "
          "without a reference of its own");
    SHARDRT_ASSIGN_OR_RETURN(engine->reference_,
                             fromArtifact(std::move(*inner)));
  }
  return std::shared_ptr<const Engine>(std::move(engine));
}

StatusOr<std::shared_ptr<const Engine>> Engine::load(const std::string &path) {
  SHARDRT_ASSIGN_OR_RETURN(artifact::Artifact a,
                           artifact::Artifact::load(path));
  return fromArtifact(std::move(a));
}

StatusOr<std::shared_ptr<const Engine>> Engine::loadFromMemory(const void *data,
                                                               size_t size) {
  SHARDRT_ASSIGN_OR_RETURN(artifact::Artifact a,
                           artifact::Artifact::loadFromMemory(data, size));
  return fromArtifact(std::move(a));
}

int Engine::worldSize() const { return artifact_->worldSize(); }

std::vector<std::string> Engine::meshAxisNames() const {
  std::vector<std::string> names;
  const fb::Mesh *mesh = artifact_->root().mesh();
  for (uint32_t i = 0;
       mesh && mesh->axis_names() && i < mesh->axis_names()->size(); ++i)
    names.push_back(mesh->axis_names()->Get(i)->str());
  return names;
}

std::vector<int64_t> Engine::meshShape() const {
  const fb::Mesh *mesh = artifact_->root().mesh();
  if (!mesh || !mesh->shape())
    return {};
  return std::vector<int64_t>(mesh->shape()->begin(), mesh->shape()->end());
}

std::string Engine::producer() const {
  return std::string(artifact_->producer());
}

int Engine::findInput(const std::string &name) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].name == name)
      return int(i);
  return -1;
}

int Engine::findOutput(const std::string &name) const {
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (outputs_[i].name == name)
      return int(i);
  return -1;
}

namespace {
StatusOr<LocalBox>
localBox(const artifact::Artifact &a,
         const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>> *list,
         size_t i, int rank, const char *what) {
  if (!list || i >= list->size())
    return Status::outOfRange(std::string("no ") + what + " " +
                              std::to_string(i));
  if (rank < 0 || rank >= a.worldSize())
    return Status::outOfRange("rank " + std::to_string(rank) +
                              " is outside the world of " +
                              std::to_string(a.worldSize()));
  artifact::LocalShard s = a.localShard(*list->Get(uint32_t(i)), rank);
  return LocalBox{std::move(s.offset), std::move(s.shape)};
}
} // namespace

StatusOr<LocalBox> Engine::localInput(size_t i, int rank) const {
  return localBox(*artifact_, artifact_->root().inputs(), i, rank, "input");
}

StatusOr<LocalBox> Engine::localOutput(size_t i, int rank) const {
  return localBox(*artifact_, artifact_->root().outputs(), i, rank, "output");
}

StatusOr<uint64_t> Engine::arenaBytes(int rank) const {
  int32_t c = artifact_->rankClassOf(rank);
  if (c < 0)
    return Status::outOfRange("rank " + std::to_string(rank) +
                              " is outside the world of " +
                              std::to_string(worldSize()));
  return uint64_t(artifact_->rankClass(uint32_t(c)).arena_bytes());
}

} // namespace shardrt

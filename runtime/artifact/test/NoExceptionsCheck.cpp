//===- NoExceptionsCheck.cpp - Headers compile without exceptions/RTTI ----===//
//
// Compiled, never run: see CMakeLists.txt.
//
//===----------------------------------------------------------------------===//

#include "shardrt/artifact/Artifact.h"
#include "shardrt/artifact/ArtifactWriter.h"
#include "shardrt/artifact/Format.h"

namespace {
[[maybe_unused]] shardrt::Status writeEmpty(const std::string &path) {
  shardrt::artifact::ArtifactWriter writer({"x"}, {1});
  return writer.writeFile(path);
}
} // namespace

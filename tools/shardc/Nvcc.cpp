//===- Nvcc.cpp - Ahead-of-time compilation of generated kernels ----------===//

#include "Nvcc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

namespace shardc {

namespace {
llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  llvm::Error create(llvm::StringRef suffix) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("shardc-kernels", suffix, path))
      return failure("cannot create a temporary file: " + ec.message());
    remover.emplace(path);
    return llvm::Error::success();
  }
};
} // namespace

llvm::Expected<std::string> findNvcc(const std::string &explicitPath) {
  if (!explicitPath.empty()) {
    if (!llvm::sys::fs::can_execute(explicitPath))
      return failure("--nvcc=" + explicitPath + " is not an executable");
    return explicitPath;
  }
  if (const char *env = std::getenv("CUDACXX"); env && *env) {
    if (!llvm::sys::fs::can_execute(env))
      return failure(llvm::Twine("$CUDACXX (") + env +
                     ") is not an executable");
    return std::string(env);
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("nvcc"))
    return *onPath;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc"))
    return std::string("/usr/local/cuda/bin/nvcc");
  return failure("no nvcc found (set --nvcc=<path> or $CUDACXX, or put the "
                 "CUDA toolkit's bin on PATH)");
}

llvm::Expected<std::vector<int>> parseSmTargets(const std::string &targets) {
  std::vector<int> sms;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(targets).split(parts, ',');
  for (llvm::StringRef part : parts) {
    llvm::StringRef digits = part.trim();
    int sm = 0;
    if (!digits.consume_front("sm_") || digits.getAsInteger(10, sm) ||
        sm < 50 || sm > 999)
      return failure("'" + part +
                     "' is not an SM target (expected e.g. "
                     "sm_80,sm_90)");
    sms.push_back(sm);
  }
  if (sms.empty())
    return failure("no SM targets given");
  return sms;
}

llvm::Expected<std::vector<uint8_t>>
compileFatbin(const std::string &nvcc, const std::string &source,
              const std::vector<int> &sms) {
  TempFile src, out, log;
  for (auto [file, suffix] :
       {std::pair{&src, "cu"}, {&out, "fatbin"}, {&log, "log"}})
    if (llvm::Error e = file->create(suffix))
      return std::move(e);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(src.path, ec);
    if (ec)
      return failure("cannot write " + src.path + ": " + ec.message());
    os << source;
  }
  std::vector<std::string> args = {nvcc, "-fatbin", "-O3", "-std=c++17"};
  int newest = *std::max_element(sms.begin(), sms.end());
  for (int sm : sms) {
    std::string arch = std::to_string(sm);
    // The newest target also carries PTX, which later GPUs JIT.
    std::string code =
        sm == newest ? "[sm_" + arch + ",compute_" + arch + "]" : "sm_" + arch;
    args.push_back("-gencode=arch=compute_" + arch + ",code=" + code);
  }
  args.insert(args.end(), {"-o", out.path.str().str(), src.path.str().str()});
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string error;
  int rc =
      llvm::sys::ExecuteAndWait(nvcc, argRefs, std::nullopt, redirects,
                                /*SecondsToWait=*/0, /*MemoryLimit=*/0, &error);
  if (rc != 0) {
    std::string diagnostics;
    if (auto text = llvm::MemoryBuffer::getFile(log.path))
      diagnostics = (*text)->getBuffer().take_front(4000).str();
    return failure(nvcc + " failed" +
                   (error.empty() ? "" : " (" + error + ")") + ":\n" +
                   diagnostics);
  }
  auto bytes = llvm::MemoryBuffer::getFile(out.path, /*IsText=*/false);
  if (!bytes)
    return failure("cannot read nvcc's output: " + bytes.getError().message());
  llvm::StringRef data = (*bytes)->getBuffer();
  if (data.empty())
    return failure(nvcc + " wrote an empty fatbin");
  return std::vector<uint8_t>(data.begin(), data.end());
}

} // namespace shardc

//===- Nvcc.h - Ahead-of-time compilation of generated kernels --*- C++ -*-===//
//
// shardc --target=cuda compiles its generated CUDA C++ with the toolkit's
// nvcc into one fatbin (a cubin per SM target plus PTX of the newest one, so
// that later GPUs can JIT it). The runtime loads the fatbin through the
// driver API: no compiler is needed where the model runs.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TOOLS_NVCC_H
#define SHARDC_TOOLS_NVCC_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

/// `explicitPath` if given, else $CUDACXX, else nvcc on PATH, else
/// /usr/local/cuda/bin/nvcc.
llvm::Expected<std::string> findNvcc(const std::string &explicitPath);

/// "sm_80,sm_90" -> {80, 90}; an error names the malformed entry.
llvm::Expected<std::vector<int>> parseSmTargets(const std::string &targets);

/// Compiles `source` into a fatbin for `sms`; the error carries nvcc's
/// diagnostics.
llvm::Expected<std::vector<uint8_t>> compileFatbin(const std::string &nvcc,
                                                   const std::string &source,
                                                   const std::vector<int> &sms);

} // namespace shardc

#endif // SHARDC_TOOLS_NVCC_H

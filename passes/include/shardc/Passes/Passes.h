//===- Passes.h - shardc passes --------------------------------------*- C++
//-*-===//
#ifndef SHARDC_PASSES_PASSES_H
#define SHARDC_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "shardc/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Passes/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_PASSES_PASSES_H

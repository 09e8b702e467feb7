//===- ScAttrs.h - sc attributes ------------------------------------*- C++
//-*-===//
#ifndef SHARDC_DIALECT_SC_SCATTRS_H
#define SHARDC_DIALECT_SC_SCATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

#include "shardc/Dialect/Sc/ScEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/Sc/ScAttrs.h.inc"

namespace shardc::sc {
/// Whether `attr` is a StringAttr whose value is one of the comma-separated
/// `choices` (backs the string-enum attribute constraints of the .td files).
bool isStringOneOf(mlir::Attribute attr, llvm::StringRef choices);

/// The canonical split of DESIGN.md: numpy.array_split of n over k shards.
std::vector<int64_t> canonicalExtents(int64_t n, int64_t k);
} // namespace shardc::sc

#endif // SHARDC_DIALECT_SC_SCATTRS_H

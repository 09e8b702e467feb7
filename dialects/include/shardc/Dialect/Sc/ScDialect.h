//===- ScDialect.h - sc dialect ------------------------------------*- C++
//-*-===//
#ifndef SHARDC_DIALECT_SC_SCDIALECT_H
#define SHARDC_DIALECT_SC_SCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "shardc/Dialect/Sc/ScDialect.h.inc"

#endif // SHARDC_DIALECT_SC_SCDIALECT_H

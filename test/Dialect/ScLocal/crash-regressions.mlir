// Inputs that once crashed the scl verifiers; each must end in a located
// error instead.
//
// A func.func carrying scl.rank_classes verified with no module around it
// (as mlir::verify on a detached function does): its verifier looked for
// the enclosing symbol table from a null parent.
// RUN: not shardc-opt --no-implicit-module --mlir-very-unsafe-disable-verifier-on-parsing --canonicalize %s 2>&1 | FileCheck %s
// CHECK: crash-regressions.mlir:10:1: error: rank class @f_class0 is not a function with 'scl.ranks'

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {scl.rank_classes = [@f_class0]} {
  return %a : tensor<4xf32>
}

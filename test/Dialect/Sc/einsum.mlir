// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.einsum's result shapes, as torch.einsum's: explicit outputs, implicit
// ones ('...' dims, then the labels used once, alphabetically; uppercase
// first), spaces, '...' broadcast from the right, size-1 broadcasts (to 0 as well, numpy's rule).

// CHECK-LABEL: func.func @shapes
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "bixy,ioxy->boxy"} : (tensor<2x4x8x8xf32>, tensor<4x6x8x8xf32>) -> tensor<2x6x8x8xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "ij,jk"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "kj,ji"} : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<3x5xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "aB,Ba"} : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<f32>
// CHECK: sc.einsum %{{.*}} {equation = "i j -> j i"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK: sc.einsum %{{.*}} {equation = "ij->"} : (tensor<3x4xf32>) -> tensor<f32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "...ij,...jk->...ik"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "b...,b..."} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}}, %{{.*}} {equation = "ij,jk,kl->il"} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "i,i->i"} : (tensor<1xf32>, tensor<0xf32>) -> tensor<0xf32>
// CHECK: sc.einsum %{{.*}}, %{{.*}} {equation = "i,i->i"} : (tensor<0xf32>, tensor<1xf32>) -> tensor<0xf32>
func.func @shapes(%a: tensor<2x4x8x8xf32>, %b: tensor<4x6x8x8xf32>, %m: tensor<3x4xf32>, %n: tensor<4x5xf32>, %p: tensor<5x4xf32>, %q: tensor<4x3xf32>,
                  %e: tensor<2x1x3x4xf32>, %f: tensor<5x4x6xf32>, %g: tensor<2x3xf32>, %h: tensor<1x3xf32>, %r: tensor<3x4xf32>,
                  %one: tensor<1xf32>, %none: tensor<0xf32>) {
  %0 = sc.einsum %a, %b {equation = "bixy,ioxy->boxy"} : (tensor<2x4x8x8xf32>, tensor<4x6x8x8xf32>) -> tensor<2x6x8x8xf32>
  %1 = sc.einsum %m, %n {equation = "ij,jk"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %2 = sc.einsum %p, %q {equation = "kj,ji"} : (tensor<5x4xf32>, tensor<4x3xf32>) -> tensor<3x5xf32>
  %3 = sc.einsum %m, %q {equation = "aB,Ba"} : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<f32>
  %4 = sc.einsum %m {equation = "i j -> j i"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %5 = sc.einsum %m {equation = "ij->"} : (tensor<3x4xf32>) -> tensor<f32>
  %6 = sc.einsum %e, %f {equation = "...ij,...jk->...ik"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %7 = sc.einsum %g, %h {equation = "b...,b..."} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3xf32>
  %8 = sc.einsum %g, %r, %n {equation = "ij,jk,kl->il"} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  %9 = sc.einsum %one, %none {equation = "i,i->i"} : (tensor<1xf32>, tensor<0xf32>) -> tensor<0xf32>
  %10 = sc.einsum %none, %one {equation = "i,i->i"} : (tensor<0xf32>, tensor<1xf32>) -> tensor<0xf32>
  return
}

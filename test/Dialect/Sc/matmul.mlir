// RUN: shardc-opt %s -split-input-file | shardc-opt -split-input-file | FileCheck %s
// RUN: shardc-opt %s -split-input-file -mlir-print-op-generic | shardc-opt -split-input-file | FileCheck %s

// sc.matmul (torch.matmul semantics: 2-D, batched with broadcasting, 1-D
// promotion) and sc.linear (with and without bias).

// CHECK-LABEL: func.func @matmul_2d
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
func.func @matmul_2d(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = sc.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Batched: equal batch dims, broadcast batch dims, one side 2-D.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<10x4x8xf32>, tensor<10x8x5xf32>) -> tensor<10x4x5xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<10x4x8xf32>, tensor<8x5xf32>) -> tensor<10x4x5xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x8xf32>, tensor<10x8x5xf32>) -> tensor<10x4x5xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x8x128x64xf32>, tensor<2x8x64x128xf32>) -> tensor<2x8x128x128xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<1x6x4x8xf32>, tensor<5x1x8x3xf32>) -> tensor<5x6x4x3xf32>
func.func @matmul_batched(%a0: tensor<10x4x8xf32>, %b0: tensor<10x8x5xf32>,
                          %a1: tensor<2x1x4x8xf32>, %b1: tensor<3x8x5xf32>,
                          %a2: tensor<10x4x8xf32>, %b2: tensor<8x5xf32>,
                          %a3: tensor<4x8xf32>, %b3: tensor<10x8x5xf32>,
                          %a4: tensor<2x8x128x64xf32>, %b4: tensor<2x8x64x128xf32>,
                          %a5: tensor<1x6x4x8xf32>, %b5: tensor<5x1x8x3xf32>) {
  %0 = sc.matmul %a0, %b0 : (tensor<10x4x8xf32>, tensor<10x8x5xf32>) -> tensor<10x4x5xf32>
  %1 = sc.matmul %a1, %b1 : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  %2 = sc.matmul %a2, %b2 : (tensor<10x4x8xf32>, tensor<8x5xf32>) -> tensor<10x4x5xf32>
  %3 = sc.matmul %a3, %b3 : (tensor<4x8xf32>, tensor<10x8x5xf32>) -> tensor<10x4x5xf32>
  %4 = sc.matmul %a4, %b4 : (tensor<2x8x128x64xf32>, tensor<2x8x64x128xf32>) -> tensor<2x8x128x128xf32>
  %5 = sc.matmul %a5, %b5 : (tensor<1x6x4x8xf32>, tensor<5x1x8x3xf32>) -> tensor<5x6x4x3xf32>
  return
}

// -----

// 1-D promotion: vector-vector (rank-0 result), vector-matrix, matrix-vector,
// vector-batched, batched-vector.
// CHECK-LABEL: func.func @matmul_1d
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<8xf32>, tensor<8x5xf32>) -> tensor<5xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<8xf32>, tensor<10x8x5xf32>) -> tensor<10x5xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<10x4x8xf32>, tensor<8xf32>) -> tensor<10x4xf32>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3x4x8xf32>, tensor<8xf32>) -> tensor<2x3x4xf32>
func.func @matmul_1d(%v: tensor<8xf32>, %w: tensor<8xf32>, %m: tensor<8x5xf32>, %n: tensor<4x8xf32>,
                     %b: tensor<10x8x5xf32>, %c: tensor<10x4x8xf32>, %d: tensor<2x3x4x8xf32>) {
  %0 = sc.matmul %v, %w : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %1 = sc.matmul %v, %m : (tensor<8xf32>, tensor<8x5xf32>) -> tensor<5xf32>
  %2 = sc.matmul %n, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %3 = sc.matmul %v, %b : (tensor<8xf32>, tensor<10x8x5xf32>) -> tensor<10x5xf32>
  %4 = sc.matmul %c, %v : (tensor<10x4x8xf32>, tensor<8xf32>) -> tensor<10x4xf32>
  %5 = sc.matmul %d, %v : (tensor<2x3x4x8xf32>, tensor<8xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// Half-precision matmul.
// CHECK-LABEL: func.func @matmul_half
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<16x32xf16>, tensor<32x8xf16>) -> tensor<16x8xf16>
// CHECK: sc.matmul %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x16x32xbf16>, tensor<32x8xbf16>) -> tensor<4x16x8xbf16>
func.func @matmul_half(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<4x16x32xbf16>, %d: tensor<32x8xbf16>) {
  %0 = sc.matmul %a, %b : (tensor<16x32xf16>, tensor<32x8xf16>) -> tensor<16x8xf16>
  %1 = sc.matmul %c, %d : (tensor<4x16x32xbf16>, tensor<32x8xbf16>) -> tensor<4x16x8xbf16>
  return
}

// -----

// linear with bias.
// CHECK-LABEL: func.func @linear_bias
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
func.func @linear_bias(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x3x16xf32> {
  %0 = sc.linear %x, %w, %b : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  return %0 : tensor<2x3x16xf32>
}

// -----

// linear without bias, 2-D and 1-D inputs.
// CHECK-LABEL: func.func @linear_no_bias
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}} : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
func.func @linear_no_bias(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %w: tensor<16x8xf32>) {
  %0 = sc.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = sc.linear %v, %w : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
  return
}

// -----

// linear in bf16 on a 4-D activation (e.g. channels-last features).
// CHECK-LABEL: func.func @linear_bf16
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x32x32x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16>) -> tensor<2x32x32x128xbf16>
func.func @linear_bf16(%x: tensor<2x32x32x64xbf16>, %w: tensor<128x64xbf16>, %b: tensor<128xbf16>) -> tensor<2x32x32x128xbf16> {
  %0 = sc.linear %x, %w, %b : (tensor<2x32x32x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16>) -> tensor<2x32x32x128xbf16>
  return %0 : tensor<2x32x32x128xbf16>
}

// -----

// F.linear's other forms: a 1-D weight contracts the last dim away (down to
// a scalar for a 1-D input), and the bias broadcasts to the result.
// CHECK-LABEL: func.func @linear_torch_forms
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<3x1xf32>) -> tensor<2x3x16xf32>
// CHECK: sc.linear %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<1xf32>) -> tensor<2x3x16xf32>
func.func @linear_torch_forms(%x: tensor<2x3x8xf32>, %v: tensor<8xf32>, %w: tensor<16x8xf32>, %s: tensor<f32>, %r: tensor<3x1xf32>, %o: tensor<1xf32>) {
  %0 = sc.linear %x, %v, %s : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = sc.linear %v, %v : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %2 = sc.linear %x, %w, %r : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<3x1xf32>) -> tensor<2x3x16xf32>
  %3 = sc.linear %x, %w, %o : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<1xf32>) -> tensor<2x3x16xf32>
  return
}

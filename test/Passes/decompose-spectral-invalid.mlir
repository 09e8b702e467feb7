// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -verify-diagnostics

// A transform whose DFT matrix would pass 2^28 elements is refused at the
// op: shardc computes DFTs as GEMMs. Slicing the modes kept makes it fit.
func.func @too_long(%x: tensor<2x32768xf32>) -> tensor<2x16385x2xf32> {
  // expected-error @+1 {{the DFT along dim 1 would take a 1073807360-element matrix; shardc computes DFTs as GEMMs and takes at most 268435456 (slice the result to the modes you keep)}}
  %y = sc.rfft %x : (tensor<2x32768xf32>) -> tensor<2x16385x2xf32>
  return %y : tensor<2x16385x2xf32>
}

// -----

// The same length, truncated to 16 modes: a 32768 x 32 matrix.
func.func @truncated(%x: tensor<2x32768xf32>) -> tensor<2x16x2xf32> {
  %y = sc.rfft %x : (tensor<2x32768xf32>) -> tensor<2x16385x2xf32>
  %m = sc.slice %y {start = array<i64: 0, 0, 0>, end = array<i64: 2, 16, 2>} : (tensor<2x16385x2xf32>) -> tensor<2x16x2xf32>
  return %m : tensor<2x16x2xf32>
}

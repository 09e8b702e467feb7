// RUN: shardc-opt %s -split-input-file -sc-compute-in-f32 -verify-diagnostics

// sc-compute-in-f32 refuses what it cannot widen exactly, at the op.

// case: a bf16 constant that is not a dense attribute
sc.mesh @m ["x"=2]
func.func @sparse(%x: tensor<2xbf16>) -> tensor<2xbf16> {
  // expected-error @+1 {{'sc.constant' op holds a 'tensor<2xbf16>' that is not a dense float attribute}}
  %c = sc.constant sparse<[[0]], [1.0]> : tensor<2xbf16>
  %y = sc.add %x, %c : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return %y : tensor<2xbf16>
}

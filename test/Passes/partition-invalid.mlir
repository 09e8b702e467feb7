// RUN: shardc-opt %s -split-input-file -sc-partition-pipeline -verify-diagnostics

// What sc-partition cannot partition yet is a located error naming the op
// and the sharding, never wrong code. One case each.

// case: the entry cannot be told (two public functions); nothing changes.
// The error points at the second, a note at the first.
module {
  // expected-note @+1 {{another public function}}
  func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  // expected-error @+1 {{cannot tell the model's entry function}}
  func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// case: an argument whose bytes overflow int64 reaches only `return` (no sc op
// verifies it), so sc-partition bounds it before sizing its buffer
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{'tensor<4294967296x4294967296xf32>' holds more bytes than an int64 counts}}
func.func @main(%x: tensor<4294967296x4294967296xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4294967296x4294967296xf32> {
  return %x : tensor<4294967296x4294967296xf32>
}

// -----

// case: causal attention with split queries over whole keys, over more
// positions than f32 counts exactly
sc.mesh @mesh ["x"=2]
func.func @main(%q: tensor<1x1x16777218x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}, {}]>},
                %k: tensor<1x1x16777218x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {}, {}]>},
                %v: tensor<1x1x16777218x1xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {}, {}]>}) -> tensor<1x1x16777218x1xf32> {
  // expected-error @+1 {{attends causally over more than 2^24 positions with split queries}}
  %y = sc.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<1x1x16777218x1xf32>, tensor<1x1x16777218x1xf32>, tensor<1x1x16777218x1xf32>) -> tensor<1x1x16777218x1xf32>
  return %y : tensor<1x1x16777218x1xf32>
}

// -----

// case: an integer splat constant on a split program (shardc holds f32,
// bf16, f16, i1 and i64): refused where it is defined, before its value is read
sc.mesh @mesh ["x"=2]
func.func @main(%x: tensor<4xf32> {sc.sharding = #sc.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  // expected-error @+1 {{computes in 'i32'; shardc holds f32, bf16, f16, i1 and i64 tensors}}
  %c = sc.constant dense<3> : tensor<4xi32>
  %f = sc.cast %c : tensor<4xi32> to tensor<4xf32>
  %y = sc.add %x, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// case: the same on one rank
func.func @main() -> tensor<4xi32> {
  // expected-error @+1 {{computes in 'i32'; shardc holds f32, bf16, f16, i1 and i64 tensors}}
  %c = sc.constant dense<3> : tensor<4xi32>
  return %c : tensor<4xi32>
}

// -----

// case: an i64 constant: shardc's i64 tensors are argmax/argmin indices,
// which are moved, cast and returned, never constants
func.func @main() -> tensor<4xi64> {
  // expected-error @+1 {{'sc.constant' op is an i64 constant; shardc's i64 tensors are argmax/argmin indices (write constants as f32 and cast them)}}
  %c = sc.constant dense<3> : tensor<4xi64>
  return %c : tensor<4xi64>
}

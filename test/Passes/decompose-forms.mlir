// RUN: shardc-opt %s -split-input-file -sc-decompose-forms -mlir-print-debuginfo | FileCheck %s

// sc-decompose-forms: F.linear's 1-D weight and broadcast bias, and F.pad's
// circular crops, become core forms; each new op keeps the replaced op's
// location, and the last one its sharding pin.

// A 1-D weight, viewed as (1, in); the (..., 1) result is viewed back, and
// the scalar bias added after.
// CHECK-LABEL: func.func @linear_vector_weight
// CHECK:      %[[W:.*]] = sc.reshape %arg1 : (tensor<8xf32>) -> tensor<1x8xf32> loc(#[[LOC:.*]])
// CHECK-NEXT: %[[L:.*]] = sc.linear %arg0, %[[W]] : (tensor<2x3x8xf32>, tensor<1x8xf32>) -> tensor<2x3x1xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[R:.*]] = sc.reshape %[[L]] : (tensor<2x3x1xf32>) -> tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: %[[Y:.*]] = sc.add %[[R]], %arg2 {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32> loc(#[[LOC]])
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT:  sc.linear
// CHECK:      #[[LOC]] = loc("model.py":7:3)
sc.mesh @m ["x"=2]
func.func @linear_vector_weight(%x: tensor<2x3x8xf32>, %v: tensor<8xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %y = sc.linear %x, %v, %s {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<2x3xf32> loc("model.py":7:3)
  return %y : tensor<2x3xf32>
}

// -----

// A dot product of two vectors: (8) . (8) -> scalar, no bias.
// CHECK-LABEL: func.func @linear_dot
// CHECK:      %[[W:.*]] = sc.reshape %arg1 : (tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: %[[L:.*]] = sc.linear %arg0, %[[W]] : (tensor<8xf32>, tensor<1x8xf32>) -> tensor<1xf32>
// CHECK-NEXT: %[[R:.*]] = sc.reshape %[[L]] : (tensor<1xf32>) -> tensor<f32>
// CHECK-NEXT: return %[[R]]
func.func @linear_dot(%x: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<f32> {
  %y = sc.linear %x, %v : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// A bias that broadcasts is added after an unbiased linear; a (out) bias
// stays where it is.
// CHECK-LABEL: func.func @linear_broadcast_bias
// CHECK:      %[[L:.*]] = sc.linear %arg0, %arg1 : (tensor<2x3x8xf32>, tensor<16x8xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT: %[[A:.*]] = sc.add %[[L]], %arg2 : (tensor<2x3x16xf32>, tensor<3x1xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT: %[[K:.*]] = sc.linear %arg0, %arg1 : (tensor<2x3x8xf32>, tensor<16x8xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT: %[[B:.*]] = sc.add %[[K]], %arg3 : (tensor<2x3x16xf32>, tensor<1xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT: %[[C:.*]] = sc.linear %arg0, %arg1, %arg4 : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @linear_broadcast_bias(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>, %r: tensor<3x1xf32>, %o: tensor<1xf32>, %b: tensor<16xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x16xf32>, tensor<2x3x16xf32>) {
  %0 = sc.linear %x, %w, %r : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<3x1xf32>) -> tensor<2x3x16xf32>
  %1 = sc.linear %x, %w, %o : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<1xf32>) -> tensor<2x3x16xf32>
  %2 = sc.linear %x, %w, %b : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  return %0, %1, %2 : tensor<2x3x16xf32>, tensor<2x3x16xf32>, tensor<2x3x16xf32>
}

// -----

// Circular with crops: a constant pad crops (every dim's negative amounts),
// then a circular pad wraps the rest; a circular pad that only crops needs
// nothing more. Core circular pads stay.
// CHECK-LABEL: func.func @pad_circular_crops
// CHECK:      %[[C:.*]] = sc.pad %arg0 {pad = array<i64: 0, -1, -1, 0>} : (tensor<1x4x6xf32>) -> tensor<1x3x5xf32>
// CHECK-NEXT: %[[Y:.*]] = sc.pad %[[C]] {mode = "circular", pad = array<i64: 2, 0, 0, 3>, sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>} : (tensor<1x3x5xf32>) -> tensor<1x6x7xf32>
// CHECK-NEXT: %[[Z:.*]] = sc.pad %arg0 {pad = array<i64: -1, -1>} : (tensor<1x4x6xf32>) -> tensor<1x4x4xf32>
// CHECK-NEXT: %[[K:.*]] = sc.pad %arg0 {mode = "circular", pad = array<i64: 1, 1>} : (tensor<1x4x6xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[Y]], %[[Z]], %[[K]]
sc.mesh @m ["x"=2]
func.func @pad_circular_crops(%x: tensor<1x4x6xf32>) -> (tensor<1x6x7xf32>, tensor<1x4x4xf32>, tensor<1x4x8xf32>) {
  %0 = sc.pad %x {mode = "circular", pad = array<i64: 2, -1, -1, 3>, sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>} : (tensor<1x4x6xf32>) -> tensor<1x6x7xf32>
  %1 = sc.pad %x {mode = "circular", pad = array<i64: -1, -1>} : (tensor<1x4x6xf32>) -> tensor<1x4x4xf32>
  %2 = sc.pad %x {mode = "circular", pad = array<i64: 1, 1>} : (tensor<1x4x6xf32>) -> tensor<1x4x8xf32>
  return %0, %1, %2 : tensor<1x6x7xf32>, tensor<1x4x4xf32>, tensor<1x4x8xf32>
}

// -----

// Activations with parameters: a comparison picks the branch, constants are
// rank 0 of the input's element type, and the pin moves to the last op.
// CHECK-LABEL: func.func @activations
// CHECK:      %[[S:.*]] = sc.constant dense<2.001950e-01> : tensor<bf16>
// CHECK-NEXT: %[[Z:.*]] = sc.constant dense<0.000000e+00> : tensor<bf16>
// CHECK-NEXT: %[[P:.*]] = sc.compare %arg0, %[[Z]] {predicate = "gt"}
// CHECK-NEXT: %[[M:.*]] = sc.mul %arg0, %[[S]]
// CHECK-NEXT: %[[L:.*]] = sc.select %[[P]], %arg0, %[[M]] {sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<8xi1>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
// CHECK-NEXT: %[[E1:.*]] = sc.expm1 %arg1
// CHECK-NEXT: %[[A:.*]] = sc.constant dense<1.500000e+00> : tensor<f32>
// CHECK-NEXT: %[[EA:.*]] = sc.mul %[[E1]], %[[A]]
// CHECK-NEXT: %[[Z2:.*]] = sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P2:.*]] = sc.compare %arg1, %[[Z2]] {predicate = "gt"}
// CHECK-NEXT: %[[ELU:.*]] = sc.select %[[P2]], %arg1, %[[EA]]
// CHECK-NEXT: %[[B:.*]] = sc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[BX:.*]] = sc.mul %arg1, %[[B]]
// CHECK-NEXT: %[[EX:.*]] = sc.exp %[[BX]]
// CHECK-NEXT: %[[LG:.*]] = sc.log1p %[[EX]]
// CHECK-NEXT: %[[DV:.*]] = sc.div %[[LG]], %[[B]]
// CHECK-NEXT: %[[T:.*]] = sc.constant dense<1.000000e+01> : tensor<f32>
// CHECK-NEXT: %[[TH:.*]] = sc.compare %[[BX]], %[[T]] {predicate = "gt"}
// CHECK-NEXT: %[[SP:.*]] = sc.select %[[TH]], %arg1, %[[DV]]
// CHECK-NEXT: %[[LB:.*]] = sc.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[LO:.*]] = sc.maximum %arg1, %[[LB]]
// CHECK-NEXT: %[[HB:.*]] = sc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[HI:.*]] = sc.minimum %[[LO]], %[[HB]]
// CHECK-NEXT: %[[OB:.*]] = sc.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ONLY:.*]] = sc.minimum %arg1, %[[OB]]
// CHECK-NEXT: return %[[L]], %[[ELU]], %[[SP]], %[[HI]], %[[ONLY]]
// CHECK-NOT:  sc.leaky_relu
sc.mesh @m ["x"=2]
func.func @activations(%x: tensor<8xbf16>, %y: tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = sc.leaky_relu %x {negative_slope = 0.2, sc.sharding = #sc.sharding<@m, [{"x"}]>} : tensor<8xbf16>
  %1 = sc.elu %y {alpha = 1.5} : tensor<8xf32>
  %2 = sc.softplus %y {beta = 2.0, threshold = 10.0} : tensor<8xf32>
  %3 = sc.clamp %y {min = -1.0, max = 1.0} : tensor<8xf32>
  %4 = sc.clamp %y {max = 6.0} : tensor<8xf32>
  return %0, %1, %2, %3, %4 : tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Crops that empty a dim leave nothing to wrap, and the result nothing to
// read: one constant pad of the same amounts gives it.
// CHECK-LABEL: func.func @pad_circular_crops_to_empty
// CHECK-NEXT: %[[E:.*]] = sc.pad %arg0 {pad = array<i64: 1, 1, -2, -2>} : (tensor<1x4x3xf32>) -> tensor<1x0x5xf32>
// CHECK-NEXT: return %[[E]]
func.func @pad_circular_crops_to_empty(%x: tensor<1x4x3xf32>) -> tensor<1x0x5xf32> {
  %0 = sc.pad %x {mode = "circular", pad = array<i64: 1, 1, -2, -2>} : (tensor<1x4x3xf32>) -> tensor<1x0x5xf32>
  return %0 : tensor<1x0x5xf32>
}

// -----

// A pin on a 1-D-weight linear without a bias lands on the reshape back.
// CHECK-LABEL: func.func @linear_vector_pinned
// CHECK:      sc.linear
// CHECK-NEXT: %[[R:.*]] = sc.reshape %{{.*}} {sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<6x1xf32>) -> tensor<6xf32>
// CHECK-NEXT: return %[[R]]
sc.mesh @m ["x"=2]
func.func @linear_vector_pinned(%x: tensor<6x4xf32>, %v: tensor<4xf32>) -> tensor<6xf32> {
  %y = sc.linear %x, %v {sc.sharding = #sc.sharding<@m, [{"x"}]>} : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

// torch.var's two passes: the mean (kept, to broadcast), the squared
// deviations' sum, divided by N - correction (here 3 * 4 - 1); std is its
// square root, which takes the pin.
// CHECK-LABEL: func.func @variance
// CHECK:      %[[M:.*]] = sc.mean %arg0 {dims = array<i64: 1, -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32> loc(#[[VLOC:.*]])
// CHECK-NEXT: %[[D:.*]] = sc.sub %arg0, %[[M]] : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32> loc(#[[VLOC]])
// CHECK-NEXT: %[[Q:.*]] = sc.mul %[[D]], %[[D]] : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[S:.*]] = sc.sum %[[Q]] {dims = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[N:.*]] = sc.constant dense<1.100000e+01> : tensor<f32>
// CHECK-NEXT: %[[V:.*]] = sc.div %[[S]], %[[N]] : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK:      sc.mean %arg0 {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK:      sc.sum %{{.*}} {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %[[P:.*]] = sc.constant dense<2.400000e+01> : tensor<f32>
// CHECK-NEXT: %[[PV:.*]] = sc.div %{{.*}}, %[[P]]
// CHECK-NEXT: %[[SD:.*]] = sc.sqrt %[[PV]] {sc.sharding = #sc.sharding<@m, [{}, {}, {}]>} : tensor<1x1x1xf32>
// A correction past the count leaves no degrees of freedom: N - correction
// is clamped to 0, as in PyTorch, and the result is NaN where the values
// are all equal (max == min, exact however they are split), else inf.
// CHECK:      sc.sum %{{.*}} {dims = array<i64: 0>}
// CHECK-NEXT: sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[INF:.*]] = sc.div
// CHECK-NEXT: %[[HI:.*]] = sc.amax %arg0 {dims = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[LO:.*]] = sc.amin %arg0 {dims = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[EQ:.*]] = sc.compare %[[HI]], %[[LO]] {predicate = "eq"}
// CHECK-NEXT: %[[NAN:.*]] = sc.constant dense<0x7FC00000> : tensor<f32>
// CHECK-NEXT: %[[Z:.*]] = sc.select %[[EQ]], %[[NAN]], %[[INF]]
// CHECK:      return %[[V]], %[[SD]], %[[Z]]
// CHECK:      #[[VLOC]] = loc("model.py":3:5)
sc.mesh @m ["x"=2]
func.func @variance(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<1x1x1xf32>, tensor<3x4xf32>) {
  %v = sc.var %x {dims = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2xf32> loc("model.py":3:5)
  %s = sc.std %x {keepdim = true, correction = 0.0, sc.sharding = #sc.sharding<@m, [{}, {}, {}]>} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %z = sc.var %x {dims = array<i64: 0>, correction = 3.0} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %v, %s, %z : tensor<2xf32>, tensor<1x1x1xf32>, tensor<3x4xf32>
}

// -----

// An instance norm is a group norm with a group per channel; its pin and
// affine parameters carry over. Without channels it is its input.
// CHECK-LABEL: func.func @instance_norm
// CHECK-NEXT: %[[G:.*]] = sc.group_norm %arg0, %arg1, %arg2 {eps = 1.000000e-03 : f64, num_groups = 6 : i64, sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
// CHECK-NEXT: %[[H:.*]] = sc.group_norm %arg0 {num_groups = 6 : i64} : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
// CHECK-NEXT: return %[[G]], %[[H]], %arg3
sc.mesh @m ["x"=2]
func.func @instance_norm(%x: tensor<2x6x5xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>, %e: tensor<1x0x4xf32>) -> (tensor<2x6x5xf32>, tensor<2x6x5xf32>, tensor<1x0x4xf32>) {
  %y = sc.instance_norm %x, %w, %b {eps = 1.0e-3, sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  %z = sc.instance_norm %x : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  // No channel: no group to normalise, nothing to compute.
  %n = sc.instance_norm %e : (tensor<1x0x4xf32>) -> tensor<1x0x4xf32>
  return %y, %z, %n : tensor<2x6x5xf32>, tensor<2x6x5xf32>, tensor<1x0x4xf32>
}

// -----

// torch.roll as a circular pad that wraps the shifted-in rows and a
// constant-mode crop of as many on the other side, the shorter way round:
// dim 1 rolls by 3 + 14 = 17 = 5 (mod 12), wrapped on the low side; dim 2
// by -2 = 8 (mod 10), more than half, so 2 wrap on the high side. Amounts
// list the last dim first, as F.pad's.
// CHECK-LABEL: func.func @roll
// CHECK-NEXT: %[[W:.*]] = sc.pad %arg0 {mode = "circular", pad = array<i64: 0, 2, 5, 0, 0, 0>} : (tensor<2x12x10xf32>) -> tensor<2x17x12xf32> loc(#[[RLOC:.*]])
// CHECK-NEXT: %[[C:.*]] = sc.pad %[[W]] {pad = array<i64: -2, 0, 0, -5, 0, 0>, sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>} : (tensor<2x17x12xf32>) -> tensor<2x12x10xf32> loc(#[[RLOC]])
// CHECK-NEXT: return %[[C]]
// CHECK:      #[[RLOC]] = loc("model.py":9:1)
sc.mesh @m ["x"=2]
func.func @roll(%x: tensor<2x12x10xf32>) -> tensor<2x12x10xf32> {
  %y = sc.roll %x {shifts = array<i64: 3, -2, 14>, dims = array<i64: 1, 2, -2>, sc.sharding = #sc.sharding<@m, [{}, {"x"}, {}]>} : tensor<2x12x10xf32> loc("model.py":9:1)
  return %y : tensor<2x12x10xf32>
}

// -----

// Without dims the tensor rolls flattened and is viewed back; a roll by a
// multiple of the size (or of a rank-0 tensor) moves nothing and goes, but
// a pin on it stays as a constraint.
// CHECK-LABEL: func.func @roll_flat
// CHECK-NEXT: %[[F:.*]] = sc.reshape %arg0 : (tensor<3x5xf32>) -> tensor<15xf32>
// CHECK-NEXT: %[[W:.*]] = sc.pad %[[F]] {mode = "circular", pad = array<i64: 0, 6>} : (tensor<15xf32>) -> tensor<21xf32>
// CHECK-NEXT: %[[C:.*]] = sc.pad %[[W]] {pad = array<i64: -6, 0>} : (tensor<21xf32>) -> tensor<15xf32>
// CHECK-NEXT: %[[R:.*]] = sc.reshape %[[C]] : (tensor<15xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %[[P:.*]] = sc.sharding_constraint %arg0 : tensor<3x5xf32> to #sc.sharding<@m, [{"x"}, {}]>
// CHECK-NEXT: return %[[R]], %[[P]], %arg0, %arg1
sc.mesh @m ["x"=2]
func.func @roll_flat(%x: tensor<3x5xf32>, %s: tensor<f32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<f32>) {
  %a = sc.roll %x {shifts = array<i64: -6>} : tensor<3x5xf32>
  %b = sc.roll %x {shifts = array<i64: 5>, dims = array<i64: 1>, sc.sharding = #sc.sharding<@m, [{"x"}, {}]>} : tensor<3x5xf32>
  %c = sc.roll %x {shifts = array<i64: 30>} : tensor<3x5xf32>
  %d = sc.roll %s {shifts = array<i64: 1>, dims = array<i64: 0>} : tensor<f32>
  return %a, %b, %c, %d : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<f32>
}

// -----

// hardtanh clamps; hardsigmoid and hardswish are PyTorch's
// min(max(x + 3, 0), 6) / 6 (times x first for hardswish); mish is
// x * tanh(log1p(exp(x))). The pin moves to the last op.
// CHECK-LABEL: func.func @hard_activations
// CHECK:      %[[LO:.*]] = sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[F:.*]] = sc.maximum %arg0, %[[LO]]
// CHECK-NEXT: %[[HI:.*]] = sc.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R6:.*]] = sc.minimum %[[F]], %[[HI]] {sc.sharding = #sc.sharding<@m, [{"x"}]>}
// CHECK-NEXT: %[[T3:.*]] = sc.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = sc.add %arg0, %[[T3]]
// CHECK-NEXT: %[[Z:.*]] = sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = sc.maximum %[[S]], %[[Z]]
// CHECK-NEXT: %[[SIX:.*]] = sc.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[RAMP:.*]] = sc.minimum %[[M]], %[[SIX]]
// CHECK-NEXT: %[[HS:.*]] = sc.div %[[RAMP]], %[[SIX]]
// CHECK:      %[[RAMP2:.*]] = sc.minimum
// CHECK-NEXT: %[[XR:.*]] = sc.mul %arg0, %[[RAMP2]]
// CHECK-NEXT: %[[HW:.*]] = sc.div %[[XR]], %{{.*}}
// CHECK-NEXT: %[[E:.*]] = sc.exp %arg0
// CHECK-NEXT: %[[SP:.*]] = sc.log1p %[[E]]
// CHECK-NEXT: %[[TH:.*]] = sc.tanh %[[SP]]
// CHECK-NEXT: %[[MISH:.*]] = sc.mul %arg0, %[[TH]]
// CHECK-NEXT: return %[[R6]], %[[HS]], %[[HW]], %[[MISH]]
sc.mesh @m ["x"=2]
func.func @hard_activations(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = sc.hardtanh %x {min_val = 0.0, max_val = 6.0, sc.sharding = #sc.sharding<@m, [{"x"}]>} : tensor<8xf32>
  %1 = sc.hardsigmoid %x : tensor<8xf32>
  %2 = sc.hardswish %x : tensor<8xf32>
  %3 = sc.mish %x : tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// torch.flip as one reflect pad: n - 1 mirrored in front, n - 1 cropped
// behind, on every flipped dim of size 2 or more (last dim first, as
// F.pad's amounts). Flipping only size-1 dims, or an empty tensor, moves
// nothing; a pin stays as a constraint.
// CHECK-LABEL: func.func @flip
// CHECK-NEXT: %[[F:.*]] = sc.pad %arg0 {mode = "reflect", pad = array<i64: 4, -4, 0, 0, 2, -2>, sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>} : (tensor<3x1x5xf32>) -> tensor<3x1x5xf32> loc(#[[FLOC:.*]])
// CHECK-NEXT: %[[P:.*]] = sc.sharding_constraint %arg0 : tensor<3x1x5xf32> to #sc.sharding<@m, [{}, {}, {"x"}]>
// CHECK-NEXT: return %[[F]], %[[P]], %arg1
// CHECK:      #[[FLOC]] = loc("model.py":4:2)
sc.mesh @m ["x"=2]
func.func @flip(%x: tensor<3x1x5xf32>, %e: tensor<0x4xf32>) -> (tensor<3x1x5xf32>, tensor<3x1x5xf32>, tensor<0x4xf32>) {
  %0 = sc.flip %x {dims = array<i64: -1, 1, 0>, sc.sharding = #sc.sharding<@m, [{"x"}, {}, {}]>} : tensor<3x1x5xf32> loc("model.py":4:2)
  %1 = sc.flip %x {dims = array<i64: 1>, sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}]>} : tensor<3x1x5xf32>
  %2 = sc.flip %e {dims = array<i64: 1>} : tensor<0x4xf32>
  return %0, %1, %2 : tensor<3x1x5xf32>, tensor<3x1x5xf32>, tensor<0x4xf32>
}

// -----

// F.pixel_shuffle: (*, C, r, r, H, W) -> (*, C, H, r, W, r) -> (*, C, H*r,
// W*r); unshuffle the other way. The pin lands on the last reshape.
// CHECK-LABEL: func.func @pixel_shuffle
// CHECK-NEXT: %[[A:.*]] = sc.reshape %arg0 : (tensor<3x8x6x5xf32>) -> tensor<3x2x2x2x6x5xf32>
// CHECK-NEXT: %[[B:.*]] = sc.permute %[[A]] {dims = array<i64: 0, 1, 4, 2, 5, 3>} : (tensor<3x2x2x2x6x5xf32>) -> tensor<3x2x6x2x5x2xf32>
// CHECK-NEXT: %[[C:.*]] = sc.reshape %[[B]] {sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<3x2x6x2x5x2xf32>) -> tensor<3x2x12x10xf32>
// CHECK-NEXT: %[[D:.*]] = sc.reshape %[[C]] : (tensor<3x2x12x10xf32>) -> tensor<3x2x6x2x5x2xf32>
// CHECK-NEXT: %[[E:.*]] = sc.permute %[[D]] {dims = array<i64: 0, 1, 3, 5, 2, 4>} : (tensor<3x2x6x2x5x2xf32>) -> tensor<3x2x2x2x6x5xf32>
// CHECK-NEXT: %[[F:.*]] = sc.reshape %[[E]] : (tensor<3x2x2x2x6x5xf32>) -> tensor<3x8x6x5xf32>
// CHECK-NEXT: return %[[C]], %[[F]]
sc.mesh @m ["x"=2]
func.func @pixel_shuffle(%x: tensor<3x8x6x5xf32>) -> (tensor<3x2x12x10xf32>, tensor<3x8x6x5xf32>) {
  %y = sc.pixel_shuffle %x {factor = 2, sc.sharding = #sc.sharding<@m, [{}, {}, {"x"}, {}]>} : (tensor<3x8x6x5xf32>) -> tensor<3x2x12x10xf32>
  %z = sc.pixel_unshuffle %y {factor = 2} : (tensor<3x2x12x10xf32>) -> tensor<3x8x6x5xf32>
  return %y, %z : tensor<3x2x12x10xf32>, tensor<3x8x6x5xf32>
}

// -----

// prelu views one slope per channel along dim 1, (C) as (C, 1, 1), so it
// broadcasts over the spatial dims; one slope for all is used as it is.
// CHECK-LABEL: func.func @prelu
// CHECK:      %[[W:.*]] = sc.reshape %arg1 : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK-NEXT: %[[Z:.*]] = sc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P:.*]] = sc.compare %arg0, %[[Z]] {predicate = "gt"}
// CHECK-NEXT: %[[S:.*]] = sc.mul %arg0, %[[W]] : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT: %[[Y:.*]] = sc.select %[[P]], %arg0, %[[S]]
// CHECK:      sc.mul %arg0, %arg2 : (tensor<2x3x4x5xf32>, tensor<1xf32>) -> tensor<2x3x4x5xf32>
func.func @prelu(%x: tensor<2x3x4x5xf32>, %w: tensor<3xf32>, %o: tensor<1xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %y = sc.prelu %x, %w : (tensor<2x3x4x5xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  %z = sc.prelu %x, %o : (tensor<2x3x4x5xf32>, tensor<1xf32>) -> tensor<2x3x4x5xf32>
  return %y, %z : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
}

// -----

// A scalar's one slope is viewed as a scalar, so the result stays rank 0.
// CHECK-LABEL: func.func @prelu_scalar
// CHECK:      %[[W:.*]] = sc.reshape %arg1 : (tensor<1xf32>) -> tensor<f32>
// CHECK:      sc.mul %arg0, %[[W]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @prelu_scalar(%x: tensor<f32>, %w: tensor<1xf32>) -> tensor<f32> {
  %y = sc.prelu %x, %w : (tensor<f32>, tensor<1xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// Softmax over a scalar's one element is exp(x - x) (1, NaN where x is not
// finite) and log_softmax x - x; the pin moves to the last op.
// CHECK-LABEL: func.func @softmax_scalar
// CHECK-NEXT: %[[D:.*]] = sc.sub %arg0, %arg0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[S:.*]] = sc.exp %[[D]] {sc.sharding = #sc.sharding<@m, []>} : tensor<f32>
// CHECK-NEXT: %[[L:.*]] = sc.sub %arg0, %arg0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: return %[[S]], %[[L]]
sc.mesh @m ["x"=2]
func.func @softmax_scalar(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y = sc.softmax %x {dim = -1 : i64, sc.sharding = #sc.sharding<@m, []>} : (tensor<f32>) -> tensor<f32>
  %z = sc.log_softmax %x {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %y, %z : tensor<f32>, tensor<f32>
}

// -----

// selu and celu as PyTorch's elu kernel computes them, its coefficients
// rounded to float: selu x > 0 ? x * scale : expm1(x) * (alpha * scale)
// (the float product 1.75809932); celu expm1(x * (1 / alpha)) * alpha.
// CHECK-LABEL: func.func @selu_celu
// CHECK-NEXT: %[[E:.*]] = sc.expm1 %arg0
// CHECK-NEXT: %[[NC:.*]] = sc.constant dense<1.75809932> : tensor<f32>
// CHECK-NEXT: %[[N:.*]] = sc.mul %[[E]], %[[NC]]
// CHECK-NEXT: %[[PC:.*]] = sc.constant dense<1.05070102> : tensor<f32>
// CHECK-NEXT: %[[P:.*]] = sc.mul %arg0, %[[PC]]
// CHECK-NEXT: sc.constant dense<0.000000e+00>
// CHECK-NEXT: %[[G:.*]] = sc.compare %arg0
// CHECK-NEXT: %[[SELU:.*]] = sc.select %[[G]], %[[P]], %[[N]]
// CHECK-NEXT: %[[IC:.*]] = sc.constant dense<1.42857146> : tensor<f32>
// CHECK-NEXT: %[[I:.*]] = sc.mul %arg0, %[[IC]]
// CHECK-NEXT: %[[E2:.*]] = sc.expm1 %[[I]]
// CHECK-NEXT: %[[AC:.*]] = sc.constant dense<0.699999988> : tensor<f32>
// CHECK-NEXT: %[[N2:.*]] = sc.mul %[[E2]], %[[AC]]
// CHECK-NEXT: sc.constant dense<0.000000e+00>
// CHECK-NEXT: %[[G2:.*]] = sc.compare %arg0
// CHECK-NEXT: %[[CELU:.*]] = sc.select %[[G2]], %arg0, %[[N2]]
// CHECK-NEXT: return %[[SELU]], %[[CELU]]
func.func @selu_celu(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = sc.selu %x : tensor<8xf32>
  %1 = sc.celu %x {alpha = 0.7} : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// torch.square, sign ((0 < x) - (x < 0): 0 for NaN), logaddexp (a where
// both are the same infinity), nan_to_num (the type's largest finite values
// by default) and isnan / isinf / isfinite as comparisons.
// CHECK-LABEL: func.func @float_forms
// CHECK-NEXT: %[[SQ:.*]] = sc.mul %arg0, %arg0
// CHECK:      %[[LT:.*]] = sc.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK:      %[[NEG:.*]] = sc.select %[[LT]]
// CHECK:      %[[GT:.*]] = sc.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK-NEXT: %[[SIGN:.*]] = sc.select %[[GT]], %{{.*}}, %[[NEG]]
// CHECK-NEXT: %[[HI:.*]] = sc.maximum %arg0, %arg1
// CHECK-NEXT: %[[D:.*]] = sc.sub %arg0, %arg1
// CHECK-NEXT: %[[G:.*]] = sc.abs %[[D]]
// CHECK-NEXT: %[[N:.*]] = sc.neg %[[G]]
// CHECK-NEXT: %[[E:.*]] = sc.exp %[[N]]
// CHECK-NEXT: %[[T:.*]] = sc.log1p %[[E]]
// CHECK-NEXT: %[[GEN:.*]] = sc.add %[[HI]], %[[T]]
// CHECK:      %[[INF:.*]] = sc.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK-NEXT: %[[SAME:.*]] = sc.select %[[INF]], %arg0, %[[GEN]]
// CHECK-NEXT: %[[EQ:.*]] = sc.compare %arg0, %arg1 {predicate = "eq"}
// CHECK-NEXT: %[[LAE:.*]] = sc.select %[[EQ]], %[[SAME]], %[[GEN]]
// CHECK:      sc.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK:      sc.constant dense<3.40282347E+38> : tensor<f32>
// CHECK:      %[[ISNAN:.*]] = sc.compare %arg0, %arg0 {predicate = "ne"}
// CHECK-NEXT: %[[CLEAN:.*]] = sc.select %[[ISNAN]]
// CHECK-NEXT: %[[NAN:.*]] = sc.compare %arg0, %arg0 {predicate = "ne"}
// CHECK:      %[[ISINF:.*]] = sc.compare %{{.*}}, %{{.*}} {predicate = "eq"}
// CHECK:      %[[FIN:.*]] = sc.compare %{{.*}}, %{{.*}} {predicate = "lt"} {{.*}} -> tensor<4xi1>
// CHECK-NEXT: return %[[SQ]], %[[SIGN]], %[[LAE]], %[[CLEAN]], %[[NAN]], %[[ISINF]], %[[FIN]]
func.func @float_forms(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = sc.square %x : tensor<4xf32>
  %1 = sc.sign %x : tensor<4xf32>
  %2 = sc.logaddexp %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = sc.nan_to_num %x : tensor<4xf32>
  %4 = sc.isnan %x : (tensor<4xf32>) -> tensor<4xi1>
  %5 = sc.isinf %x : (tensor<4xf32>) -> tensor<4xi1>
  %6 = sc.isfinite %x : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// F.hardshrink (-lambd <= x <= lambd ? 0 : x), F.softshrink (x * 0 between
// the bounds keeps -0 and NaN), F.tanhshrink, F.threshold (x <= threshold ?
// value : x) and F.softmin (softmax of -x), as ATen's kernels.
// CHECK-LABEL: func.func @shrink
// CHECK:      %[[LE:.*]] = sc.compare %arg0, %{{.*}} {predicate = "le"}
// CHECK-NEXT: %[[IN:.*]] = sc.select %[[LE]], %{{.*}}, %arg0
// CHECK:      %[[GE:.*]] = sc.compare %arg0, %{{.*}} {predicate = "ge"}
// CHECK-NEXT: %[[HARD:.*]] = sc.select %[[GE]], %[[IN]], %arg0
// CHECK:      %[[ZEROED:.*]] = sc.mul %arg0, %{{.*}}
// CHECK:      sc.constant dense<-2.500000e-01>
// CHECK-NEXT: %[[LT:.*]] = sc.compare %arg0, %{{.*}} {predicate = "lt"}
// CHECK:      %[[UP:.*]] = sc.add %arg0
// CHECK-NEXT: %[[MID:.*]] = sc.select %[[LT]], %[[UP]], %[[ZEROED]]
// CHECK:      %[[DOWN:.*]] = sc.sub %arg0
// CHECK:      %[[GT:.*]] = sc.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK-NEXT: %[[SOFT:.*]] = sc.select %[[GT]], %[[DOWN]], %[[MID]]
// CHECK-NEXT: %[[T:.*]] = sc.tanh %arg0
// CHECK-NEXT: %[[TANH:.*]] = sc.sub %arg0, %[[T]]
// CHECK:      %[[AT:.*]] = sc.compare %arg0, %{{.*}} {predicate = "le"}
// CHECK-NEXT: sc.constant dense<2.000000e+01>
// CHECK-NEXT: %[[TH:.*]] = sc.select %[[AT]], %{{.*}}, %arg0
// CHECK-NEXT: %[[NEG:.*]] = sc.neg %arg0
// CHECK-NEXT: %[[MIN:.*]] = sc.softmax %[[NEG]] {dim = -1 : i64}
// CHECK-NEXT: return %[[HARD]], %[[SOFT]], %[[TANH]], %[[TH]], %[[MIN]]
func.func @shrink(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = sc.hardshrink %x : tensor<4xf32>
  %1 = sc.softshrink %x {lambd = 0.25} : tensor<4xf32>
  %2 = sc.tanhshrink %x : tensor<4xf32>
  %3 = sc.threshold %x {threshold = 0.1, value = 20.0} : tensor<4xf32>
  %4 = sc.softmin %x {dim = -1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

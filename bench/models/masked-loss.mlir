// bench/cpu_fusion.py --model bench/models/masked-loss.mlir: a masked loss
// on 2 ranks. Per row of a 4096 x 2048 field split by rows, the squared
// error over the valid points and their count, as a scientific model's
// loss over a validity mask (land/sea, missing sensors) is written:
// where(valid, (p - t)^2, 0).sum(1) and valid.float().sum(1), `valid` an i1
// model input. Fused (-O3) each is one ReductionFused reading the mask's
// bytes; unfused (-O2) a Binary, a Binary, a Select, a Cast and two Reduces,
// with an f32 copy of the mask and a full-size select in the arena.
sc.mesh @m ["x"=2]
func.func @main(%p: tensor<4096x2048xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>},
                %t: tensor<4096x2048xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>},
                %valid: tensor<4096x2048xi1> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> (tensor<4096xf32>, tensor<4096xf32>) {
  %zero = sc.constant dense<0.0> : tensor<1x1xf32>
  %d = sc.sub %p, %t : (tensor<4096x2048xf32>, tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %sq = sc.mul %d, %d : (tensor<4096x2048xf32>, tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %masked = sc.select %valid, %sq, %zero : (tensor<4096x2048xi1>, tensor<4096x2048xf32>, tensor<1x1xf32>) -> tensor<4096x2048xf32>
  %err = sc.sum %masked {dims = array<i64: 1>} : (tensor<4096x2048xf32>) -> tensor<4096xf32>
  %vf = sc.cast %valid : tensor<4096x2048xi1> to tensor<4096x2048xf32>
  %count = sc.sum %vf {dims = array<i64: 1>} : (tensor<4096x2048xf32>) -> tensor<4096xf32>
  return %err, %count : tensor<4096xf32>, tensor<4096xf32>
}

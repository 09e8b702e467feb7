// bench/cpu_fusion.py --model bench/models/masks.mlir: masks on 2 ranks.
// A leaky ReLU written as torch.where(x > 0, x, 0.2 * x) and the fraction
// of each row below a threshold, (x < 0.5).float().mean(1), on a 4096 x
// 2048 field split by rows. Unfused (-O2) they are two Compares, a Binary,
// a Select, a Cast and a Reduce with two i1 masks in the arena; fused
// (-O3) one ElementwiseFused and one ReductionFused.
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<4096x2048xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> (tensor<4096x2048xf32>, tensor<4096xf32>) {
  %zero = sc.constant dense<0.0> : tensor<1x1xf32>
  %slope = sc.constant dense<0.2> : tensor<1x1xf32>
  %thr = sc.constant dense<0.5> : tensor<1x1xf32>
  %p = sc.compare %x, %zero {predicate = "gt"} : (tensor<4096x2048xf32>, tensor<1x1xf32>) -> tensor<4096x2048xi1>
  %s = sc.mul %x, %slope : (tensor<4096x2048xf32>, tensor<1x1xf32>) -> tensor<4096x2048xf32>
  %leaky = sc.select %p, %x, %s : (tensor<4096x2048xi1>, tensor<4096x2048xf32>, tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %q = sc.compare %x, %thr {predicate = "lt"} : (tensor<4096x2048xf32>, tensor<1x1xf32>) -> tensor<4096x2048xi1>
  %qf = sc.cast %q : tensor<4096x2048xi1> to tensor<4096x2048xf32>
  %frac = sc.mean %qf {dims = array<i64: 1>} : (tensor<4096x2048xf32>) -> tensor<4096xf32>
  return %leaky, %frac : tensor<4096x2048xf32>, tensor<4096xf32>
}

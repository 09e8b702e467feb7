// Buffers past the runtime's 2^40 elements per slot: a per-rank buffer that
// large is refused at the op that needs it (it used to be an "internal
// error" at the function); a model whose whole tensors pass 2^40 but whose
// shards do not compiles, without the unpartitioned reference --check uses
// (it used to fail), and says so.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not shardc %t/pad.mlir -o %t/pad.shardbin 2>&1 | FileCheck %s --check-prefix=PAD
// RUN: not shardc %t/fft.mlir -o %t/fft.shardbin 2>&1 | FileCheck %s --check-prefix=FFT
// RUN: shardc %t/split.mlir --emit=plan 2>&1 | FileCheck %s --check-prefix=SPLIT
// An intermediate only the decomposition makes (einsum's first pair, 2^41
// elements whole, 2^39 per rank) is found in the reference too.
// RUN: shardc %t/chain.mlir --emit=plan 2>&1 | FileCheck %s --check-prefix=CHAIN
// PAD: pad.mlir:{{[0-9]+}}:8: error: needs a per-rank buffer of 2097153x1048584xf32, more than 2^40 elements (zero dims counted as one), which the runtime's buffers hold at most; split it over more ranks or make it smaller
// PAD-NOT: internal error
// FFT: fft.mlir:{{[0-9]+}}:8: error: needs a per-rank buffer of 1048577x2097152xf32
// SPLIT: split.mlir:{{[0-9]+}}:17: warning: no unpartitioned reference is embedded (shard-run --check needs one): this value of 2097152x1048576xf32 has more than 2^40 elements on one rank
// SPLIT: inputs: (524288,1048576)
// CHAIN: chain.mlir:{{[0-9]+}}:8: warning: no unpartitioned reference is embedded (shard-run --check needs one): this value of 1048576x2097152xf32 has more than 2^40 elements on one rank
// CHAIN: inputs: (262144,1) (1,2097152) (2097152,1)

//--- pad.mlir
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> tensor<2097156x1048584xf32> {
  %y = sc.pad %x {pad = array<i64: 0, 1048576, 0, 2097152>} : (tensor<4x8xf32>) -> tensor<2097156x1048584xf32>
  return %y : tensor<2097156x1048584xf32>
}

//--- fft.mlir
func.func @main(%x: tensor<1x1x2xf32>) -> tensor<1048576x1048577x2xf32> {
  %y = sc.fft %x {dims = array<i64: 0, 1>, sizes = array<i64: 1048576, 1048577>} : (tensor<1x1x2xf32>) -> tensor<1048576x1048577x2xf32>
  return %y : tensor<1048576x1048577x2xf32>
}

//--- split.mlir
sc.mesh @m ["x"=4]
func.func @main(%x: tensor<2097152x1048576xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> (tensor<2097152x1048576xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) {
  %y = sc.relu %x : tensor<2097152x1048576xf32>
  return %y : tensor<2097152x1048576xf32>
}

//--- chain.mlir
sc.mesh @m ["x"=4]
func.func @main(%a: tensor<1048576x1xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %b: tensor<1x2097152xf32>, %c: tensor<2097152x1xf32>) -> (tensor<1048576x1xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) {
  %y = sc.einsum %a, %b, %c {equation = "ab,bc,cd->ad"} : (tensor<1048576x1xf32>, tensor<1x2097152xf32>, tensor<2097152x1xf32>) -> tensor<1048576x1xf32>
  return %y : tensor<1048576x1xf32>
}

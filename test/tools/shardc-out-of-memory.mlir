// A model whose compile needs far more memory than the process may use (a
// ring over 16384 ranks, unrolled: 16384 steps on each rank) ends with
// shardc's own message and exit 1: not LLVM's stack dump and bug-report
// plea (an abort, which `not` refuses). It writes nothing: an output file
// from before is left as it was. The address space limit is set for shardc
// alone; two malloc arenas keep the start-up reservation small on machines
// with many cores.
// RUN: echo stale > %t.shardbin
// RUN: not sh -c 'ulimit -v 2000000 && MALLOC_ARENA_MAX=2 exec shardc %s --unroll-rings -o %t.shardbin' 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=STALE --match-full-lines --input-file %t.shardbin
// STALE: stale
// CHECK: shardc: out of memory: compiling this model needs more memory
// CHECK-NOT: Stack dump
// CHECK-NOT: PLEASE

sc.mesh @mesh ["x"=16384]
func.func @main(%q: tensor<1x16384x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                %k: tensor<1x16384x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>},
                %v: tensor<1x16384x4xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x16384x4xf32> {
  %y = sc.scaled_dot_product_attention %q, %k, %v : (tensor<1x16384x4xf32>, tensor<1x16384x4xf32>, tensor<1x16384x4xf32>) -> tensor<1x16384x4xf32>
  return %y : tensor<1x16384x4xf32>
}

// A 0-d constant is stored with an empty shape, which the artifact reader
// must compare without dereferencing it (it crashed once).
// RUN: shardc %s -o %t.shardbin
// RUN: shard-run %t.shardbin | FileCheck %s
// CHECK: 1 rank(s) on cpu, 0 input(s), 1 output(s)

func.func @main() -> tensor<f32> {
  %0 = sc.constant dense<2.5> : tensor<f32>
  return %0 : tensor<f32>
}

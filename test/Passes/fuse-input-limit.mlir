// sc-fuse keeps a fused kernel within the runtime's 64 inputs
// (shardrt/artifact/FusedLimits.h): a chain of 70 adds, each of a new
// input, becomes a kernel of 63 adds over 64 inputs and one of the other 7.
// Before the limit, shardc stopped with "the runtime would refuse the
// lowered rank program ... has 71 inputs; expected 1 to 64" (found by a
// fuzz helper).
// RUN: shardc %s -O3 --emit=kernels | FileCheck %s
// RUN: shardc %s -O3 -o %t.shardbin
// RUN: shard-run %t.shardbin --random-inputs --seed 2 --check | FileCheck %s --check-prefix=NUM
// RUN: shardc %s --target=cuda -o %t.cuda.shardbin
// RUN: shard-run %t.cuda.shardbin --random-inputs --seed 3 --check | FileCheck %s --check-prefix=NUM
// REQUIRES: nvcc
// CHECK: 0: ElementwiseFused "{{(add ){62}add}}" ({{(%[0-9]+, ){63}%[0-9]+}}) ->
// CHECK-NEXT: 1: ElementwiseFused "{{(add ){6}add}}" ({{(%[0-9]+, ){7}%[0-9]+}}) ->
// CHECK-NOT: ElementwiseFused
// NUM: check result0: {{.*}}: ok
sc.mesh @m ["x"=2]
func.func @main(%x: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a0: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a1: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a2: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a3: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a4: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a5: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a6: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a7: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a8: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a9: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a10: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a11: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a12: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a13: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a14: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a15: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a16: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a17: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a18: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a19: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a20: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a21: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a22: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a23: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a24: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a25: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a26: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a27: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a28: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a29: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a30: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a31: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a32: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a33: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a34: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a35: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a36: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a37: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a38: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a39: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a40: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a41: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a42: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a43: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a44: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a45: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a46: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a47: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a48: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a49: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a50: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a51: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a52: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a53: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a54: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a55: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a56: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a57: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a58: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a59: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a60: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a61: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a62: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a63: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a64: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a65: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a66: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a67: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a68: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}, %a69: tensor<4x8xf32> {sc.sharding = #sc.sharding<@m, [{"x"}, {}]>}) -> tensor<4x8xf32> {
  %s0 = sc.add %x, %a0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s1 = sc.add %s0, %a1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s2 = sc.add %s1, %a2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s3 = sc.add %s2, %a3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s4 = sc.add %s3, %a4 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s5 = sc.add %s4, %a5 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s6 = sc.add %s5, %a6 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s7 = sc.add %s6, %a7 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s8 = sc.add %s7, %a8 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s9 = sc.add %s8, %a9 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s10 = sc.add %s9, %a10 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s11 = sc.add %s10, %a11 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s12 = sc.add %s11, %a12 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s13 = sc.add %s12, %a13 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s14 = sc.add %s13, %a14 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s15 = sc.add %s14, %a15 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s16 = sc.add %s15, %a16 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s17 = sc.add %s16, %a17 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s18 = sc.add %s17, %a18 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s19 = sc.add %s18, %a19 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s20 = sc.add %s19, %a20 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s21 = sc.add %s20, %a21 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s22 = sc.add %s21, %a22 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s23 = sc.add %s22, %a23 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s24 = sc.add %s23, %a24 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s25 = sc.add %s24, %a25 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s26 = sc.add %s25, %a26 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s27 = sc.add %s26, %a27 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s28 = sc.add %s27, %a28 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s29 = sc.add %s28, %a29 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s30 = sc.add %s29, %a30 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s31 = sc.add %s30, %a31 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s32 = sc.add %s31, %a32 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s33 = sc.add %s32, %a33 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s34 = sc.add %s33, %a34 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s35 = sc.add %s34, %a35 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s36 = sc.add %s35, %a36 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s37 = sc.add %s36, %a37 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s38 = sc.add %s37, %a38 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s39 = sc.add %s38, %a39 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s40 = sc.add %s39, %a40 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s41 = sc.add %s40, %a41 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s42 = sc.add %s41, %a42 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s43 = sc.add %s42, %a43 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s44 = sc.add %s43, %a44 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s45 = sc.add %s44, %a45 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s46 = sc.add %s45, %a46 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s47 = sc.add %s46, %a47 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s48 = sc.add %s47, %a48 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s49 = sc.add %s48, %a49 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s50 = sc.add %s49, %a50 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s51 = sc.add %s50, %a51 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s52 = sc.add %s51, %a52 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s53 = sc.add %s52, %a53 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s54 = sc.add %s53, %a54 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s55 = sc.add %s54, %a55 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s56 = sc.add %s55, %a56 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s57 = sc.add %s56, %a57 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s58 = sc.add %s57, %a58 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s59 = sc.add %s58, %a59 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s60 = sc.add %s59, %a60 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s61 = sc.add %s60, %a61 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s62 = sc.add %s61, %a62 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s63 = sc.add %s62, %a63 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s64 = sc.add %s63, %a64 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s65 = sc.add %s64, %a65 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s66 = sc.add %s65, %a66 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s67 = sc.add %s66, %a67 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s68 = sc.add %s67, %a68 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s69 = sc.add %s68, %a69 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s69 : tensor<4x8xf32>
}

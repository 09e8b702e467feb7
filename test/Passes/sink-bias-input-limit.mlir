// sc-sink-bias keeps a fused kernel within the runtime's 64 inputs
// (shardrt/artifact/FusedLimits.h): the bias is one more input of the
// reader's kernel, so a reader that already takes 64 leaves the bias in the
// Linear, and one that takes 63 takes it (64 then).
// RUN: shardc-opt -sc-sink-bias %s | FileCheck %s

sc.mesh @mesh ["x"=2]
func.func @at_limit(%x: memref<6x5xf32>, %w: memref<8x5xf32>, %b: memref<8xf32>, %a0: memref<6x8xf32>, %a1: memref<6x8xf32>, %a2: memref<6x8xf32>, %a3: memref<6x8xf32>, %a4: memref<6x8xf32>, %a5: memref<6x8xf32>, %a6: memref<6x8xf32>, %a7: memref<6x8xf32>, %a8: memref<6x8xf32>, %a9: memref<6x8xf32>, %a10: memref<6x8xf32>, %a11: memref<6x8xf32>, %a12: memref<6x8xf32>, %a13: memref<6x8xf32>, %a14: memref<6x8xf32>, %a15: memref<6x8xf32>, %a16: memref<6x8xf32>, %a17: memref<6x8xf32>, %a18: memref<6x8xf32>, %a19: memref<6x8xf32>, %a20: memref<6x8xf32>, %a21: memref<6x8xf32>, %a22: memref<6x8xf32>, %a23: memref<6x8xf32>, %a24: memref<6x8xf32>, %a25: memref<6x8xf32>, %a26: memref<6x8xf32>, %a27: memref<6x8xf32>, %a28: memref<6x8xf32>, %a29: memref<6x8xf32>, %a30: memref<6x8xf32>, %a31: memref<6x8xf32>, %a32: memref<6x8xf32>, %a33: memref<6x8xf32>, %a34: memref<6x8xf32>, %a35: memref<6x8xf32>, %a36: memref<6x8xf32>, %a37: memref<6x8xf32>, %a38: memref<6x8xf32>, %a39: memref<6x8xf32>, %a40: memref<6x8xf32>, %a41: memref<6x8xf32>, %a42: memref<6x8xf32>, %a43: memref<6x8xf32>, %a44: memref<6x8xf32>, %a45: memref<6x8xf32>, %a46: memref<6x8xf32>, %a47: memref<6x8xf32>, %a48: memref<6x8xf32>, %a49: memref<6x8xf32>, %a50: memref<6x8xf32>, %a51: memref<6x8xf32>, %a52: memref<6x8xf32>, %a53: memref<6x8xf32>, %a54: memref<6x8xf32>, %a55: memref<6x8xf32>, %a56: memref<6x8xf32>, %a57: memref<6x8xf32>, %a58: memref<6x8xf32>, %a59: memref<6x8xf32>, %a60: memref<6x8xf32>, %a61: memref<6x8xf32>, %a62: memref<6x8xf32>) -> memref<6x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<6x8xf32>
  scl.kernel "Linear" ins(%x, %w, %b : memref<6x5xf32>, memref<8x5xf32>, memref<8xf32>) outs(%y : memref<6x8xf32>)
  %z = memref.alloc() : memref<6x8xf32>
  scl.fused_elementwise ins(%y, %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16, %a17, %a18, %a19, %a20, %a21, %a22, %a23, %a24, %a25, %a26, %a27, %a28, %a29, %a30, %a31, %a32, %a33, %a34, %a35, %a36, %a37, %a38, %a39, %a40, %a41, %a42, %a43, %a44, %a45, %a46, %a47, %a48, %a49, %a50, %a51, %a52, %a53, %a54, %a55, %a56, %a57, %a58, %a59, %a60, %a61, %a62 : memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>) outs(%z : memref<6x8xf32>) {
  ^bb0(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %v8: f32, %v9: f32, %v10: f32, %v11: f32, %v12: f32, %v13: f32, %v14: f32, %v15: f32, %v16: f32, %v17: f32, %v18: f32, %v19: f32, %v20: f32, %v21: f32, %v22: f32, %v23: f32, %v24: f32, %v25: f32, %v26: f32, %v27: f32, %v28: f32, %v29: f32, %v30: f32, %v31: f32, %v32: f32, %v33: f32, %v34: f32, %v35: f32, %v36: f32, %v37: f32, %v38: f32, %v39: f32, %v40: f32, %v41: f32, %v42: f32, %v43: f32, %v44: f32, %v45: f32, %v46: f32, %v47: f32, %v48: f32, %v49: f32, %v50: f32, %v51: f32, %v52: f32, %v53: f32, %v54: f32, %v55: f32, %v56: f32, %v57: f32, %v58: f32, %v59: f32, %v60: f32, %v61: f32, %v62: f32, %v63: f32):
    %s1 = scl.scalar "add"(%v0, %v1) : f32
    %s2 = scl.scalar "add"(%s1, %v2) : f32
    %s3 = scl.scalar "add"(%s2, %v3) : f32
    %s4 = scl.scalar "add"(%s3, %v4) : f32
    %s5 = scl.scalar "add"(%s4, %v5) : f32
    %s6 = scl.scalar "add"(%s5, %v6) : f32
    %s7 = scl.scalar "add"(%s6, %v7) : f32
    %s8 = scl.scalar "add"(%s7, %v8) : f32
    %s9 = scl.scalar "add"(%s8, %v9) : f32
    %s10 = scl.scalar "add"(%s9, %v10) : f32
    %s11 = scl.scalar "add"(%s10, %v11) : f32
    %s12 = scl.scalar "add"(%s11, %v12) : f32
    %s13 = scl.scalar "add"(%s12, %v13) : f32
    %s14 = scl.scalar "add"(%s13, %v14) : f32
    %s15 = scl.scalar "add"(%s14, %v15) : f32
    %s16 = scl.scalar "add"(%s15, %v16) : f32
    %s17 = scl.scalar "add"(%s16, %v17) : f32
    %s18 = scl.scalar "add"(%s17, %v18) : f32
    %s19 = scl.scalar "add"(%s18, %v19) : f32
    %s20 = scl.scalar "add"(%s19, %v20) : f32
    %s21 = scl.scalar "add"(%s20, %v21) : f32
    %s22 = scl.scalar "add"(%s21, %v22) : f32
    %s23 = scl.scalar "add"(%s22, %v23) : f32
    %s24 = scl.scalar "add"(%s23, %v24) : f32
    %s25 = scl.scalar "add"(%s24, %v25) : f32
    %s26 = scl.scalar "add"(%s25, %v26) : f32
    %s27 = scl.scalar "add"(%s26, %v27) : f32
    %s28 = scl.scalar "add"(%s27, %v28) : f32
    %s29 = scl.scalar "add"(%s28, %v29) : f32
    %s30 = scl.scalar "add"(%s29, %v30) : f32
    %s31 = scl.scalar "add"(%s30, %v31) : f32
    %s32 = scl.scalar "add"(%s31, %v32) : f32
    %s33 = scl.scalar "add"(%s32, %v33) : f32
    %s34 = scl.scalar "add"(%s33, %v34) : f32
    %s35 = scl.scalar "add"(%s34, %v35) : f32
    %s36 = scl.scalar "add"(%s35, %v36) : f32
    %s37 = scl.scalar "add"(%s36, %v37) : f32
    %s38 = scl.scalar "add"(%s37, %v38) : f32
    %s39 = scl.scalar "add"(%s38, %v39) : f32
    %s40 = scl.scalar "add"(%s39, %v40) : f32
    %s41 = scl.scalar "add"(%s40, %v41) : f32
    %s42 = scl.scalar "add"(%s41, %v42) : f32
    %s43 = scl.scalar "add"(%s42, %v43) : f32
    %s44 = scl.scalar "add"(%s43, %v44) : f32
    %s45 = scl.scalar "add"(%s44, %v45) : f32
    %s46 = scl.scalar "add"(%s45, %v46) : f32
    %s47 = scl.scalar "add"(%s46, %v47) : f32
    %s48 = scl.scalar "add"(%s47, %v48) : f32
    %s49 = scl.scalar "add"(%s48, %v49) : f32
    %s50 = scl.scalar "add"(%s49, %v50) : f32
    %s51 = scl.scalar "add"(%s50, %v51) : f32
    %s52 = scl.scalar "add"(%s51, %v52) : f32
    %s53 = scl.scalar "add"(%s52, %v53) : f32
    %s54 = scl.scalar "add"(%s53, %v54) : f32
    %s55 = scl.scalar "add"(%s54, %v55) : f32
    %s56 = scl.scalar "add"(%s55, %v56) : f32
    %s57 = scl.scalar "add"(%s56, %v57) : f32
    %s58 = scl.scalar "add"(%s57, %v58) : f32
    %s59 = scl.scalar "add"(%s58, %v59) : f32
    %s60 = scl.scalar "add"(%s59, %v60) : f32
    %s61 = scl.scalar "add"(%s60, %v61) : f32
    %s62 = scl.scalar "add"(%s61, %v62) : f32
    %s63 = scl.scalar "add"(%s62, %v63) : f32
    scl.yield %s63 : f32
  }
  return %z : memref<6x8xf32>
}
// CHECK-LABEL: func.func @at_limit
// CHECK: scl.kernel "Linear" ins(%arg0, %arg1, %arg2 :
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: scl.fused_elementwise ins({{(%[a-z0-9_]+, ){63}%[a-z0-9_]+}} :
// CHECK-SAME: outs(

func.func @below_limit(%x: memref<6x5xf32>, %w: memref<8x5xf32>, %b: memref<8xf32>, %a0: memref<6x8xf32>, %a1: memref<6x8xf32>, %a2: memref<6x8xf32>, %a3: memref<6x8xf32>, %a4: memref<6x8xf32>, %a5: memref<6x8xf32>, %a6: memref<6x8xf32>, %a7: memref<6x8xf32>, %a8: memref<6x8xf32>, %a9: memref<6x8xf32>, %a10: memref<6x8xf32>, %a11: memref<6x8xf32>, %a12: memref<6x8xf32>, %a13: memref<6x8xf32>, %a14: memref<6x8xf32>, %a15: memref<6x8xf32>, %a16: memref<6x8xf32>, %a17: memref<6x8xf32>, %a18: memref<6x8xf32>, %a19: memref<6x8xf32>, %a20: memref<6x8xf32>, %a21: memref<6x8xf32>, %a22: memref<6x8xf32>, %a23: memref<6x8xf32>, %a24: memref<6x8xf32>, %a25: memref<6x8xf32>, %a26: memref<6x8xf32>, %a27: memref<6x8xf32>, %a28: memref<6x8xf32>, %a29: memref<6x8xf32>, %a30: memref<6x8xf32>, %a31: memref<6x8xf32>, %a32: memref<6x8xf32>, %a33: memref<6x8xf32>, %a34: memref<6x8xf32>, %a35: memref<6x8xf32>, %a36: memref<6x8xf32>, %a37: memref<6x8xf32>, %a38: memref<6x8xf32>, %a39: memref<6x8xf32>, %a40: memref<6x8xf32>, %a41: memref<6x8xf32>, %a42: memref<6x8xf32>, %a43: memref<6x8xf32>, %a44: memref<6x8xf32>, %a45: memref<6x8xf32>, %a46: memref<6x8xf32>, %a47: memref<6x8xf32>, %a48: memref<6x8xf32>, %a49: memref<6x8xf32>, %a50: memref<6x8xf32>, %a51: memref<6x8xf32>, %a52: memref<6x8xf32>, %a53: memref<6x8xf32>, %a54: memref<6x8xf32>, %a55: memref<6x8xf32>, %a56: memref<6x8xf32>, %a57: memref<6x8xf32>, %a58: memref<6x8xf32>, %a59: memref<6x8xf32>, %a60: memref<6x8xf32>, %a61: memref<6x8xf32>) -> memref<6x8xf32>
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<6x8xf32>
  scl.kernel "Linear" ins(%x, %w, %b : memref<6x5xf32>, memref<8x5xf32>, memref<8xf32>) outs(%y : memref<6x8xf32>)
  %z = memref.alloc() : memref<6x8xf32>
  scl.fused_elementwise ins(%y, %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16, %a17, %a18, %a19, %a20, %a21, %a22, %a23, %a24, %a25, %a26, %a27, %a28, %a29, %a30, %a31, %a32, %a33, %a34, %a35, %a36, %a37, %a38, %a39, %a40, %a41, %a42, %a43, %a44, %a45, %a46, %a47, %a48, %a49, %a50, %a51, %a52, %a53, %a54, %a55, %a56, %a57, %a58, %a59, %a60, %a61 : memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>) outs(%z : memref<6x8xf32>) {
  ^bb0(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %v8: f32, %v9: f32, %v10: f32, %v11: f32, %v12: f32, %v13: f32, %v14: f32, %v15: f32, %v16: f32, %v17: f32, %v18: f32, %v19: f32, %v20: f32, %v21: f32, %v22: f32, %v23: f32, %v24: f32, %v25: f32, %v26: f32, %v27: f32, %v28: f32, %v29: f32, %v30: f32, %v31: f32, %v32: f32, %v33: f32, %v34: f32, %v35: f32, %v36: f32, %v37: f32, %v38: f32, %v39: f32, %v40: f32, %v41: f32, %v42: f32, %v43: f32, %v44: f32, %v45: f32, %v46: f32, %v47: f32, %v48: f32, %v49: f32, %v50: f32, %v51: f32, %v52: f32, %v53: f32, %v54: f32, %v55: f32, %v56: f32, %v57: f32, %v58: f32, %v59: f32, %v60: f32, %v61: f32, %v62: f32):
    %s1 = scl.scalar "add"(%v0, %v1) : f32
    %s2 = scl.scalar "add"(%s1, %v2) : f32
    %s3 = scl.scalar "add"(%s2, %v3) : f32
    %s4 = scl.scalar "add"(%s3, %v4) : f32
    %s5 = scl.scalar "add"(%s4, %v5) : f32
    %s6 = scl.scalar "add"(%s5, %v6) : f32
    %s7 = scl.scalar "add"(%s6, %v7) : f32
    %s8 = scl.scalar "add"(%s7, %v8) : f32
    %s9 = scl.scalar "add"(%s8, %v9) : f32
    %s10 = scl.scalar "add"(%s9, %v10) : f32
    %s11 = scl.scalar "add"(%s10, %v11) : f32
    %s12 = scl.scalar "add"(%s11, %v12) : f32
    %s13 = scl.scalar "add"(%s12, %v13) : f32
    %s14 = scl.scalar "add"(%s13, %v14) : f32
    %s15 = scl.scalar "add"(%s14, %v15) : f32
    %s16 = scl.scalar "add"(%s15, %v16) : f32
    %s17 = scl.scalar "add"(%s16, %v17) : f32
    %s18 = scl.scalar "add"(%s17, %v18) : f32
    %s19 = scl.scalar "add"(%s18, %v19) : f32
    %s20 = scl.scalar "add"(%s19, %v20) : f32
    %s21 = scl.scalar "add"(%s20, %v21) : f32
    %s22 = scl.scalar "add"(%s21, %v22) : f32
    %s23 = scl.scalar "add"(%s22, %v23) : f32
    %s24 = scl.scalar "add"(%s23, %v24) : f32
    %s25 = scl.scalar "add"(%s24, %v25) : f32
    %s26 = scl.scalar "add"(%s25, %v26) : f32
    %s27 = scl.scalar "add"(%s26, %v27) : f32
    %s28 = scl.scalar "add"(%s27, %v28) : f32
    %s29 = scl.scalar "add"(%s28, %v29) : f32
    %s30 = scl.scalar "add"(%s29, %v30) : f32
    %s31 = scl.scalar "add"(%s30, %v31) : f32
    %s32 = scl.scalar "add"(%s31, %v32) : f32
    %s33 = scl.scalar "add"(%s32, %v33) : f32
    %s34 = scl.scalar "add"(%s33, %v34) : f32
    %s35 = scl.scalar "add"(%s34, %v35) : f32
    %s36 = scl.scalar "add"(%s35, %v36) : f32
    %s37 = scl.scalar "add"(%s36, %v37) : f32
    %s38 = scl.scalar "add"(%s37, %v38) : f32
    %s39 = scl.scalar "add"(%s38, %v39) : f32
    %s40 = scl.scalar "add"(%s39, %v40) : f32
    %s41 = scl.scalar "add"(%s40, %v41) : f32
    %s42 = scl.scalar "add"(%s41, %v42) : f32
    %s43 = scl.scalar "add"(%s42, %v43) : f32
    %s44 = scl.scalar "add"(%s43, %v44) : f32
    %s45 = scl.scalar "add"(%s44, %v45) : f32
    %s46 = scl.scalar "add"(%s45, %v46) : f32
    %s47 = scl.scalar "add"(%s46, %v47) : f32
    %s48 = scl.scalar "add"(%s47, %v48) : f32
    %s49 = scl.scalar "add"(%s48, %v49) : f32
    %s50 = scl.scalar "add"(%s49, %v50) : f32
    %s51 = scl.scalar "add"(%s50, %v51) : f32
    %s52 = scl.scalar "add"(%s51, %v52) : f32
    %s53 = scl.scalar "add"(%s52, %v53) : f32
    %s54 = scl.scalar "add"(%s53, %v54) : f32
    %s55 = scl.scalar "add"(%s54, %v55) : f32
    %s56 = scl.scalar "add"(%s55, %v56) : f32
    %s57 = scl.scalar "add"(%s56, %v57) : f32
    %s58 = scl.scalar "add"(%s57, %v58) : f32
    %s59 = scl.scalar "add"(%s58, %v59) : f32
    %s60 = scl.scalar "add"(%s59, %v60) : f32
    %s61 = scl.scalar "add"(%s60, %v61) : f32
    %s62 = scl.scalar "add"(%s61, %v62) : f32
    scl.yield %s62 : f32
  }
  return %z : memref<6x8xf32>
}
// CHECK-LABEL: func.func @below_limit
// CHECK: scl.kernel "Linear" ins(%arg0, %arg1 :
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: scl.fused_elementwise ins({{(%[a-z0-9_]+, ){63}%[a-z0-9_]+}} :
// CHECK-SAME: memref<8xf32>) outs(

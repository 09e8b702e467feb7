// The example models verify and round-trip, and their summaries pin the model
// facts of ../shared/cases/ACCEPTANCE.md (parameter counts, shardings).

// RUN: shardc-opt %shardc_src_root/examples/unet2d.mlir | shardc-opt | FileCheck %s --check-prefix=UNET
// RUN: shardc-opt %shardc_src_root/examples/unet2d.mlir --sc-model-summary -o /dev/null | FileCheck %s --check-prefix=UNET-SUMMARY
// RUN: shardc-opt %shardc_src_root/examples/convnet3d.mlir --sc-model-summary -o /dev/null | FileCheck %s --check-prefix=CONV3D
// RUN: shardc-opt %shardc_src_root/examples/attention.mlir --sc-model-summary -o /dev/null | FileCheck %s --check-prefix=ATTN
// RUN: %python %shardc_src_root/examples/gen_models.py --check

// UNET: sc.mesh @mesh ["x"=4]
// UNET: func.func @unet2d(%arg0: tensor<1x4x1024x1024xf32> {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[300, 300, 212, 212], {}]>}
// UNET-COUNT-21: sc.conv
// UNET: return {{.*}} : tensor<1x4x1024x1024xf32>

// UNET-SUMMARY: func @unet2d: 55 sc ops, 2337604 parameters
// UNET-SUMMARY-NEXT: ops: conv x21 group_norm x14 silu x14 interpolate x3 concat x3
// UNET-SUMMARY-NEXT: arg #0 tensor<1x4x1024x1024xf32> dim 2 over 4 shards: extents [300, 300, 212, 212]
// A stride-2 conv needs one row from the shard above only.
// UNET-SUMMARY: halo conv {{.*}} dim 2 (lo/hi per shard): 0/0 1/0 1/0 1/0
// UNET-SUMMARY: 20 halo exchanges to insert

// CONV3D: func @convnet3d: 16 sc ops, 86788 parameters
// CONV3D: dim 2 over 2 shards: extents [48, 48]
// CONV3D: dim 3 over 2 shards: extents [48, 48]
// CONV3D-COUNT-12: halo conv {{.*}} 0/1 1/0
// CONV3D: 12 halo exchanges to insert

// ATTN: func @attention: 15 sc ops, 16768 parameters
// ATTN: dim 1 over 4 shards: extents [128, 128, 128, 128]
// ATTN: 0 halo exchanges to insert

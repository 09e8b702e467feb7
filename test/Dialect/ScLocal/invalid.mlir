// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// Verifier and parser errors of the scl dialect, one per case. Each `// case:`
// comment states the intent; the expected-error text is a short, distinctive
// substring of the message. Everything in a case other than the one error is
// valid (ranks, meshes, peers, shapes).

//===----------------------------------------------------------------------===//
// #scl.transfer parser
//===----------------------------------------------------------------------===//

// case: a transfer kind that is neither send nor recv
sc.mesh @mesh ["x"=2]
func.func @transfer_kind(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{expected 'send' or 'recv'}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<sned 0 peer [1] box [0:1] tag 0>]
  return
}

//===----------------------------------------------------------------------===//
// scl.kernel
//===----------------------------------------------------------------------===//

// -----

// case: kernel with an opcode the runtime does not have
func.func @kernel_unknown(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{unknown runtime instruction 'Frobnicate'}}
  scl.kernel "Frobnicate" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// case: kernel with a communication opcode (communication has its own ops)
func.func @kernel_communication(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'AllReduce' is not a compute instruction}}
  scl.kernel "AllReduce" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// case: kernel with the schema's placeholder opcode "Invalid"
func.func @kernel_invalid_opcode(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'Invalid' is no instruction}}
  scl.kernel "Invalid" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// case: kernel that writes no buffer (no outs; the custom syntax cannot spell
// an empty outs list, hence the generic form)
func.func @kernel_no_outs(%x: memref<4xf32>) {
  // expected-error @+1 {{writes no buffer}}
  "scl.kernel"(%x) <{opcode = "Unary", mode = "relu", operandSegmentSizes = array<i32: 1, 0>}> : (memref<4xf32>) -> ()
  return
}

// -----

// case: a group on an instruction that reads none
sc.mesh @line ["x"=2]
func.func @kernel_group_unread(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @line, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{'Unary' reads no group: only Scan and ScanTotals take mesh_axes}}
  scl.kernel "Unary" mode "relu" over [0] ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// case: a scan's group names an axis the mesh lacks
sc.mesh @grid ["x"=2, "y"=2]
func.func @kernel_group_axis(%x: memref<2x3xf32>, %t: memref<2x1x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{mesh_axes must be axes of the mesh (0..1); got 2}}
  scl.kernel "ScanTotals" mode "sum" over [2] ins(%x : memref<2x3xf32>) outs(%t : memref<2x1x4xf32>) {ints = array<i64: 1>}
  return
}

// -----

// case: the totals of 3 shards for a scan over a group of 2
sc.mesh @grid ["x"=2, "y"=2]
func.func @kernel_scan_members(%x: memref<2x3xf32>, %all: memref<2x3x4xf32>, %y: memref<2x3xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{has the totals of 3 shards for a group of 2}}
  scl.kernel "Scan" mode "max" over [1] ins(%x, %all : memref<2x3xf32>, memref<2x3x4xf32>) outs(%y : memref<2x3xf32>) {ints = array<i64: 1>}
  return
}

// -----

// case: a scan that names both how many totals it folds and its group
sc.mesh @grid ["x"=2, "y"=2]
func.func @kernel_scan_count_and_group(%x: memref<2x3xf32>, %all: memref<2x2x4xf32>, %y: memref<2x3xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{names both how many totals it folds and a group}}
  scl.kernel "Scan" mode "sum" over [0] ins(%x, %all : memref<2x3xf32>, memref<2x2x4xf32>) outs(%y : memref<2x3xf32>) {ints = array<i64: 1, 1>}
  return
}

// -----

// case: totals of 4 shards for a scan that names no group (the rank alone)
// and no count
sc.mesh @grid ["x"=2, "y"=2]
func.func @kernel_scan_no_group(%x: memref<2x3xf32>, %all: memref<2x4x4xf32>, %y: memref<2x3xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{has the totals of 4 shards for a group of 1}}
  scl.kernel "Scan" mode "sum" ins(%x, %all : memref<2x3xf32>, memref<2x4x4xf32>) outs(%y : memref<2x3xf32>) {ints = array<i64: 1>}
  return
}

//===----------------------------------------------------------------------===//
// scl.halo_exchange
//===----------------------------------------------------------------------===//

// -----

// case: send from input 1 of an exchange with one input
sc.mesh @mesh ["x"=2]
func.func @send_operand(%x: memref<1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{transfer 0 sends from input 1 of 1}}
  scl.halo_exchange ins(%x : memref<1x4xf32>) [#scl.transfer<send 1 peer [1] box [0:1, 3:4] tag 0>]
  return
}

// -----

// case: receive into output 1 of an exchange with one output
sc.mesh @mesh ["x"=2]
func.func @recv_operand(%x: memref<1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x5xf32>
  // expected-error @+1 {{transfer 1 receives into output 1 of 1}}
  scl.halo_exchange ins(%x : memref<1x4xf32>) outs(%h : memref<1x5xf32>) [
      #scl.transfer<send 0 peer [1] box [0:1, 3:4] tag 0>,
      #scl.transfer<recv 1 peer [1] box [0:1, 4:5] tag 1>]
  return
}

// -----

// case: receive into a negative output index
sc.mesh @mesh ["x"=2]
func.func @recv_operand_negative(%x: memref<1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x5xf32>
  // expected-error @+1 {{transfer 0 receives into output -1 of 1}}
  scl.halo_exchange ins(%x : memref<1x4xf32>) outs(%h : memref<1x5xf32>) [
      #scl.transfer<recv -1 peer [1] box [0:1, 4:5] tag 1>]
  return
}

// -----

// case: box of rank 2 on a rank-3 buffer
sc.mesh @mesh ["x"=2]
func.func @box_rank(%x: memref<1x1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{has a box of rank 2}}
  scl.halo_exchange ins(%x : memref<1x1x4xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 3:4] tag 0>]
  return
}

// -----

// case: box past the end of the buffer (dim 2 has 4 elements, box ends at 5)
sc.mesh @mesh ["x"=2]
func.func @box_outside_hi(%x: memref<1x1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{box [3:5] on dim 2 is outside}}
  scl.halo_exchange ins(%x : memref<1x1x4xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:5] tag 0>]
  return
}

// -----

// case: box starting before the buffer (negative lower bound)
sc.mesh @mesh ["x"=2]
func.func @box_outside_lo(%x: memref<1x1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{box [-1:1] on dim 1 is outside}}
  scl.halo_exchange ins(%x : memref<1x1x4xf32>) [#scl.transfer<send 0 peer [1] box [0:1, -1:1, 3:4] tag 0>]
  return
}

// -----

// case: box with its lower bound above its upper bound
sc.mesh @mesh ["x"=2]
func.func @box_reversed(%x: memref<1x1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{box [3:2] on dim 2 is outside}}
  scl.halo_exchange ins(%x : memref<1x1x4xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:2] tag 0>]
  return
}

// -----

// case: negative tag
sc.mesh @mesh ["x"=2]
func.func @tag_negative(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{has tag -1; exchanges use 0..32766}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<send 0 peer [1] box [3:4] tag -1>]
  return
}

// -----

// case: tag 32767, reserved by the runtime for collectives (exchanges use
// 0..32766)
sc.mesh @mesh ["x"=2]
func.func @tag_too_large(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{has tag 32767; exchanges use 0..32766}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<send 0 peer [1] box [3:4] tag 32767>]
  return
}

// -----

// case: peer of 2 coordinates on a 1-axis mesh
sc.mesh @mesh ["x"=2]
func.func @peer_coordinates(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{names a peer of 2 coordinates on a mesh of 1 axes}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<send 0 peer [1, 0] box [3:4] tag 0>]
  return
}

// -----

// case: non-periodic peer +1 exists for rank 0 but leaves the mesh for rank 1
// of the same class
sc.mesh @mesh ["x"=2]
func.func @peer_leaves_mesh(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{has no peer on rank 1: offset 1 leaves mesh axis 0 (not periodic)}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<send 0 peer [1] box [3:4] tag 0>]
  return
}

// -----

// case: non-periodic peer -1 on axis 1 of a 2x2 mesh: rank 2 = (1, 0) has no
// left neighbour
sc.mesh @grid ["x"=2, "y"=2]
func.func @peer_leaves_mesh_2d(%x: memref<4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 2>} {
  // expected-error @+1 {{has no peer on rank 2: offset -1 leaves mesh axis 1}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<send 0 peer [0, -1] box [0:1] tag 0>]
  return
}

// -----

// case: two receives into output 0 whose boxes overlap on element 2
sc.mesh @mesh ["x"=2]
func.func @recv_overlap(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{receives 0 and 1 write overlapping boxes}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<4xf32>) [
      #scl.transfer<recv 0 peer [1] box [0:3] tag 0>,
      #scl.transfer<recv 0 peer [1] box [2:4] tag 1>]
  return
}

// -----

// case: receives into one 2-D buffer: three disjoint column slabs and a
// fourth box that crosses the first two (checked along the dim where the
// boxes' starts differ most, the columns here)
sc.mesh @mesh ["x"=4]
func.func @recv_overlap_slabs(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<4x6xf32>
  %g = memref.alloc() : memref<4x6xf32>
  // expected-error @+1 {{receives 0 and 3 write overlapping boxes}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h, %g : memref<4x6xf32>, memref<4x6xf32>) [
      #scl.transfer<recv 0 peer [1] box [0:4, 0:2] tag 0>,
      #scl.transfer<recv 0 peer [2] box [0:4, 2:4] tag 0>,
      #scl.transfer<recv 0 peer [3] box [0:4, 4:6] tag 0>,
      #scl.transfer<recv 0 peer [1] box [1:2, 1:3] tag 1>,
      #scl.transfer<recv 1 peer [2] box [0:4, 0:6] tag 1>]
  return
}

// -----

// case: two receives into a 0-d buffer write its one element twice
sc.mesh @mesh ["x"=4]
func.func @recv_overlap_0d(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<f32>
  // expected-error @+1 {{receives 0 and 1 write overlapping boxes}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<f32>) [
      #scl.transfer<recv 0 peer [1] box [] tag 0>,
      #scl.transfer<recv 0 peer [2] box [] tag 0>]
  return
}

// -----

// case: several faults: the first transfer with one is named (send 0
// repeats its tag with send 3 before receives 1 and 2 overlap)
sc.mesh @mesh ["x"=4]
func.func @first_fault_named(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{transfers 0 and 3 both send to one peer with tag 2}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<4xf32>) [
      #scl.transfer<send 0 peer [1] box [0:1] tag 2>,
      #scl.transfer<recv 0 peer [1] box [0:2] tag 3>,
      #scl.transfer<recv 0 peer [2] box [1:3] tag 3>,
      #scl.transfer<send 0 peer [1] box [0:1] tag 2>]
  return
}

// -----

// case: a send to the rank itself that no self receive meets (the receive
// with the same tag comes from another peer)
sc.mesh @mesh ["x"=2]
func.func @self_send_unmet(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{transfer 0 sends to the rank itself with tag 0 and nothing on the other side}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<4xf32>) [
      #scl.transfer<send 0 peer [0] box [0:4] tag 0>,
      #scl.transfer<recv 0 peer [1] box [0:4] tag 0>]
  return
}

// -----

// case: halo_exchange in a function that is no rank class (no scl.ranks)
sc.mesh @mesh ["x"=2]
func.func @exchange_no_ranks(%x: memref<4xf32>) {
  // expected-error @+1 {{must be in a rank-class function}}
  scl.halo_exchange ins(%x : memref<4xf32>) [#scl.transfer<send 0 peer [1] box [3:4] tag 0>]
  return
}

// -----

// case: a started exchange that nothing completes
sc.mesh @mesh ["x"=2]
func.func @pending_unused(%x: memref<1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x5xf32>
  // expected-error @+1 {{exactly one scl.wait must complete; its result has 0 uses}}
  %p = scl.halo_exchange ins(%x : memref<1x4xf32>) outs(%h : memref<1x5xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 3:4] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 4:5] tag 0>] -> !scl.pending
  return
}

// -----

// case: a started exchange completed twice
sc.mesh @mesh ["x"=2]
func.func @pending_twice(%x: memref<1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x5xf32>
  // expected-error @+1 {{its result has 2 uses}}
  %p = scl.halo_exchange ins(%x : memref<1x4xf32>) outs(%h : memref<1x5xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 3:4] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 4:5] tag 0>] -> !scl.pending
  scl.wait %p outs(%h : memref<1x5xf32>)
  scl.wait %p outs(%h : memref<1x5xf32>)
  return
}

// -----

// case: a wait that does not list the buffer the receives write
sc.mesh @mesh ["x"=2]
func.func @wait_outs(%x: memref<1x4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<1x5xf32>
  %o = memref.alloc() : memref<1x5xf32>
  %p = scl.halo_exchange ins(%x : memref<1x4xf32>) outs(%h : memref<1x5xf32>) [#scl.transfer<send 0 peer [1] box [0:1, 3:4] tag 0>, #scl.transfer<recv 0 peer [1] box [0:1, 4:5] tag 0>] -> !scl.pending
  // expected-error @+1 {{must list the outputs of the exchange it completes (1 buffers)}}
  scl.wait %p outs(%o : memref<1x5xf32>)
  return
}

// -----

// case: a wait on a value no exchange started
sc.mesh @mesh ["x"=2]
func.func @wait_argument(%p: !scl.pending, %h: memref<1x5xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{waits for a value that no scl.halo_exchange started}}
  scl.wait %p outs(%h : memref<1x5xf32>)
  return
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// -----

// case: collective in a rank-class function without a mesh (scl.ranks only)
func.func @collective_no_mesh(%p: memref<4xf32>, %r: memref<4xf32>)
    attributes {scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{needs a mesh}}
  scl.all_reduce sum over [0] ins(%p : memref<4xf32>) outs(%r : memref<4xf32>)
  return
}

// -----

// case: collective over no mesh axes
sc.mesh @grid ["x"=2, "y"=2]
func.func @collective_empty_axes(%p: memref<4xf32>, %r: memref<4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{has an empty group (no mesh_axes)}}
  scl.all_reduce sum over [] ins(%p : memref<4xf32>) outs(%r : memref<4xf32>)
  return
}

// -----

// case: a group's extents are in the listed axes' order: over [1, 0] of a
// 2x2 mesh rank 2 is member 1 (it would be member 2 over [0, 1])
sc.mesh @grid ["x"=2, "y"=2]
func.func @collective_axes_order(%b: memref<2xf32>, %g: memref<10xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 2>} {
  // expected-error @+1 {{block of rank 2 (member 1) has extent 1 but its buffer 'memref<2xf32>' has 2}}
  scl.all_gather dim 0 extents [3, 1, 2, 4] over [1, 0] ins(%b : memref<2xf32>) outs(%g : memref<10xf32>)
  return
}

// -----

// case: mesh_axes listing one axis twice
sc.mesh @grid ["x"=2, "y"=2]
func.func @collective_axes_twice(%p: memref<4xf32>, %r: memref<4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{mesh_axes lists axis 1 twice}}
  scl.all_reduce sum over [1, 1] ins(%p : memref<4xf32>) outs(%r : memref<4xf32>)
  return
}

// -----

// case: mesh_axes naming axis 2 of a 2-axis mesh
sc.mesh @grid ["x"=2, "y"=2]
func.func @collective_axes_range(%p: memref<4xf32>, %r: memref<4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{mesh_axes must be axes of the mesh (0..1); got 2}}
  scl.all_reduce sum over [0, 2] ins(%p : memref<4xf32>) outs(%r : memref<4xf32>)
  return
}

// -----

// case: all_reduce into a buffer of another type
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_reduce_type(%p: memref<4x8xf32>, %r: memref<4x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{reduces 'memref<4x8xf32>' into 'memref<4x4xf32>'}}
  scl.all_reduce max over [1] ins(%p : memref<4x8xf32>) outs(%r : memref<4x4xf32>)
  return
}

// -----

// case: all_gather with 3 extents for a group of 2 (axis y)
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_extents_count(%b: memref<3x8xf32>, %g: memref<4x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{lists 3 extents for a group of 2}}
  scl.all_gather dim 0 extents [3, 1, 0] over [1] ins(%b : memref<3x8xf32>) outs(%g : memref<4x8xf32>)
  return
}

// -----

// case: reduce_scatter with 2 extents for a group of 4 (both axes)
sc.mesh @grid ["x"=2, "y"=2]
func.func @reduce_scatter_extents_count(%p: memref<4x8xf32>, %s: memref<2x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{lists 2 extents for a group of 4}}
  scl.reduce_scatter sum dim 0 extents [2, 2] over [0, 1] ins(%p : memref<4x8xf32>) outs(%s : memref<2x8xf32>)
  return
}

// -----

// case: extents summing to 5 while the gathered dim is 4
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_extents_sum(%b: memref<3x8xf32>, %g: memref<4x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{extents sum to 5 but dim 0 of 'memref<4x8xf32>' is 4}}
  scl.all_gather dim 0 extents [3, 2] over [1] ins(%b : memref<3x8xf32>) outs(%g : memref<4x8xf32>)
  return
}

// -----

// case: negative extent (the extents still sum to the dim, 5 - 1 = 4)
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_extent_negative(%b: memref<5x8xf32>, %g: memref<4x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{has a negative extent -1}}
  scl.all_gather dim 0 extents [5, -1] over [1] ins(%b : memref<5x8xf32>) outs(%g : memref<4x8xf32>)
  return
}

// -----

// case: ranks 0 and 1 share the class with a block of 3, but member 1's
// extent is 1
sc.mesh @mesh ["x"=2]
func.func @all_gather_block(%b: memref<3xf32>, %g: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{block of rank 1 (member 1) has extent 1 but its buffer 'memref<3xf32>' has 3}}
  scl.all_gather dim 0 extents [3, 1] over [0] ins(%b : memref<3xf32>) outs(%g : memref<4xf32>)
  return
}

// -----

// case: reduce_scatter output (the block) of 1 row on rank 0, whose extent is 3
sc.mesh @mesh ["x"=2]
func.func @reduce_scatter_block(%p: memref<4xf32>, %s: memref<1xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{block of rank 0 (member 0) has extent 3 but its buffer 'memref<1xf32>' has 1}}
  scl.reduce_scatter sum dim 0 extents [3, 1] over [0] ins(%p : memref<4xf32>) outs(%s : memref<1xf32>)
  return
}

// -----

// case: gather along dim 2 of rank-2 buffers
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_dim_range(%b: memref<3x8xf32>, %g: memref<4x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{dim 2 must be a dim of both}}
  scl.all_gather dim 2 extents [3, 1] over [1] ins(%b : memref<3x8xf32>) outs(%g : memref<4x8xf32>)
  return
}

// -----

// case: block and whole buffer of different ranks
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_rank(%b: memref<3x8xf32>, %g: memref<4x8x1xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{dim 0 must be a dim of both 'memref<3x8xf32>' and 'memref<4x8x1xf32>'}}
  scl.all_gather dim 0 extents [3, 1] over [1] ins(%b : memref<3x8xf32>) outs(%g : memref<4x8x1xf32>)
  return
}

// -----

// case: block and whole buffer differ on a dim other than the gathered one
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_other_dim(%b: memref<3x8xf32>, %g: memref<4x6xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{dim 1 differs between 'memref<3x8xf32>' and 'memref<4x6xf32>'}}
  scl.all_gather dim 0 extents [3, 1] over [1] ins(%b : memref<3x8xf32>) outs(%g : memref<4x6xf32>)
  return
}

// -----

// case: block of i1 gathered into a buffer of f32
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_gather_element_type(%b: memref<3x8xi1>, %g: memref<4x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{mixes element types 'i1' and 'f32'}}
  scl.all_gather dim 0 extents [3, 1] over [1] ins(%b : memref<3x8xi1>) outs(%g : memref<4x8xf32>)
  return
}

// -----

// case: all_to_all with input and output of different ranks
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_0(%x: memref<3x8xf32>, %y: memref<4x5x1xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{maps rank-2 'memref<3x8xf32>' to rank-3 'memref<4x5x1xf32>'}}
  scl.all_to_all split 1 [5, 3] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5x1xf32>)
  return
}

// -----

// case: all_to_all with split dim outside the buffers
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_1(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{dim 2 is not a dim of 'memref<3x8xf32>'}}
  scl.all_to_all split 2 [5, 3] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

// -----

// case: all_to_all with one dim both split and concatenated
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_2(%x: memref<3x8xf32>, %y: memref<4x8xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{splits and concatenates the same dim 0}}
  scl.all_to_all split 0 [3, 1] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

// case: all_to_all with a third dim that differs
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_3(%x: memref<3x8x2xf32>, %y: memref<4x5x3xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{dim 2 differs between 'memref<3x8x2xf32>' and 'memref<4x5x3xf32>'}}
  scl.all_to_all split 1 [5, 3] concat 0 [3, 1] over [1] ins(%x : memref<3x8x2xf32>) outs(%y : memref<4x5x3xf32>)
  return
}

// -----

// case: all_to_all with element types differ
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_4(%x: memref<3x8xf32>, %y: memref<4x5xi1>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{mixes element types 'f32' and 'i1'}}
  scl.all_to_all split 1 [5, 3] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xi1>)
  return
}

// -----

// case: all_to_all with three split extents for a group of two
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_5(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{lists 3 split extents for a group of 2}}
  scl.all_to_all split 1 [5, 3, 0] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

// -----

// case: all_to_all with a negative concat extent
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_6(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{has a negative concat extent -1}}
  scl.all_to_all split 1 [5, 3] concat 0 [3, -1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

// -----

// case: all_to_all with split extents that do not cover the input's dim
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_7(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{split extents sum to 7 but dim 1 of 'memref<3x8xf32>' is 8}}
  scl.all_to_all split 1 [5, 2] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

// -----

// case: all_to_all with this rank's rows of the split dim differ from its output
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_8(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{block of rank 0 (member 0) has split extent 3 but its buffer 'memref<4x5xf32>' has 5}}
  scl.all_to_all split 1 [3, 5] concat 0 [3, 1] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

// -----

// case: all_to_all with this rank's concat block differs from its input
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_9(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{block of rank 0 (member 0) has concat extent 1 but its buffer 'memref<3x8xf32>' has 3}}
  scl.all_to_all split 1 [5, 3] concat 0 [1, 3] over [1] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

// -----

// case: all_to_all with an empty group
sc.mesh @grid ["x"=2, "y"=2]
func.func @all_to_all_10(%x: memref<3x8xf32>, %y: memref<4x5xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{has an empty group (no mesh_axes)}}
  scl.all_to_all split 1 [5, 3] concat 0 [3, 1] over [] ins(%x : memref<3x8xf32>) outs(%y : memref<4x5xf32>)
  return
}

//===----------------------------------------------------------------------===//
// Rank-class functions: scl.ranks, scl.mesh
//===----------------------------------------------------------------------===//

// -----

// case: scl.ranks not ascending
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{got 0 after 1}}
func.func @ranks_order() attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1, 0>} {
  return
}

// -----

// case: scl.ranks listing a rank twice
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{got 1 after 1}}
func.func @ranks_twice() attributes {scl.mesh = @mesh, scl.ranks = array<i32: 1, 1>} {
  return
}

// -----

// case: scl.ranks naming rank 2 of a mesh of 2
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{holds rank 2, outside the world of 2}}
func.func @ranks_world() attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 2>} {
  return
}

// -----

// case: scl.ranks naming rank 1 without a mesh (a world of one rank)
// expected-error @+1 {{holds rank 1, outside the world of 1}}
func.func @ranks_world_no_mesh() attributes {scl.ranks = array<i32: 1>} {
  return
}

// -----

// case: scl.ranks naming a negative rank
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{holds rank -1, outside the world of 2}}
func.func @ranks_negative() attributes {scl.mesh = @mesh, scl.ranks = array<i32: -1>} {
  return
}

// -----

// case: empty scl.ranks
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{'scl.ranks' must be a non-empty array<i32>}}
func.func @ranks_empty() attributes {scl.mesh = @mesh, scl.ranks = array<i32>} {
  return
}

// -----

// case: scl.ranks of the wrong attribute kind (an ArrayAttr, not array<i32>)
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{'scl.ranks' must be a non-empty array<i32>}}
func.func @ranks_kind() attributes {scl.mesh = @mesh, scl.ranks = [0 : i32, 1 : i32]} {
  return
}

// -----

// case: scl.mesh naming a function rather than an sc.mesh
sc.mesh @mesh ["x"=2]
func.func private @other()
// expected-error @+1 {{runs on mesh @other, which is not an sc.mesh in scope}}
func.func @mesh_not_mesh() attributes {scl.mesh = @other, scl.ranks = array<i32: 0>} {
  return
}

// -----

// case: scl.mesh naming no symbol at all
// expected-error @+1 {{runs on mesh @nomesh, which is not an sc.mesh in scope}}
func.func @mesh_missing() attributes {scl.mesh = @nomesh, scl.ranks = array<i32: 0>} {
  return
}

// -----

// case: scl.mesh that is a string, not a symbol reference
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{'scl.mesh' must name an sc.mesh}}
func.func @mesh_string() attributes {scl.mesh = "mesh", scl.ranks = array<i32: 0>} {
  return
}

// -----

// case: scl.mesh without scl.ranks
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{'scl.mesh' needs 'scl.ranks' beside it}}
func.func @mesh_no_ranks() attributes {scl.mesh = @mesh} {
  return
}

// -----

// case: an scl attribute the dialect does not define
sc.mesh @mesh ["x"=2]
// expected-error @+1 {{unknown scl attribute 'scl.rank'}}
func.func @unknown_attr() attributes {scl.mesh = @mesh, scl.rank = array<i32: 0>, scl.ranks = array<i32: 0>} {
  return
}

//===----------------------------------------------------------------------===//
// scl.rank_classes
//===----------------------------------------------------------------------===//

// -----

// case: empty scl.rank_classes
// expected-error @+1 {{'scl.rank_classes' must be a non-empty array of function symbols on a func.func}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32> attributes {scl.rank_classes = []}

// -----

// case: scl.rank_classes on an op that is not a func.func
// expected-error @+1 {{'scl.rank_classes' must be a non-empty array of function symbols on a func.func}}
module attributes {scl.rank_classes = [@f_class0]} {
  sc.mesh @m ["x"=1]
  func.func @f_class0(%x: memref<4xf32>) -> memref<4xf32>
      attributes {scl.mesh = @m, scl.ranks = array<i32: 0>} {
    return %x : memref<4xf32>
  }
}

// -----

// case: a rank class that does not exist (@f_class1 is missing)
sc.mesh @m ["x"=2]
// expected-error @+1 {{rank class @f_class1 is not a function with 'scl.ranks'}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<4xf32>) -> memref<4xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0, 1>} {
  return %x : memref<4xf32>
}

// -----

// case: a rank class that is a function without scl.ranks
sc.mesh @m ["x"=2]
// expected-error @+1 {{rank class @f_class1 is not a function with 'scl.ranks'}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<4xf32>) -> memref<4xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0>} {
  return %x : memref<4xf32>
}
func.func @f_class1(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// case: a rank class taking two buffers for an entry of one input
sc.mesh @m ["x"=2]
// expected-error @+1 {{rank class @f_class1 takes 2 and returns 1 buffers; the entry takes 1 and returns 1}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<3xf32>) -> memref<3xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0>} {
  return %x : memref<3xf32>
}
func.func @f_class1(%x: memref<1xf32>, %y: memref<1xf32>) -> memref<1xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 1>} {
  return %x : memref<1xf32>
}

// -----

// case: a rank class returning nothing for an entry with one result
sc.mesh @m ["x"=2]
// expected-error @+1 {{rank class @f_class0 takes 1 and returns 0 buffers; the entry takes 1 and returns 1}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0]}
func.func @f_class0(%x: memref<2xf32>)
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0, 1>} {
  return
}

// -----

// case: rank 1 in two rank classes
sc.mesh @m ["x"=2]
// expected-error @+1 {{rank 1 is in two rank classes}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<2xf32>) -> memref<2xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0, 1>} {
  return %x : memref<2xf32>
}
func.func @f_class1(%x: memref<2xf32>) -> memref<2xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 1>} {
  return %x : memref<2xf32>
}

// -----

// case: rank 1 of a mesh of 3 in no rank class
sc.mesh @m ["x"=3]
// expected-error @+1 {{rank 1 is in no rank class}}
func.func private @f(tensor<3xf32>) -> tensor<3xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<1xf32>) -> memref<1xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 0>} {
  return %x : memref<1xf32>
}
func.func @f_class1(%x: memref<1xf32>) -> memref<1xf32>
    attributes {scl.mesh = @m, scl.ranks = array<i32: 2>} {
  return %x : memref<1xf32>
}

// -----

// case: an entry that declares a buffer instead of a global tensor
// expected-error @+1 {{the entry's inputs and outputs must be statically shaped f32, bf16, f16, i1 or i64 tensors; got 'memref<4xf32>'}}
func.func private @f(memref<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_all]}
func.func @f_all(%x: memref<4xf32>) -> memref<4xf32>
    attributes {scl.ranks = array<i32: 0>} {
  return %x : memref<4xf32>
}

// -----

// case: a class buffer of another element type than the entry's tensor
// expected-error @+1 {{rank class @f_all holds 'memref<4xf16>' for the entry's 'tensor<4xf32>'}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_all]}
func.func @f_all(%x: memref<4xf16>) -> memref<4xf32>
    attributes {scl.ranks = array<i32: 0>} {
  %y = memref.alloc() : memref<4xf32>
  return %y : memref<4xf32>
}

//===----------------------------------------------------------------------===//
// scl.global, scl.constant
//===----------------------------------------------------------------------===//

// -----

// case: global without shards
// expected-error @+1 {{has no shards}}
scl.global @c []

// -----

// case: rank 1 holding two shards of one global
// expected-error @+1 {{gives rank 1 two shards}}
scl.global @c [#scl.shard<[0, 1], dense<1.0> : tensor<2xf32>>,
               #scl.shard<[1], dense<2.0> : tensor<2xf32>>]

// -----

// case: a shard held by a negative rank
// expected-error @+1 {{gives a shard to rank -1}}
scl.global @c [#scl.shard<[-1], dense<1.0> : tensor<2xf32>>]

// -----

// case: global of i32, which no constant holds (f32 or i1 only)
// expected-error @+1 {{holds 'i32'; constants are f32 or i1}}
scl.global @c [#scl.shard<[0], dense<1> : tensor<2xi32>>]

// -----

// case: constant reading a symbol that is no scl.global
sc.mesh @pair ["x"=2]
func.func @constant_no_global() -> memref<2xf32>
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{reads @nothere, which is no scl.global}}
  %c = scl.constant @nothere : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: constant read on rank 1, which holds no shard of the global
scl.global @c [#scl.shard<[0], dense<1.0> : tensor<2xf32>>]
sc.mesh @pair ["x"=2]
func.func @constant_no_shard() -> memref<2xf32>
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{runs on rank 1, which holds no shard of @c}}
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: the same on a class of more than 8 ranks (the shards are indexed
// once rather than searched per rank): rank 9 holds no shard
scl.global @c [#scl.shard<[0, 1, 2, 3, 4, 5, 6, 7], dense<1.0> : tensor<2xf32>>,
               #scl.shard<[8], dense<2.0> : tensor<2xf32>>]
sc.mesh @ten ["x"=10]
func.func @constant_no_shard_big_class() -> memref<2xf32>
    attributes {scl.mesh = @ten, scl.ranks = array<i32: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9>} {
  // expected-error @+1 {{runs on rank 9, which holds no shard of @c}}
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: the shard of rank 8, found in a big class's index, is read with
// another shape
scl.global @c [#scl.shard<[0, 1, 2, 3, 4, 5, 6, 7], dense<1.0> : tensor<2xf32>>,
               #scl.shard<[8], dense<2.0> : tensor<3xf32>>]
sc.mesh @nine ["x"=9]
func.func @constant_shape_big_class() -> memref<2xf32>
    attributes {scl.mesh = @nine, scl.ranks = array<i32: 0, 1, 2, 3, 4, 5, 6, 7, 8>} {
  // expected-error @+1 {{reads 'tensor<3xf32>' on rank 8 as 'memref<2xf32>'}}
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: constant read with a shape other than rank 1's shard
scl.global @c [#scl.shard<[0], dense<1.0> : tensor<2xf32>>,
               #scl.shard<[1], dense<2.0> : tensor<3xf32>>]
sc.mesh @pair ["x"=2]
func.func @constant_shape() -> memref<2xf32>
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{reads 'tensor<3xf32>' on rank 1 as 'memref<2xf32>'}}
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: constant read with an element type other than its shard's
scl.global @c [#scl.shard<[0], dense<true> : tensor<2xi1>>]
sc.mesh @pair ["x"=2]
func.func @constant_element_type() -> memref<2xf32>
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{reads 'tensor<2xi1>' on rank 0 as 'memref<2xf32>'}}
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: constant in a function that is no rank class (no scl.ranks)
scl.global @c [#scl.shard<[0], dense<1.0> : tensor<2xf32>>]
func.func @constant_no_ranks() -> memref<2xf32> {
  // expected-error @+1 {{must be in a rank-class function}}
  %c = scl.constant @c : memref<2xf32>
  return %c : memref<2xf32>
}

// -----

// case: a receive from the rank itself that no send feeds
sc.mesh @mesh ["x"=2]
func.func @self_recv_alone(%x: memref<4xf32>, %h: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{transfer 0 receives from the rank itself with tag 2 and nothing on the other side}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<4xf32>)
      [#scl.transfer<recv 0 peer [0] box [0:2] tag 2>]
  return
}

// -----

// case: a local copy whose send and receive boxes differ in size
sc.mesh @mesh ["x"=2]
func.func @self_sizes(%x: memref<4xf32>, %h: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{transfer 0 copies a box whose dim 0 differs in size}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<4xf32>)
      [#scl.transfer<send 0 peer [0] box [0:2] tag 0>,
       #scl.transfer<recv 0 peer [0] box [0:3] tag 0>]
  return
}

// -----

// case: among transfers to and from several peers, two receives from one
// peer with one tag
sc.mesh @mesh ["x"=4]
func.func @recv_tag_twice(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  %h = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{transfers 1 and 3 both receive from one peer with tag 2}}
  scl.halo_exchange ins(%x : memref<4xf32>) outs(%h : memref<4xf32>)
      [#scl.transfer<send 0 peer [2] box [0:1] tag 2>,
       #scl.transfer<recv 0 peer [1] box [0:1] tag 2>,
       #scl.transfer<recv 0 peer [2] box [1:2] tag 2>,
       #scl.transfer<recv 0 peer [1] box [2:3] tag 2>]
  return
}

// -----

// case: two sends to one peer with one tag cannot be told apart
sc.mesh @mesh ["x"=2]
func.func @tag_twice(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{transfers 0 and 1 both send to one peer with tag 5}}
  scl.halo_exchange ins(%x : memref<4xf32>)
      [#scl.transfer<send 0 peer [1] box [0:1] tag 5>,
       #scl.transfer<send 0 peer [1] box [1:2] tag 5>]
  return
}

// -----

// case: rank classes on two meshes
sc.mesh @m2 ["x"=2]
sc.mesh @m4 ["x"=4]
// expected-error @+1 {{runs on another mesh than @f_class0}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>
    attributes {scl.rank_classes = [@f_class0, @f_class1]}
func.func @f_class0(%x: memref<2xf32>) -> memref<2xf32>
    attributes {scl.mesh = @m2, scl.ranks = array<i32: 0, 1>} {
  %y = memref.alloc() : memref<2xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<2xf32>) outs(%y : memref<2xf32>)
  return %y : memref<2xf32>
}
func.func @f_class1(%x: memref<2xf32>) -> memref<2xf32>
    attributes {scl.mesh = @m4, scl.ranks = array<i32: 2, 3>} {
  %y = memref.alloc() : memref<2xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<2xf32>) outs(%y : memref<2xf32>)
  return %y : memref<2xf32>
}

//===----------------------------------------------------------------------===//
// Memory plan attributes (sc-plan-memory)
//===----------------------------------------------------------------------===//

// -----

// case: an offset on an op that is not an alloc
sc.mesh @pair ["x"=2]
func.func @offset_not_alloc(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>,
                scl.arena_bytes = 64, scl.input_offsets = array<i64: 0, 16>} {
  // expected-error @+1 {{'scl.offset' belongs on a memref.alloc in a rank-class function}}
  scl.kernel "Unary" mode "relu" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {scl.offset = 0}
  return
}

// -----

// case: a buffer that ends past the arena
sc.mesh @pair ["x"=2]
func.func @offset_past_arena(%x: memref<4xf32>) -> memref<4xf32>
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>,
                scl.arena_bytes = 64, scl.input_offsets = array<i64: 0>} {
  // expected-error @+1 {{'scl.offset' places 'memref<4xf32>' at 56, outside the arena of 64 bytes}}
  %y = memref.alloc() {scl.offset = 56} : memref<4xf32>
  scl.kernel "Unary" mode "relu" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return %y : memref<4xf32>
}

// -----

// case: one input offset for two arguments
sc.mesh @pair ["x"=2]
// expected-error @+1 {{'scl.input_offsets' must list one offset per argument (2)}}
func.func @input_offsets_count(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>,
                scl.arena_bytes = 64, scl.input_offsets = array<i64: 0>} {
  return
}

// -----

// case: offsets without an arena size
sc.mesh @pair ["x"=2]
// expected-error @+1 {{'scl.arena_bytes' must be a non-negative integer}}
func.func @no_arena(%x: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>,
                scl.input_offsets = array<i64: 0>} {
  return
}

// -----

// case: an arena on a function that is no rank class
// expected-error @+1 {{'scl.arena_bytes' belongs on a rank-class function}}
func.func @not_a_class() attributes {scl.arena_bytes = 64} {
  return
}

// -----

// case: fused_elementwise with an input that does not broadcast
sc.mesh @pair ["x"=2]
func.func @fused_0(%x: memref<4x3xf32>, %y: memref<4x4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{input 0 'memref<4x3xf32>' does not broadcast to 'memref<4x4xf32>' (numpy rules)}}
  scl.fused_elementwise ins(%x : memref<4x3xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%a: f32):
    %r = scl.scalar "relu"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_elementwise with a body with too few arguments
sc.mesh @pair ["x"=2]
func.func @fused_1(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{body takes 0 arguments for 1 inputs}}
  scl.fused_elementwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    %r = scl.scalar "relu"(%r) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_elementwise whose body uses a value from outside it
sc.mesh @pair ["x"=2]
func.func @fused_outside(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  %c = arith.constant 2.0 : f32
  scl.fused_elementwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    // expected-error @+1 {{uses a value defined outside the fused body}}
    %r = scl.scalar "mul"(%a, %c) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_elementwise yielding a value from outside its body
sc.mesh @pair ["x"=2]
func.func @fused_yield_outside(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  %c = arith.constant 2.0 : f32
  scl.fused_elementwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    // expected-error @+1 {{yields a value defined outside the fused body}}
    scl.yield %c : f32
  }
  return
}

// -----

// case: fused_reduction writing i1 (it reads bools, but sums are f32)
sc.mesh @pair ["x"=2]
func.func @fused_reduction_bool(%x: memref<4x6xi1>, %y: memref<4xi1>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{writes 'memref<4xi1>'; fused kernels compute in f32}}
  scl.fused_reduction "sum" dims [1] over [4, 6] ins(%x : memref<4x6xi1>) outs(%y : memref<4xi1>) {
  ^bb0(%a: f32):
    scl.yield %a : f32
  }
  return
}

// -----

// case: fused_reduction with an unknown reduction
sc.mesh @pair ["x"=2]
func.func @reduction_kind(%x: memref<4x6xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{unknown reduction 'prod' (sum, mean, amax, amin)}}
  scl.fused_reduction "prod" dims [1] over [4, 6] ins(%x : memref<4x6xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    %r = scl.scalar "abs"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_reduction with dims out of order
sc.mesh @pair ["x"=2]
func.func @reduction_dims(%x: memref<4x6x2xf32>, %y: memref<6xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{reduces dim 0 of a rank-3 space (dims must be ascending and in range)}}
  scl.fused_reduction "sum" dims [2, 0] over [4, 6, 2] ins(%x : memref<4x6x2xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%a: f32):
    %r = scl.scalar "abs"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_reduction whose output does not hold the kept dims
sc.mesh @pair ["x"=2]
func.func @reduction_output(%x: memref<4x6xf32>, %y: memref<6xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{writes 6 elements; the kept dims hold 4}}
  scl.fused_reduction "mean" dims [1] over [4, 6] ins(%x : memref<4x6xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%a: f32):
    %r = scl.scalar "abs"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_reduction with an input that does not broadcast to its space
sc.mesh @pair ["x"=2]
func.func @reduction_input(%x: memref<4x5xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{input 0 'memref<4x5xf32>' does not broadcast to the iteration space [4, 6] (numpy rules)}}
  scl.fused_reduction "sum" dims [1] over [4, 6] ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    %r = scl.scalar "abs"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_reduction taking the maximum of nothing
sc.mesh @pair ["x"=2]
func.func @reduction_empty(%x: memref<4x0xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{amax over zero elements}}
  scl.fused_reduction "amax" dims [1] over [4, 0] ins(%x : memref<4x0xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    %r = scl.scalar "abs"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: fused_reduction writing the buffer it reads (row 0 would overwrite
// what row 1's work still reads)
sc.mesh @pair ["x"=2]
func.func @reduction_in_place(%x: memref<1x2xf32>, %z: memref<2x2xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  %y = scl.view %x : memref<1x2xf32> to memref<2xf32>
  // expected-error @+1 {{input 0 shares its buffer with the output; a reduction cannot write in place}}
  scl.fused_reduction "sum" dims [1] over [2, 2] ins(%x, %z : memref<1x2xf32>, memref<2x2xf32>) outs(%y : memref<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = scl.scalar "mul"(%a, %b) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: scl.scalar with an unknown function
sc.mesh @pair ["x"=2]
func.func @scalar_unknown(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  scl.fused_elementwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    // expected-error @+1 {{unknown elementwise function 'coth'}}
    %r = scl.scalar "coth"(%a) : f32
    scl.yield %r : f32
  }
  return
}

// -----

// case: scl.scalar with the wrong operand count
sc.mesh @pair ["x"=2]
func.func @scalar_arity(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {scl.mesh = @pair, scl.ranks = array<i32: 0, 1>} {
  scl.fused_elementwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32):
    // expected-error @+1 {{'add' takes 2 operand(s), got 1}}
    %r = scl.scalar "add"(%a) : f32
    scl.yield %r : f32
  }
  return
}

//===----------------------------------------------------------------------===//
// scl.view
//===----------------------------------------------------------------------===//

// -----

// case: a view with fewer elements than its source
sc.mesh @mesh ["x"=1]
func.func @view_count(%x: memref<4x6xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{a view keeps the element type and the element count}}
  %v = scl.view %x : memref<4x6xf32> to memref<20xf32>
  return
}

// -----

// case: a view that changes the element type
sc.mesh @mesh ["x"=1]
func.func @view_type(%x: memref<4xf32>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{a view keeps the element type and the element count}}
  %v = scl.view %x : memref<4xf32> to memref<4xi1>
  return
}

// -----

// case: a view of a strided buffer
sc.mesh @mesh ["x"=1]
func.func @view_strided(%x: memref<4x2xf32, strided<[4, 1]>>)
    attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{views a strided buffer}}
  %v = scl.view %x : memref<4x2xf32, strided<[4, 1]>> to memref<8xf32>
  return
}

// -----

// case: ring_attention listing a start per member but not the end
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_starts(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{lists 2 key starts for a group of 2 (one per member, then the end)}}
  scl.ring_attention over [1] starts [0, 3] scale 1.0 ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: ring_attention whose keys are not the rank's block
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_block(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 1>} {
  // expected-error @+1 {{rank 0 holds keys [0, 2) but its key block 'memref<3x4xf32>' has 3 rows}}
  scl.ring_attention over [1] starts [0, 2, 5] scale 1.0 ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: ring_attention with a mask split along the keys
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_mask(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %m: memref<3x3xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{adds a mask 'memref<3x3xf32>'; it must be f32, its last dims 1 or the queries, and 1 or every key (6)}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 ins(%q, %k, %v, %m : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>, memref<3x3xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: ring_attention whose values are the keys in name only
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_values(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{values_are_keys needs the keys as the values}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>) {values_are_keys}
  return
}

// -----

// case: causal ring_attention without the query split
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_causal_no_queries(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{takes query_axes and query_starts when causal, and only then}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>) {is_causal}
  return
}

// -----

// case: ring_attention with a query split but not causal
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_queries_not_causal(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{takes query_axes and query_starts when causal, and only then}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>) {query_axes = array<i64: 1>, query_starts = array<i64: 0, 3, 6>}
  return
}

// -----

// case: causal ring_attention whose query axes repeat
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_query_axes(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{query_axes lists axis 1 twice}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 causal queries over [1, 1] starts [0, 3, 6] ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: causal ring_attention with a start too few for its query split
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_query_count(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{lists 2 query starts for a group of 2 (one per member, then the end)}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 causal queries over [0] starts [0, 3] ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: causal ring_attention whose query axes are not the mesh's
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_query_axis(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{query_axes must be axes of the mesh (0..1); got 2}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 causal queries over [2] starts [0, 3, 6] ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: causal ring_attention whose query starts decrease
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_query_decrease(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{query starts decrease at member 1}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 causal queries over [0] starts [0, 3, 2] ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: ring_attention whose values are neither the key block nor every key
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_value_rows(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<2x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{values 'memref<2x4xf32>' need 3 rows}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<2x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: causal ring_attention whose query starts do not begin at 0
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_query_starts(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0>} {
  // expected-error @+1 {{query starts must begin at 0}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 causal queries over [0] starts [-2, 1, 4] ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: causal ring_attention whose queries are not the rank's block (rank 2
// is member 1 of the query split over "x")
sc.mesh @grid ["x"=2, "y"=2]
func.func @ring_query_block(%q: memref<3x4xf32>, %k: memref<3x4xf32>, %v: memref<3x4xf32>, %y: memref<3x4xf32>)
    attributes {scl.mesh = @grid, scl.ranks = array<i32: 0, 2>} {
  // expected-error @+1 {{rank 2 holds queries [3, 5) but its query block 'memref<3x4xf32>' has 3 rows}}
  scl.ring_attention over [1] starts [0, 3, 6] scale 1.0 causal queries over [0] starts [0, 3, 5] ins(%q, %k, %v : memref<3x4xf32>, memref<3x4xf32>, memref<3x4xf32>) outs(%y : memref<3x4xf32>)
  return
}

// -----

// case: a computing kernel on a bf16 buffer (kernels compute in f32)
func.func @f(%x: memref<2xbf16>) -> memref<2xbf16> {
  %y = memref.alloc() : memref<2xbf16>
  // expected-error @+1 {{'Unary' computes in f32 but reads or writes 'memref<2xbf16>'; bf16 and f16 buffers are only moved and cast}}
  scl.kernel "Unary" mode "relu" ins(%x : memref<2xbf16>) outs(%y : memref<2xbf16>)
  return %y : memref<2xbf16>
}

// -----

// case: a reduction writing an f16 buffer
func.func @f(%x: memref<2x3xf32>) -> memref<2xf16> {
  %y = memref.alloc() : memref<2xf16>
  // expected-error @+1 {{'Reduce' computes in f32 but reads or writes 'memref<2xf16>'}}
  scl.kernel "Reduce" mode "sum" ins(%x : memref<2x3xf32>) outs(%y : memref<2xf16>) {ints = array<i64: 1>}
  return %y : memref<2xf16>
}

// -----

// case: a Conv whose weight is bf16 (only its input may be 16-bit)
func.func @f(%x: memref<1x1x4xf32>, %w: memref<1x1x1xbf16>) -> memref<1x1x4xf32> {
  %y = memref.alloc() : memref<1x1x4xf32>
  // expected-error @+1 {{'Conv' computes in f32 but reads or writes 'memref<1x1x1xbf16>'}}
  scl.kernel "Conv" ins(%x, %w : memref<1x1x4xf32>, memref<1x1x1xbf16>) outs(%y : memref<1x1x4xf32>) {ints = array<i64: 1, 1, 0, 1, 1>}
  return %y : memref<1x1x4xf32>
}

// -----

// case: a bf16 Pad filling with 0.1 (16-bit buffers pad with +0.0 only)
func.func @f(%x: memref<4xbf16>) -> memref<5xbf16> {
  %y = memref.alloc() : memref<5xbf16>
  // expected-error @+1 {{'Pad' fills 'memref<5xbf16>' with a value other than +0.0}}
  scl.kernel "Pad" mode "constant" ins(%x : memref<4xbf16>) outs(%y : memref<5xbf16>) {ints = array<i64: 0, 1>, floats = array<f64: 0.1>}
  return %y : memref<5xbf16>
}

// -----

// case: an f16 Fill with -0.0 (its pattern is not zero bytes)
func.func @f() -> memref<3xf16> {
  %y = memref.alloc() : memref<3xf16>
  // expected-error @+1 {{'Fill' fills 'memref<3xf16>' with a value other than +0.0}}
  scl.kernel "Fill" outs(%y : memref<3xf16>) {floats = array<f64: -0.0>}
  return %y : memref<3xf16>
}

// -----

// case: a nearest Interpolate from bf16 to f32 (a gather keeps the type)
func.func @f(%x: memref<1x1x4xbf16>) -> memref<1x1x8xf32> {
  %y = memref.alloc() : memref<1x1x8xf32>
  // expected-error @+1 {{'Interpolate' computes in f32 but reads or writes 'memref<1x1x4xbf16>'}}
  scl.kernel "Interpolate" mode "nearest" ins(%x : memref<1x1x4xbf16>) outs(%y : memref<1x1x8xf32>) {ints = array<i64: 1, 0, 0, 0, 4>, floats = array<f64: 0.5>}
  return %y : memref<1x1x8xf32>
}

// -----

// case: a computing kernel on an i64 buffer (argmax/argmin indices are only
// moved and cast)
func.func @f(%x: memref<2xi64>) -> memref<2xi64> {
  %y = memref.alloc() : memref<2xi64>
  // expected-error @+1 {{'Unary' reads or writes 'memref<2xi64>'; int64 buffers (argmax/argmin indices) are only moved and cast}}
  scl.kernel "Unary" mode "neg" ins(%x : memref<2xi64>) outs(%y : memref<2xi64>)
  return %y : memref<2xi64>
}

// -----

// case: a fused kernel writing an i64 buffer
func.func @f(%x: memref<2xf32>) -> memref<2xi64> {
  %y = memref.alloc() : memref<2xi64>
  // expected-error @+1 {{writes 'memref<2xi64>'; a fused kernel writes f32, i1, bf16 or f16}}
  scl.fused_elementwise ins(%x : memref<2xf32>) outs(%y : memref<2xi64>) {
  ^bb0(%a: f32):
    scl.yield %a : f32
  }
  return %y : memref<2xi64>
}

// -----

// case: a fused kernel reading an i64 buffer
func.func @f(%x: memref<2xi64>) -> memref<2xf32> {
  %y = memref.alloc() : memref<2xf32>
  // expected-error @+1 {{input 0 'memref<2xi64>' holds 'i64'; fused kernels read f32, i1, bf16 or f16}}
  scl.fused_elementwise ins(%x : memref<2xi64>) outs(%y : memref<2xf32>) {
  ^bb0(%a: f32):
    scl.yield %a : f32
  }
  return %y : memref<2xf32>
}

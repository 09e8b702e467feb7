//===- ScLocalBase.td - scl dialect, enums, attributes ------*- tablegen -*-===//
//
// The dialect of partitioned programs: one function per rank class, on local
// static-shaped buffers, with explicit communication.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECT_SCLOCAL_BASE_TD
#define SHARDC_DIALECT_SCLOCAL_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Scl_Dialect : Dialect {
  let name = "scl";
  let cppNamespace = "::shardc::scl";
  let summary = "Per-rank-class local programs: kernels and communication on "
                "local buffers";
  let description = [{
    `sc-partition` rewrites a sharded `sc` function on global tensors into
    `scl`: one function per *rank class* (the ranks whose programs are
    identical, peers being relative mesh offsets), computing on the rank's
    local, static-shaped buffers. Every data movement is explicit: halo
    exchanges list each send and receive with its relative peer and box, and
    collectives name their group (mesh axes) and every member's extent, so
    uneven splits are expressible.

    The level is that of the runtime's instruction set: a function is a
    sequence of kernels and communication ops over buffers (memrefs) in
    destination-passing style, which the artifact writer serialises one to
    one. Buffers rather than tensors, because a halo is assembled in place
    (the own shard is padded into the buffer, the exchange then fills the
    borders) and a ring updates its receive buffers in place.

    ```mlir
    sc.mesh @mesh ["x"=2]
    func.func private @main(tensor<1x1x8xf32> {sc.sharding = ...}) -> ...
        attributes {scl.rank_classes = [@main_class0, @main_class1]}
    func.func @main_class0(%x: memref<1x1x4xf32>) -> memref<1x1x4xf32>
        attributes {scl.mesh = @mesh, scl.ranks = array<i32: 0>} {
      %h = memref.alloc() : memref<1x1x5xf32>
      scl.kernel "Pad" mode "constant" ins(%x : memref<1x1x4xf32>)
          outs(%h : memref<1x1x5xf32>)
          {ints = array<i64: 0, 0, 0, 0, 0, 1>, floats = array<f64: 0.0>}
      scl.halo_exchange ins(%x : memref<1x1x4xf32>)
          outs(%h : memref<1x1x5xf32>) [
            #scl.transfer<recv 0 peer [1] box [0:1, 0:1, 4:5] tag 0>,
            #scl.transfer<send 0 peer [1] box [0:1, 0:1, 3:4] tag 0>]
      %y = memref.alloc() : memref<1x1x4xf32>
      scl.kernel "Pool" mode "max" ins(%h : memref<1x1x5xf32>)
          outs(%y : memref<1x1x4xf32>) {ints = ...}
      return %y : memref<1x1x4xf32>
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let extraClassDeclaration = [{
    /// On a rank-class function: the world ranks that run it (ascending).
    static constexpr ::llvm::StringLiteral kRanksAttrName = "scl.ranks";
    /// On a rank-class function: the sc.mesh its peers and groups refer to.
    static constexpr ::llvm::StringLiteral kMeshAttrName = "scl.mesh";
    /// On the partitioned entry's declaration (global types and shardings):
    /// its rank-class functions.
    static constexpr ::llvm::StringLiteral kRankClassesAttrName =
        "scl.rank_classes";
    /// Written by sc-plan-memory. On a rank-class function: its arena size
    /// and the arena offset of each argument; on a memref.alloc in it: the
    /// buffer's arena offset.
    static constexpr ::llvm::StringLiteral kArenaBytesAttrName =
        "scl.arena_bytes";
    static constexpr ::llvm::StringLiteral kInputOffsetsAttrName =
        "scl.input_offsets";
    static constexpr ::llvm::StringLiteral kOffsetAttrName = "scl.offset";
  }];
}

def Scl_TransferKind : I32EnumAttr<"TransferKind", "a send or a receive", [
  I32EnumAttrCase<"Send", 0, "send">,
  I32EnumAttrCase<"Recv", 1, "recv">
]> {
  let cppNamespace = "::shardc::scl";
  let genSpecializedAttr = 0;
}

def Scl_Reduction : I32EnumAttr<"Reduction",
    "how a collective combines the members' buffers", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Max", 1, "max">,
  I32EnumAttrCase<"Min", 2, "min">
]> {
  let cppNamespace = "::shardc::scl";
  let genSpecializedAttr = 0;
}
def Scl_ReductionAttr : EnumAttr<Scl_Dialect, Scl_Reduction, "reduction">;

def Scl_PendingType : TypeDef<Scl_Dialect, "Pending"> {
  let mnemonic = "pending";
  let summary = "the transfers of a started halo exchange, still in flight";
  let description = [{
    A `scl.halo_exchange` that returns a `!scl.pending` only packs and posts
    its transfers; the one `scl.wait` on the value completes them and writes
    the received boxes. Compute in between (the interior of the consuming
    op) overlaps the transfer.
  }];
}

class Scl_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Scl_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Scl_TransferAttr : Scl_Attr<"Transfer", "transfer"> {
  let summary = "one send or receive of a halo exchange";
  let description = [{
    `#scl.transfer<send 0 peer [1, 0] box [0:2, 0:16] tag 3>` sends the box
    `[0,2) x [0,16)` of the exchange's input 0 to the rank one step along
    mesh axis 0; a `recv` writes the box of output `operand`. `peer` is a
    relative mesh offset, so ranks of one class share the op; `periodic`
    wraps the offset around the mesh (rings). A send pairs with the peer's
    receive of the same tag; an op has at most one send and one receive per
    peer and tag. A transfer to peer 0 (all zeros) is a local copy.
  }];
  let parameters = (ins
    "::shardc::scl::TransferKind":$kind,
    "int64_t":$operand,
    ArrayRefParameter<"int64_t">:$peer,
    ArrayRefParameter<"int64_t">:$lo,
    ArrayRefParameter<"int64_t">:$hi,
    "int64_t":$tag,
    "bool":$periodic
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool isSend() const { return getKind() == ::shardc::scl::TransferKind::Send; }
    /// Whether the peer is the rank itself (a local copy).
    bool isSelf() const;
  }];
}

def Scl_ShardAttr : Scl_Attr<"Shard", "shard"> {
  let summary = "the value of a constant on some ranks";
  let description = [{
    `#scl.shard<[0, 1], dense<...> : tensor<4xf32>>`: ranks 0 and 1 hold this
    value of the constant.
  }];
  let parameters = (ins
    ArrayRefParameter<"int32_t">:$ranks,
    "::mlir::DenseElementsAttr":$value
  );
  let assemblyFormat = "`<` `[` $ranks `]` `,` $value `>`";
}

#endif // SHARDC_DIALECT_SCLOCAL_BASE_TD

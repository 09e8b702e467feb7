//===- ScAttrs.td - sc attributes ---------------------------*- tablegen -*-===//
#ifndef SHARDC_DIALECT_SC_ATTRS_TD
#define SHARDC_DIALECT_SC_ATTRS_TD

include "shardc/Dialect/Sc/ScBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Sc_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a partial value's pending reduction combines", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Max", 1, "max">,
  I32EnumAttrCase<"Mean", 2, "mean">,
  I32EnumAttrCase<"Min", 3, "min">
]> {
  let cppNamespace = "::shardc::sc";
  let genSpecializedAttr = 0;
}

class Sc_Attr<string name, string attrMnemonic = "", list<Trait> traits = []>
    : AttrDef<Sc_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Sc_DimShardingAttr : Sc_Attr<"DimSharding", "dim_sharding"> {
  let summary = "How one tensor dimension is split over mesh axes";
  let description = [{
    The mesh axes a dimension is split over, major to minor, and optionally
    the explicit extent of every shard (their count is the product of the
    axes' sizes, they sum to the dimension). No extents: the canonical split
    (numpy.array_split). Usually written inside `#sc.sharding`; on its own
    it reads `#sc.dim_sharding<{"x"}[3, 2]>`.
  }];
  let hasCustomAssemblyFormat = 1;
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr", "mesh axes, major to minor">:$axes,
    ArrayRefParameter<"int64_t", "explicit extents; empty means canonical">:$extents
  );
}

def Sc_ShardingAttr : Sc_Attr<"Sharding", "sharding"> {
  let summary = "The sharding of a tensor over a device mesh";
  let description = [{
    One entry per tensor dimension naming the mesh axes it is split over,
    optionally followed by explicit per-shard extents for uneven splits, and
    optionally the axes over which the value is a *partial* result still to be
    reduced (sum, max or mean).

    ```mlir
    #sc.sharding<@mesh, [{}, {}, {"x"}, {} ]>                      // canonical split of dim 2
    #sc.sharding<@mesh, [{}, {}, {"x"}[300, 300, 212, 212], {} ]>  // explicit extents
    #sc.sharding<@m2, [{}, {"data", "domain"} ]>                   // two axes on one dim
    #sc.sharding<@m2, [{}, {"domain"} ], partial sum {"data"}>     // pending sum over "data"
    ```
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"::shardc::sc::DimShardingAttr", "per-dimension splits">:$dims,
    ArrayRefParameter<"::mlir::StringAttr", "partial axes">:$partialAxes,
    "::shardc::sc::ReductionKind":$partialKind
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Whether no dimension is split and no reduction is pending.
    bool isReplicated() const;
    /// Checks this sharding against the mesh it names and the tensor type it
    /// annotates; `anchor` is where the mesh symbol is looked up from.
    ::llvm::LogicalResult verifyFor(::mlir::Operation *anchor, ::mlir::Type type,
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError) const;
  }];
}

#endif // SHARDC_DIALECT_SC_ATTRS_TD

//===- ScBase.td - sc dialect definition -------------------*- tablegen -*-===//
#ifndef SHARDC_DIALECT_SC_BASE_TD
#define SHARDC_DIALECT_SC_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Sc_Dialect : Dialect {
  let name = "sc";
  let cppNamespace = "::shardc::sc";
  let summary = "Domain-parallel models on global shapes, with device meshes and shardings";
  let description = [{
    The `sc` dialect describes a neural network on *global* tensor shapes, with
    PyTorch's op semantics (NCL/NCHW/NCDHW layouts), and says how some values
    are split over a named device mesh. Splits may be uneven: a dimension of
    size n over k shards follows `numpy.array_split` unless explicit per-shard
    extents are given. shardc's passes propagate these shardings and partition
    the program into static-shaped per-rank programs. Every op's operands
    and results must have a byte size an int64 holds (the `Sc_BytesFitInt64`
    trait): costs, memory plans, artifacts and the runtime count in int64.

    ```mlir
    sc.mesh @mesh ["x"=4]
    func.func @f(%x: tensor<1x8x250xf32>
                     {sc.sharding = #sc.sharding<@mesh, [{}, {}, {"x"}[90, 90, 40, 30]]>})
        -> tensor<1x8x250xf32> {
      %y = sc.relu %x : tensor<1x8x250xf32>
      return %y : tensor<1x8x250xf32>
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that carries a value's sharding.
    static constexpr ::llvm::StringLiteral kShardingAttrName = "sc.sharding";
  }];
}

// Every operand and result of an sc op has a byte size an int64 holds: the
// partitioner's costs, the memory plan, the artifact and the runtime count
// bytes in int64, so a bigger tensor is rejected where it is written. It
// comes first, so that no other verifier multiplies such extents.
def Sc_BytesFitInt64 : NativeOpTrait<"BytesFitInt64"> {
  let cppNamespace = "::shardc::sc::OpTrait";
}

class Sc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sc_Dialect, mnemonic, !listconcat([Sc_BytesFitInt64], traits)>;

// Tensors of the dialect: static-shaped, ranked.
def Sc_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
def Sc_BoolTensor : StaticShapeTensorOf<[I1]>;
// torch.long results (argmax, argmin): int64 indices.
def Sc_IndexTensor : StaticShapeTensorOf<[I64]>;
def Sc_AnyTensor : StaticShapeTensorOf<[AnyType]>;
def Sc_NumericTensor : StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>;

// A string attribute restricted to a fixed vocabulary. PyTorch spells these
// options as strings (padding_mode="reflect"), so the IR does too.
class Sc_StrOneOf<list<string> values> : AttrConstraint<
  CPred<"::shardc::sc::isStringOneOf($_self, \"" # !interleave(values, ",") # "\")">,
  "one of: " # !interleave(values, ", ")>;
class Sc_StrEnumAttr<list<string> values, string default>
    : DefaultValuedAttr<ConfinedAttr<StrAttr, [Sc_StrOneOf<values>]>,
                        "\"" # default # "\"">;

#endif // SHARDC_DIALECT_SC_BASE_TD

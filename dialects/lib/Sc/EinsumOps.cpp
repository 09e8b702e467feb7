//===- EinsumOps.cpp - sc.einsum: equation parsing and shape inference ----===//
//
// torch.einsum's equation language: letters label dims, `...` covers the dims
// no letter names (broadcast from the right), `->` names the result (or the
// result is the `...` dims, then the letters used once, in alphabetical
// order). One parser serves inference, the sharding rule and
// sc-decompose-forms.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace shardc::sc;
using namespace shardc::sc::detail;

namespace {
/// One side's subscripts: letters and where `...` stands (if anywhere).
struct Subscripts {
  SmallVector<char> letters;
  std::optional<size_t> ellipsisAt; // index into letters it precedes
};
} // namespace

static std::string labelName(int64_t label) {
  if (label >= EinsumEquation::kFirstEllipsisLabel)
    return "the dims of '...'";
  return "label '" + std::string(1, static_cast<char>(label)) + "'";
}

/// Parses one operand's (or the result's) subscripts.
static FailureOr<Subscripts> parseSubscripts(OptLoc loc, StringRef name,
                                             StringRef text, StringRef what) {
  Subscripts s;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (llvm::isAlpha(c)) {
      if (llvm::is_contained(s.letters, c))
        return fail(loc, name, "label '", std::string(1, c),
                    "' appears twice in ", what, " '", text,
                    "'; diagonals (a label repeated in one operand) are not "
                    "taken");
      s.letters.push_back(c);
      continue;
    }
    if (c == '.' && text.substr(i, 3) == "..." && !s.ellipsisAt) {
      s.ellipsisAt = s.letters.size();
      i += 2;
      continue;
    }
    return fail(loc, name, "invalid subscripts '", text, "' for ", what,
                ": labels are letters, with at most one '...'");
  }
  return s;
}

FailureOr<EinsumEquation>
shardc::sc::parseEinsumEquation(OptLoc loc, StringRef name, StringRef equation,
                                TypeRange operandTypes) {
  std::string compact;
  for (char c : equation)
    if (c != ' ')
      compact.push_back(c);
  StringRef eq(compact);
  size_t arrow = eq.find("->");
  StringRef inputs = eq.substr(0, arrow);
  std::optional<StringRef> output;
  if (arrow != StringRef::npos) {
    output = eq.substr(arrow + 2);
    if (output->contains("->"))
      return fail(loc, name, "equation '", equation, "' has two '->'");
  }
  SmallVector<StringRef> parts;
  inputs.split(parts, ',');
  if (parts.size() != operandTypes.size())
    return fail(loc, name, "equation '", equation, "' has subscripts for ",
                parts.size(), " operands but the op has ", operandTypes.size());
  EinsumEquation result;
  std::map<int64_t, int64_t> uses; // label -> operands naming it
  int64_t maxEllipsis = 0;
  for (auto [i, part] : llvm::enumerate(parts)) {
    std::string what = "operand #" + std::to_string(i);
    FailureOr<Subscripts> s = parseSubscripts(loc, name, part, what);
    if (failed(s))
      return failure();
    auto type = cast<RankedTensorType>(operandTypes[i]);
    int64_t rank = type.getRank(), named = s->letters.size();
    int64_t ellipsis = rank - named;
    if (s->ellipsisAt ? ellipsis < 0 : ellipsis != 0)
      return fail(loc, name, what, " has rank ", rank, " but its subscripts '",
                  part, "' name ", s->ellipsisAt ? "at least " : "", named,
                  " dims");
    maxEllipsis = std::max(maxEllipsis, s->ellipsisAt ? ellipsis : 0);
    SmallVector<int64_t> labels;
    for (size_t k = 0; k <= s->letters.size(); ++k) {
      if (s->ellipsisAt == k)
        for (int64_t e = ellipsis; e-- > 0;)
          labels.push_back(EinsumEquation::kFirstEllipsisLabel + e);
      if (k < s->letters.size())
        labels.push_back(s->letters[k]);
    }
    for (auto [d, label] : llvm::enumerate(labels)) {
      int64_t size = type.getDimSize(d);
      auto [it, fresh] = result.sizes.try_emplace(label, size);
      if (!fresh && it->second != size) {
        if (it->second != 1 && size != 1)
          return fail(loc, name, labelName(label), " has size ", it->second,
                      " in an earlier operand but ", size, " in ", what,
                      "; sizes must agree or be 1");
        // Size 1 broadcasts to the other, 0 included (numpy's rule).
        it->second = it->second == 1 ? size : it->second;
      }
      ++uses[label];
    }
    result.operandLabels.push_back(std::move(labels));
  }
  auto ellipsisLabels = [&] {
    SmallVector<int64_t> labels;
    for (int64_t e = maxEllipsis; e-- > 0;)
      labels.push_back(EinsumEquation::kFirstEllipsisLabel + e);
    return labels;
  };
  if (!output) {
    result.resultLabels = ellipsisLabels();
    for (auto [label, count] : uses)
      if (label < EinsumEquation::kFirstEllipsisLabel && count == 1)
        result.resultLabels.push_back(label);
    return result;
  }
  FailureOr<Subscripts> out = parseSubscripts(loc, name, *output, "the output");
  if (failed(out))
    return failure();
  if (maxEllipsis > 0 && !out->ellipsisAt)
    return fail(loc, name,
                "the operands have dims under '...', so the output '", *output,
                "' must place them with '...'");
  for (size_t k = 0; k <= out->letters.size(); ++k) {
    if (out->ellipsisAt == k)
      result.resultLabels.append(ellipsisLabels());
    if (k == out->letters.size())
      break;
    char c = out->letters[k];
    if (!uses.count(c))
      return fail(loc, name, "output label '", std::string(1, c),
                  "' names no operand dim");
    result.resultLabels.push_back(c);
  }
  return result;
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return fail(loc, name, "needs at least one operand");
  Type element;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    RankedTensorType t = tensorTypeOf(input);
    if (!t)
      return fail(loc, name, "needs ranked tensor operands");
    if (element && t.getElementType() != element)
      return fail(loc, name, "operand #", i, " has element type ",
                  t.getElementType(), " but operand #0 has ", element);
    element = t.getElementType();
  }
  FailureOr<EinsumEquation> eq = parseEinsumEquation(
      loc, name, adaptor.getEquation(), ValueRange(inputs).getTypes());
  if (failed(eq))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t label : eq->resultLabels)
    shape.push_back(eq->sizes.lookup(label));
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

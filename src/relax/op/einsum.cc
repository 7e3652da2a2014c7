// relax.einsum(operands; subscripts) (TVM's relax/op/tensor/linear_algebra.cc einsum): Einstein
// summation over a tuple of tensors, subscripts "ij,jk->ik" or implicit ("ij,jk": the labels seen
// once, sorted). Struct-info inference here (each operand's labels against its rank, a label's
// extents equal, one dtype); the legalization to a te.compute is in python/tessera/relax/op/einsum.py.
#include <cctype>
#include <map>

#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

// The input label strings and the output labels of `subscripts`; ValueError naming the op and the
// attribute for anything else than letters, commas and one "->" (ellipses are not supported).
std::pair<std::vector<std::string>, std::string> ParseSubscripts(const Call& call, const std::string& subscripts,
                                                                 size_t num_operands) {
  auto bad = [&](const std::string& why) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'subscripts' = \"" << subscripts << "\": " << why;
  };
  std::string lhs = subscripts, out;
  bool explicit_out = false;
  if (size_t arrow = subscripts.find("->"); arrow != std::string::npos) {
    lhs = subscripts.substr(0, arrow);
    out = subscripts.substr(arrow + 2);
    explicit_out = true;
  }
  std::vector<std::string> inputs(1);
  for (char c : lhs) {
    if (c == ',') {
      inputs.emplace_back();
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      inputs.back().push_back(c);
    } else if (c != ' ') {
      bad(c == '.' ? "ellipses ('...') are not supported" : std::string("unexpected character '") + c + "'");
    }
  }
  if (inputs.size() != num_operands) {
    bad("names " + std::to_string(inputs.size()) + " operands, but " + std::to_string(num_operands) + " are given");
  }
  std::map<char, int> count;
  for (const std::string& in : inputs) {
    for (char c : in) ++count[c];
  }
  if (!explicit_out) {
    for (const auto& [c, n] : count) {
      if (n == 1) out.push_back(c);  // std::map: sorted, as numpy / torch order them
    }
    return {inputs, out};
  }
  std::string cleaned;
  for (char c : out) {
    if (c == ' ') continue;
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      bad(c == '.' ? "ellipses ('...') are not supported" : std::string("unexpected output character '") + c + "'");
    }
    if (cleaned.find(c) != std::string::npos) bad(std::string("output label '") + c + "' appears twice");
    if (!count.count(c)) bad(std::string("output label '") + c + "' is in no operand");
    cleaned.push_back(c);
  }
  return {inputs, cleaned};
}

StructInfo InferEinsum(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* tup = ArgSInfoAs<TupleStructInfoNode>(call, 0, "operands", "a tuple of tensors");
  if (tup->fields.empty()) TESSERA_THROW(ValueError) << OpName(call) << ": operand 'operands' is an empty tuple";
  std::vector<const TensorStructInfoNode*> ts;
  std::vector<std::string> names;
  for (size_t i = 0; i < tup->fields.size(); ++i) {
    const auto* t = tup->fields[i].as<TensorStructInfoNode>();
    if (t == nullptr) {
      TESSERA_THROW(TypeError) << OpName(call) << ": operand 'operands' field " << i << " must be a tensor, got "
                               << StructInfoText(tup->fields[i]);
    }
    ts.push_back(t);
    names.push_back("operands[" + std::to_string(i) + "]");
  }
  std::vector<const char*> cnames;
  for (const auto& n : names) cnames.push_back(n.c_str());
  DataType dtype = SameDType(call, ts, cnames);
  auto [inputs, out] = ParseSubscripts(call, AttrStr(call, "subscripts"), ts.size());
  std::map<char, PrimExpr> extent;
  bool known = true;
  arith::Analyzer analyzer;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i]->IsUnknownNdim()) {
      known = false;
      continue;
    }
    if (ts[i]->ndim != static_cast<int>(inputs[i].size())) {
      TESSERA_THROW(ValueError) << OpName(call) << ": subscripts \"" << inputs[i] << "\" name "
                                << inputs[i].size() << " dimensions, operand '" << names[i] << "' has "
                                << ts[i]->ndim;
    }
    auto shape = ts[i]->GetShape();
    if (!shape) {
      known = false;
      continue;
    }
    for (size_t d = 0; d < inputs[i].size(); ++d) {
      char c = inputs[i][d];
      PrimExpr e = (*shape)[d];
      auto it = extent.find(c);
      if (it == extent.end()) {
        extent[c] = e;
      } else if (analyzer.CanProve(tir::not_equal(it->second, e))) {
        TESSERA_THROW(ValueError) << OpName(call) << ": label '" << c << "' has extent " << nn_attrs::DimText(it->second)
                                  << " and, in operand '" << names[i] << "', " << nn_attrs::DimText(e);
      }
    }
  }
  if (!known) return TensorStructInfo(dtype, static_cast<int>(out.size()));
  Array<PrimExpr> shape;
  for (char c : out) shape.push_back(extent[c]);
  return TensorStructInfo(ShapeExpr(shape), dtype);
}

static auto& reg_einsum = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.einsum")
                   .set_num_inputs(1)
                   .describe("Einstein summation of a tuple of tensors by attribute subscripts."),
               InferEinsum, true),
    {{"subscripts", std::nullopt}});

}  // namespace

}  // namespace relax
}  // namespace tessera

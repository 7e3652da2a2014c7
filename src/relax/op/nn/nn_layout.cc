// Parsing and shape conversion of nn op layout strings (nn_layout.h). Relax IR layer.
#include "relax/op/nn/nn_layout.h"

#include <cctype>

#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

NNLayout NNLayout::Parse(const Call& call, const char* attr, const std::string& text, const std::string& canonical) {
  NNLayout l;
  l.text_ = text;
  l.canonical_ = canonical;
  l.attr_ = attr;
  auto fail = [&](const std::string& why) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' = \"" << text << "\" is not a layout of "
                              << canonical << " (" << why << "; expected a permutation of the letters " << canonical
                              << ", optionally with packed sub-axes such as 16c)";
  };
  size_t i = 0;
  while (i < text.size()) {
    int64_t factor = 0;
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (i - start > 9) fail("sub-axis factor too large");
      factor = factor * 10 + (text[i] - '0');
      ++i;
    }
    if (i == text.size()) fail("a factor without its axis letter");
    char c = text[i++];
    bool sub = i - 1 > start;
    if (!std::isalpha(static_cast<unsigned char>(c))) fail(std::string("character '") + c + "'");
    if (sub != static_cast<bool>(std::islower(static_cast<unsigned char>(c)))) {
      fail(sub ? "a factor before the primal axis " + std::string(1, c) : "sub-axis " + std::string(1, c) + " has no factor");
    }
    if (sub && factor < 1) fail("sub-axis factor must be >= 1");
    char primal = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (canonical.find(primal) == std::string::npos) fail(std::string("unknown axis '") + c + "'");
    for (char seen : l.axes_) {
      if (seen == c) fail(std::string("axis '") + c + "' repeated");
    }
    l.axes_.push_back(c);
    l.factors_.push_back(sub ? factor : 0);
  }
  for (char p : canonical) {
    bool found = false;
    for (char a : l.axes_) found = found || a == p;
    if (!found) fail(std::string("axis '") + p + "' missing");
  }
  return l;
}

Array<PrimExpr> NNLayout::ToCanonical(const Array<PrimExpr>& shape) const {
  using namespace tir;  // NOLINT: PrimExpr arithmetic
  arith::Analyzer analyzer;
  Array<PrimExpr> out;
  for (char p : canonical_) {
    PrimExpr e;
    for (int k = 0; k < ndim(); ++k) {
      if (axes_[k] == p) e = e.defined() ? e * shape[k] : shape[k];
      if (std::toupper(static_cast<unsigned char>(axes_[k])) == p && factors_[k] > 0) {
        e = e.defined() ? e * Dim(factors_[k]) : Dim(factors_[k]);
      }
    }
    out.push_back(analyzer.Simplify(e));
  }
  return out;
}

Array<PrimExpr> NNLayout::FromCanonical(const Call& call, const Array<PrimExpr>& shape) const {
  using namespace tir;  // NOLINT: PrimExpr arithmetic
  arith::Analyzer analyzer;
  Array<PrimExpr> out;
  for (int k = 0; k < ndim(); ++k) {
    if (factors_[k] > 0) {
      out.push_back(Dim(factors_[k]));
      continue;
    }
    PrimExpr e = shape[canonical_.find(axes_[k])];
    int64_t packed = 1;
    for (int j = 0; j < ndim(); ++j) {
      if (factors_[j] > 0 && std::toupper(static_cast<unsigned char>(axes_[j])) == axes_[k]) packed *= factors_[j];
    }
    if (packed > 1) {
      if (analyzer.CanProve(not_equal(floormod(e, Dim(packed)), Dim(0)))) {
        TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr_ << "' = \"" << text_ << "\" packs axis "
                                  << axes_[k] << " by " << packed << ", but its extent " << nn_attrs::DimText(e)
                                  << " is not a multiple of it";
      }
      e = floordiv(e, Dim(packed));
    }
    out.push_back(analyzer.Simplify(e));
  }
  return out;
}

}  // namespace relax
}  // namespace tessera

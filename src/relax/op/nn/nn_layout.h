// The data/kernel layout strings of the Relax nn ops (conv*, pooling), in TVM's naming:
// each primal axis a capital letter, a packed sub-axis <factor><lowercase> (NCHW16c, OIHW4i4o).
// A layout is accepted when its capitals are a permutation of the op's canonical layout
// (NCHW, OIHW, ...); shapes convert to and from the canonical layout for struct-info
// inference. Relax IR layer; used by op/nn/{convolution,pooling}.cc.
#pragma once

#include <string>
#include <vector>

#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

class NNLayout {
 public:
  // Parses attribute `attr` of `call` (value `text`) against `canonical`; ValueError naming op and
  // attribute for an unknown, repeated or missing letter, a sub-axis without its primal axis or a
  // factor below 1.
  static NNLayout Parse(const Call& call, const char* attr, const std::string& text, const std::string& canonical);

  const std::string& text() const { return text_; }
  int ndim() const { return static_cast<int>(axes_.size()); }
  bool IsCanonical() const { return text_ == canonical_; }
  // The shape in the canonical layout of a tensor of shape `shape` in this layout (rank ndim()).
  Array<PrimExpr> ToCanonical(const Array<PrimExpr>& shape) const;
  // The shape in this layout of a tensor of canonical shape `shape`; ValueError naming the
  // attribute when a constant extent is not a multiple of a sub-axis factor.
  Array<PrimExpr> FromCanonical(const Call& call, const Array<PrimExpr>& shape) const;

 private:
  std::string text_, canonical_, attr_;
  std::vector<char> axes_;         // per dimension: the axis letter (lowercase: a sub-axis)
  std::vector<int64_t> factors_;   // per dimension: the sub-axis factor, 0 for a primal axis
};

}  // namespace relax
}  // namespace tessera

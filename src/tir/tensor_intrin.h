// TensorIntrin: a named pair of PrimFuncs describing a hardware (or library)
// operation — `desc` is the computation in TensorIR, `impl` what replaces it
// (e.g. a call_extern of a micro-kernel). The tensorize schedule primitive
// matches a block against `desc` and substitutes `impl`. TIR layer.
#pragma once

#include "tir/function.h"

namespace tessera {
namespace tir {

class TensorIntrinNode : public Object {
 public:
  PrimFunc desc;
  PrimFunc impl;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TensorIntrinNode, Object, "tir.TensorIntrin");
};

class TensorIntrin : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(TensorIntrin, ObjectRef, TensorIntrinNode);
  // Checks that desc and impl take the same number of buffers.
  TensorIntrin(PrimFunc desc, PrimFunc impl);
  // Raises ValueError when `name` is taken and !override.
  static void Register(const std::string& name, const TensorIntrin& intrin, bool override);
  // Raises ValueError naming the missing intrinsic.
  static TensorIntrin Get(const std::string& name);
};

}  // namespace tir
}  // namespace tessera

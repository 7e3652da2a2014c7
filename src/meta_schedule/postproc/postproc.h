// Postproc (`tvm.meta_schedule.postproc.Postproc`): a step applied to every
// sampled candidate before it is built and measured, realizing what the
// schedule rules only recorded (annotations) and rejecting candidates that
// cannot work: Apply returns false (or raises) and the candidate is
// discarded. Each postprocessor lives in its own file here and registers its
// constructor ("meta_schedule.Postproc<Name>"); DefaultLLVM lists the CPU
// set. Meta-schedule layer.
#pragma once

#include "meta_schedule/block_analysis.h"

namespace tessera {
namespace meta_schedule {

class Postproc;

class PostprocNode : public Object {
 public:
  virtual ~PostprocNode() = default;
  // TVM's InitializeWithTuneContext: what the postprocessor needs from the target.
  virtual void InitializeWithTarget(const Target& target) {}
  // Rewrites `sch` in place; false: the candidate is invalid.
  virtual bool Apply(const tir::Schedule& sch) const = 0;
  virtual Postproc Clone() const = 0;
  TESSERA_DECLARE_OBJECT_INFO(PostprocNode, Object, "meta_schedule.Postproc");
};

class Postproc : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Postproc, ObjectRef, PostprocNode);
  // TVM's llvm postprocessors, in TVM's order, those registered:
  // DisallowDynamicLoop, RewriteParallelVectorizeUnroll, RewriteReductionBlock
  // (TVM's RewriteLayout is not part of Tessera).
  static Array<Postproc> DefaultLLVM();
};

}  // namespace meta_schedule
}  // namespace tessera

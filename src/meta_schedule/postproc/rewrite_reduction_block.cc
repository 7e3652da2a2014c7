// RewriteReductionBlock (TVM's postproc.RewriteReductionBlock): every block
// that still has an init statement (and no reduction iterator bound to a
// thread) is decomposed (decompose_reduction) at its first loop that is not
// spatial, until none is left. Meta-schedule layer.
#include "meta_schedule/postproc/postproc.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class RewriteReductionBlockNode : public PostprocNode {
 public:
  // (function, block name, decompose point) of the first block to decompose, if any.
  static bool FindOne(const Schedule& sch, std::string* func, std::string* block, size_t* point) {
    for (const auto& [gv, base] : sch->mod->functions.items()) {
      const auto* f = base.as<PrimFuncNode>();
      if (!f) continue;
      std::string name = gv->name_hint;
      for (const BlockLocation& loc : sch.IndexOf(name)->blocks()) {
        if (!loc.block->init.has_value()) continue;
        bool thread_bound = false;
        for (size_t i = 0; i < loc.block->iter_vars.size(); ++i) {
          if (loc.block->iter_vars[i]->iter_type != kCommReduce) continue;
          for (const ForNode* l : loc.loops) {
            if (l->kind == ForKind::kThreadBinding && UsesVar(loc.realize->iter_values[i], l->loop_var.get())) {
              thread_bound = true;
            }
          }
        }
        if (thread_bound) continue;
        for (size_t i = 0; i < loc.loops.size(); ++i) {
          if (LoopIterType(loc.realize, loc.loops[i]) != kDataPar) {
            *func = name;
            *block = loc.block->name_hint;
            *point = i;
            return true;
          }
        }
      }
    }
    return false;
  }

  bool Apply(const Schedule& sch) const final {
    std::string func, block;
    size_t point = 0;
    while (FindOne(sch, &func, &block, &point)) {
      BlockRV rv = sch.GetBlock(block, func);
      Array<LoopRV> loops = sch.GetLoops(rv);
      sch.DecomposeReduction(rv, loops[point]);
    }
    return true;
  }

  Postproc Clone() const final { return Postproc(make_object<RewriteReductionBlockNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RewriteReductionBlockNode, PostprocNode, "meta_schedule.RewriteReductionBlock");
};

TESSERA_REGISTER_NODE(RewriteReductionBlockNode);

TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocRewriteReductionBlock").set_body_typed([]() {
  return Postproc(make_object<RewriteReductionBlockNode>());
});

}  // namespace meta_schedule
}  // namespace tessera

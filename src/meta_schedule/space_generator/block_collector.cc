// The blocks PostOrderApply visits (TVM's BlockCollector): for each PrimFunc
// of the module, its root block and then every block in program order
// (pre-order), as [function name, block name] pairs. PostOrderApply
// (python/tessera/meta_schedule/space_generator.py) applies each rule to them
// from the last to the first, so consumers come before producers and the
// root block last. Meta-schedule layer.
#include "ir/module.h"
#include "runtime/registry.h"
#include "tir/schedule/analysis.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

Array<Array<String>> CollectBlockNames(const IRModule& mod) {
  std::vector<Array<String>> out;
  for (const auto& [gv, base] : mod->functions.items()) {
    const auto* f = base.as<PrimFuncNode>();
    if (!f) continue;
    std::string func = gv->name_hint;
    if (const auto* root = f->body.as<BlockRealizeNode>()) out.push_back({String(func), String(root->block->name_hint)});
    for (const BlockLocation& loc : CollectBlocks(GetRef<PrimFunc>(f))) {
      out.push_back({String(func), String(loc.block->name_hint)});
    }
  }
  return Array<Array<String>>(out);
}

TESSERA_REGISTER_GLOBAL("meta_schedule.CollectBlockNames").set_body_typed([](IRModule mod) {
  return CollectBlockNames(mod);
});

}  // namespace meta_schedule
}  // namespace tessera

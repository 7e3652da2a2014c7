// reorder_block_iter_var: permutes a block's iteration variables (and their
// bindings) into `new_order` (new position k holds old variable new_order[k]),
// as TVM's; the computation is unchanged. Its instruction kind, the function
// behind the Schedule method and the tir.schedule.ReorderBlockIterVar FFI entry.
#include <string>
#include <vector>

#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

void ReorderBlockIterVar(const Schedule& sch, const BlockRV& block, const std::vector<int64_t>& order) {
  BlockLocation loc = sch.LocateBlock(block, "reorder_block_iter_var");
  const std::string func = sch->blocks.at(block.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  const size_t n = b->iter_vars.size();
  const std::string name = "block \"" + b->name_hint + "\"";
  if (order.size() != n) {
    ThrowScheduleError("reorder_block_iter_var", "new_order has " + std::to_string(order.size()) + " entries but " +
                                                     name + " has " + std::to_string(n) + " iteration variables",
                       f, {b});
  }
  std::vector<bool> seen(n, false);
  for (int64_t k : order) {
    if (k < 0 || k >= static_cast<int64_t>(n)) {
      ThrowScheduleError("reorder_block_iter_var", "new_order entry " + std::to_string(k) + " is out of range [0, " +
                                                       std::to_string(n) + ") for " + name,
                         f, {b});
    }
    if (seen[k]) {
      ThrowScheduleError("reorder_block_iter_var", "new_order names iteration variable " + std::to_string(k) +
                                                       " of " + name + " twice",
                         f, {b});
    }
    seen[k] = true;
  }
  std::vector<IterVar> ivs;
  std::vector<PrimExpr> values;
  for (int64_t k : order) {
    ivs.push_back(b->iter_vars[k]);
    values.push_back(loc.realize->iter_values[k]);
  }
  Block nb = GetRef<Block>(b);
  nb.CopyOnWrite()->iter_vars = Array<IterVar>(ivs);
  BlockRealize realize(Array<PrimExpr>(values), loc.realize->predicate, nb, loc.realize->span);
  sch.Commit(func, ReplaceInFunc(f, loc.realize, realize));
  std::vector<Any> attr(order.begin(), order.end());
  sch.Record("ReorderBlockIterVar", {block, Array<Any>(attr)}, {}, {});
}

std::vector<int64_t> AsInts(const Any& list) {
  std::vector<int64_t> out;
  for (const Any& x : list.cast<Array<Any>>().to_vector()) {
    if (const auto* imm = x.as<IntImmNode>()) {
      out.push_back(imm->value);
    } else {
      out.push_back(x.cast<int64_t>());
    }
  }
  return out;
}

}  // namespace

TESSERA_REGISTER_INST_KIND("ReorderBlockIterVar")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      ReorderBlockIterVar(sch, in.at_any(0).cast<BlockRV>(), AsInts(in.at_any(1)));
      return Array<Any>();
    })
    .set_as_python(PythonCall("reorder_block_iter_var", {"block", "new_order"}, {}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReorderBlockIterVar").set_body_typed([](Schedule s, BlockRV b, Array<Any> order) {
  ReorderBlockIterVar(s, b, AsInts(Any(order)));
});

}  // namespace tir
}  // namespace tessera

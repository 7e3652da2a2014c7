// MutateParallel: changes the value of the `meta_schedule.parallel`
// annotation (the most loop iterations RewriteParallelVectorizeUnroll may
// fuse into one parallel loop) to another value that parallelizes a
// different number of outer loops in some block, never above
// max_jobs_per_core * num_cores. As TVM's MutateParallel. MetaSchedule layer.
#include "ir/int_value.h"
#include "meta_schedule/mutator/mutator.h"

#include <map>
#include <set>

#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {

class MutateParallelNode : public MutatorNode {
 public:
  int64_t max_jobs_per_core = 16;

  std::string Name() const override { return "MutateParallel"; }

  std::optional<tir::Trace> Apply(const tir::Trace& trace, TRandState* rand_state) const override {
    std::optional<size_t> site;
    for (size_t i = 0; i < trace->insts.size(); ++i) {
      const tir::Instruction& inst = trace->insts[i];
      if (inst->kind->name != "Annotate" || inst->inputs.size() < 2 || inst->attrs.size() < 1) continue;
      auto key = inst->attrs.at_any(0).try_cast<std::string>();
      if (key && *key == "meta_schedule.parallel" && IntValue(inst->inputs.at_any(1))) site = i;
    }
    if (!site) return std::nullopt;
    const tir::Instruction& inst = trace->insts[*site];
    const int64_t current = *IntValue(inst->inputs.at_any(1));
    auto sch = TryReplay(MutatorModule(this), trace);
    if (!sch) return std::nullopt;
    const int64_t max_extent = max_jobs_per_core * num_cores;
    // For each block: the products of its outer parallelizable loops' extents.
    std::vector<std::vector<int64_t>> prods = LoopExtentProducts((*sch)->mod->Lookup((*sch)->func_name));
    // Plans (how many outer loops each block fuses) -> the smallest limit giving it.
    auto plan_of = [&](int64_t limit) {
      std::vector<int64_t> plan;
      for (const auto& p : prods) plan.push_back(std::upper_bound(p.begin(), p.end(), limit) - p.begin());
      return plan;
    };
    std::map<std::vector<int64_t>, int64_t> plans;
    for (const auto& p : prods) {
      for (int64_t v : p) {
        if (v > max_extent) break;
        auto [it, fresh] = plans.emplace(plan_of(v), v);
        if (!fresh) it->second = std::min(it->second, v);
      }
    }
    plans.erase(plan_of(std::min(current, max_extent)));
    if (plans.empty()) return std::nullopt;
    auto it = plans.begin();
    std::advance(it, RandInt(rand_state, 0, static_cast<int64_t>(plans.size())));
    int64_t value = it->second;
    Any old = inst->inputs.at_any(1);
    Any fresh = old.as<IntImmNode>() ? Any(IntImm(old.as<IntImmNode>()->dtype, value)) : Any(value);
    std::vector<Any> inputs = inst->inputs.to_vector();
    inputs[1] = fresh;
    return ReplaceInstruction(trace, *site, tir::Instruction(inst->kind, Array<Any>(inputs), inst->attrs, inst->outputs));
  }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(MutateParallelNode, MutatorNode, "meta_schedule.MutateParallel");

 private:
  // Per block under the root: prefix products of the extents of its
  // enclosing serial loops with constant extents, stopping at the first loop
  // that feeds a reduction iterator (those are never parallelized).
  static std::vector<std::vector<int64_t>> LoopExtentProducts(const BaseFunc& base) {
    std::vector<std::vector<int64_t>> out;
    const auto* func = base.as<tir::PrimFuncNode>();
    if (func == nullptr) return out;
    std::vector<const tir::ForNode*> stack;
    std::function<void(const tir::Stmt&, bool)> walk = [&](const tir::Stmt& s, bool is_root) {
      if (const auto* loop = s.as<tir::ForNode>()) {
        stack.push_back(loop);
        walk(loop->body, false);
        stack.pop_back();
      } else if (const auto* seq = s.as<tir::SeqStmtNode>()) {
        for (tir::Stmt x : seq->seq) walk(x, false);
      } else if (const auto* ite = s.as<tir::IfThenElseNode>()) {
        walk(ite->then_case, false);
        if (ite->else_case) walk(*ite->else_case, false);
      } else if (const auto* realize = s.as<tir::BlockRealizeNode>()) {
        if (is_root) {
          walk(realize->block->body, false);
          return;
        }
        std::set<const Object*> reduce_vars;
        for (size_t i = 0; i < realize->block->iter_vars.size() && i < realize->iter_values.size(); ++i) {
          if (realize->block->iter_vars[i]->iter_type == tir::kDataPar) continue;
          tir::PostOrderVisit(realize->iter_values[i], [&](const ObjectRef& n) {
            if (n.as<tir::VarNode>()) reduce_vars.insert(n.get());
          });
        }
        std::vector<int64_t> prod;
        int64_t acc = 1;
        for (const tir::ForNode* loop : stack) {
          const auto* extent = loop->extent.as<IntImmNode>();
          if (loop->kind != tir::ForKind::kSerial || extent == nullptr || reduce_vars.count(loop->loop_var.get())) break;
          acc *= extent->value;
          prod.push_back(acc);
        }
        out.push_back(std::move(prod));
      }
    };
    walk(func->body, true);
    return out;
  }
};

TESSERA_REGISTER_OBJECT_TYPE(MutateParallelNode);
TESSERA_REGISTER_MUTATOR("MutateParallel").set_body_typed([](int64_t max_jobs_per_core) {
  TESSERA_CHECK_OR_THROW(max_jobs_per_core >= 1, ValueError)
      << "MutateParallel(max_jobs_per_core=" << max_jobs_per_core << "): must be at least 1";
  auto n = make_object<MutateParallelNode>();
  n->max_jobs_per_core = max_jobs_per_core;
  return Mutator(ObjectPtr<Object>(n));
});

}  // namespace meta_schedule
}  // namespace tessera

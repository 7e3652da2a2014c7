// ConvertToDataflow (relax.transform.ConvertToDataflow): in every SeqExpr
// (function bodies, If branches, local functions), each maximal run of
// side-effect-free bindings outside dataflow blocks becomes a dataflow block
// when it has at least `min_size` bindings or touches an existing dataflow
// block (the two merge). Vars of the new block used after it stay Vars
// (its outputs); the others become DataflowVars.
#include <unordered_set>

#include "relax/expr_functor.h"
#include "relax/transform/function_pass.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {

// AsDataflowBlock (utils.h).
DataflowBlock AsDataflowBlock(const Array<Binding>& bindings, const std::unordered_set<const Object*>& outputs) {
  class Renamer : public ExprMutator {
   public:
    using ExprMutator::ExprMutator;
    std::unordered_map<const Object*, Var>& remap() { return var_remap_; }
  };
  Renamer renamer;
  Array<Binding> out;
  for (const Binding& b : bindings) {
    Var var = b->var;
    if (!outputs.count(var.get()) && !var->IsInstance<DataflowVarNode>()) {
      var = DataflowVar(var->name_hint, GetStructInfo(var), var->span);
    }
    // Same struct info for every renamed var, so the values need no re-inference.
    const auto* vb = b.as<VarBindingNode>();
    RelaxExpr value = vb != nullptr ? vb->value : b.as<MatchCastNode>()->value;
    RelaxExpr renamed = renamer.remap().empty() ? value : renamer.VisitExpr(value);
    if (!var.same_as(b->var)) renamer.remap()[b->var.get()] = var;
    if (var.same_as(b->var) && renamed.same_as(value)) {
      out.push_back(b);
    } else if (vb != nullptr) {
      out.push_back(VarBinding(var, renamed, vb->span));
    } else {
      const auto* mc = b.as<MatchCastNode>();
      out.push_back(MatchCast(var, renamed, mc->struct_info, mc->span));
    }
  }
  return DataflowBlock(out);
}

namespace {

class DataflowConverter : public ExprMutator {
 public:
  DataflowConverter(IRModule mod, int min_size) : ExprMutator(mod), min_size_(min_size) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const SeqExprNode* op) override {
    RelaxExpr visited = ExprMutator::VisitExpr_(op);  // nested SeqExprs first
    const auto* seq = visited.as<SeqExprNode>();
    if (seq == nullptr) return visited;
    // Items: an existing dataflow block, or one binding of a binding block.
    struct Item {
      std::optional<BindingBlock> dataflow;
      std::optional<Binding> binding;
    };
    std::vector<Item> items;
    for (const BindingBlock& block : seq->blocks) {
      if (block->IsInstance<DataflowBlockNode>()) {
        items.push_back({block, std::nullopt});
      } else {
        for (const Binding& b : block->bindings) items.push_back({std::nullopt, b});
      }
    }
    // used_after[i]: vars read by items after i or by the body.
    std::vector<std::unordered_set<const Object*>> used_after(items.size() + 1);
    CollectVars(seq->body, &used_after[items.size()]);
    for (size_t i = items.size(); i-- > 0;) {
      used_after[i] = used_after[i + 1];
      if (i + 1 < items.size()) CollectItemVars(items[i + 1], &used_after[i]);
    }

    Array<BindingBlock> blocks;
    Array<Binding> loose;  // pending bindings kept outside dataflow
    auto flush_loose = [&]() {
      if (!loose.empty()) blocks.push_back(BindingBlock(loose));
      loose = Array<Binding>();
    };
    bool changed = false;
    for (size_t i = 0; i < items.size();) {
      if (!Movable(items[i])) {
        if (items[i].dataflow) {
          flush_loose();
          blocks.push_back(*items[i].dataflow);
        } else {
          loose.push_back(*items[i].binding);
        }
        ++i;
        continue;
      }
      size_t end = i;
      int bindings = 0;
      bool has_dataflow = false;
      while (end < items.size() && Movable(items[end])) {
        if (items[end].dataflow) {
          has_dataflow = true;
        } else {
          ++bindings;
        }
        ++end;
      }
      bool only_one_block = has_dataflow && bindings == 0 && end - i == 1;
      if (only_one_block || (!has_dataflow && bindings < min_size_)) {
        for (size_t k = i; k < end; ++k) {
          if (items[k].dataflow) {
            flush_loose();
            blocks.push_back(*items[k].dataflow);
          } else {
            loose.push_back(*items[k].binding);
          }
        }
      } else {
        flush_loose();
        blocks.push_back(MakeDataflow(items, i, end, used_after[end - 1]));
        changed = true;
      }
      i = end;
    }
    flush_loose();
    if (!changed) return visited;
    return SeqExpr(blocks, seq->body, seq->span);
  }

 private:
  template <typename ItemT>
  static void CollectItemVars(const ItemT& item, std::unordered_set<const Object*>* out) {
    if (item.dataflow) {
      for (const Binding& b : (*item.dataflow)->bindings) CollectBindingVars(b, out);
    } else {
      CollectBindingVars(*item.binding, out);
    }
  }
  static void CollectBindingVars(const Binding& b, std::unordered_set<const Object*>* out) {
    if (const auto* vb = b.as<VarBindingNode>()) CollectVars(vb->value, out);
    if (const auto* mc = b.as<MatchCastNode>()) CollectVars(mc->value, out);
  }
  static void CollectVars(const RelaxExpr& e, std::unordered_set<const Object*>* out) {
    PostOrderVisit(e, [out](const RelaxExpr& n) {
      if (n->IsInstance<VarNode>()) out->insert(n.get());
    });
  }

  // Whether an item may join a dataflow block: existing blocks and pure,
  // non-control-flow bindings.
  template <typename ItemT>
  static bool Movable(const ItemT& item) {
    if (item.dataflow) return true;
    if (const auto* vb = item.binding->template as<VarBindingNode>()) {
      return !vb->value->template IsInstance<IfNode>() && !HasSideEffect(vb->value);
    }
    return !HasSideEffect(item.binding->template as<MatchCastNode>()->value);
  }

  // One dataflow block of items [begin, end); vars not in `outputs` become DataflowVars.
  template <typename ItemT>
  static BindingBlock MakeDataflow(const std::vector<ItemT>& items, size_t begin, size_t end,
                                   const std::unordered_set<const Object*>& outputs) {
    Array<Binding> bindings;
    for (size_t k = begin; k < end; ++k) {
      if (items[k].dataflow) {
        // An output of a merged block that nothing after the new block reads becomes a DataflowVar too.
        for (const Binding& b : (*items[k].dataflow)->bindings) bindings.push_back(b);
      } else {
        bindings.push_back(*items[k].binding);
      }
    }
    return AsDataflowBlock(bindings, outputs);
  }

  int min_size_;
};

}  // namespace

namespace transform {

Pass ConvertToDataflow(int min_size) {
  TESSERA_CHECK_OR_THROW(min_size >= 1, ValueError)
      << "ConvertToDataflow: min_size must be at least 1, got " << min_size;
  return CreateFunctionPass(
      [min_size](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(DataflowConverter(mod, min_size).VisitExpr(func));
      },
      1, "ConvertToDataflow");
}
TESSERA_REGISTER_PASS("relax.transform.ConvertToDataflow", [] { return ConvertToDataflow(2); });
TESSERA_REGISTER_GLOBAL("relax.transform.ConvertToDataflowWith").set_body_typed([](int min_size) {
  return ConvertToDataflow(min_size);
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera

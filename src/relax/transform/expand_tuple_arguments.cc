// ExpandTupleArguments (relax.transform.ExpandTupleArguments): a private
// Relax function (no "global_symbol") called only directly takes each tuple
// parameter as one parameter per element (nested tuples flattened); its body
// first rebuilds the tuple from them. Call sites pass the elements: the
// fields of a tuple literal (or of a var bound to one), else `arg[i]`. CanonicalizeBindings then removes
// the rebuilt tuple where only its elements are read.
#include <unordered_set>

#include "relax/expr_functor.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace relax {
namespace {

// The element params standing for `param` (appended to `params`), and the
// expression rebuilding `param`'s value from them.
RelaxExpr Expand(const std::string& name, const StructInfo& sinfo, Array<Var>* params) {
  CheckStack("tuple parameter (ExpandTupleArguments)");
  const auto* tuple = sinfo.as<TupleStructInfoNode>();
  if (tuple == nullptr) {
    Var p(name, sinfo);
    params->push_back(p);
    return p;
  }
  Array<RelaxExpr> fields;
  for (size_t i = 0; i < tuple->fields.size(); ++i) {
    fields.push_back(Expand(name + "_" + std::to_string(i), tuple->fields[i], params));
  }
  return Tuple(fields);
}

class CallSiteExpander : public ExprMutator {
 public:
  CallSiteExpander(IRModule mod, const std::unordered_map<const Object*, Array<StructInfo>>& old_params,
                   const std::unordered_map<const Object*, GlobalVar>& renamed)
      : ExprMutator(mod), old_params_(old_params), renamed_(renamed) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr visited = ExprMutator::VisitExpr_(op);
    const auto* call = visited.as<CallNode>();
    auto it = call == nullptr ? old_params_.end() : old_params_.find(call->op.get());
    if (it == old_params_.end()) return visited;
    TESSERA_CHECK_OR_THROW(call->args.size() == it->second.size(), ValueError)
        << "ExpandTupleArguments: a call of '" << Downcast<GlobalVar>(call->op)->name_hint << "' passes "
        << call->args.size() << " arguments; the function takes " << it->second.size();
    Array<RelaxExpr> args;
    for (size_t i = 0; i < call->args.size(); ++i) Flatten(call->args[i], it->second[i], &args);
    return Call(renamed_.at(call->op.get()), args, call->attrs, call->sinfo_args, call->span);
  }

 private:
  // `arg` (of struct info `sinfo`) as the arguments of Expand's element params: the
  // fields of a tuple literal (or of a var bound to one), else `arg[i]`.
  void Flatten(const RelaxExpr& arg, const StructInfo& sinfo, Array<RelaxExpr>* out) {
    CheckStack("tuple argument (ExpandTupleArguments)");
    const auto* tuple = sinfo.as<TupleStructInfoNode>();
    if (tuple == nullptr) {
      out->push_back(arg);
      return;
    }
    const auto* literal = arg.as<TupleNode>();
    if (const auto* var = arg.as<VarNode>(); var != nullptr && literal == nullptr) {
      if (auto bound = LookupBinding(GetRef<Var>(var))) literal = bound->as<TupleNode>();
    }
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      RelaxExpr field = literal != nullptr ? literal->fields[i] : RelaxExpr(TupleGetItem(arg, static_cast<int>(i)));
      Flatten(field, tuple->fields[i], out);
    }
  }

  const std::unordered_map<const Object*, Array<StructInfo>>& old_params_;
  const std::unordered_map<const Object*, GlobalVar>& renamed_;
};

}  // namespace

namespace transform {

Pass ExpandTupleArguments() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        std::unordered_map<const Object*, Array<StructInfo>> old_params;  // expanded function -> its old params
        std::unordered_map<const Object*, GlobalVar> renamed;
        IRModule result = RewritePrivateFunctions(mod, [&](const GlobalVar& gv, const Function& func)
                                                           -> std::optional<Function> {
          bool has_tuple = false;
          for (const Var& p : func->params) has_tuple |= GetStructInfo(p)->IsInstance<TupleStructInfoNode>();
          if (!has_tuple) return std::nullopt;
          Array<Var> params;
          Array<Binding> rebuild;
          Array<StructInfo> sinfos;
          for (const Var& p : func->params) {
            StructInfo sinfo = GetStructInfo(p);
            sinfos.push_back(sinfo);
            if (!sinfo->IsInstance<TupleStructInfoNode>()) {
              params.push_back(p);
              continue;
            }
            rebuild.push_back(VarBinding(p, Expand(p->name_hint, sinfo, &params)));
          }
          // The rebuilt tuples open the body's first binding block (a block of their own
          // before a dataflow block).
          Array<BindingBlock> blocks;
          RelaxExpr body = func->body;
          if (const auto* seq = body.as<SeqExprNode>()) {
            for (const BindingBlock& b : seq->blocks) blocks.push_back(b);
            body = seq->body;
          }
          if (!blocks.empty() && !blocks[0]->IsInstance<DataflowBlockNode>()) {
            for (const Binding& b : blocks[0]->bindings) rebuild.push_back(b);
            blocks.Set(0, BindingBlock(rebuild, blocks[0]->span));
          } else {
            blocks.insert_at(0, BindingBlock(rebuild));
          }
          old_params[gv.get()] = sinfos;
          return Function(params, SeqExpr(blocks, body), func->ret_struct_info, func->is_pure, func->attrs, func->span);
        }, &renamed);
        if (old_params.empty()) return mod;
        return UpdateRelaxFunctions(result, [&](const GlobalVar&, const Function& f) {
          return Downcast<Function>(CallSiteExpander(result, old_params, renamed).VisitExpr(f));
        });
      },
      0, "ExpandTupleArguments");
}
TESSERA_REGISTER_PASS("relax.transform.ExpandTupleArguments", ExpandTupleArguments);

}  // namespace transform
}  // namespace relax
}  // namespace tessera

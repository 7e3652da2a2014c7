// BlockBuilder: builds Relax IR binding by binding and normalizes every
// expression that goes through it (TVM v0.18's relax::BlockBuilder). Relax
// IR layer; passes, the Python BlockBuilder and the TVMScript parser all
// construct Relax through it.
//
// Normalizer guarantees (see docs/relax.md): after Normalize, (1) every call
// argument, tuple field, If condition and TupleGetItem tuple is a leaf (var,
// constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, GlobalVar, Op,
// ExternFunc) or a tuple of leaves — nested calls are bound to fresh vars
// (A-normal form); (2) every expression, var and function has struct info,
// inferred by the op's FInferStructInfo, the callee's FuncStructInfo (its
// symbolic dims unified with the arguments') or the node kind, and checked
// against annotations (TypeError/ValueError naming the binding or op);
// (3) function bodies and If branches are SeqExprs.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "relax/expr.h"

namespace tessera {
namespace relax {

class BlockBuilderNode : public Object {
 public:
  // ---- module context
  IRModule GetContextIRModule() const { return context_mod_; }
  // Adds `func` under a fresh name derived from `name_hint`; the same
  // function object added twice yields the same GlobalVar.
  GlobalVar AddFunction(const BaseFunc& func, const std::string& name_hint);
  void UpdateFunction(const GlobalVar& gv, const BaseFunc& func);
  // A name not given out before: `prefix`, or prefix + a number; dots become
  // underscores unless `replace_dots` is false (function names keep them).
  std::string GetUniqueName(const std::string& prefix, bool replace_dots = true);

  // ---- scopes (symbolic vars defined by parameters and match_cast). Outside
  // any scope every symbolic var counts as defined (nothing is erased).
  void BeginScope(const std::optional<Array<Var>>& params);
  void EndScope();

  // ---- blocks
  void BeginDataflowBlock();
  void BeginBindingBlock();
  BindingBlock EndBlock();
  bool CurrentBlockIsDataFlow() const;
  bool HasOpenBlock() const { return !block_stack_.empty(); }

  // ---- emission (each normalizes first)
  Var Emit(const RelaxExpr& expr, const std::string& name_hint = "");
  Var EmitMatchCast(const RelaxExpr& value, const StructInfo& sinfo, const std::string& name_hint = "");
  // In a dataflow block: binds `output` to a Var visible after the block.
  Var EmitOutput(const RelaxExpr& output, const std::string& name_hint = "");
  // Appends an already-normalized binding as is.
  void EmitNormalized(const Binding& binding);
  // The value a var is bound to in this builder, if any.
  std::optional<RelaxExpr> LookupBinding(const Var& var) const;

  // ---- normalization
  RelaxExpr Normalize(const RelaxExpr& expr);
  // Normalize, leaving the builder unchanged when it raises.
  RelaxExpr NormalizeTransaction(const RelaxExpr& expr);
  // Normalizes and, unless a leaf or tuple of leaves, binds to a fresh var.
  RelaxExpr NormalizeArgument(const RelaxExpr& expr);
  // Normalizes a function body or If branch in a new scope into a SeqExpr.
  RelaxExpr NormalizeBody(const RelaxExpr& body);

  // Whether a symbolic var is defined in the current scope.
  bool IsSymbolicVarDefined(const tir::Var& v) const;

  IRModule context_mod_;

  TESSERA_DECLARE_FINAL_OBJECT_INFO(BlockBuilderNode, Object, "relax.BlockBuilder");

 private:
  friend class BlockBuilder;
  struct BlockFrame {
    std::vector<Binding> bindings;
    bool is_dataflow = false;
    // Nested expressions already bound in this block, by node identity: one
    // node used twice (add(lv, lv) built from one log(x)) is bound once (A-normal form).
    std::unordered_map<const Object*, std::pair<RelaxExpr, Var>> bound_args;  // key kept alive
  };
  struct ScopeFrame {
    std::unordered_set<const Object*> symbolic_vars;
  };
  RelaxExpr NormalizeImpl(const RelaxExpr& expr);
  Var CreateVar(bool is_dataflow, std::string name_hint, const StructInfo& sinfo);
  // Runs `f`; if it throws, drops the bindings, blocks and scopes it added
  // (a failed emit leaves the builder as it was).
  template <typename F>
  auto Transaction(F f) -> decltype(f());
  BlockFrame* CurrentFrame(const char* what);
  void DefineSymbolicVars(const StructInfo& sinfo);

  std::vector<BlockFrame> block_stack_;
  std::vector<ScopeFrame> scope_stack_;
  std::unordered_map<const Object*, RelaxExpr> binding_table_;
  std::unordered_map<std::string, int> name_counts_;
  std::unordered_map<const Object*, GlobalVar> func_to_gv_;
  // Tuples, SeqExprs and Ifs this builder's Normalize returned (kept alive):
  // normalizing one again returns it at once. A mutator normalizes each level
  // of a nest it rebuilds; without this every level re-walked the whole nest
  // below it (quadratic in the depth of nested Ifs / tuples).
  std::unordered_map<const Object*, RelaxExpr> normalized_;
};

// A builder is stateful: unlike IR references, its node is used mutably.
class BlockBuilder : public ObjectRef {
 public:
  BlockBuilder() = default;
  explicit BlockBuilder(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  BlockBuilderNode* operator->() const { return const_cast<BlockBuilderNode*>(get()); }
  const BlockBuilderNode* get() const { return static_cast<const BlockBuilderNode*>(data_.get()); }
  using ContainerType = BlockBuilderNode;
  // A builder adding to `mod` (a new empty module when absent).
  static BlockBuilder Create(std::optional<IRModule> mod = std::nullopt);
};

// Infers the struct info of a call to a function value of struct info
// `finfo`: the parameters' symbolic dims are unified with the arguments' and
// substituted into the return. TypeError on wrong arity or a kind/dtype
// mismatch, ValueError on conflicting dims, naming `callee_name` and the argument.
StructInfo DeriveCallRetStructInfo(const FuncStructInfo& finfo, const Call& call, const std::string& callee_name);

}  // namespace relax
}  // namespace tessera

// VMCodegen: translates Relax functions that the build pipeline has lowered
// (calls of VM builtins, packed functions and TIR functions, If, closures,
// constants; no call_tir / dataflow left) into VM bytecode through
// ExecBuilder; VMLink joins the bytecode with the library of the TIR
// functions (compiled by tvm.build). The last steps of relax.build
// (python/tessera/relax/vm_build.py). Relax backend; exposed as the global
// functions "relax.VMCodeGen" and "relax.VMLink".
#include <unordered_map>

#include "ir/module.h"
#include "ir/op.h"
#include "relax/expr.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"
#include "runtime/stack_guard.h"
#include "runtime/vm/exec_builder.h"
#include "tir/function.h"

namespace tessera {
namespace relax {
namespace {

using runtime::vm::Arg;
using runtime::vm::ExecBuilder;
using runtime::vm::ExecBuilderNode;
using runtime::vm::Index;
using runtime::vm::kVMRegister;
using runtime::vm::kVoidRegister;
using runtime::vm::RegName;
using runtime::vm::VMFuncInfo;

// The name a function of the module has in the executable.
std::string SymbolOf(const GlobalVar& gv, const BaseFunc& func) {
  if (auto sym = func.GetAttr("global_symbol")) {
    if (const auto* s = sym->as<StringObj>()) return s->data;
  }
  return gv->name_hint;
}

class CodeGenVM {
 public:
  CodeGenVM(ExecBuilderNode* builder, const IRModule& mod) : builder_(builder), mod_(mod) {}

  void Run(const std::string& name, const Function& func) {
    func_name_ = name;
    std::vector<std::string> names;
    for (const Var& p : func->params) names.push_back(p->name_hint);
    builder_->EmitFunction(name, static_cast<int64_t>(func->params.size()), names);
    var_arg_.clear();
    next_reg_ = static_cast<RegName>(func->params.size());
    for (size_t i = 0; i < func->params.size(); ++i) var_arg_[func->params[i].get()] = Arg::Register(static_cast<RegName>(i));
    Arg ret = VisitExpr(func->body);
    builder_->EmitRet(Arg::Register(InRegister(ret)));
    builder_->EndFunction(name);
  }

 private:
  RegName NewRegister() { return next_reg_++; }

  [[noreturn]] void Unsupported(const std::string& what) const {
    TESSERA_THROW(ValueError) << "VM codegen of function " << func_name_ << ": " << what;
  }

  // `a` in a register (constants and immediates are copied into one).
  RegName InRegister(Arg a) {
    if (a.kind() == Arg::Kind::kRegister && a.value() != kVMRegister) return a.value();
    RegName r = NewRegister();
    builder_->EmitCall("vm.builtin.copy", {a}, r);
    return r;
  }

  Arg Const(const Any& v) { return Arg::ConstIdx(builder_->ConvertConstant(v)); }

  Arg EmitCallTo(const std::string& func, const std::vector<Arg>& args) {
    RegName dst = NewRegister();
    builder_->EmitCall(func, args, dst);
    return Arg::Register(dst);
  }

  std::vector<Arg> VisitArgs(const Array<RelaxExpr>& args, size_t from = 0) {
    std::vector<Arg> out;
    for (size_t i = from; i < args.size(); ++i) out.push_back(VisitExpr(args[i]));
    return out;
  }

  // The fields of a Tuple argument (call_builtin_with_ctx, call_tir_dyn).
  std::vector<Arg> TupleFields(const RelaxExpr& e, const std::string& op) {
    const auto* t = e.as<TupleNode>();
    if (t == nullptr) Unsupported(op + " expects a tuple of arguments, got " + ExprKindName(e));
    return VisitArgs(t->fields);
  }

  std::string ExternName(const RelaxExpr& e, const std::string& op) {
    if (const auto* f = e.as<ExternFuncNode>()) return f->global_symbol;
    if (const auto* s = e.as<StringImmNode>()) return s->value;
    if (const auto* g = e.as<GlobalVarNode>()) return FunctionName(GetRef<GlobalVar>(g));
    Unsupported(op + " expects a function name (ExternFunc), got " + ExprKindName(e));
  }

  std::string FunctionName(const GlobalVar& gv) {
    if (auto f = mod_->functions.Get(gv)) return SymbolOf(gv, *f);
    // A GlobalVar made apart from the module's: look it up by name.
    for (const auto& [g, f] : mod_->functions.items()) {
      if (g->name_hint == gv->name_hint) return SymbolOf(g, f);
    }
    Unsupported("calls " + gv->name_hint + ", which is not a function of the module");
  }

  Arg VisitExpr(const RelaxExpr& e) {
    CheckStack("relax expression");  // If branches and tuples nest through here
    if (const auto* v = e.as<VarNode>()) {
      auto it = var_arg_.find(v);
      if (it == var_arg_.end()) Unsupported("variable " + v->name_hint + " is used but never defined");
      return it->second;
    }
    if (const auto* c = e.as<ConstantNode>()) return Const(c->data);
    if (const auto* s = e.as<ShapeExprNode>()) {
      std::vector<int64_t> dims;
      for (const PrimExpr& d : s->values) {
        const auto* imm = d.as<IntImmNode>();
        if (imm == nullptr) Unsupported("symbolic shape " + StructuralText(e) + " was not lowered (VMShapeLower)");
        dims.push_back(imm->value);
      }
      return Const(ShapeTuple(std::move(dims)));
    }
    if (const auto* p = e.as<PrimValueNode>()) {
      if (const auto* i = p->value.as<IntImmNode>()) {
        if (i->value >= Arg::kValueMin && i->value <= Arg::kValueMax) return Arg::Immediate(i->value);
        return Const(i->value);
      }
      if (const auto* f = p->value.as<FloatImmNode>()) return Const(f->value);
      Unsupported("symbolic prim value " + StructuralText(e) + " was not lowered (VMShapeLower)");
    }
    if (const auto* s = e.as<StringImmNode>()) return Const(String(s->value));
    if (const auto* d = e.as<DataTypeImmNode>()) return Const(d->value);
    if (const auto* t = e.as<TupleNode>()) return EmitCallTo("vm.builtin.make_tuple", VisitArgs(t->fields));
    if (const auto* g = e.as<TupleGetItemNode>()) {
      return EmitCallTo("vm.builtin.tuple_getitem", {VisitExpr(g->tuple), Arg::Immediate(g->index)});
    }
    if (const auto* gv = e.as<GlobalVarNode>()) {
      return Arg::FuncIdx(builder_->GetFunctionIndex(FunctionName(GetRef<GlobalVar>(gv))));
    }
    if (const auto* f = e.as<ExternFuncNode>()) {
      builder_->DeclareFunction(f->global_symbol, VMFuncInfo::FuncKind::kPackedFunc);
      return Arg::FuncIdx(builder_->GetFunctionIndex(f->global_symbol));
    }
    if (const auto* s = e.as<SeqExprNode>()) return VisitSeq(s);
    if (const auto* i = e.as<IfNode>()) return VisitIf(i);
    if (const auto* c = e.as<CallNode>()) return VisitCall(c);
    if (e.as<FunctionNode>()) Unsupported("a nested function was not lifted (LambdaLift)");
    Unsupported("cannot generate code for " + ExprKindName(e));
  }

  Arg VisitSeq(const SeqExprNode* s) {
    for (const BindingBlock& block : s->blocks) {
      for (const Binding& b : block->bindings) {
        if (const auto* vb = b.as<VarBindingNode>()) {
          var_arg_[vb->var.get()] = VisitExpr(vb->value);
        } else if (const auto* mc = b.as<MatchCastNode>()) {
          // The checks were emitted by VMShapeLower; the var names the value.
          var_arg_[mc->var.get()] = VisitExpr(mc->value);
        } else {
          Unsupported("unknown binding kind " + b->GetTypeKey());
        }
      }
    }
    return VisitExpr(s->body);
  }

  Arg VisitIf(const IfNode* node) {
    Arg cond = EmitCallTo("vm.builtin.read_if_cond", {VisitExpr(node->cond)});
    const RegName merge = NewRegister();
    const Index if_pc = builder_->CurrentFunctionSize();
    builder_->EmitIf(cond, 0);  // patched below
    Arg t = VisitExpr(node->true_branch);
    builder_->EmitCall("vm.builtin.copy", {t}, merge);
    const Index goto_pc = builder_->CurrentFunctionSize();
    builder_->EmitGoto(0);  // patched below
    const Index else_pc = builder_->CurrentFunctionSize();
    Arg f = VisitExpr(node->false_branch);
    builder_->EmitCall("vm.builtin.copy", {f}, merge);
    const Index end_pc = builder_->CurrentFunctionSize();
    builder_->PatchJump(if_pc, else_pc - if_pc);
    builder_->PatchJump(goto_pc, end_pc - goto_pc);
    return Arg::Register(merge);
  }

  Arg VisitCall(const CallNode* call) {
    const RelaxExpr& callee = call->op;
    if (const auto* op = callee.as<OpNode>()) return VisitOpCall(op->name, call);
    if (const auto* f = callee.as<ExternFuncNode>()) return EmitCallTo(f->global_symbol, VisitArgs(call->args));
    if (const auto* gv = callee.as<GlobalVarNode>()) {
      return EmitCallTo(FunctionName(GetRef<GlobalVar>(gv)), VisitArgs(call->args));
    }
    if (callee.as<VarNode>()) {
      std::vector<Arg> args = {Arg::Register(kVMRegister), VisitExpr(callee)};
      for (const Arg& a : VisitArgs(call->args)) args.push_back(a);
      return EmitCallTo("vm.builtin.invoke_closure", args);
    }
    Unsupported("cannot call a " + ExprKindName(callee));
  }

  Arg VisitOpCall(const std::string& op, const CallNode* call) {
    const Array<RelaxExpr>& args = call->args;
    auto need = [&](size_t n) {
      if (args.size() != n) {
        Unsupported(op + " takes " + std::to_string(n) + " arguments, got " + std::to_string(args.size()));
      }
    };
    if (op == "relax.call_builtin_with_ctx") {
      need(2);
      std::vector<Arg> a = {Arg::Register(kVMRegister)};
      for (const Arg& x : TupleFields(args[1], op)) a.push_back(x);
      return EmitCallTo(ExternName(args[0], op), a);
    }
    if (op == "relax.call_pure_packed" || op == "relax.call_packed") {
      if (args.empty()) Unsupported(op + " needs the function to call");
      return EmitCallTo(ExternName(args[0], op), VisitArgs(args, 1));
    }
    if (op == "relax.vm.alloc_storage") {
      // (size, runtime_device_index, dtype, storage_scope) -> builtin (vm, size, index, dtype, scope)
      need(4);
      return EmitCallTo("vm.builtin.alloc_storage", {Arg::Register(kVMRegister), VisitExpr(args[0]), VisitExpr(args[1]),
                                                     VisitExpr(args[2]), VisitExpr(args[3])});
    }
    if (op == "relax.vm.alloc_tensor") {
      need(4);
      return EmitCallTo("vm.builtin.alloc_tensor", VisitArgs(args));
    }
    if (op == "relax.vm.kill_object") {
      need(1);
      Arg target = VisitExpr(args[0]);
      if (target.kind() == Arg::Kind::kRegister && target.value() < runtime::vm::kBeginSpecialReg) {
        builder_->EmitCall("vm.builtin.null_value", {}, target.value());
      }
      return Arg::Register(kVoidRegister);
    }
    if (op == "relax.null_value") {
      need(0);
      return EmitCallTo("vm.builtin.null_value", {});
    }
    if (op == "relax.shape_of") {
      need(1);
      return EmitCallTo("vm.builtin.shape_of", VisitArgs(args));
    }
    if (op == "relax.vm.call_tir_dyn") {
      need(2);
      std::vector<Arg> a = {VisitExpr(args[0])};
      for (const Arg& x : TupleFields(args[1], op)) a.push_back(x);
      return EmitCallTo("vm.builtin.call_tir_dyn", a);
    }
    if (op == "relax.make_closure") {
      need(2);
      std::vector<Arg> a = {VisitExpr(args[0])};
      for (const Arg& x : TupleFields(args[1], op)) a.push_back(x);
      return EmitCallTo("vm.builtin.make_closure", a);
    }
    if (op == "relax.invoke_closure") {
      need(2);
      std::vector<Arg> a = {Arg::Register(kVMRegister), VisitExpr(args[0])};
      for (const Arg& x : TupleFields(args[1], op)) a.push_back(x);
      return EmitCallTo("vm.builtin.invoke_closure", a);
    }
    if (op == "relax.call_tir" || op == "relax.call_dps_packed" || op == "relax.builtin.alloc_tensor" ||
        op.rfind("relax.memory.", 0) == 0) {
      Unsupported("the call of " + op + " was not lowered; build with relax.build's pipeline (CallTIRRewrite, "
                  "StaticPlanBlockMemory, LowerAllocTensor, VMBuiltinLower)");
    }
    Unsupported("operator " + op + " has no VM lowering (legalize it to TIR first)");
  }

  static std::string StructuralText(const RelaxExpr& e) { return ExprKindName(e); }

  ExecBuilderNode* builder_;
  IRModule mod_;
  std::string func_name_;
  std::unordered_map<const VarNode*, Arg> var_arg_;
  RegName next_reg_ = 0;
};

// Emits every Relax function of `mod` into `builder`; returns the module of
// what is left (the PrimFuncs, for tvm.build).
IRModule VMCodeGen(const ExecBuilder& eb, const IRModule& mod) {
  ExecBuilderNode* builder = eb.mutable_node();
  std::vector<std::pair<std::string, Function>> relax_funcs;
  Map<GlobalVar, BaseFunc> rest;
  // Declare everything first: functions may call each other in any order.
  std::unordered_map<std::string, std::string> owner;  // executable name -> GlobalVar name
  for (const auto& [gv, func] : mod->functions.items()) {
    const std::string name = SymbolOf(gv, func);
    auto [it, fresh] = owner.emplace(name, gv->name_hint);
    if (!fresh) {
      TESSERA_THROW(ValueError) << "relax.build: functions '" << it->second << "' and '" << gv->name_hint
                                << "' both have the name '" << name
                                << "' in the executable (their \"global_symbol\" attributes clash)";
    }
    if (const auto* f = func.as<FunctionNode>()) {
      builder->DeclareFunction(name, VMFuncInfo::FuncKind::kVMFunc);
      relax_funcs.emplace_back(name, GetRef<Function>(f));
    } else {
      builder->DeclareFunction(name, VMFuncInfo::FuncKind::kPackedFunc);
      rest.Set(gv, func);
    }
  }
  for (const auto& [name, func] : relax_funcs) CodeGenVM(builder, mod).Run(name, func);
  return IRModule(rest, mod->attrs);
}

// VMLink: the executable of `builder` whose packed calls resolve first in
// `lib` (the TIR functions compiled by tvm.build), or without a library.
Module VMLink(const ExecBuilder& builder, const std::optional<Module>& lib) {
  ObjectPtr<runtime::vm::ExecutableNode> exec = builder.mutable_node()->Get();
  if (lib.has_value() && lib->defined()) exec->imports.push_back(*lib);
  return Module(ObjectPtr<Object>(std::move(exec)));
}

TESSERA_REGISTER_GLOBAL("relax.VMCodeGen").set_body_typed([](ExecBuilder builder, IRModule mod) {
  return VMCodeGen(builder, mod);
});
TESSERA_REGISTER_GLOBAL("relax.VMLink").set_body_typed([](ExecBuilder builder, std::optional<Module> lib) {
  return VMLink(builder, lib);
});

}  // namespace
}  // namespace relax
}  // namespace tessera

// Relax functions, blocks and bindings as TVMScript (part of RelaxPrinter,
// see relax_printer.h): the decorator (`@R.function(pure=False,
// private=True)`), parameters with their struct info (dimensions over the
// symbolic variables the signature defines print as strings, "n"), the
// return annotation, then in the body the `n = T.int64()` definitions,
// R.func_attr (without a global_symbol equal to the name), `cls = Module`
// when a module function is referenced, `with R.dataflow():` blocks ending
// in R.output(...), annotated bindings, R.match_cast, `if` with both
// branches assigning the If's variable, nested `@R.function` definitions
// (local functions), and `return`. Registers the
// printers of relax.expr.Function and of other Relax nodes (fragments).
#include "ir/structural_equal.h"
#include "runtime/registry.h"
#include "script/printer/python_literal.h"
#include "script/printer/relax_printer.h"
#include "script/printer/script_printer.h"
#include "script/printer/tir_printer.h"

namespace tessera {
namespace script {
namespace printer {

namespace {

bool IsVoid(const ObjectRef& sinfo) {
  const auto* t = sinfo.as<relax::TupleStructInfoNode>();
  return t != nullptr && t->fields.empty();
}

bool IsCallOf(const relax::Expr& e, const char* op_name) {
  const auto* call = e.as<relax::CallNode>();
  if (call == nullptr) return false;
  const auto* op = call->op.as<OpNode>();
  return op != nullptr && op->name == op_name;
}

}  // namespace

void RelaxPrinter::Line(const std::string& text) {
  CheckPrintedNesting(indent_);  // If in If in ...
  out_->append(static_cast<size_t>(indent_ * cfg_.indent_spaces), ' ');
  *out_ += text + "\n";
}

std::string RelaxPrinter::DefineVar(const relax::Var& var) {
  return Mark(var, names_.Define(var.get(), var->name_hint, "v"));
}

std::string RelaxPrinter::BindingAnnotation(const relax::Var& var, const relax::Expr& value) {
  if (!var->struct_info_.defined()) return "";
  if (IsCallOf(value, "relax.call_tir") || IsCallOf(value, "relax.call_dps_packed")) {
    const auto* call = value.as<relax::CallNode>();
    if (call->sinfo_args.size() == 1 && StructuralEqual(Any(call->sinfo_args[0]), Any(var->struct_info_))) return "";
  }
  return PrintStructInfo(Downcast<relax::StructInfo>(var->struct_info_));
}

void RelaxPrinter::PrintSeqExpr(const relax::SeqExpr& seq, bool use_ret, const std::string* target,
                                const std::string* ann) {
  for (relax::BindingBlock block : seq->blocks) PrintBlock(block);
  std::string body = PrintExpr(seq->body);
  if (use_ret) {
    Line("return " + body);
  } else if (target != nullptr) {
    Line(*target + (ann && !ann->empty() ? ": " + *ann : std::string()) + " = " + body);
  } else {
    Line(body);
  }
}

void RelaxPrinter::PrintBlock(const relax::BindingBlock& block) {
  if (!block->IsInstance<relax::DataflowBlockNode>()) {
    for (relax::Binding b : block->bindings) PrintBinding(b);
    return;
  }
  Line("with " + R("dataflow():"));
  ++indent_;
  std::vector<std::string> outputs;
  for (relax::Binding b : block->bindings) {
    PrintBinding(b);
    if (!b->var->IsInstance<relax::DataflowVarNode>()) outputs.push_back(*names_.Find(b->var.get()));
  }
  std::string list;
  for (size_t i = 0; i < outputs.size(); ++i) list += (i ? ", " : "") + outputs[i];
  Line(R("output(") + list + ")");
  --indent_;
}

void RelaxPrinter::PrintBinding(const relax::Binding& binding) {
  const relax::Var& var = binding->var;
  if (const auto* mc = binding.as<relax::MatchCastNode>()) {
    std::string rhs = R("match_cast(") + PrintExpr(mc->value) + ", " + PrintStructInfo(mc->struct_info) + ")";
    std::string ann = var->struct_info_.defined() ? PrintStructInfo(Downcast<relax::StructInfo>(var->struct_info_)) : "";
    std::string lhs = DefineVar(var);
    Line(Mark(binding, lhs + (ann.empty() ? "" : ": " + ann) + " = " + rhs));
    return;
  }
  const auto* vb = binding.as<relax::VarBindingNode>();
  TESSERA_CHECK_OR_THROW(vb != nullptr, TypeError) << "no TVMScript form for a " << binding->GetTypeKey();
  const relax::Expr& value = vb->value;
  if (const auto* if_node = value.as<relax::IfNode>()) {
    std::string ann = var->struct_info_.defined() ? PrintStructInfo(Downcast<relax::StructInfo>(var->struct_info_)) : "";
    std::string cond = PrintExpr(if_node->cond);
    std::string lhs = DefineVar(var);
    Line("if " + cond + ":");
    for (int branch = 0; branch < 2; ++branch) {
      if (branch == 1) Line("else:");
      const relax::Expr& e = branch == 0 ? if_node->true_branch : if_node->false_branch;
      NameScope scope(&names_);
      ++indent_;
      if (const auto* seq = e.as<relax::SeqExprNode>()) {
        PrintSeqExpr(GetRef<relax::SeqExpr>(seq), false, &lhs, &ann);
      } else {
        Line(lhs + (ann.empty() ? "" : ": " + ann) + " = " + PrintExpr(e));
      }
      --indent_;
    }
    return;
  }
  if (const auto* fn = value.as<relax::FunctionNode>()) {
    // A local function: a nested `@R.function def name(...)`, printed by a
    // printer of its own in a name scope inside this one (it may use this
    // function's variables and symbolic variables by name).
    std::string lhs = DefineVar(var);
    std::optional<std::string> module_name = ctx_->global_var_name;
    ctx_->global_var_name.reset();
    RelaxPrinter nested(ctx_);
    nested.PrintFunction(GetRef<relax::Function>(fn), lhs, indent_, out_);
    ctx_->global_var_name = module_name;
    return;
  }
  std::string rhs = PrintExpr(value);
  if (value.as<relax::CallNode>() && IsVoid(var->struct_info_) && IsVoid(value->struct_info_)) {
    Line(Mark(binding, rhs));  // a call for its effect: `R.print(...)`
    names_.Define(var.get(), var->name_hint, "v");
    return;
  }
  std::string ann = BindingAnnotation(var, value);
  std::string lhs = DefineVar(var);
  Line(Mark(binding, lhs + (ann.empty() ? "" : ": " + ann) + " = " + rhs));
}

void RelaxPrinter::PrintFunction(const relax::Function& func, const std::string& name, int indent, std::string* out) {
  names_.Reserve("R");
  NameScope scope(&names_);
  func_scope_ = names_.depth() - 1;
  prelude_.clear();
  prelude_indent_ = indent + 1;
  cls_defined_ = false;
  signature_vars_.clear();

  // Signature: the return annotation is read first (TVM's order, which
  // decides the order of the `n = T.int64()` lines), then the parameters.
  in_signature_ = true;
  std::string ret;
  if (func->ret_struct_info.defined()) ret = PrintStructInfo(func->ret_struct_info);
  std::vector<std::string> params;
  for (relax::Var p : func->params) {
    std::string ann = p->struct_info_.defined() ? PrintStructInfo(Downcast<relax::StructInfo>(p->struct_info_)) : "";
    params.push_back(DefineVar(p) + (ann.empty() ? "" : ": " + ann));
  }
  in_signature_ = false;
  std::string signature_defs = prelude_;
  prelude_.clear();

  // Attributes, without a global_symbol that only repeats the name.
  Attrs attrs = func->attrs;
  std::optional<Any> symbol = attrs.Get("global_symbol");
  bool is_private = !symbol.has_value();
  if (symbol.has_value()) {
    const auto* s = symbol->as<StringObj>();
    if (s != nullptr && s->data == name) attrs.erase("global_symbol");
  }
  std::string func_attr;
  if (!attrs.empty()) {
    func_attr.append(static_cast<size_t>((indent + 1) * cfg_.indent_spaces), ' ');
    std::string dict = TIRPrinter(ctx_).PrintValueFragment(Any(attrs));
    if (dict.find(cfg_.tir_prefix + ".") != std::string::npos) ctx_->tir_prefix_used = true;
    func_attr += R("func_attr(") + dict + ")\n";
  }

  // Body.
  std::string body;
  out_ = &body;
  indent_ = indent + 1;
  if (const auto* seq = func->body.as<relax::SeqExprNode>()) {
    PrintSeqExpr(GetRef<relax::SeqExpr>(seq), true, nullptr, nullptr);
  } else {
    Line("return " + PrintExpr(func->body));
  }
  out_ = nullptr;

  std::vector<std::string> dec_args;
  if (!func->is_pure) dec_args.push_back("pure=False");
  if (is_private) dec_args.push_back("private=True");
  if (ctx_->global_var_name) dec_args.push_back("global_var=" + PyStringLiteral(*ctx_->global_var_name));
  std::string decorator = "@" + R("function");
  if (!dec_args.empty()) {
    decorator += "(";
    for (size_t i = 0; i < dec_args.size(); ++i) decorator += (i ? ", " : "") + dec_args[i];
    decorator += ")";
  }
  std::string signature = "def " + name + "(";
  for (size_t i = 0; i < params.size(); ++i) signature += (i ? ", " : "") + params[i];
  signature += ")";
  if (!ret.empty()) signature += " -> " + ret;
  signature += ":";

  std::string pad(static_cast<size_t>(indent * cfg_.indent_spaces), ' ');
  *out += pad + ctx_->marks.Open(func) + decorator + "\n";
  *out += pad + signature + "\n";
  *out += signature_defs + func_attr + prelude_ + body;
  if (ctx_->marks.enabled()) out->insert(out->size() - 1, ctx_->marks.Close());
  prelude_.clear();
}

std::string RelaxPrinter::PrintFragment(const ObjectRef& node) {
  names_.Reserve("R");
  NameScope scope(&names_);
  func_scope_ = names_.depth() - 1;
  prelude_.clear();
  prelude_indent_ = 0;
  std::string body;
  out_ = &body;
  indent_ = 0;
  if (const auto* s = node.as<relax::StructInfoNode>()) {
    body = PrintStructInfo(GetRef<relax::StructInfo>(s));
  } else if (const auto* seq = node.as<relax::SeqExprNode>()) {
    PrintSeqExpr(GetRef<relax::SeqExpr>(seq), false, nullptr, nullptr);
  } else if (const auto* e = node.as<RelaxExprNode>()) {
    body = PrintExpr(GetRef<relax::Expr>(e));
  } else if (const auto* b = node.as<relax::BindingNode>()) {
    PrintBinding(GetRef<relax::Binding>(b));
  } else if (const auto* blk = node.as<relax::BindingBlockNode>()) {
    PrintBlock(GetRef<relax::BindingBlock>(blk));
  } else {
    TESSERA_THROW(TypeError) << "no TVMScript form for a " << node->GetTypeKey();
  }
  out_ = nullptr;
  std::string result = prelude_ + body;
  while (!result.empty() && result.back() == '\n') result.pop_back();
  prelude_.clear();
  return result;
}

namespace {
const bool kRelaxPrintersRegistered = [] {
  FunctionPrinter printer;
  printer.import_line = [](const PrinterConfig&) { return std::string("# from tvm.script import relax as R"); };
  printer.header_order = 2;
  printer.print = [](const BaseFunc& func, const std::string& name, int indent, PrinterContext* ctx, std::string* out) {
    RelaxPrinter(ctx).PrintFunction(Downcast<relax::Function>(func), name, indent, out);
  };
  RegisterFunctionPrinter(relax::FunctionNode::_type_key, std::move(printer));
  RegisterFragmentPrinter([](const ObjectRef& node, PrinterContext* ctx) -> std::optional<std::string> {
    if (node.as<relax::FunctionNode>() || node->GetTypeKey().rfind("relax.", 0) != 0) return std::nullopt;
    return RelaxPrinter(ctx).PrintFragment(node);
  });
  return true;
}();
}  // namespace

// Lets tools (the tests' fixed-point check) know Relax functions print and parse.
TESSERA_REGISTER_GLOBAL("script.printer.RelaxSupported").set_body_typed([]() { return true; });

}  // namespace printer
}  // namespace script
}  // namespace tessera

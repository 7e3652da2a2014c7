// PrimFuncs and fragments as TVMScript: the signature (simple buffer
// parameters inlined as `A: T.Buffer(shape, dtype)`, others as handles with
// T.match_buffer and `n = T.int32()` for their symbolic sizes), T.func_attr (after the
// match_buffers when an attribute names variables, e.g. tessera.packed_args),
// the implicit root block printed as a comment with its allocations at
// function level, and definitions of free variables and buffers. Part of
// TIRPrinter (see tir_printer.h); script layer.
#include <unordered_map>
#include <unordered_set>

#include "script/printer/python_literal.h"
#include "script/printer/script_printer.h"
#include "script/printer/tir_printer.h"
#include "tir/functor.h"

namespace tessera {
namespace script {
namespace printer {

using namespace tessera::tir;  // NOLINT

namespace {

bool HasVar(const PrimExpr& e) {
  bool found = false;
  if (e.defined()) PostOrderVisit(e, [&](const ObjectRef& n) { found = found || n.as<VarNode>() != nullptr; });
  return found;
}

// A buffer whose declaration says nothing beyond shape and dtype, with a
// constant shape: it can be written inline as a parameter annotation.
bool IsSimpleBuffer(const Buffer& b) {
  if (!b->strides.empty()) return false;
  for (PrimExpr s : b->shape) {
    if (HasVar(s)) return false;
  }
  if (b->elem_offset.defined() && !IsConstInt(b->elem_offset, 0)) return false;
  return b->scope == "global" && b->data_alignment == 64 && b->offset_factor == 1 && b->axis_separators.empty();
}

bool ContainsBlockRealize(const Stmt& s) {
  bool found = false;
  PostOrderVisit(s, [&](const ObjectRef& n) { found = found || n.as<BlockRealizeNode>() != nullptr; });
  return found;
}

// The root block printed only as a comment: TVM's rule (no iteration, no
// regions or annotations, and either allocations or blocks inside).
const BlockNode* ImplicitRootBlock(const Stmt& body) {
  const auto* realize = body.as<BlockRealizeNode>();
  if (realize == nullptr || !realize->iter_values.empty() || !IsConstInt(realize->predicate, 1)) return nullptr;
  const BlockNode* root = realize->block.get();
  if (root->name_hint != "root" || !root->iter_vars.empty() || !root->annotations.empty() ||
      !root->match_buffers.empty() || !root->reads.empty() || !root->writes.empty() || root->init.has_value()) {
    return nullptr;
  }
  const auto* inner = root->body.as<BlockRealizeNode>();
  if (!root->alloc_buffers.empty() || (inner != nullptr && !inner->block->iter_vars.empty()) ||
      (inner == nullptr && ContainsBlockRealize(root->body))) {
    return root;
  }
  return nullptr;
}

void StripTrailingNewlines(std::string* s) {
  while (!s->empty() && s->back() == '\n') s->pop_back();
}

}  // namespace

TIRPrinter::TIRPrinter(PrinterContext* ctx) : ctx_(ctx), cfg_(ctx->cfg), names_(ctx->names) {}

const std::string& TIRPrinter::DefineFreeVar(const Var& v) {
  const std::string& name = names_.DefineInScope(free_scope_, v.get(), v->name_hint);
  free_defs_.append(static_cast<size_t>(free_defs_indent_ * cfg_.indent_spaces), ' ');
  free_defs_ += name + " = " + VarCreation(v) + "\n";
  return name;
}

const std::string& TIRPrinter::DefineFreeBuffer(const Buffer& b) {
  std::string decl = BufferDeclCall(b, "Buffer", {}, false);  // defines free shape variables first
  const std::string& name = DefineBuffer(b, free_scope_);
  free_defs_.append(static_cast<size_t>(free_defs_indent_ * cfg_.indent_spaces), ' ');
  free_defs_ += name + " = " + decl + "\n";
  return name;
}

namespace {
// The variables an attribute value names: a Var, or an array holding Vars.
std::vector<const VarNode*> VarsNamedBy(const Any& value) {
  std::vector<const VarNode*> out;
  if (!value.is_object()) return out;
  if (const auto* v = value.as<VarNode>()) {
    out.push_back(v);
  } else if (const auto* arr = value.as<ArrayObj>()) {
    for (const Any& x : arr->data)
      if (const auto* v = x.as<VarNode>()) out.push_back(v);
  }
  return out;
}
}  // namespace

void TIRPrinter::PrintPrimFunc(const PrimFunc& func, const std::string& name, int indent, std::string* out) {
  NameScope func_scope(&names_);
  free_scope_ = names_.depth() - 1;
  free_defs_.clear();
  free_defs_indent_ = indent + 1;
  data_var_owner_.clear();
  loops_.clear();

  // Which parameters the body (or another buffer's fields) uses directly.
  std::unordered_set<const Object*> used;
  PostOrderVisit(func->body, [&](const ObjectRef& n) {
    if (n.as<VarNode>()) used.insert(n.get());
  });
  std::unordered_map<const Object*, int> data_count;
  for (const auto& kv : func->buffer_map.raw()) {
    Buffer b = kv.second.cast<Buffer>();
    ++data_count[b->data.get()];
    auto mark = [&](const PrimExpr& e) {
      if (e.defined()) PostOrderVisit(e, [&](const ObjectRef& n) { if (n.as<VarNode>()) used.insert(n.get()); });
    };
    for (PrimExpr s : b->shape) mark(s);
    for (PrimExpr s : b->strides) mark(s);
    mark(b->elem_offset);
  }

  // Parameters named by an attribute (tessera.packed_args) keep their handle.
  for (const auto& kv : func->attrs.raw())
    for (const VarNode* v : VarsNamedBy(kv.second)) used.insert(v);

  // Step 1. Parameters.
  std::vector<std::string> params;
  std::vector<bool> inlined;
  for (Var p : func->params) {
    std::optional<Buffer> buf = func->buffer_map.Get(p);
    if (buf.has_value() && !used.count(p.get()) && IsSimpleBuffer(*buf) && data_count[(*buf)->data.get()] == 1) {
      std::string annotation = T("Buffer(") + PrintTuple((*buf)->shape) + ", " + PyStringLiteral((*buf)->dtype.str()) + ")";
      params.push_back(Mark(*buf, DefineBuffer(*buf)) + ": " + annotation);
      inlined.push_back(true);
      continue;
    }
    std::string type = p.dtype().is_handle() ? HandleType(p) : T(p.dtype().str());
    params.push_back(Mark(p, names_.Define(p.get(), p->name_hint)) + ": " + type);
    inlined.push_back(false);
  }
  std::string signature = "def " + name + "(";
  for (size_t i = 0; i < params.size(); ++i) signature += (i ? ", " : "") + params[i];
  signature += ")";
  if (!func->ret_type.is_void()) signature += " -> " + T(func->ret_type.is_handle() ? "handle" : func->ret_type.str());
  signature += ":";

  // Step 2. Attributes and the buffers bound to handle parameters.
  std::string pre;
  out_ = &pre;
  indent_ = indent + 1;
  // Attributes naming variables (tessera.packed_args) follow the buffer
  // declarations, which define the symbolic shape variables they name.
  bool attrs_name_vars = false;
  for (const auto& kv : func->attrs.raw()) {
    if (!VarsNamedBy(kv.second).empty()) attrs_name_vars = true;
  }
  if (!func->attrs.empty() && !attrs_name_vars) Line(T("func_attr(") + PrintDict(func->attrs) + ")");
  for (size_t i = 0; i < func->params.size(); ++i) {
    if (inlined[i]) continue;
    Var p = func->params[i];
    std::optional<Buffer> buf = func->buffer_map.Get(p);
    if (!buf.has_value()) continue;
    DefineBufferVars(*buf);
    std::string decl = BufferDeclCall(*buf, "match_buffer", {*names_.Find(p.get())}, false);
    Line(Mark(*buf, DefineBuffer(*buf)) + " = " + decl);
  }

  // Step 3. Body (the implicit root block as a comment).
  std::string body;
  out_ = &body;
  if (const BlockNode* root = ImplicitRootBlock(func->body)) {
    Line("# with " + T("block(\"root\"):"));
    for (Buffer b : root->alloc_buffers) {
      DefineBufferVars(b);
      std::string decl = BufferDeclCall(b, "alloc_buffer", {}, false);
      Line(Mark(b, DefineBuffer(b)) + " = " + decl);
    }
    PrintBody(root->body);
  } else {
    PrintBody(func->body);
  }
  // Attributes naming variables come after every definition: the buffer
  // declarations above and the free variables (`v = T.bool()`), which printing
  // the body or the attributes themselves may add.
  std::string late_attrs;
  if (attrs_name_vars) {
    out_ = &late_attrs;
    indent_ = indent + 1;
    Line(T("func_attr(") + PrintDict(func->attrs) + ")");
  }

  std::string pad(static_cast<size_t>(indent * cfg_.indent_spaces), ' ');
  // Without a global symbol the function is private to its module (the
  // parser gives every other function a global_symbol named after it).
  bool is_private = !func->attrs.count("global_symbol");
  std::string decorator_args;
  if (is_private) decorator_args = "private=True";
  if (ctx_->global_var_name) {
    decorator_args += (decorator_args.empty() ? "" : ", ") + std::string("global_var=") + PyStringLiteral(*ctx_->global_var_name);
  }
  std::string decorator = "@" + T("prim_func");
  if (!decorator_args.empty()) decorator += "(" + decorator_args + ")";
  *out += pad + ctx_->marks.Open(func) + decorator + "\n";
  *out += pad + signature + "\n";
  *out += pre;
  *out += free_defs_;
  *out += late_attrs;
  *out += body;
  if (ctx_->marks.enabled()) out->insert(out->size() - 1, ctx_->marks.Close());
  out_ = nullptr;
  free_defs_.clear();
}

std::string TIRPrinter::PrintStmtFragment(const Stmt& stmt) {
  NameScope scope(&names_);
  free_scope_ = names_.depth() - 1;
  free_defs_.clear();
  free_defs_indent_ = 0;
  std::string body;
  out_ = &body;
  indent_ = 0;
  PrintBody(stmt);
  std::string result = free_defs_ + body;
  out_ = nullptr;
  free_defs_.clear();
  StripTrailingNewlines(&result);
  return result;
}

std::string TIRPrinter::PrintExprFragment(const PrimExpr& expr) {
  NameScope scope(&names_);
  free_scope_ = names_.depth() - 1;
  free_defs_.clear();
  std::string text = PrintExpr(expr);
  free_defs_.clear();
  return text;
}

std::string TIRPrinter::PrintValueFragment(const Any& value) {
  NameScope scope(&names_);
  free_scope_ = names_.depth() - 1;
  free_defs_.clear();
  free_defs_indent_ = 0;
  std::string result;
  if (const auto* b = value.as<BufferNode>()) {
    DefineFreeBuffer(GetRef<Buffer>(b));
    result = free_defs_;
  } else if (const auto* m = value.as<MatchBufferRegionNode>()) {
    std::string source = PrintRegion(m->source);
    std::string decl = BufferDeclCall(m->buffer, "match_buffer", {source}, false);
    result = DefineBuffer(m->buffer) + " = " + decl;
  } else {
    result = PrintValue(value);
  }
  free_defs_.clear();
  StripTrailingNewlines(&result);
  return result;
}

// PrimFuncs print through the function printer registry like any other kind.
namespace {
const bool kPrimFuncPrinterRegistered = [] {
  FunctionPrinter printer;
  printer.import_line = [](const PrinterConfig& cfg) { return "# from tvm.script import tir as " + cfg.tir_prefix; };
  printer.header_order = 1;
  printer.print = [](const BaseFunc& func, const std::string& name, int indent, PrinterContext* ctx, std::string* out) {
    TIRPrinter(ctx).PrintPrimFunc(Downcast<PrimFunc>(func), name, indent, out);
  };
  RegisterFunctionPrinter(PrimFuncNode::_type_key, std::move(printer));
  return true;
}();
}  // namespace

}  // namespace printer
}  // namespace script
}  // namespace tessera

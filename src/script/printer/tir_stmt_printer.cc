// Statements as TVMScript: loops (with T.grid folding of perfectly nested
// serial loops, T.parallel/vectorized/unroll/thread_binding), blocks (axis
// bindings with T.axis.remap sugar, T.where, T.reads/T.writes, block
// attributes, alloc/match buffers, T.init), stores, conditionals, lets and
// allocations, plus buffer declarations. Part of TIRPrinter (see
// tir_printer.h); script layer.
#include <unordered_set>

#include "ir/type.h"
#include "script/printer/python_literal.h"
#include "script/printer/tir_printer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace script {
namespace printer {

using namespace tessera::tir;  // NOLINT

namespace {

bool IsZeroConst(const PrimExpr& e) { return IsConstInt(e, 0); }

bool UsesAnyVar(const PrimExpr& e, const std::unordered_set<const Object*>& vars) {
  if (vars.empty()) return false;
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (!found && n.as<VarNode>() && vars.count(n.get())) found = true;
  });
  return found;
}

std::string Join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

}  // namespace

void TIRPrinter::Line(const std::string& text) {
  CheckPrintedNesting(indent_);
  out_->append(static_cast<size_t>(indent_ * cfg_.indent_spaces), ' ');
  // Statements' spans start at their first line's text, after the indentation.
  out_->append(pending_marks_);
  pending_marks_.clear();
  out_->append(text);
  out_->push_back('\n');
}

std::string TIRPrinter::HandleType(const Var& v) {
  const auto* ptr = v->type_annotation.as<PointerTypeNode>();
  if (ptr == nullptr) return T("handle");
  std::vector<std::string> args;
  if (const auto* elem = ptr->element_type.as<PrimTypeNode>()) args.push_back(PyStringLiteral(elem->dtype.str()));
  if (ptr->storage_scope != "global") {
    args.push_back(args.empty() ? "storage_scope=" + PyStringLiteral(ptr->storage_scope) : PyStringLiteral(ptr->storage_scope));
  }
  if (args.empty()) args.push_back("storage_scope=\"global\"");
  return T("handle(") + Join(args) + ")";
}

std::string TIRPrinter::VarCreation(const Var& v) {
  std::string kwargs = v.as<SizeVarNode>() ? "is_size_var=True" : "";
  if (v.dtype().is_handle()) {
    std::string type = HandleType(v);
    return type.back() == ')' ? type : type + "()";
  }
  return T(v.dtype().str()) + "(" + kwargs + ")";
}

void TIRPrinter::DefineBufferVars(const Buffer& buffer) {
  auto visit = [&](const PrimExpr& e) {
    if (!e.defined()) return;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      const auto* v = n.as<VarNode>();
      if (v == nullptr || names_.IsDefined(v) || data_var_owner_.count(v)) return;
      const std::string& name = names_.Define(v, v->name_hint);
      Line(name + " = " + VarCreation(GetRef<Var>(v)));
    });
  };
  for (PrimExpr e : buffer->shape) visit(e);
  for (PrimExpr e : buffer->strides) visit(e);
  visit(buffer->elem_offset);
}

std::string TIRPrinter::BufferDeclCall(const Buffer& buffer, const std::string& method,
                                       const std::vector<std::string>& extra_args, bool always_dtype) {
  std::vector<std::string> args = extra_args;
  args.push_back(PrintTuple(buffer->shape));
  if (always_dtype || buffer->dtype != DataType::Float(32)) args.push_back(PyStringLiteral(buffer->dtype.str()));
  // The data pointer is implied unless another definition already owns it.
  const Object* data = buffer->data.get();
  if (const std::string* name = names_.Find(data)) {
    args.push_back("data=" + *name);
  } else {
    auto it = data_var_owner_.find(data);
    if (it != data_var_owner_.end() && it->second != buffer.get()) {
      if (const std::string* owner = names_.Find(it->second)) args.push_back("data=" + *owner + ".data");
    }
  }
  if (!buffer->strides.empty()) args.push_back("strides=" + PrintTuple(buffer->strides));
  if (buffer->elem_offset.defined() && !IsZeroConst(buffer->elem_offset)) {
    args.push_back("elem_offset=" + PrintExpr(buffer->elem_offset));
  }
  if (buffer->scope != "global") args.push_back("scope=" + PyStringLiteral(buffer->scope));
  if (buffer->data_alignment != 64) args.push_back("align=" + std::to_string(buffer->data_alignment));
  if (buffer->offset_factor != 1) args.push_back("offset_factor=" + std::to_string(buffer->offset_factor));
  if (!buffer->axis_separators.empty()) {
    std::vector<std::string> seps;
    for (const IntImm& k : buffer->axis_separators) seps.push_back(std::to_string(k->value));
    args.push_back("axis_separators=[" + Join(seps) + "]");
  }
  return T(method) + "(" + Join(args) + ")";
}

const std::string& TIRPrinter::DefineBuffer(const Buffer& buffer, std::optional<size_t> scope_index) {
  const std::string& name = scope_index ? names_.DefineInScope(*scope_index, buffer.get(), buffer->name, "buf")
                                        : names_.Define(buffer.get(), buffer->name, "buf");
  const Object* data = buffer->data.get();
  if (!names_.IsDefined(data)) {
    auto it = data_var_owner_.find(data);
    if (it == data_var_owner_.end() || !names_.IsDefined(it->second)) data_var_owner_[data] = buffer.get();
  }
  return name;
}

void TIRPrinter::PrintBody(const Stmt& body) {
  if (const auto* seq = body.as<SeqStmtNode>()) {
    if (seq->seq.empty()) {
      Line(T("evaluate(0)"));
      return;
    }
  }
  PrintStmt(body, /*concise=*/true);
}

void TIRPrinter::PrintStmt(const Stmt& stmt, bool concise) {
  if (!ctx_->marks.enabled()) return PrintStmtImpl(stmt, concise);
  // The span runs from the first line's text to the end of the last line
  // (before its newline). A BlockRealize's span is also its Block's.
  size_t pending_before = pending_marks_.size();
  std::string* out = out_;
  pending_marks_ += ctx_->marks.Open(stmt);
  int opened = 1;
  if (const auto* realize = stmt.as<BlockRealizeNode>()) {
    pending_marks_ += ctx_->marks.Open(realize->block);
    ++opened;
  }
  PrintStmtImpl(stmt, concise);
  if (pending_marks_.size() > pending_before) {
    pending_marks_.resize(pending_before);  // printed nothing: no span
    return;
  }
  TESSERA_ICHECK(out == out_ && !out->empty() && out->back() == '\n') << "a statement must end with a line";
  out->insert(out->size() - 1, std::string(static_cast<size_t>(opened), SpanMarks::kClose));
}

void TIRPrinter::PrintStmtImpl(const Stmt& stmt, bool concise) {
  CheckStack("statement");
  if (const auto* op = stmt.as<SeqStmtNode>()) {
    size_t n = op->seq.size();
    for (size_t i = 0; i < n; ++i) PrintStmt(op->seq[i], concise && i + 1 == n);
    return;
  }
  if (const auto* op = stmt.as<BufferStoreNode>()) {
    std::string lhs = PrintBufferUse(op->buffer);
    lhs += "[" + PrintIndices(op->indices) + "]";
    Line(lhs + " = " + PrintExpr(op->value));
    return;
  }
  if (const auto* op = stmt.as<ForNode>()) return PrintFor(op);
  if (const auto* op = stmt.as<BlockRealizeNode>()) return PrintBlock(op->block.get(), op);
  if (const auto* op = stmt.as<BlockNode>()) return PrintBlock(op, nullptr);
  if (const auto* op = stmt.as<EvaluateNode>()) {
    if (op->value.as<CallNode>()) {
      Line(PrintExpr(op->value));
    } else {
      Line(T("evaluate(") + PrintExpr(op->value) + ")");
    }
    return;
  }
  if (const auto* op = stmt.as<IfThenElseNode>()) {
    Line("if " + PrintExpr(op->condition) + ":");
    ++indent_;
    {
      NameScope scope(&names_);
      PrintBody(op->then_case);
    }
    --indent_;
    if (op->else_case.has_value()) {
      Line("else:");
      ++indent_;
      NameScope scope(&names_);
      PrintBody(*op->else_case);
      --indent_;
    }
    return;
  }
  if (const auto* op = stmt.as<WhileNode>()) {
    Line("while " + PrintExpr(op->condition) + ":");
    ++indent_;
    NameScope scope(&names_);
    PrintBody(op->body);
    --indent_;
    return;
  }
  if (const auto* op = stmt.as<LetStmtNode>()) return PrintLetStmt(op, concise);
  if (const auto* op = stmt.as<AllocateNode>()) return PrintAllocate(op, concise);
  if (const auto* op = stmt.as<DeclBufferNode>()) return PrintDeclBuffer(op, concise);
  if (const auto* op = stmt.as<AttrStmtNode>()) {
    const auto* iv = op->node.as<IterVarNode>();
    if (iv != nullptr && iv->iter_type == kThreadIndex && !iv->thread_tag.empty() &&
        (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread")) {
      // A launched thread: `v = T.env_thread(tag)` among the free definitions
      // (a variable may be launched more than once), `T.launch_thread(v, extent)` here.
      std::string name;
      if (const std::string* n = names_.Find(iv->var.get())) {
        name = *n;
      } else {
        name = names_.DefineInScope(free_scope_, iv->var.get(), iv->var->name_hint);
        std::string dtype = iv->var.dtype() == DataType::Int(32) ? "" : ", dtype=" + PyStringLiteral(iv->var.dtype().str());
        free_defs_.append(static_cast<size_t>(free_defs_indent_ * cfg_.indent_spaces), ' ');
        free_defs_ += name + " = " + T("env_thread(") + PyStringLiteral(iv->thread_tag) + dtype + ")\n";
      }
      std::string call = T("launch_thread(") + name + ", " + PrintExpr(op->value) + ")";
      if (concise) {
        Line(call);
        PrintBody(op->body);
        return;
      }
      Line("with " + call + ":");
      ++indent_;
      NameScope scope(&names_);
      PrintBody(op->body);
      --indent_;
      return;
    }
    std::string node = PrintValue(op->node);
    std::string value = PrintExpr(op->value);
    Line("with " + T("attr(") + node + ", " + PyStringLiteral(op->attr_key) + ", " + value + "):");
    ++indent_;
    NameScope scope(&names_);
    PrintBody(op->body);
    --indent_;
    return;
  }
  Line("# unprintable statement: " + stmt->GetTypeKey());
}

void TIRPrinter::PrintFor(const ForNode* op) {
  // Perfectly nested serial loops from 0 without annotations, whose extents
  // do not depend on each other, fold into one T.grid.
  std::vector<const ForNode*> grid;
  std::unordered_set<const Object*> grid_vars;
  for (const ForNode* l = op; l != nullptr; l = l->body.as<ForNode>()) {
    if (l->kind != ForKind::kSerial || !IsZeroConst(l->min) || !l->annotations.empty() ||
        UsesAnyVar(l->extent, grid_vars)) {
      break;
    }
    grid.push_back(l);
    grid_vars.insert(l->loop_var.get());
  }
  NameScope scope(&names_);
  if (grid.size() > 1) {
    std::vector<std::string> extents, vars;
    for (const ForNode* l : grid) extents.push_back(PrintExpr(l->extent));
    for (const ForNode* l : grid) vars.push_back(Mark(l->loop_var, names_.Define(l->loop_var.get(), l->loop_var->name_hint)));
    Line("for " + Join(vars) + " in " + T("grid(") + Join(extents) + "):");
    for (const ForNode* l : grid) loops_.push_back(l);
    ++indent_;
    PrintBody(grid.back()->body);
    --indent_;
    loops_.resize(loops_.size() - grid.size());
    return;
  }
  std::vector<std::string> args;
  if (IsZeroConst(op->min)) {
    args.push_back(PrintExpr(op->extent));
  } else {
    args.push_back(PrintExpr(op->min));
    args.push_back(PrintExpr(add(op->min, op->extent)));
  }
  std::string fn;
  switch (op->kind) {
    case ForKind::kSerial: fn = op->annotations.empty() ? "range" : T("serial"); break;
    case ForKind::kParallel: fn = T("parallel"); break;
    case ForKind::kVectorized: fn = T("vectorized"); break;
    case ForKind::kUnrolled: fn = T("unroll"); break;
    case ForKind::kThreadBinding: {
      fn = T("thread_binding");
      std::string tag = op->thread_binding.has_value() ? (*op->thread_binding)->thread_tag : std::string();
      args.push_back("thread=" + PyStringLiteral(tag));
      break;
    }
  }
  if (!op->annotations.empty()) args.push_back("annotations=" + PrintDict(op->annotations));
  std::string var = Mark(op->loop_var, names_.Define(op->loop_var.get(), op->loop_var->name_hint));
  Line("for " + var + " in " + fn + "(" + Join(args) + "):");
  loops_.push_back(op);
  ++indent_;
  PrintBody(op->body);
  --indent_;
  loops_.pop_back();
}

void TIRPrinter::PrintBlockIterVars(const BlockNode* block, const BlockRealizeNode* realize) {
  // An iteration variable bound to an enclosing loop variable whose loop
  // covers exactly its domain joins a T.axis.remap group with its neighbours.
  auto remappable = [&](size_t i) {
    if (realize == nullptr) return false;
    IterVar iv = block->iter_vars[i];
    if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) return false;
    const auto* v = realize->iter_values[i].as<VarNode>();
    if (v == nullptr) return false;
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      if ((*it)->loop_var.get() == v) {
        return ExprDeepEqual((*it)->min, iv->dom->min) && ExprDeepEqual((*it)->extent, iv->dom->extent);
      }
    }
    return false;
  };
  auto print_single = [&](size_t i) {
    IterVar iv = block->iter_vars[i];
    const char* kind = "opaque";
    switch (iv->iter_type) {
      case kDataPar: kind = "spatial"; break;
      case kCommReduce: kind = "reduce"; break;
      case kOrdered: kind = "scan"; break;
      default: kind = "opaque"; break;
    }
    std::string dom;
    if (IsZeroConst(iv->dom->min)) {
      dom = PrintExpr(iv->dom->extent);
    } else {
      dom = "(" + PrintExpr(iv->dom->min);
      dom += ", " + PrintExpr(add(iv->dom->min, iv->dom->extent)) + ")";
    }
    std::string rhs = T("axis.") + kind + "(" + dom;
    if (realize != nullptr) rhs += ", " + PrintExpr(realize->iter_values[i]);
    rhs += ")";
    Line(Mark(iv->var, names_.Define(iv->var.get(), iv->var->name_hint)) + " = " + rhs);
  };
  std::vector<size_t> group;
  auto flush = [&]() {
    if (group.size() == 1) {
      print_single(group[0]);
    } else if (group.size() > 1) {
      std::vector<std::string> lhs, values;
      std::string kinds;
      for (size_t i : group) {
        IterVar iv = block->iter_vars[i];
        values.push_back(PrintExpr(realize->iter_values[i]));
        lhs.push_back(Mark(iv->var, names_.Define(iv->var.get(), iv->var->name_hint)));
        kinds += iv->iter_type == kDataPar ? 'S' : 'R';
      }
      Line(Join(lhs) + " = " + T("axis.remap(") + PyStringLiteral(kinds) + ", [" + Join(values) + "])");
    }
    group.clear();
  };
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (remappable(i)) {
      group.push_back(i);
    } else {
      flush();
      print_single(i);
    }
  }
  flush();
}

void TIRPrinter::PrintBlock(const BlockNode* block, const BlockRealizeNode* realize) {
  std::string head = "with " + T("block(") + PyStringLiteral(block->name_hint);
  if (realize == nullptr) head += ", no_realize=True";
  Line(head + "):");
  ++indent_;
  NameScope scope(&names_);
  PrintBlockIterVars(block, realize);
  if (realize != nullptr && !IsConstInt(realize->predicate, 1)) {
    Line(T("where(") + PrintExpr(realize->predicate) + ")");
  }
  std::vector<std::string> regions;
  for (BufferRegion r : block->reads) regions.push_back(PrintRegion(r));
  Line(T("reads(") + Join(regions) + ")");
  regions.clear();
  for (BufferRegion r : block->writes) regions.push_back(PrintRegion(r));
  Line(T("writes(") + Join(regions) + ")");
  if (!block->annotations.empty()) Line(T("block_attr(") + PrintDict(block->annotations) + ")");
  for (Buffer b : block->alloc_buffers) {
    DefineBufferVars(b);
    std::string decl = BufferDeclCall(b, "alloc_buffer", {}, false);
    Line(Mark(b, DefineBuffer(b)) + " = " + decl);
  }
  for (MatchBufferRegion m : block->match_buffers) {
    std::string source = PrintRegion(m->source);
    DefineBufferVars(m->buffer);
    std::string decl = BufferDeclCall(m->buffer, "match_buffer", {source}, false);
    Line(Mark(m->buffer, DefineBuffer(m->buffer)) + " = " + decl);
  }
  if (block->init.has_value()) {
    Line("with " + T("init():"));
    ++indent_;
    NameScope init_scope(&names_);
    PrintBody(*block->init);
    --indent_;
  }
  PrintBody(block->body);
  --indent_;
}

void TIRPrinter::PrintLetStmt(const LetStmtNode* op, bool concise) {
  std::string value = PrintExpr(op->value);
  if (const std::string* name = names_.Find(op->var.get())) {
    Line("with " + T("LetStmt(") + value + ", var=" + *name + "):");
    ++indent_;
    NameScope scope(&names_);
    PrintBody(op->body);
    --indent_;
    return;
  }
  if (concise) {
    // The last statement of its scope: `x: T.int32 = value`, body follows inline.
    std::string type = op->var.dtype().is_handle() ? HandleType(op->var) : T(op->var.dtype().str());
    Line(names_.Define(op->var.get(), op->var->name_hint) + ": " + type + " = " + value);
    // Buffers over a let-bound pointer are declared after it, not hoisted to the top.
    if (op->var.dtype().is_handle()) DefineAliasBuffers(op->var, op->body);
    PrintBody(op->body);
    return;
  }
  NameScope scope(&names_);
  std::string typed = op->var->type_annotation.defined() ? ", " + HandleType(op->var) : std::string();
  Line("with " + T("LetStmt(") + value + typed + ") as " + names_.Define(op->var.get(), op->var->name_hint) + ":");
  ++indent_;
  if (op->var.dtype().is_handle()) DefineAliasBuffers(op->var, op->body);
  PrintBody(op->body);
  --indent_;
}

void TIRPrinter::PrintAllocate(const AllocateNode* op, bool concise) {
  // Allocate + DeclBuffer of the same memory prints as one T.decl_buffer.
  if (const auto* decl = op->body.as<DeclBufferNode>()) {
    const Buffer& b = decl->buffer;
    // The parser gives the data of T.decl_buffer(..., scope=s) a PointerType exactly when s != "global".
    const auto* ptr = op->buffer_var->type_annotation.as<PointerTypeNode>();
    bool same_scope = ptr == nullptr ? b->scope == "global"
                                     : b->scope != "global" && ptr->storage_scope == b->scope &&
                                           ptr->element_type.as<PrimTypeNode>() &&
                                           ptr->element_type.as<PrimTypeNode>()->dtype == b->dtype;
    bool same = same_scope && b->data.same_as(op->buffer_var) && b->dtype == op->dtype && IsConstInt(op->condition, 1) &&
                op->annotations.empty() && b->shape.size() == op->extents.size() &&
                !names_.IsDefined(op->buffer_var.get());
    for (size_t i = 0; same && i < b->shape.size(); ++i) same = ExprDeepEqual(b->shape[i], op->extents[i]);
    if (same) {
      data_var_owner_.erase(op->buffer_var.get());
      return PrintDeclBuffer(decl, concise);
    }
  }
  std::vector<std::string> args;
  std::vector<std::string> extents;
  for (PrimExpr e : op->extents) extents.push_back(PrintExpr(e));
  args.push_back("[" + Join(extents) + "]");
  args.push_back(PyStringLiteral(op->dtype.str()));
  // The storage scope is the buffer variable's (T.allocate gives it a PointerType unless "global").
  const auto* ptr = op->buffer_var->type_annotation.as<PointerTypeNode>();
  args.push_back(PyStringLiteral(ptr ? ptr->storage_scope : std::string("global")));
  if (op->condition.defined() && !IsConstInt(op->condition, 1)) args.push_back(PrintExpr(op->condition));
  if (!op->annotations.empty()) args.push_back("annotations=" + PrintDict(op->annotations));
  std::string call = T("allocate(") + Join(args) + ")";
  if (concise) {
    Line(names_.Define(op->buffer_var.get(), op->buffer_var->name_hint) + " = " + call);
    DefineAliasBuffers(op->buffer_var, op->body);
    PrintBody(op->body);
    return;
  }
  NameScope scope(&names_);
  Line("with " + call + " as " + names_.Define(op->buffer_var.get(), op->buffer_var->name_hint) + ":");
  ++indent_;
  DefineAliasBuffers(op->buffer_var, op->body);
  PrintBody(op->body);
  --indent_;
}

void TIRPrinter::DefineAliasBuffers(const Var& data, const Stmt& body) {
  std::unordered_set<const Object*> declared;
  std::vector<Buffer> aliases;
  std::unordered_set<const Object*> seen;
  auto use = [&](const Buffer& b) {
    if (b->data.same_as(data) && !names_.IsDefined(b.get()) && seen.insert(b.get()).second) aliases.push_back(b);
  };
  PostOrderVisit(body, [&](const ObjectRef& n) {
    if (const auto* d = n.as<DeclBufferNode>()) {
      declared.insert(d->buffer.get());
    } else if (const auto* blk = n.as<BlockNode>()) {
      for (Buffer b : blk->alloc_buffers) declared.insert(b.get());
      for (MatchBufferRegion m : blk->match_buffers) declared.insert(m->buffer.get());
    } else if (const auto* load = n.as<BufferLoadNode>()) {
      use(load->buffer);
    } else if (const auto* store = n.as<BufferStoreNode>()) {
      use(store->buffer);
    }
  });
  for (const Buffer& b : aliases) {
    if (declared.count(b.get())) continue;
    DefineBufferVars(b);
    std::string decl = BufferDeclCall(b, "Buffer", {}, false);
    Line(Mark(b, DefineBuffer(b)) + " = " + decl);
  }
}

void TIRPrinter::PrintDeclBuffer(const DeclBufferNode* op, bool concise) {
  DefineBufferVars(op->buffer);
  std::string call = BufferDeclCall(op->buffer, "decl_buffer", {}, false);
  if (concise) {
    Line(Mark(op->buffer, DefineBuffer(op->buffer)) + " = " + call);
    PrintBody(op->body);
    return;
  }
  NameScope scope(&names_);
  Line("with " + call + " as " + DefineBuffer(op->buffer) + ":");
  ++indent_;
  PrintBody(op->body);
  --indent_;
}

}  // namespace printer
}  // namespace script
}  // namespace tessera

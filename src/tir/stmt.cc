// Statement constructors (with checks), reflection and FFI (see stmt.h).
#include "tir/stmt.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {

BufferStore::BufferStore(Buffer buffer, PrimExpr value, Array<PrimExpr> indices, Span span) {
  TESSERA_CHECK_OR_THROW(buffer.defined() && value.defined(), ValueError) << "BufferStore with undefined parts";
  TESSERA_CHECK_OR_THROW(indices.size() == buffer->shape.size(), ValueError)
      << "buffer " << buffer->name << " has " << buffer->shape.size() << " dimensions but is stored with "
      << indices.size() << " indices";
  int lanes = 1;
  for (PrimExpr idx : indices) {
    TESSERA_CHECK_OR_THROW(idx.defined() && (idx.dtype().is_int() || idx.dtype().is_uint()), TypeError)
        << "buffer " << buffer->name << " is indexed with a non-integer expression";
    if (idx.dtype().lanes() > 1) lanes = idx.dtype().lanes();
  }
  DataType expect = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  TESSERA_CHECK_OR_THROW(value.dtype() == expect, TypeError)
      << "cannot store a " << value.dtype() << " value into buffer " << buffer->name << " of dtype " << expect;
  auto n = make_object<BufferStoreNode>();
  n->buffer = std::move(buffer);
  n->value = std::move(value);
  n->indices = std::move(indices);
  n->span = std::move(span);
  data_ = std::move(n);
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unroll";
    case ForKind::kThreadBinding: return "thread_binding";
  }
  return "?";
}

For::For(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body, std::optional<IterVar> thread_binding,
         Map<String, Any> annotations, Span span) {
  TESSERA_CHECK_OR_THROW(loop_var.defined() && min.defined() && extent.defined() && body.defined(), ValueError)
      << "For with undefined parts";
  TESSERA_CHECK_OR_THROW(min.dtype().is_scalar() && extent.dtype().is_scalar() &&
                             (min.dtype().is_int() || min.dtype().is_uint()),
                         TypeError)
      << "loop " << loop_var->name_hint << " needs integer bounds";
  TESSERA_CHECK_OR_THROW(kind != ForKind::kThreadBinding || thread_binding.has_value(), ValueError)
      << "thread-binding loop " << loop_var->name_hint << " needs a thread IterVar";
  auto n = make_object<ForNode>();
  n->loop_var = std::move(loop_var);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  n->body = std::move(body);
  n->thread_binding = std::move(thread_binding);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  data_ = std::move(n);
}

IfThenElse::IfThenElse(PrimExpr condition, Stmt then_case, std::optional<Stmt> else_case, Span span) {
  TESSERA_CHECK_OR_THROW(condition.defined() && condition.dtype().is_bool(), TypeError) << "if condition must be bool";
  TESSERA_CHECK_OR_THROW(then_case.defined(), ValueError) << "IfThenElse without a then branch";
  auto n = make_object<IfThenElseNode>();
  n->condition = std::move(condition);
  n->then_case = std::move(then_case);
  if (else_case && else_case->defined()) n->else_case = std::move(else_case);
  n->span = std::move(span);
  data_ = std::move(n);
}

SeqStmt::SeqStmt(Array<Stmt> seq, Span span) {
  auto n = make_object<SeqStmtNode>();
  n->seq = std::move(seq);
  n->span = std::move(span);
  data_ = std::move(n);
}

Stmt SeqStmt::Flatten(const std::vector<Stmt>& stmts) {
  std::vector<Stmt> flat;
  for (const Stmt& s : stmts) {
    if (!s.defined()) continue;
    if (const auto* seq = s.as<SeqStmtNode>()) {
      for (Stmt inner : seq->seq) flat.push_back(inner);
    } else {
      flat.push_back(s);
    }
  }
  if (flat.size() == 1) return flat[0];
  return SeqStmt(Array<Stmt>(flat));
}

Evaluate::Evaluate(PrimExpr value, Span span) {
  TESSERA_CHECK_OR_THROW(value.defined(), ValueError) << "Evaluate of an undefined expression";
  auto n = make_object<EvaluateNode>();
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = std::move(n);
}

LetStmt::LetStmt(Var var, PrimExpr value, Stmt body, Span span) {
  TESSERA_CHECK_OR_THROW(var.defined() && value.defined() && body.defined(), ValueError) << "LetStmt with undefined parts";
  TESSERA_CHECK_OR_THROW(var.dtype() == value.dtype(), TypeError)
      << "let " << var->name_hint << ": variable is " << var.dtype() << " but the value is " << value.dtype();
  auto n = make_object<LetStmtNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = std::move(n);
}

AttrStmt::AttrStmt(Any node, std::string attr_key, PrimExpr value, Stmt body, Span span) {
  auto n = make_object<AttrStmtNode>();
  n->node = std::move(node);
  n->attr_key = std::move(attr_key);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = std::move(n);
}

Allocate::Allocate(Var buffer_var, DataType dtype, Array<PrimExpr> extents, PrimExpr condition, Stmt body,
                   Map<String, Any> annotations, Span span) {
  auto n = make_object<AllocateNode>();
  n->buffer_var = std::move(buffer_var);
  n->dtype = dtype;
  n->extents = std::move(extents);
  n->condition = condition.defined() ? std::move(condition) : PrimExpr(IntImm(DataType::Bool(), 1));
  n->body = std::move(body);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  data_ = std::move(n);
}

DeclBuffer::DeclBuffer(Buffer buffer, Stmt body, Span span) {
  auto n = make_object<DeclBufferNode>();
  n->buffer = std::move(buffer);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = std::move(n);
}

While::While(PrimExpr condition, Stmt body, Span span) {
  TESSERA_CHECK_OR_THROW(condition.defined() && condition.dtype().is_bool(), TypeError) << "while condition must be bool";
  auto n = make_object<WhileNode>();
  n->condition = std::move(condition);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = std::move(n);
}

Block::Block(Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes, std::string name_hint,
             Stmt body, std::optional<Stmt> init, Array<Buffer> alloc_buffers, Array<MatchBufferRegion> match_buffers,
             Map<String, Any> annotations, Span span) {
  TESSERA_CHECK_OR_THROW(body.defined(), ValueError) << "block " << name_hint << " has no body";
  auto n = make_object<BlockNode>();
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->name_hint = std::move(name_hint);
  n->body = std::move(body);
  if (init && init->defined()) n->init = std::move(init);
  n->alloc_buffers = std::move(alloc_buffers);
  n->match_buffers = std::move(match_buffers);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  data_ = std::move(n);
}

BlockRealize::BlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, Block block, Span span) {
  TESSERA_CHECK_OR_THROW(block.defined(), ValueError) << "BlockRealize of an undefined block";
  TESSERA_CHECK_OR_THROW(iter_values.size() == block->iter_vars.size(), ValueError)
      << "block " << block->name_hint << " has " << block->iter_vars.size() << " iteration variables but "
      << iter_values.size() << " values are bound";
  for (size_t i = 0; i < iter_values.size(); ++i) {
    PrimExpr v = iter_values[i];
    IterVar iv = block->iter_vars[i];
    TESSERA_CHECK_OR_THROW(v.defined() && v.dtype() == iv->var.dtype(), TypeError)
        << "block " << block->name_hint << ": " << iv->var->name_hint << " is " << iv->var.dtype()
        << " but is bound to a value of dtype " << (v.defined() ? v.dtype().str() : "undefined");
  }
  auto n = make_object<BlockRealizeNode>();
  n->iter_values = std::move(iter_values);
  n->predicate = predicate.defined() ? std::move(predicate) : PrimExpr(IntImm(DataType::Bool(), 1));
  n->block = std::move(block);
  n->span = std::move(span);
  data_ = std::move(n);
}

TESSERA_REGISTER_OBJECT_TYPE(StmtNode);
TESSERA_REGISTER_OBJECT_TYPE(BufferStoreNode);
TESSERA_REGISTER_OBJECT_TYPE(ForNode);
TESSERA_REGISTER_OBJECT_TYPE(IfThenElseNode);
TESSERA_REGISTER_OBJECT_TYPE(SeqStmtNode);
TESSERA_REGISTER_OBJECT_TYPE(EvaluateNode);
TESSERA_REGISTER_OBJECT_TYPE(LetStmtNode);
TESSERA_REGISTER_OBJECT_TYPE(AttrStmtNode);
TESSERA_REGISTER_OBJECT_TYPE(AllocateNode);
TESSERA_REGISTER_OBJECT_TYPE(DeclBufferNode);
TESSERA_REGISTER_OBJECT_TYPE(WhileNode);
TESSERA_REGISTER_OBJECT_TYPE(BlockNode);
TESSERA_REGISTER_OBJECT_TYPE(BlockRealizeNode);

TESSERA_REGISTER_REFLECTION(StmtNode).def_ro("span", &StmtNode::span);
TESSERA_REGISTER_REFLECTION(BufferStoreNode)
    .def_ro("buffer", &BufferStoreNode::buffer)
    .def_ro("value", &BufferStoreNode::value)
    .def_ro("indices", &BufferStoreNode::indices);
TESSERA_REGISTER_REFLECTION(ForNode)
    .def_ro("loop_var", &ForNode::loop_var)
    .def_ro("min", &ForNode::min)
    .def_ro("extent", &ForNode::extent)
    .def_getter("kind", [](const ForNode* n) { return static_cast<int>(n->kind); })
    .def_ro("body", &ForNode::body)
    .def_ro("thread_binding", &ForNode::thread_binding)
    .def_ro("annotations", &ForNode::annotations);
TESSERA_REGISTER_REFLECTION(IfThenElseNode)
    .def_ro("condition", &IfThenElseNode::condition)
    .def_ro("then_case", &IfThenElseNode::then_case)
    .def_ro("else_case", &IfThenElseNode::else_case);
TESSERA_REGISTER_REFLECTION(SeqStmtNode).def_ro("seq", &SeqStmtNode::seq);
TESSERA_REGISTER_REFLECTION(EvaluateNode).def_ro("value", &EvaluateNode::value);
TESSERA_REGISTER_REFLECTION(LetStmtNode).def_ro("var", &LetStmtNode::var).def_ro("value", &LetStmtNode::value).def_ro("body", &LetStmtNode::body);
TESSERA_REGISTER_REFLECTION(AttrStmtNode)
    .def_ro("node", &AttrStmtNode::node)
    .def_ro("attr_key", &AttrStmtNode::attr_key)
    .def_ro("value", &AttrStmtNode::value)
    .def_ro("body", &AttrStmtNode::body);
TESSERA_REGISTER_REFLECTION(AllocateNode)
    .def_ro("buffer_var", &AllocateNode::buffer_var)
    .def_ro("dtype", &AllocateNode::dtype)
    .def_ro("extents", &AllocateNode::extents)
    .def_ro("condition", &AllocateNode::condition)
    .def_ro("body", &AllocateNode::body)
    .def_ro("annotations", &AllocateNode::annotations);
TESSERA_REGISTER_REFLECTION(DeclBufferNode).def_ro("buffer", &DeclBufferNode::buffer).def_ro("body", &DeclBufferNode::body);
TESSERA_REGISTER_REFLECTION(WhileNode).def_ro("condition", &WhileNode::condition).def_ro("body", &WhileNode::body);
TESSERA_REGISTER_REFLECTION(BlockNode)
    .def_ro("iter_vars", &BlockNode::iter_vars)
    .def_ro("reads", &BlockNode::reads)
    .def_ro("writes", &BlockNode::writes)
    .def_ro("name_hint", &BlockNode::name_hint)
    .def_ro("body", &BlockNode::body)
    .def_ro("init", &BlockNode::init)
    .def_ro("alloc_buffers", &BlockNode::alloc_buffers)
    .def_ro("match_buffers", &BlockNode::match_buffers)
    .def_ro("annotations", &BlockNode::annotations);
TESSERA_REGISTER_REFLECTION(BlockRealizeNode)
    .def_ro("iter_values", &BlockRealizeNode::iter_values)
    .def_ro("predicate", &BlockRealizeNode::predicate)
    .def_ro("block", &BlockRealizeNode::block);

TESSERA_REGISTER_GLOBAL("tir.BufferStore").set_body_typed([](Buffer b, PrimExpr v, Array<PrimExpr> idx) {
  return BufferStore(b, v, idx);
});
TESSERA_REGISTER_GLOBAL("tir.For").set_body_typed([](Var v, PrimExpr min, PrimExpr extent, int kind, Stmt body,
                                                     std::optional<IterVar> tb, std::optional<Map<String, Any>> ann) {
  TESSERA_CHECK_OR_THROW(kind >= 0 && kind <= 4, ValueError) << "unknown ForKind " << kind;
  return For(v, min, extent, static_cast<ForKind>(kind), body, tb, ann.value_or(Map<String, Any>()));
});
TESSERA_REGISTER_GLOBAL("tir.IfThenElse").set_body_typed([](PrimExpr c, Stmt t, std::optional<Stmt> e) {
  return IfThenElse(c, t, e);
});
TESSERA_REGISTER_GLOBAL("tir.SeqStmt").set_body_typed([](Array<Stmt> seq) { return SeqStmt(seq); });
TESSERA_REGISTER_GLOBAL("tir.Evaluate").set_body_typed([](PrimExpr v) { return Evaluate(v); });
TESSERA_REGISTER_GLOBAL("tir.LetStmt").set_body_typed([](Var v, PrimExpr value, Stmt body) { return LetStmt(v, value, body); });
TESSERA_REGISTER_GLOBAL("tir.AttrStmt").set_body_typed([](Any node, std::string key, PrimExpr value, Stmt body) {
  return AttrStmt(node, key, value, body);
});
TESSERA_REGISTER_GLOBAL("tir.Allocate").set_body_typed([](Var v, DataType t, Array<PrimExpr> ext, PrimExpr cond, Stmt body) {
  return Allocate(v, t, ext, cond, body);
});
TESSERA_REGISTER_GLOBAL("tir.DeclBuffer").set_body_typed([](Buffer b, Stmt body) { return DeclBuffer(b, body); });
TESSERA_REGISTER_GLOBAL("tir.While").set_body_typed([](PrimExpr c, Stmt body) { return While(c, body); });
TESSERA_REGISTER_GLOBAL("tir.Block").set_body_typed(
    [](Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes, std::string name, Stmt body,
       std::optional<Stmt> init, std::optional<Array<Buffer>> allocs, std::optional<Array<MatchBufferRegion>> matches,
       std::optional<Map<String, Any>> ann) {
      return Block(iter_vars, reads, writes, name, body, init, allocs.value_or(Array<Buffer>()),
                   matches.value_or(Array<MatchBufferRegion>()), ann.value_or(Map<String, Any>()));
    });
TESSERA_REGISTER_GLOBAL("tir.BlockRealize").set_body_typed([](Array<PrimExpr> values, PrimExpr pred, Block block) {
  return BlockRealize(values, pred, block);
});

}  // namespace tir
}  // namespace tessera

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
  if (kind == ForKind::kThreadBinding && !(*thread_binding)->dom.defined()) {
    // A thread IterVar made without a range takes the loop's, as Schedule.bind
    // and the parser's T.thread_binding make it: one form for one loop.
    const IterVarNode* iv = thread_binding->get();
    thread_binding = IterVar(Range::FromMinExtent(min, extent), iv->var, iv->iter_type, iv->thread_tag, iv->span);
  }
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

// Fields of each statement, with their role in structural equality (see
// runtime/reflection.h). Definition points come before the fields that use
// them: For loop variables, Let variables, Allocate buffer variables,
// DeclBuffer buffers, block iteration variables.
TESSERA_REGISTER_NODE(StmtNode).ignore("span", &StmtNode::span);
TESSERA_REGISTER_NODE(BufferStoreNode)
    .field("buffer", &BufferStoreNode::buffer)
    .field("value", &BufferStoreNode::value)
    .field("indices", &BufferStoreNode::indices);
TESSERA_REGISTER_NODE(ForNode)
    .def("loop_var", &ForNode::loop_var)
    .field("min", &ForNode::min)
    .field("extent", &ForNode::extent)
    .field("kind", &ForNode::kind)
    .field("thread_binding", &ForNode::thread_binding)
    .field("annotations", &ForNode::annotations)
    .field("body", &ForNode::body)
    .on_load([](const ObjectRef& loaded) -> ObjectRef {
      int kind = static_cast<int>(static_cast<const ForNode*>(loaded.get())->kind);
      TESSERA_CHECK_OR_THROW(kind >= 0 && kind <= 4, ValueError) << "field 'kind': unknown ForKind " << kind;
      return loaded;
    });
TESSERA_REGISTER_NODE(IfThenElseNode)
    .field("condition", &IfThenElseNode::condition)
    .field("then_case", &IfThenElseNode::then_case)
    .field("else_case", &IfThenElseNode::else_case);
TESSERA_REGISTER_NODE(SeqStmtNode).field("seq", &SeqStmtNode::seq);
TESSERA_REGISTER_NODE(EvaluateNode).field("value", &EvaluateNode::value);
TESSERA_REGISTER_NODE(LetStmtNode)
    .def("var", &LetStmtNode::var)
    .field("value", &LetStmtNode::value)
    .field("body", &LetStmtNode::body);
TESSERA_REGISTER_NODE(AttrStmtNode)
    .field("node", &AttrStmtNode::node)
    .field("attr_key", &AttrStmtNode::attr_key)
    .field("value", &AttrStmtNode::value)
    .field("body", &AttrStmtNode::body);
TESSERA_REGISTER_NODE(AllocateNode)
    .def("buffer_var", &AllocateNode::buffer_var)
    .field("dtype", &AllocateNode::dtype)
    .field("extents", &AllocateNode::extents)
    .field("condition", &AllocateNode::condition)
    .field("annotations", &AllocateNode::annotations)
    .field("body", &AllocateNode::body);
TESSERA_REGISTER_NODE(DeclBufferNode).def("buffer", &DeclBufferNode::buffer).field("body", &DeclBufferNode::body);
TESSERA_REGISTER_NODE(WhileNode).field("condition", &WhileNode::condition).field("body", &WhileNode::body);
// As in TVM, the block name is not compared (nor hashed): two programs that
// differ only in block names are structurally equal.
TESSERA_REGISTER_NODE(BlockNode)
    .def("iter_vars", &BlockNode::iter_vars)
    .field("alloc_buffers", &BlockNode::alloc_buffers)
    .field("match_buffers", &BlockNode::match_buffers)
    .ignore("name_hint", &BlockNode::name_hint)
    .field("reads", &BlockNode::reads)
    .field("writes", &BlockNode::writes)
    .field("annotations", &BlockNode::annotations)
    .field("init", &BlockNode::init)
    .field("body", &BlockNode::body);
TESSERA_REGISTER_NODE(BlockRealizeNode)
    .field("iter_values", &BlockRealizeNode::iter_values)
    .field("predicate", &BlockRealizeNode::predicate)
    .field("block", &BlockRealizeNode::block);

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

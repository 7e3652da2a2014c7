// TIR statements: stores, loops (serial/parallel/vectorized/unrolled/
// thread-bound), conditionals, sequences, let/attr/allocation scopes, while,
// and the block constructs of TensorIR (Block with iteration variables,
// read/write regions and init; BlockRealize binding them). TIR layer.
#pragma once

#include "tir/buffer.h"

namespace tessera {
namespace tir {

class StmtNode : public Object {
 public:
  Span span;
  TESSERA_DECLARE_OBJECT_INFO(StmtNode, Object, "tir.Stmt");
};
class Stmt : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Stmt, ObjectRef, StmtNode);
};

#define TESSERA_TIR_STMT_REF(Name)                        \
  class Name : public Stmt {                              \
   public:                                                \
    TESSERA_DEFINE_OBJECT_REF_METHODS(Name, Stmt, Name##Node); \
    TESSERA_DEFINE_OBJECT_REF_COW_METHOD(Name##Node);

class BufferStoreNode : public StmtNode {
 public:
  Buffer buffer;
  PrimExpr value;
  Array<PrimExpr> indices;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BufferStoreNode, StmtNode, "tir.BufferStore");
};
TESSERA_TIR_STMT_REF(BufferStore)
  // Raises ValueError/TypeError naming the buffer on index count or dtype mismatch.
  BufferStore(Buffer buffer, PrimExpr value, Array<PrimExpr> indices, Span span = Span());
};

// Loop kinds (TVM's ForKind values).
enum class ForKind : int { kSerial = 0, kParallel = 1, kVectorized = 2, kUnrolled = 3, kThreadBinding = 4 };
const char* ForKindName(ForKind kind);

class ForNode : public StmtNode {
 public:
  Var loop_var;
  PrimExpr min, extent;
  ForKind kind = ForKind::kSerial;
  Stmt body;
  std::optional<IterVar> thread_binding;  // set when kind == kThreadBinding
  Map<String, Any> annotations;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ForNode, StmtNode, "tir.For");
};
TESSERA_TIR_STMT_REF(For)
  For(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
      std::optional<IterVar> thread_binding = std::nullopt, Map<String, Any> annotations = {}, Span span = Span());
};

class IfThenElseNode : public StmtNode {
 public:
  PrimExpr condition;
  Stmt then_case;
  std::optional<Stmt> else_case;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IfThenElseNode, StmtNode, "tir.IfThenElse");
};
TESSERA_TIR_STMT_REF(IfThenElse)
  IfThenElse(PrimExpr condition, Stmt then_case, std::optional<Stmt> else_case = std::nullopt, Span span = Span());
};

class SeqStmtNode : public StmtNode {
 public:
  Array<Stmt> seq;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SeqStmtNode, StmtNode, "tir.SeqStmt");
};
TESSERA_TIR_STMT_REF(SeqStmt)
  explicit SeqStmt(Array<Stmt> seq, Span span = Span());
  // Flattens nested sequences; a single statement is returned as itself.
  static Stmt Flatten(const std::vector<Stmt>& stmts);
};

class EvaluateNode : public StmtNode {
 public:
  PrimExpr value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(EvaluateNode, StmtNode, "tir.Evaluate");
};
TESSERA_TIR_STMT_REF(Evaluate)
  explicit Evaluate(PrimExpr value, Span span = Span());
};

class LetStmtNode : public StmtNode {
 public:
  Var var;
  PrimExpr value;
  Stmt body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(LetStmtNode, StmtNode, "tir.LetStmt");
};
TESSERA_TIR_STMT_REF(LetStmt)
  LetStmt(Var var, PrimExpr value, Stmt body, Span span = Span());
};

class AttrStmtNode : public StmtNode {
 public:
  Any node;
  std::string attr_key;
  PrimExpr value;
  Stmt body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AttrStmtNode, StmtNode, "tir.AttrStmt");
};
TESSERA_TIR_STMT_REF(AttrStmt)
  AttrStmt(Any node, std::string attr_key, PrimExpr value, Stmt body, Span span = Span());
};

class AllocateNode : public StmtNode {
 public:
  Var buffer_var;
  DataType dtype;
  Array<PrimExpr> extents;
  PrimExpr condition;
  Stmt body;
  Map<String, Any> annotations;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AllocateNode, StmtNode, "tir.Allocate");
};
TESSERA_TIR_STMT_REF(Allocate)
  Allocate(Var buffer_var, DataType dtype, Array<PrimExpr> extents, PrimExpr condition, Stmt body,
           Map<String, Any> annotations = {}, Span span = Span());
};

class DeclBufferNode : public StmtNode {
 public:
  Buffer buffer;
  Stmt body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DeclBufferNode, StmtNode, "tir.DeclBuffer");
};
TESSERA_TIR_STMT_REF(DeclBuffer)
  DeclBuffer(Buffer buffer, Stmt body, Span span = Span());
};

class WhileNode : public StmtNode {
 public:
  PrimExpr condition;
  Stmt body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(WhileNode, StmtNode, "tir.While");
};
TESSERA_TIR_STMT_REF(While)
  While(PrimExpr condition, Stmt body, Span span = Span());
};

// A TensorIR block: an isolated unit of computation over its iteration
// variables, with declared read/write regions, an optional reduction init,
// and buffers allocated or matched inside it.
class BlockNode : public StmtNode {
 public:
  Array<IterVar> iter_vars;
  Array<BufferRegion> reads;
  Array<BufferRegion> writes;
  std::string name_hint;
  Stmt body;
  std::optional<Stmt> init;
  Array<Buffer> alloc_buffers;
  Array<MatchBufferRegion> match_buffers;
  Map<String, Any> annotations;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BlockNode, StmtNode, "tir.Block");
};
TESSERA_TIR_STMT_REF(Block)
  Block(Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes, std::string name_hint,
        Stmt body, std::optional<Stmt> init = std::nullopt, Array<Buffer> alloc_buffers = {},
        Array<MatchBufferRegion> match_buffers = {}, Map<String, Any> annotations = {}, Span span = Span());
};

// Binds a block's iteration variables to values (usually loop variables)
// under a predicate.
class BlockRealizeNode : public StmtNode {
 public:
  Array<PrimExpr> iter_values;
  PrimExpr predicate;
  Block block;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BlockRealizeNode, StmtNode, "tir.BlockRealize");
};
TESSERA_TIR_STMT_REF(BlockRealize)
  // Raises ValueError naming the block when the value count differs from its iter_vars.
  BlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, Block block, Span span = Span());
};

#undef TESSERA_TIR_STMT_REF

}  // namespace tir
}  // namespace tessera

// unsafe_set_dtype: changes the element type of an intermediate buffer a
// block writes (TVM's): stores into it cast to the new type, loads from it
// cast back to the old one, so expressions keep their types ("unsafe": the
// values may lose precision). Refused for parameters and for buffers matched
// by T.match_buffer. Its instruction kind, the function behind the Schedule
// method and the tir.schedule.UnsafeSetDType FFI entry.
#include <string>

#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

class DTypeRewriter : public StmtExprMutator {
 public:
  DTypeRewriter(Buffer from, Buffer to) : from_(std::move(from)), to_(std::move(to)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  Buffer VisitBufferUse(const Buffer& b) override { return b.same_as(from_) ? to_ : b; }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    return op->buffer.same_as(from_) ? cast(from_->dtype, e) : e;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    if (!op->buffer.same_as(from_)) return StmtExprMutator::VisitStmt_(op);
    std::vector<PrimExpr> idx;
    for (const PrimExpr& i : op->indices) idx.push_back(VisitExpr(i));
    return BufferStore(to_, cast(to_->dtype, VisitExpr(op->value)), Array<PrimExpr>(idx), op->span);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    for (const MatchBufferRegion& m : op->match_buffers) {
      if (m->source->buffer.same_as(from_)) matched = op;
    }
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    std::vector<Buffer> allocs;
    bool changed = false;
    for (const Buffer& x : b->alloc_buffers) {
      allocs.push_back(x.same_as(from_) ? to_ : x);
      changed = changed || x.same_as(from_);
    }
    if (changed) b.CopyOnWrite()->alloc_buffers = Array<Buffer>(allocs);
    return b;
  }
  const BlockNode* matched = nullptr;

 private:
  Buffer from_, to_;
};

void UnsafeSetDType(const Schedule& sch, const BlockRV& block, int64_t buffer_index, const std::string& dtype) {
  const char* prim = "unsafe_set_dtype";
  BlockLocation loc = sch.LocateBlock(block, prim);
  const std::string func = sch->blocks.at(block.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(b->writes.size())) {
    ThrowScheduleError(prim, "block \"" + b->name_hint + "\" has " + std::to_string(b->writes.size()) +
                                 " written buffers; index " + std::to_string(buffer_index) + " is out of range",
                       f, {b});
  }
  Buffer buf = b->writes[buffer_index]->buffer;
  for (const auto& kv : f->buffer_map.raw()) {
    if (kv.second.raw_object().same_as(buf)) {
      ThrowScheduleError(prim, "buffer " + buf->name + " written by block \"" + b->name_hint +
                                   "\" is a function parameter; its dtype is part of the signature",
                         f, {b});
    }
  }
  DataType t;
  try {
    t = DataType(dtype);
  } catch (const Error&) {
    ThrowScheduleError(prim, "\"" + dtype + "\" is not a data type", f);
  }
  if (t == buf->dtype) return;  // nothing to change (TVM records nothing either)
  Buffer to(buf->data, t, buf->shape, buf->strides, buf->elem_offset, buf->name, buf->scope, buf->data_alignment,
            buf->offset_factor, buf->span);
  DTypeRewriter rewriter(buf, to);
  PrimFunc out = f;
  out.CopyOnWrite()->body = rewriter.VisitStmt(f->body);
  if (rewriter.matched != nullptr) {
    ThrowScheduleError(prim, "buffer " + buf->name + " is matched by T.match_buffer in block \"" +
                                 rewriter.matched->name_hint + "\"; changing its dtype there is not supported",
                       f, {rewriter.matched});
  }
  sch.Commit(func, out);
  sch.Record("UnsafeSetDType", {block}, {buffer_index, dtype}, {});
}

}  // namespace

TESSERA_REGISTER_INST_KIND("UnsafeSetDType")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      UnsafeSetDType(sch, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int64_t>(),
                     attrs.at_any(1).cast<std::string>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("unsafe_set_dtype", {"block"}, {"buffer_index", "dtype"}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.UnsafeSetDType")
    .set_body_typed([](Schedule s, BlockRV b, int64_t i, std::string dtype) { UnsafeSetDType(s, b, i, dtype); });

}  // namespace tir
}  // namespace tessera

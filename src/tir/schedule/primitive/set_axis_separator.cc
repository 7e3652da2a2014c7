// set_axis_separator: gives a buffer that a block reads or writes TVM's
// axis_separators (positions splitting its axes into groups that
// FlattenBuffer flattens separately, for N-d physical memory). The buffer is
// replaced everywhere in the function (parameters, allocations, accesses,
// regions); buffers matched on it by T.match_buffer get the separators too.
// Its instruction kind, the function behind the Schedule method and the
// tir.schedule.SetAxisSeparator FFI entry.
#include <string>
#include <unordered_map>
#include <vector>

#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

Buffer WithSeparators(const Buffer& b, const Array<IntImm>& seps) {
  Buffer out = b;
  out.CopyOnWrite()->axis_separators = seps;
  return out;
}

// Replaces one buffer (and the buffers matched on it) throughout a body.
class SeparatorRewriter : public StmtExprMutator {
 public:
  SeparatorRewriter(const Buffer& from, const Buffer& to) { map_[from.get()] = to; }
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Buffer VisitBufferUse(const Buffer& b) override {
    auto it = map_.find(b.get());
    return it == map_.end() ? b : it->second;
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    // A buffer matched on the changed one takes its separators: the same
    // positions when the ranks agree, otherwise as many separators at 0 (as TVM).
    for (const MatchBufferRegion& m : op->match_buffers) {
      auto it = map_.find(m->source->buffer.get());
      if (it == map_.end()) continue;
      const Array<IntImm>& seps = it->second->axis_separators;
      Array<IntImm> target;
      if (m->buffer->shape.size() == it->second->shape.size()) {
        target = seps;
      } else {
        for (size_t k = 0; k < seps.size(); ++k) target.push_back(IntImm(DataType::Int(32), 0));
      }
      map_[m->buffer.get()] = WithSeparators(m->buffer, target);
    }
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    std::vector<Buffer> allocs;
    bool changed = false;
    for (const Buffer& x : b->alloc_buffers) {
      allocs.push_back(VisitBufferUse(x));
      changed = changed || !allocs.back().same_as(x);
    }
    std::vector<MatchBufferRegion> matches;
    for (const MatchBufferRegion& m : b->match_buffers) {
      Buffer t = VisitBufferUse(m->buffer);
      matches.push_back(t.same_as(m->buffer) ? m : MatchBufferRegion(t, m->source));
      changed = changed || !t.same_as(m->buffer);
    }
    if (changed) {
      auto* n = b.CopyOnWrite();
      n->alloc_buffers = Array<Buffer>(allocs);
      n->match_buffers = Array<MatchBufferRegion>(matches);
    }
    return b;
  }

 private:
  std::unordered_map<const BufferNode*, Buffer> map_;
};

void SetAxisSeparator(const Schedule& sch, const BlockRV& block, int64_t buffer_index, int64_t buffer_index_type,
                      const std::vector<int64_t>& separators) {
  const char* prim = "set_axis_separator";
  BlockLocation loc = sch.LocateBlock(block, prim);
  const std::string func = sch->blocks.at(block.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  if (buffer_index_type != 0 && buffer_index_type != 1) {
    ThrowScheduleError(prim, "buffer_index_type must be 0 (read) or 1 (write), got " + std::to_string(buffer_index_type),
                       f, {b});
  }
  const Array<BufferRegion>& regions = buffer_index_type == 0 ? b->reads : b->writes;
  const std::string kind = buffer_index_type == 0 ? "read" : "written";
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(regions.size())) {
    ThrowScheduleError(prim, "block \"" + b->name_hint + "\" has " + std::to_string(regions.size()) + " " + kind +
                                 " buffers; index " + std::to_string(buffer_index) + " is out of range",
                       f, {b});
  }
  Buffer buf = regions[buffer_index]->buffer;
  const int64_t ndim = static_cast<int64_t>(buf->shape.size());
  Array<IntImm> seps;
  int64_t last = 0;
  for (int64_t k : separators) {
    if (k < last || k > ndim) {
      ThrowScheduleError(prim, "axis_separators of buffer " + buf->name + " (" + std::to_string(ndim) +
                                   "-d) must be non-decreasing positions in [0, " + std::to_string(ndim) + "], got " +
                                   std::to_string(k),
                         f, {b});
    }
    last = k;
    seps.push_back(IntImm(DataType::Int(32), k));
  }
  Buffer to = WithSeparators(buf, seps);
  SeparatorRewriter rewriter(buf, to);
  PrimFunc out = f;
  auto* n = out.CopyOnWrite();
  n->body = rewriter.VisitStmt(f->body);
  Map<Var, Buffer> params;
  for (const auto& kv : f->buffer_map.raw()) {
    Buffer pb = kv.second.cast<Buffer>();
    params.Set(kv.first.cast<Var>(), rewriter.VisitBufferUse(pb));
  }
  n->buffer_map = params;
  sch.Commit(func, out);
  std::vector<Any> attr(separators.begin(), separators.end());
  sch.Record("SetAxisSeparator", {block}, {buffer_index, buffer_index_type, Array<Any>(attr)}, {});
}

std::vector<int64_t> AsInts(const Any& list) {
  std::vector<int64_t> out;
  for (const Any& x : list.cast<Array<Any>>().to_vector()) {
    if (const auto* imm = x.as<IntImmNode>()) {
      out.push_back(imm->value);
    } else {
      out.push_back(x.cast<int64_t>());
    }
  }
  return out;
}

}  // namespace

// Attributes as TVM records them: buffer_index, buffer_index_type (0 read,
// 1 write), axis_separators.
TESSERA_REGISTER_INST_KIND("SetAxisSeparator")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      SetAxisSeparator(sch, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int64_t>(),
                       attrs.at_any(1).cast<int64_t>(), AsInts(attrs.at_any(2)));
      return Array<Any>();
    })
    .set_as_python([](const std::vector<std::string>& inputs, const Array<Any>& attrs,
                      const std::optional<std::string>&, const std::vector<std::string>&) {
      std::string kind = attrs.at_any(1).cast<int64_t>() == 1 ? "write" : "read";
      return "sch.set_axis_separator(block=" + inputs.at(0) + ", buffer=(\"" + kind + "\", " +
             std::to_string(attrs.at_any(0).cast<int64_t>()) + "), axis_separators=" + PythonLiteral(attrs.at_any(2)) +
             ")";
    });

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SetAxisSeparator")
    .set_body_typed([](Schedule s, BlockRV b, int64_t index, int64_t index_type, Array<Any> seps) {
      SetAxisSeparator(s, b, index, index_type, AsInts(Any(seps)));
    });

}  // namespace tir
}  // namespace tessera

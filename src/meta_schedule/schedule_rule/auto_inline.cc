// AutoInline (TVM's ScheduleRule.AutoInline): inlines a block into its
// consumers (compute_inline) or a spatial consumer into its single producer
// (reverse_compute_inline) under TVM's conditions: one written buffer;
// constant tensors always; otherwise (unless the whole function is spatial)
// no disallowed op, no if-then-else, injective and ordered read->write index
// maps; not annotated meta_schedule.inline_rule = "disable"; not the root.
// Meta-schedule layer.
#include <unordered_map>

#include "ir/op.h"
#include "meta_schedule/schedule_rule/schedule_rule.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

namespace {

bool HasIfThenElse(const Stmt& body) {
  bool found = false;
  PostOrderVisit(body, [&](const ObjectRef& n) {
    if (n.as<IfThenElseNode>() || n.as<SelectNode>()) found = true;
    if (const auto* call = n.as<CallNode>()) {
      if (const auto* op = call->op.as<OpNode>(); op && op->name == "tir.if_then_else") found = true;
    }
  });
  return found;
}

bool HasOp(const Stmt& body, const std::vector<std::string>& ops) {
  bool found = false;
  PostOrderVisit(body, [&](const ObjectRef& n) {
    if (const auto* call = n.as<CallNode>()) {
      if (const auto* op = call->op.as<OpNode>()) {
        for (const std::string& name : ops) found = found || op->name == name;
      }
    }
  });
  return found;
}

}  // namespace

class AutoInlineNode : public ScheduleRuleNode {
 public:
  bool into_producer = false;
  bool into_consumer = true;
  bool inline_const_tensor = true;
  bool disallow_if_then_else = true;
  bool require_injective = true;
  bool require_ordered = true;
  Array<String> disallow_op;

  enum class InlineType { kNoInline, kIntoConsumer, kIntoProducer };

  InlineType Check(const Schedule& sch, const BlockRV& block_rv) const {
    BlockLocation loc = Locate(sch, block_rv);
    const BlockNode* block = loc.block;
    if (loc.scope == nullptr) return InlineType::kNoInline;  // the root block
    const std::string& func = sch->blocks.at(block_rv.get()).func;
    auto index = sch.IndexOf(func);
    bool func_spatial = IsSpatialPrimFunc(index->func());
    if (block->writes.size() != 1) return InlineType::kNoInline;
    bool has_consumers = !index->Consumers(block).empty();
    if (inline_const_tensor && block->reads.empty() && has_consumers) return InlineType::kIntoConsumer;
    if (!func_spatial) {
      std::vector<std::string> ops;
      for (const String& s : disallow_op) ops.push_back(s);
      if (!ops.empty() && HasOp(block->body, ops)) return InlineType::kNoInline;
      if (disallow_if_then_else && HasIfThenElse(block->body)) return InlineType::kNoInline;
      if (require_injective || require_ordered) {
        for (const BufferRegion& read : block->reads) {
          bool injective = false, ordered = false;
          ReadWritePattern(read, block->writes[0], &injective, &ordered);
          if ((require_injective && !injective) || (require_ordered && !ordered)) return InlineType::kNoInline;
        }
      }
    }
    if (auto ann = block->annotations.Get(kInlineRule)) {
      if (const auto* s = ann->as<StringObj>(); s && s->data == "disable") return InlineType::kNoInline;
    }
    if (into_consumer && has_consumers) return InlineType::kIntoConsumer;
    if (into_producer && index->Producers(block).size() == 1) return InlineType::kIntoProducer;
    return InlineType::kNoInline;
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    // compute_inline / reverse_compute_inline check the remaining conditions
    // (TVM's CanComputeInline / CanReverseComputeInline; a complete producer)
    // and leave the schedule unchanged when they do not hold.
    try {
      switch (Check(sch, block)) {
        case InlineType::kIntoConsumer: sch.ComputeInline(block); break;
        case InlineType::kIntoProducer: sch.ReverseComputeInline(block); break;
        case InlineType::kNoInline: break;
      }
    } catch (const Error& e) {
      if (e.kind() != "ScheduleError") throw;
    }
    return {sch};
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<AutoInlineNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AutoInlineNode, ScheduleRuleNode, "meta_schedule.AutoInline");
};

TESSERA_REGISTER_NODE(AutoInlineNode)
    .field("into_producer", &AutoInlineNode::into_producer)
    .field("into_consumer", &AutoInlineNode::into_consumer)
    .field("inline_const_tensor", &AutoInlineNode::inline_const_tensor)
    .field("disallow_if_then_else", &AutoInlineNode::disallow_if_then_else)
    .field("require_injective", &AutoInlineNode::require_injective)
    .field("require_ordered", &AutoInlineNode::require_ordered)
    .field("disallow_op", &AutoInlineNode::disallow_op);

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleAutoInline")
    .set_body_typed([](bool into_producer, bool into_consumer, bool inline_const_tensor, bool disallow_if_then_else,
                       bool require_injective, bool require_ordered, std::optional<Array<String>> disallow_op) {
      auto n = make_object<AutoInlineNode>();
      n->into_producer = into_producer;
      n->into_consumer = into_consumer;
      n->inline_const_tensor = inline_const_tensor;
      n->disallow_if_then_else = disallow_if_then_else;
      n->require_injective = require_injective;
      n->require_ordered = require_ordered;
      if (disallow_op) {
        for (const String& name : *disallow_op) {
          (void)Op::Get(name);  // an unknown op name raises here, naming it
          n->disallow_op.push_back(name);
        }
      }
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera

// The lookups get_block, get_loops, get_child_blocks, get_producers and
// get_consumers: their instruction kinds (pure: they only create handles),
// their Schedule methods (no transformation of their own: they read the
// schedule's block/loop index) and tir.schedule.* FFI entries. TIR schedule layer.
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("GetBlock")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs&, const Attrs& attrs, const Decision&) {
      return Array<Any>{sch.GetBlock(attrs.at_any(0).cast<std::string>(), attrs.at_any(1).cast<std::string>())};
    })
    .set_as_python(PythonCall("get_block", {}, {"name", "func_name"}));
TESSERA_REGISTER_INST_KIND("GetLoops")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetLoops(in.at_any(0).cast<BlockRV>()));
    })
    .set_as_python(PythonCall("get_loops", {"block"}, {}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("GetChildBlocks")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetChildBlocks(in.at_any(0).cast<ObjectRef>()));
    })
    .set_as_python(PythonCall("get_child_blocks", {"block_or_loop"}, {}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("GetProducers")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetProducers(in.at_any(0).cast<BlockRV>()));
    })
    .set_as_python(PythonCall("get_producers", {"block"}, {}, /*returns_list=*/true));
TESSERA_REGISTER_INST_KIND("GetConsumers")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(sch.GetConsumers(in.at_any(0).cast<BlockRV>()));
    })
    .set_as_python(PythonCall("get_consumers", {"block"}, {}, /*returns_list=*/true));

// ---- Schedule methods ------------------------------------------------------------

BlockRV Schedule::GetBlock(const std::string& name, const std::optional<std::string>& func_name) const {
  std::string fname = func_name.value_or(get()->func_name);
  if (fname.empty()) {
    TESSERA_THROW(ValueError) << "get_block(\"" << name << "\"): the schedule does not know which function to be "
                              << "working on (the module has several PrimFuncs and none is \"main\"); call "
                              << "work_on(func_name) or pass func_name";
  }
  auto index = IndexOf(fname);
  const PrimFunc& f = index->func();
  int count = 0;
  index->FindBlock(name, &count);
  const auto* root = f->body.as<BlockRealizeNode>();
  if (count == 0 && root && root->block->name_hint == name) count = 1;  // the root block
  if (count == 0) {
    std::string names;
    for (const BlockLocation& loc : index->blocks()) names += (names.empty() ? "" : ", ") + loc.block->name_hint;
    ThrowScheduleError("get_block", "cannot find a block named \"" + name + "\" in function \"" + fname +
                                        "\" (its blocks: " + (names.empty() ? "none" : names) + ")",
                       f);
  }
  if (count > 1) ThrowScheduleError("get_block", "several blocks are named \"" + name + "\"", f);
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {fname, name};
  Record("GetBlock", {}, {name, fname}, {rv});
  return rv;
}

Array<LoopRV> Schedule::GetLoops(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "get_loops");
  const std::string& func = get()->blocks.at(block.get()).func;
  // As in TVM, the loops stop at the enclosing block.
  const std::vector<const ForNode*>& loops = loc.loops;
  std::vector<LoopRV> out;
  for (const ForNode* l : loops) {
    LoopRV rv = LoopRV::Make();
    self()->loops[rv.get()] = {func, l->loop_var};
    out.push_back(rv);
  }
  Array<LoopRV> result(out);
  Record("GetLoops", {block}, {}, Array<Any>(out.begin(), out.end()));
  return result;
}

Array<BlockRV> Schedule::GetChildBlocks(const ObjectRef& block_or_loop) const {
  Stmt root;
  std::string func;
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "get_child_blocks");
    root = loc.block->body;
    func = get()->blocks.at(b).func;
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    root = LocateLoop(l, "get_child_blocks").loop->body;
    func = get()->loops.at(l.get()).func;
  }
  std::vector<Any> out;
  for (const BlockRealizeNode* br : ChildBlocks(root)) {
    BlockRV rv = NewBlockRV(func, br->block.get());
    out.push_back(rv);
  }
  Record("GetChildBlocks", {block_or_loop}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}

Array<BlockRV> Schedule::GetProducers(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "get_producers");
  const std::string& func = get()->blocks.at(block.get()).func;
  std::vector<Any> out;
  auto index = IndexOf(func);
  for (const BlockLocation* other : index->Producers(loc.block)) {
    BlockRV rv = NewBlockRV(func, other->block);
    out.push_back(rv);
  }
  Record("GetProducers", {block}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}

Array<BlockRV> Schedule::GetConsumers(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "get_consumers");
  const std::string& func = get()->blocks.at(block.get()).func;
  std::vector<Any> out;
  auto index = IndexOf(func);
  for (const BlockLocation* other : index->Consumers(loc.block)) {
    BlockRV rv = NewBlockRV(func, other->block);
    out.push_back(rv);
  }
  Record("GetConsumers", {block}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetBlock").set_body_typed([](Schedule s, std::string name, std::optional<std::string> f) {
  return s.GetBlock(name, f);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetLoops").set_body_typed([](Schedule s, BlockRV b) { return s.GetLoops(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetChildBlocks").set_body_typed([](Schedule s, ObjectRef x) { return s.GetChildBlocks(x); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetProducers").set_body_typed([](Schedule s, BlockRV b) { return s.GetProducers(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetConsumers").set_body_typed([](Schedule s, BlockRV b) { return s.GetConsumers(b); });

}  // namespace tir
}  // namespace tessera

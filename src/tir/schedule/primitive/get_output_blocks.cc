// get_output_blocks: the blocks under a scope block (the function's root when
// the scope is "root") that write a buffer the function does not allocate
// (a parameter), in program order, nested blocks included, as TVM's. A pure
// lookup: its instruction kind, the function behind the Schedule method and
// the tir.schedule.GetOutputBlocks FFI entry. TIR schedule layer.
#include <unordered_map>
#include <unordered_set>

#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"
#include "tir/schedule/schedule_index.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

// `scope` is a BlockRV or the string "root".
Array<BlockRV> GetOutputBlocks(const Schedule& sch, const Any& scope) {
  std::string func = sch->func_name;
  const BlockNode* scope_block = nullptr;
  if (scope.is_object() && scope.as<BlockRVNode>() != nullptr) {
    BlockRV rv = scope.cast<BlockRV>();
    scope_block = sch.LocateBlock(rv, "get_output_blocks").block;
    func = sch->blocks.at(rv.get()).func;
  } else if (!(scope.as<StringObj>() != nullptr && scope.as<StringObj>()->data == "root")) {
    ThrowErrorOfKind("ScheduleError", "ScheduleError: get_output_blocks: the scope must be a block handle or \"root\", "
                                      "got a " + std::string(scope.type_name()));
  }
  if (func.empty()) {
    TESSERA_THROW(ValueError) << "get_output_blocks(\"root\"): the schedule does not know which function to be "
                              << "working on; call work_on(func_name) first";
  }
  auto index = sch.IndexOf(func);
  const PrimFunc& f = index->func();
  std::unordered_set<const Object*> params;
  for (const auto& kv : f->buffer_map.raw()) params.insert(kv.second.raw_object().get());
  std::unordered_map<const BlockNode*, const BlockNode*> parent;
  for (const BlockLocation& loc : index->blocks()) parent[loc.block] = loc.scope;
  std::vector<Any> out;
  for (const BlockLocation& loc : index->blocks()) {
    if (scope_block != nullptr) {
      bool inside = false;
      for (const BlockNode* p = loc.scope; p != nullptr; p = parent.count(p) ? parent[p] : nullptr) {
        if (p == scope_block) {
          inside = true;
          break;
        }
      }
      if (!inside) continue;
    }
    bool writes_param = false;
    for (const BufferRegion& w : loc.block->writes) writes_param |= params.count(w->buffer.get()) > 0;
    if (!writes_param) continue;
    BlockRV rv = sch.NewBlockRV(func, loc.block);
    out.push_back(rv);
  }
  sch.Record("GetOutputBlocks", {scope}, {}, Array<Any>(out));
  std::vector<BlockRV> typed;
  for (const Any& a : out) typed.push_back(a.cast<BlockRV>());
  return Array<BlockRV>(typed);
}

}  // namespace

TESSERA_REGISTER_INST_KIND("GetOutputBlocks")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return AsOutputs(GetOutputBlocks(sch, in.at_any(0)));
    })
    .set_as_python(PythonCall("get_output_blocks", {"scope_block"}, {}, /*returns_list=*/true));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.GetOutputBlocks").set_body_typed([](Schedule s, Any scope) {
  return GetOutputBlocks(s, scope);
});

}  // namespace tir
}  // namespace tessera

// RewriteCooperativeFetch (TVM's postproc of that name): realizes the
// meta_schedule.cooperative_fetch annotation MultiLevelTiling puts on the
// fused loop of a shared-memory read cache: the loop is split by the thread
// extents of the enclosing threadIdx.y / threadIdx.x loops (and the sampled
// vector length, innermost and vectorized, when the split is exact; else the
// copy stays scalar) and the parts are bound to threadIdx.y / threadIdx.x,
// so the block's threads share the copy. A cache with no enclosing threadIdx
// loop keeps its serial loop. Under threadIdx.y with no threadIdx.x loop, the
// threadIdx.x extent is that of the warp-level intrinsics the kernel launches
// (T.launch_thread inside tensorized tensor-core code), as TVM takes the warp
// size there. Meta-schedule layer.
#include "meta_schedule/postproc/postproc.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

namespace {

struct Fetch {
  std::string func, block;
  size_t loop = 0;  // index in the block's loops
  int64_t vector_len = 1;
  int64_t extent = -1;
  int64_t thread_x = -1, thread_y = -1;
};

std::optional<int64_t> AnnotatedInt(const Any& v) {
  if (const auto* imm = v.as<IntImmNode>()) return imm->value;
  if (v.kind() == Any::Kind::kInt) return v.raw_int();
  return std::nullopt;
}

// The constant threadIdx.x extent a T.launch_thread in `func` gives (tensorized warp-level code), or -1.
int64_t LaunchedThreadX(const PrimFunc& func) {
  int64_t extent = -1;
  PostOrderVisit(func->body, [&](const ObjectRef& n) {
    const auto* attr = n.as<AttrStmtNode>();
    if (attr == nullptr || attr->attr_key != "thread_extent") return;
    const auto* iv = attr->node.as<IterVarNode>();
    const auto* value = attr->value.as<IntImmNode>();
    if (iv != nullptr && iv->thread_tag == "threadIdx.x" && value != nullptr) extent = value->value;
  });
  return extent;
}

std::optional<Fetch> FindOne(const Schedule& sch) {
  for (const auto& [gv, base] : sch->mod->functions.items()) {
    if (!base.as<PrimFuncNode>()) continue;
    std::string name = gv->name_hint;
    for (const BlockLocation& loc : sch.IndexOf(name)->blocks()) {
      for (size_t i = 0; i < loc.loops.size(); ++i) {
        std::optional<Any> len = loc.loops[i]->annotations.Get(kCooperativeFetch);
        if (!len) continue;
        Fetch f{name, loc.block->name_hint, i};
        f.vector_len = AnnotatedInt(*len).value_or(1);
        f.extent = ConstExtent(loc.loops[i]).value_or(-1);
        for (size_t j = 0; j < i; ++j) {
          const ForNode* l = loc.loops[j];
          if (l->kind != ForKind::kThreadBinding || !l->thread_binding) continue;
          const std::string& tag = (*l->thread_binding)->thread_tag;
          if (tag == "threadIdx.x") f.thread_x = ConstExtent(l).value_or(-1);
          if (tag == "threadIdx.y") f.thread_y = ConstExtent(l).value_or(-1);
        }
        if (f.thread_x <= 0 && f.thread_y > 0) f.thread_x = LaunchedThreadX(sch.FuncOf(name));
        return f;
      }
    }
  }
  return std::nullopt;
}

Any Factor(int64_t v) { return Any(IntImm(DataType::Int(32), v)); }

}  // namespace

class RewriteCooperativeFetchNode : public PostprocNode {
 public:
  bool Apply(const Schedule& sch) const final {
    try {
      while (std::optional<Fetch> f = FindOne(sch)) {
        BlockRV block = sch.GetBlock(f->block, f->func);
        LoopRV loop = sch.GetLoops(block)[f->loop];
        sch.Unannotate(loop, kCooperativeFetch);
        if (f->thread_x <= 0 && f->thread_y <= 0) continue;  // nothing to share the copy with
        if (f->extent < 0) return false;
        int64_t threads = std::max<int64_t>(f->thread_x, 1) * std::max<int64_t>(f->thread_y, 1);
        bool vectorize = f->vector_len > 1 && f->extent % (threads * f->vector_len) == 0;
        std::vector<Any> factors{Any()};
        if (f->thread_y > 0) factors.push_back(Factor(f->thread_y));
        if (f->thread_x > 0) factors.push_back(Factor(f->thread_x));
        if (vectorize) factors.push_back(Factor(f->vector_len));
        Array<LoopRV> splits = sch.Split(loop, Array<Any>(factors), true);
        size_t k = 1;
        if (f->thread_y > 0) sch.Bind(splits[k++], "threadIdx.y");
        if (f->thread_x > 0) sch.Bind(splits[k++], "threadIdx.x");
        if (vectorize) sch.Vectorize(splits[k]);
      }
    } catch (const Error& e) {
      if (e.kind() != "ScheduleError") throw;
      return false;
    }
    return true;
  }

  Postproc Clone() const final { return Postproc(make_object<RewriteCooperativeFetchNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RewriteCooperativeFetchNode, PostprocNode, "meta_schedule.RewriteCooperativeFetch");
};

TESSERA_REGISTER_NODE(RewriteCooperativeFetchNode);

TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocRewriteCooperativeFetch").set_body_typed([]() {
  return Postproc(make_object<RewriteCooperativeFetchNode>());
});

}  // namespace meta_schedule
}  // namespace tessera

// LoopNest (see loop_nest.h).
#include "meta_schedule/feature_extractor/loop_nest.h"

#include <algorithm>
#include <string>

namespace tessera {
namespace meta_schedule {

const int64_t* LoopConstExtent(const tir::ForNode* loop) { return AsConstInt(loop->extent); }

double LoopExtentOr1(const tir::ForNode* loop) {
  const int64_t* e = LoopConstExtent(loop);
  return e ? static_cast<double>(std::max<int64_t>(*e, 0)) : 1.0;
}

namespace {
int64_t AutoUnrollPragma(const tir::ForNode* loop) {
  auto value = loop->annotations.Get("pragma_auto_unroll_max_step");
  if (!value) return -1;
  if (auto i = value->try_cast<int64_t>()) return *i;
  if (auto e = value->try_cast<PrimExpr>()) {
    if (const int64_t* c = AsConstInt(*e)) return *c;
  }
  return -1;
}
}  // namespace

ForVec* LoopNest::Push(const tir::ForNode* loop) {
  prefix_prod_.push_back(prod * LoopExtentOr1(loop));
  prod = prefix_prod_.back();
  loops.push_back(loop);
  int64_t unroll_step = AutoUnrollPragma(loop);
  auto_unroll.push_back(unroll_step);
  ForVec* list = nullptr;
  switch (loop->kind) {
    case tir::ForKind::kParallel: list = &parallel; break;
    case tir::ForKind::kVectorized: list = &vectorize; break;
    case tir::ForKind::kUnrolled: list = &unroll; break;
    case tir::ForKind::kThreadBinding: {
      std::string tag = loop->thread_binding ? (*loop->thread_binding)->thread_tag : std::string();
      if (tag == "blockIdx.x") list = &block_x;
      else if (tag == "blockIdx.y") list = &block_y;
      else if (tag == "blockIdx.z") list = &block_z;
      else if (tag == "threadIdx.x") list = &thread_x;
      else if (tag == "threadIdx.y") list = &thread_y;
      else if (tag == "threadIdx.z") list = &thread_z;
      else if (tag.rfind("vthread", 0) == 0) list = &vthread;
      break;  // other tags: counted as plain loops
    }
    default: break;
  }
  if (list) list->push_back(loop);
  return list;
}

void LoopNest::Pop(const tir::ForNode* loop, ForVec* kind_list) {
  if (kind_list) kind_list->pop_back();
  auto_unroll.pop_back();
  prefix_prod_.pop_back();
  prod = prefix_prod_.empty() ? 1.0 : prefix_prod_.back();
  loops.pop_back();
}

}  // namespace meta_schedule
}  // namespace tessera

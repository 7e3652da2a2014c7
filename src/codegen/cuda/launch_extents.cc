// KernelLaunchExtents (see launch_extents.h): one walk over a kernel region
// collecting thread-bound loops per tag and "shared.dyn" allocations.
#include "codegen/cuda/launch_extents.h"

#include <map>
#include <set>

#include "ir/structural_equal.h"
#include "ir/type.h"
#include "tir/analysis/buffer_scopes.h"
#include "runtime/registry.h"
#include "script/printer/script_printer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

const char* const kLaunchTags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"};

bool IsLaunchTag(const std::string& tag) {
  for (const char* t : kLaunchTags) {
    if (tag == t) return true;
  }
  return false;
}

class LaunchCollector : public StmtExprVisitor {
 public:
  LaunchCollector(std::string func_name, const Stmt& region)
      : func_name_(std::move(func_name)), scopes_(BufferScopes(region)) {}

  std::map<std::string, std::vector<PrimExpr>> extents_;
  std::set<const VarNode*> defined_;
  PrimExpr dyn_shmem_ = IntImm(DataType::Int(64), 0);

  void Bind(const std::string& tag, const PrimExpr& extent) {
    if (tag.rfind("vthread", 0) == 0) return;
    TESSERA_CHECK_OR_THROW(IsLaunchTag(tag), ValueError)
        << "kernel of " << Name() << ": unknown thread tag \"" << tag
        << "\" (expected blockIdx.x/y/z, threadIdx.x/y/z or vthread)";
    extents_[tag].push_back(extent);
  }

  std::string Name() const { return func_name_.empty() ? std::string("<anonymous>") : func_name_; }

  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ForNode* op) override {
    defined_.insert(op->loop_var.get());
    if (op->kind == ForKind::kThreadBinding) {
      std::string tag = op->thread_binding ? (*op->thread_binding)->thread_tag : std::string();
      TESSERA_CHECK_OR_THROW(!tag.empty(), ValueError)
          << "kernel of " << Name() << ": thread-bound loop " << op->loop_var->name_hint << " has no thread tag";
      Bind(tag, op->extent);
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "thread_extent") {
      if (const auto* iv = op->node.as<IterVarNode>()) {
        defined_.insert(iv->var.get());
        Bind(iv->thread_tag, op->value);
      }
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    defined_.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    defined_.insert(op->buffer_var.get());
    if (ScopeOf(scopes_, op->buffer_var.get()) == "shared.dyn") AddDynShmem(op->dtype, op->extents);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) defined_.insert(iv->var.get());
    for (const Buffer& b : op->alloc_buffers) {
      if (b.scope() == "shared.dyn") AddDynShmem(b->dtype, b->shape);
    }
    StmtExprVisitor::VisitStmt_(op);
  }

 private:
  void AddDynShmem(DataType dtype, const Array<PrimExpr>& extents) {
    dyn_shmem_ = dyn_shmem_ + DynShmemBytes(dtype, extents);
  }
  std::string func_name_;
  std::unordered_map<const VarNode*, std::string> scopes_;
};

// The first variable of `e` in `defined`, or nullptr.
const VarNode* InnerVarOf(const PrimExpr& e, const std::set<const VarNode*>& defined) {
  const VarNode* found = nullptr;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>(); v && !found && defined.count(v)) found = v;
  });
  return found;
}

}  // namespace

LaunchExtents KernelLaunchExtents(const Stmt& region, const std::string& func_name) {
  LaunchCollector collector(func_name, region);
  collector.VisitStmt(region);
  LaunchExtents out;
  for (const char* tag : kLaunchTags) {
    auto it = collector.extents_.find(tag);
    if (it == collector.extents_.end()) continue;
    const std::vector<PrimExpr>& all = it->second;
    int64_t best = -1;
    bool all_const = true;
    for (const PrimExpr& e : all) {
      if (const int64_t* c = AsConstInt(e)) best = std::max(best, *c);
      else all_const = false;
    }
    PrimExpr extent;
    if (all_const) {
      extent = IntImm(all.front().dtype(), best);
    } else {
      for (const PrimExpr& e : all) {
        TESSERA_CHECK_OR_THROW(StructuralEqual(e, all.front()), ValueError)
            << "kernel of " << collector.Name() << ": loops bound to " << tag
            << " have different extents, and not all constant: " << script::printer::AsRepr(all.front()) << " and " << script::printer::AsRepr(e)
            << " (give them one extent, or constant ones)";
      }
      extent = all.front();
      if (const VarNode* inner = InnerVarOf(extent, collector.defined_)) {
        TESSERA_THROW(ValueError) << "kernel of " << collector.Name() << ": the extent " << script::printer::AsRepr(extent) << " of " << tag
                                  << " uses " << inner->name_hint
                                  << ", a variable defined inside the kernel (a launch extent must be known at launch)";
      }
    }
    out.tags.push_back(String(tag));
    out.extents.push_back(extent);
  }
  out.dyn_shmem = collector.dyn_shmem_;
  return out;
}

PrimExpr DynShmemBytes(DataType dtype, const Array<PrimExpr>& extents) {
  PrimExpr bytes = IntImm(DataType::Int(64), dtype.bytes() * dtype.lanes());
  for (const PrimExpr& e : extents) bytes = bytes * cast(DataType::Int(64), e);
  PrimExpr align = IntImm(DataType::Int(64), kDynShmemAlign);
  return floordiv(bytes + IntImm(DataType::Int(64), kDynShmemAlign - 1), align) * align;
}

std::optional<PrimExpr> LaunchExtentOf(const LaunchExtents& extents, const std::string& tag) {
  for (size_t i = 0; i < extents.tags.size(); ++i) {
    if (std::string(extents.tags[i]) == tag) return extents.extents[i];
  }
  return std::nullopt;
}

// [tags, extents, dyn_shmem], for tests.
TESSERA_REGISTER_GLOBAL("codegen.KernelLaunchExtents").set_body_typed([](Stmt region, String func_name) {
  LaunchExtents e = KernelLaunchExtents(region, func_name);
  return Array<Any>{e.tags, e.extents, e.dyn_shmem};
});

}  // namespace codegen
}  // namespace tessera

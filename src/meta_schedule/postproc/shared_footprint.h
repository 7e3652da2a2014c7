// SharedFootprint: what a shared buffer allocated outside a GPU kernel (where
// cache_read puts it, at the root block) occupies per thread block, as the
// build compacts it; VerifyGPUCode (verify_gpu_code.cc) counts it against
// max_shared_memory_per_block. Accesses are recorded with the loops around
// them; the buffer lives at the innermost loop enclosing every access, so the
// loops below that one and the thread loops (threadIdx, vthread) anywhere are
// relaxed, the others (blockIdx, serial loops around all accesses) stay
// fixed. MetaSchedule layer.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "tir/stmt.h"

namespace tessera {
namespace meta_schedule {

class SharedFootprint {
 public:
  // Keeps `loop` on the stack of loops around the walk while it lives (when
  // `in_kernel`: the loop is inside a kernel or opens one).
  class Loop {
   public:
    Loop(SharedFootprint* footprint, const tir::ForNode* loop, bool in_kernel);
    ~Loop();

   private:
    SharedFootprint* footprint_;
    bool pushed_;
  };

  // A block met inside a kernel (`in_kernel`): its shared allocations belong
  // to the kernel; its accesses of other shared buffers are recorded.
  void Note(bool in_kernel, const tir::BlockRealizeNode* realize);
  // At the end of a kernel: adds the per-block bytes of the recorded buffers
  // to *shared_bytes (`fail` names a buffer whose size is not constant) and
  // forgets the kernel.
  void Close(int64_t* shared_bytes, const std::function<void(const std::string&)>& fail);

 private:
  struct Access {
    std::vector<const tir::ForNode*> loops;
    std::vector<Range> region;
  };
  std::vector<const tir::ForNode*> loops_;
  std::set<const tir::BufferNode*> inside_;
  std::map<const tir::BufferNode*, std::vector<Access>> accesses_;
};

}  // namespace meta_schedule
}  // namespace tessera

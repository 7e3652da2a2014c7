// The VM's per-call profiler (see profiler.h).
#include "runtime/vm/profiler.h"

#include <algorithm>
#include <vector>

#include "runtime/ndarray.h"
#include "runtime/shape_tuple.h"
#include "runtime/string.h"

namespace tessera::runtime::vm {

namespace {

// "float32[1, 3, 224, 224], float32[64]": the tensors among the arguments
// (shapes and other values are left out: they do not tell kernels apart).
std::string TensorShapes(const Any* args, int nargs) {
  std::string out;
  for (int i = 0; i < nargs; ++i) {
    const auto* t = args[i].as<NDArrayObj>();
    if (t == nullptr) continue;
    if (!out.empty()) out += ", ";
    out += DataType::FromDLPack(t->dl.dtype).str() + "[";
    for (size_t d = 0; d < t->shape.size(); ++d) out += (d ? ", " : "") + std::to_string(t->shape[d]);
    out += "]";
  }
  return out;
}

}  // namespace

void VMProfiler::Record(const std::string& name, int64_t ns, const Any* args, int nargs) {
  auto [it, inserted] = stats_.try_emplace({name, TensorShapes(args, nargs)});
  if (inserted) it->second.order = static_cast<int64_t>(stats_.size());
  it->second.calls += 1;
  it->second.total_ns += ns;
}

void VMProfiler::Reset() {
  stats_.clear();
  invoke_ns_ = 0;
  invokes_ = 0;
}

Array<Any> VMProfiler::Rows() const {
  std::vector<std::pair<int64_t, Array<Any>>> rows;
  for (const auto& [key, s] : stats_) {
    rows.emplace_back(s.order, Array<Any>{Any(String(key.first)), Any(String(key.second)), Any(s.calls), Any(s.total_ns)});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Array<Any> out;
  for (auto& r : rows) out.push_back(Any(r.second));
  out.push_back(Any(Array<Any>{Any(invoke_ns_), Any(invokes_)}));
  return out;
}

}  // namespace tessera::runtime::vm

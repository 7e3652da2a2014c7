// The `tessera._core` extension module: one entry per layer's bindings.
#include <nanobind/nanobind.h>

namespace tessera::bindings {
void BindRuntime(nanobind::module_& m);
}  // namespace tessera::bindings

NB_MODULE(_core, m) {
  m.doc() = "Tessera C++ core";
  // Objects cached in process-wide tables live until exit by design.
  nanobind::set_leak_warnings(false);
  tessera::bindings::BindRuntime(m);
}

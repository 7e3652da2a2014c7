// Global functions the VM tests call from hand-written bytecode (TVM's
// test.vm.* names): element-wise add/mul of tensors, scalar add, device id.
// Runtime layer; registered with the runtime so C++ and Python tests share them.
#include "runtime/ndarray.h"
#include "runtime/registry.h"

namespace tessera::runtime::vm {
namespace {

template <typename T, typename Op>
void Apply(const NDArray& a, const NDArray& b, const NDArray& out, Op op) {
  const T* x = static_cast<const T*>(a.DataPtr());
  const T* y = static_cast<const T*>(b.DataPtr());
  T* z = static_cast<T*>(out.DataPtr());
  for (int64_t i = 0, n = a.NumElements(); i < n; ++i) z[i] = op(x[i], y[i]);
}

template <typename Op>
NDArray Elementwise(const char* name, const NDArray& a, const NDArray& b, Op op) {
  TESSERA_CHECK_OR_THROW(a.Shape() == b.Shape() && a.dtype() == b.dtype(), ValueError)
      << name << ": operands differ in shape or dtype";
  TESSERA_CHECK_OR_THROW(a.device().device_type == kDLCPU && b.device().device_type == kDLCPU && IsContiguous(a->dl) &&
                             IsContiguous(b->dl),
                         ValueError)
      << name << ": operands must be contiguous CPU tensors";
  NDArray out = NDArray::Empty(a.Shape(), a.dtype(), CPU());
  const DataType t = a.dtype();
  if (t == DataType::Float(32)) {
    Apply<float>(a, b, out, op);
  } else if (t == DataType::Float(64)) {
    Apply<double>(a, b, out, op);
  } else if (t == DataType::Int(32)) {
    Apply<int32_t>(a, b, out, op);
  } else if (t == DataType::Int(64)) {
    Apply<int64_t>(a, b, out, op);
  } else {
    TESSERA_THROW(TypeError) << name << ": unsupported dtype " << t.str();
  }
  return out;
}

TESSERA_REGISTER_GLOBAL("test.vm.add").set_body_typed([](NDArray a, NDArray b) {
  return Elementwise("test.vm.add", a, b, [](auto x, auto y) { return x + y; });
});
TESSERA_REGISTER_GLOBAL("test.vm.mul").set_body_typed([](NDArray a, NDArray b) {
  return Elementwise("test.vm.mul", a, b, [](auto x, auto y) { return x * y; });
});
TESSERA_REGISTER_GLOBAL("test.vm.add_scalar").set_body_typed([](int64_t a, int64_t b) { return a + b; });
TESSERA_REGISTER_GLOBAL("test.vm.get_device_id").set_body_typed([](Device d) { return static_cast<int64_t>(d.device_id); });
// Does nothing: measures the cost of one VM dispatch.
TESSERA_REGISTER_GLOBAL("test.vm.noop").set_body([](PackedArgs) -> Any { return Any(); });

}  // namespace
}  // namespace tessera::runtime::vm

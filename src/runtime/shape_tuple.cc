// ShapeTuple printing and its global functions (see shape_tuple.h).
#include "runtime/shape_tuple.h"

#include <sstream>

#include "runtime/array.h"
#include "runtime/registry.h"

namespace tessera {

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
  if (dims.size() == 1) os << ",";
  os << ")";
  return os.str();
}

std::string ShapeTuple::str() const { return ShapeString(dims()); }

TESSERA_REGISTER_OBJECT_TYPE(ShapeTupleObj);

// runtime.ShapeTuple(*dims)
TESSERA_REGISTER_GLOBAL("runtime.ShapeTuple").set_body([](PackedArgs args) -> Any {
  std::vector<int64_t> dims;
  dims.reserve(args.size());
  for (int i = 0; i < args.size(); ++i) {
    TESSERA_CHECK_OR_THROW(args[i].kind() == Any::Kind::kInt, TypeError)
        << "ShapeTuple: dimension " << i << " must be an int, got " << args[i].type_name();
    dims.push_back(args[i].raw_int());
  }
  return ShapeTuple(std::move(dims));
});
TESSERA_REGISTER_GLOBAL("runtime.GetShapeTupleSize").set_body_typed([](ShapeTuple s) {
  return static_cast<int64_t>(s.size());
});
TESSERA_REGISTER_GLOBAL("runtime.GetShapeTupleElem").set_body_typed([](ShapeTuple s, int64_t i) {
  TESSERA_CHECK_OR_THROW(i >= 0 && static_cast<size_t>(i) < s.size(), IndexError)
      << "ShapeTuple index " << i << " out of range for " << s.str();
  return s[static_cast<size_t>(i)];
});
TESSERA_REGISTER_GLOBAL("runtime.ShapeTupleToList").set_body_typed([](ShapeTuple s) {
  return Array<int64_t>(s.dims().begin(), s.dims().end());
});

}  // namespace tessera

// ShapeTuple: an immutable tuple of int64 dimensions (TVM's
// runtime.ShapeTuple), the VM's value for Relax shapes (R.Shape). Runtime
// layer; used by the VM builtins and by NDArray shape queries from the VM.
#pragma once

#include <string>
#include <vector>

#include "runtime/any.h"

namespace tessera {

class ShapeTupleObj : public Object {
 public:
  std::vector<int64_t> data;
  ShapeTupleObj() = default;
  explicit ShapeTupleObj(std::vector<int64_t> d) : data(std::move(d)) {}
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ShapeTupleObj, Object, "runtime.ShapeTuple");
};

class ShapeTuple : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ShapeTuple, ObjectRef, ShapeTupleObj);
  explicit ShapeTuple(std::vector<int64_t> dims) : ObjectRef(make_object<ShapeTupleObj>(std::move(dims))) {}
  size_t size() const { return get()->data.size(); }
  int64_t operator[](size_t i) const { return get()->data[i]; }
  const std::vector<int64_t>& dims() const { return get()->data; }
  // "(1, 784)" ("(4,)" for one dimension), as Python prints tuples.
  std::string str() const;
};

// "(1, 784)" for any dims vector.
std::string ShapeString(const std::vector<int64_t>& dims);

}  // namespace tessera

// String: an immutable, reference-counted string object, so that strings can
// live inside IR nodes, Arrays and Any values. Runtime layer.
#pragma once

#include <string>
#include <string_view>

#include "runtime/object.h"

namespace tessera {

class StringObj : public Object {
 public:
  std::string data;
  explicit StringObj(std::string s) : data(std::move(s)) {}
  TESSERA_DECLARE_FINAL_OBJECT_INFO(StringObj, Object, "runtime.String");
};

class String : public ObjectRef {
 public:
  String() : String(std::string()) {}
  String(std::string s) : ObjectRef(make_object<StringObj>(std::move(s))) {}  // NOLINT
  String(const char* s) : String(std::string(s)) {}                           // NOLINT
  explicit String(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  using ContainerType = StringObj;

  const std::string& str() const { return static_cast<const StringObj*>(get())->data; }
  operator const std::string&() const { return str(); }  // NOLINT
  const char* c_str() const { return str().c_str(); }
  size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }
  bool operator==(const String& o) const { return str() == o.str(); }
  bool operator!=(const String& o) const { return str() != o.str(); }
  bool operator==(const char* o) const { return str() == o; }
  bool operator==(const std::string& o) const { return str() == o; }
  bool operator<(const String& o) const { return str() < o.str(); }
};

inline std::ostream& operator<<(std::ostream& os, const String& s) { return os << s.str(); }

}  // namespace tessera

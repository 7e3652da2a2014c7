// Python <-> Any conversion and the Python class table (see ffi_convert.h).
#include "ffi_convert.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "runtime/array.h"
#include "runtime/device.h"
#include "runtime/map.h"
#include "runtime/object.h"
#include "runtime/stack_guard.h"

#include <unordered_set>

namespace tessera::bindings {
namespace {

// Lives for the whole process (never destroyed after the interpreter ends).
struct PyClassTable {
  std::unordered_map<uint32_t, nb::object> by_index;   // registered explicitly
  std::unordered_map<uint32_t, nb::object> resolved;   // cache of ancestor lookups
  static PyClassTable* Global() {
    static PyClassTable* t = new PyClassTable();
    return t;
  }
};

nb::handle PyClassFor(uint32_t type_index) {
  PyClassTable* t = PyClassTable::Global();
  auto it = t->resolved.find(type_index);
  if (it != t->resolved.end()) return it->second;
  for (uint32_t i = type_index;; i = TypeRegistry::ParentOf(i)) {
    auto jt = t->by_index.find(i);
    if (jt != t->by_index.end()) {
      t->resolved[type_index] = jt->second;
      return jt->second;
    }
    if (i == TypeRegistry::kRootIndex) break;
  }
  throw InternalError("no Python class registered for object type " + TypeRegistry::KeyOf(type_index));
}

// Holds a Python object; releases it under the GIL (or leaks it at exit).
struct PyObjectHolder : ErrorPayload {
  nb::object obj;
  explicit PyObjectHolder(nb::handle h) : obj(nb::borrow(h)) {}
  ~PyObjectHolder() override {
    if (!Py_IsInitialized()) {
      obj.release();
      return;
    }
    nb::gil_scoped_acquire gil;
    obj.reset();
  }
};

struct ErrorClassTable {
  std::vector<std::pair<std::string, nb::object>> entries;  // registration order
  static ErrorClassTable* Global() {
    static ErrorClassTable* t = new ErrorClassTable();
    return t;
  }
};

// The kind of a Python exception type: the first registered kind of the
// nearest class in its MRO, else the type's own name (builtins: "ValueError").
std::string KindOfPythonException(nb::handle type) {
  ErrorClassTable* t = ErrorClassTable::Global();
  for (nb::handle base : nb::borrow<nb::tuple>(type.attr("__mro__"))) {
    for (const auto& [kind, cls] : t->entries) {
      if (cls.is(base)) return kind;
    }
  }
  return nb::str(type.attr("__name__")).c_str();
}

}  // namespace

void RegisterErrorClass(const std::string& kind, nb::handle cls) {
  ErrorClassTable* t = ErrorClassTable::Global();
  for (auto& [k, c] : t->entries) {
    if (k == kind) {
      c = nb::borrow(cls);
      return;
    }
  }
  t->entries.emplace_back(kind, nb::borrow(cls));
}

nb::handle ErrorClassForKind(const std::string& kind) {
  ErrorClassTable* t = ErrorClassTable::Global();
  nb::handle fallback;
  for (const auto& [k, c] : t->entries) {
    if (k == kind) return c;
    if (k == "TVMError") fallback = c;
  }
  return fallback;
}

void RegisterPyClass(const std::string& type_key, nb::handle cls) {
  int64_t index = TypeRegistry::IndexOf(type_key);
  if (index < 0) {
    throw ValueError("cannot register a Python class for unknown object type '" + type_key + "'");
  }
  PyClassTable* t = PyClassTable::Global();
  t->by_index[static_cast<uint32_t>(index)] = nb::borrow(cls);
  t->resolved.clear();
}

bool RestorePythonPayload(const Error& e) {
  auto* holder = dynamic_cast<PyObjectHolder*>(e.payload().get());
  if (holder == nullptr) return false;
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(holder->obj.ptr())), holder->obj.ptr());
  return true;
}

void RethrowPythonErrorAsTessera(nb::python_error& e) {
  std::string kind = KindOfPythonException(nb::handle(e.type()));
  std::string msg;
  try {
    msg = nb::str(e.value()).c_str();
  } catch (...) {
    msg = e.what();
  }
  // The payload keeps the original exception so it is re-raised unchanged
  // if the error travels back to Python.
  ThrowErrorOfKind(kind, msg, std::make_shared<PyObjectHolder>(e.value()));
}

PackedFunc WrapPyCallable(nb::handle callable) {
  auto holder = std::make_shared<PyObjectHolder>(callable);
  std::string name;
  if (nb::hasattr(callable, "__qualname__")) name = nb::str(callable.attr("__qualname__")).c_str();
  return PackedFunc(
      [holder](PackedArgs args) -> Any {
        nb::gil_scoped_acquire gil;
        try {
          nb::list py_args;
          for (int i = 0; i < args.size(); ++i) py_args.append(ToPython(args[i]));
          nb::object result = holder->obj(*nb::tuple(py_args));
          return FromPython(result);
        } catch (nb::python_error& e) {
          RethrowPythonErrorAsTessera(e);
        }
      },
      name);
}

namespace {
std::string PyTypeName(nb::handle h) { return nb::str(h.type().attr("__name__")).c_str(); }

// `path` holds the containers being converted: meeting one of them again
// means the value contains itself. Nesting depth is bounded by the stack
// guard (CheckStack), which raises RecursionError, and calls from Python are
// retried on a large stack first (see runtime/stack_guard.h).
Any FromPythonImpl(nb::handle h, std::unordered_set<PyObject*>& path) {
  CheckStack("Python container");
  PyObject* o = h.ptr();
  if (o == Py_None) return Any();
  if (PyBool_Check(o)) return Any(o == Py_True);
  if (nb::isinstance<ObjectRef>(h)) {
    if (!nb::inst_ready(h)) {
      throw ValueError("a " + std::string(nb::str(h.type().attr("__name__")).c_str()) +
                       " object was used before it was initialized");
    }
    return Any(*nb::inst_ptr<ObjectRef>(h));
  }
  if (nb::isinstance<Device>(h)) return Any(*nb::inst_ptr<Device>(h));
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) throw OverflowError("integer " + std::string(nb::str(h).c_str()) + " does not fit in int64");
    return Any(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return Any(PyFloat_AsDouble(o));
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);
    if (data == nullptr) {
      // Lone surrogates ("\ud800") have no UTF-8 form: a user error, not a crash or a UnicodeError.
      nb::python_error err;
      throw ValueError("cannot pass a string that is not valid Unicode text to a Tessera function (" +
                       std::string(err.what()).substr(0, 200) + ")");
    }
    return Any(std::string(data, static_cast<size_t>(size)));
  }
  const bool is_container = PyList_Check(o) || PyTuple_Check(o) || PyDict_Check(o);
  if (is_container) {
    if (path.count(o)) {
      throw ValueError("cannot pass a self-referential " + PyTypeName(h) + " (it contains itself) to a Tessera function");
    }
  }
  struct PathGuard {
    std::unordered_set<PyObject*>& path;
    PyObject* pushed;
    ~PathGuard() {
      if (pushed) path.erase(pushed);
    }
  } guard{path, is_container ? o : nullptr};
  if (is_container) path.insert(o);
  if (PyList_Check(o) || PyTuple_Check(o)) {
    auto arr = make_object<ArrayObj>();
    arr->data.reserve(static_cast<size_t>(nb::len(h)));
    for (nb::handle item : h) arr->data.push_back(FromPythonImpl(item, path));
    return Any(Array<Any>(ObjectPtr<Object>(std::move(arr))));
  }
  if (PyDict_Check(o)) {
    auto map = make_object<MapObj>();
    for (auto [k, v] : nb::borrow<nb::dict>(h)) map->data.emplace_back(FromPythonImpl(k, path), FromPythonImpl(v, path));
    return Any(Map<Any, Any>(ObjectPtr<Object>(std::move(map))));
  }
  // Array-likes (NumPy, PyTorch): 0-d ones (and NumPy scalars) pass as numbers.
  if (nb::hasattr(h, "__array_interface__") || nb::hasattr(h, "__dlpack__")) {
    if (nb::hasattr(h, "item") && nb::hasattr(h, "shape") && nb::len(nb::object(h.attr("shape"))) == 0) {
      return FromPythonImpl(h.attr("item")(), path);
    }
    throw TypeError("cannot pass an array of type '" + std::string(nb::str(h.type().attr("__name__")).c_str()) +
                    "' to a Tessera function; convert it with tvm.nd.array(...) first");
  }
  // A built-in class (`int`, `float`, `str`, a NumPy scalar type) or any class
  // with __index__/__float__ is not a value: those attributes are unbound
  // methods there, and calling them would fail. (Other user classes stay
  // callables, converted below like functions.)
  if (PyType_Check(o) && (!PyType_HasFeature(reinterpret_cast<PyTypeObject*>(o), Py_TPFLAGS_HEAPTYPE) ||
                          nb::hasattr(h, "__index__") || nb::hasattr(h, "__float__"))) {
    throw TypeError("cannot pass the type object '" + std::string(nb::str(h.attr("__name__")).c_str()) +
                    "' to a Tessera function; pass a value (or the dtype name as a string)");
  }
  if (PyIndex_Check(o)) {
    PyObject* idx = PyNumber_Index(o);
    if (idx == nullptr) throw nb::python_error();
    return FromPythonImpl(nb::steal(idx), path);
  }
  if (nb::hasattr(h, "__float__")) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return Any(v);
  }
  // TVM's ObjectGeneric protocol: values that stand for an object (e.g. the
  // result of `a == b` on expressions) convert through asobject().
  if (nb::hasattr(h, "asobject")) return FromPythonImpl(h.attr("asobject")(), path);
  if (PyCallable_Check(o)) return Any(WrapPyCallable(h));
  throw TypeError("cannot pass a Python object of type '" +
                  std::string(nb::str(h.type().attr("__name__")).c_str()) + "' to a Tessera function");
}

}  // namespace

Any FromPython(nb::handle h) {
  std::unordered_set<PyObject*> path;
  return FromPythonImpl(h, path);
}

nb::object ToPython(const Any& v) {
  CheckStack("container");
  switch (v.kind()) {
    case Any::Kind::kNone: return nb::none();
    case Any::Kind::kInt: return nb::int_(v.raw_int());
    case Any::Kind::kFloat: return nb::float_(v.raw_float());
    case Any::Kind::kBool: return nb::bool_(v.raw_int() != 0);
    case Any::Kind::kDataType: return nb::str(v.raw_dtype().str().c_str());
    case Any::Kind::kDevice: return nb::cast(v.raw_device());
    case Any::Kind::kHandle: return nb::int_(reinterpret_cast<uintptr_t>(v.raw_handle()));
    case Any::Kind::kObject: break;
  }
  const ObjectRef& ref = v.raw_object();
  if (const auto* s = ref.as<StringObj>()) return nb::str(s->data.c_str(), s->data.size());
  if (const auto* a = ref.as<ArrayObj>()) {
    nb::list out;
    for (const Any& x : a->data) out.append(ToPython(x));
    return out;
  }
  if (const auto* m = ref.as<MapObj>()) {
    nb::dict out;
    bool str_keys = true;
    for (const auto& kv : m->data) {
      str_keys = str_keys && kv.first.as<StringObj>() != nullptr;
      out[ToPython(kv.first)] = ToPython(kv.second);
    }
    // A map keyed by strings (call and function attrs) also reads as attributes, `attrs.axes`,
    // as TVM's Attrs do: tessera.runtime.container.AttrMap, a dict subclass.
    if (str_keys && !m->data.empty()) {
      static nb::handle attr_map_cls;  // kept for the process's lifetime
      if (!attr_map_cls.is_valid()) {
        try {
          attr_map_cls = nb::object(nb::module_::import_("tessera.runtime.container").attr("AttrMap")).release();
        } catch (const nb::python_error&) {
          attr_map_cls = nb::handle();  // not importable yet (early in `import tessera`): a plain dict
        }
      }
      if (attr_map_cls.is_valid()) return attr_map_cls(out);
    }
    return out;
  }
  nb::handle cls = PyClassFor(ref->type_index());
  nb::object inst = nb::inst_alloc(cls);
  new (nb::inst_ptr<ObjectRef>(inst)) ObjectRef(ref);
  nb::inst_mark_ready(inst);
  return inst;
}

}  // namespace tessera::bindings

// Python bindings of the runtime layer: Object (base of every Python-visible
// node), NDArray (+ DLPack, buffer copies), PackedFunc, Device, the global
// function registry and the translation of errors into Python exceptions.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <unordered_map>

#include "ffi_convert.h"
#include "runtime/array.h"
#include "runtime/device_api.h"
#include "runtime/ndarray.h"
#include "runtime/reflection.h"
#include "runtime/stack_guard.h"
#include "runtime/registry.h"

namespace tessera::bindings {
namespace {

void TranslateError(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    if (RestorePythonPayload(e)) return;
    nb::handle cls = ErrorClassForKind(e.kind());
    PyErr_SetString(cls ? cls.ptr() : PyExc_RuntimeError, e.what());
  }
}

// Holds the buffer of a Python object (C-contiguous) for the call's duration.
struct BufferView {
  Py_buffer view{};
  BufferView(nb::handle obj, bool writable) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), &view, flags) != 0) throw nb::python_error();
  }
  ~BufferView() { PyBuffer_Release(&view); }
};

const char* kDLTensorName = "dltensor";
const char* kUsedDLTensorName = "used_dltensor";
const char* kDLTensorVersionedName = "dltensor_versioned";
const char* kUsedDLTensorVersionedName = "used_dltensor_versioned";

void DLPackCapsuleDestructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kDLTensorName)) {  // never consumed
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDLTensorName));
    if (t && t->deleter) t->deleter(t);
  }
}

void DLPackVersionedCapsuleDestructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kDLTensorVersionedName)) {  // never consumed
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kDLTensorVersionedName));
    if (t && t->deleter) t->deleter(t);
  }
}

NDArray AsNDArray(const ObjectRef& self) { return Downcast<NDArray>(self); }

std::string ObjectRepr(const ObjectRef& self) {
  if (auto f = Registry::Get("node.AsRepr")) return (*f)(self).cast<std::string>();
  std::ostringstream os;
  os << "<" << self->GetTypeKey() << " object at " << static_cast<const void*>(self.get()) << ">";
  return os.str();
}

}  // namespace

void BindRuntime(nb::module_& m) {
  nb::register_exception_translator(TranslateError);

  m.def("_register_error_class", [](const std::string& kind, nb::handle cls) {
    RegisterErrorClass(kind, cls);
  });
  m.def("_register_object", [](const std::string& key, nb::handle cls) { RegisterPyClass(key, cls); });
  m.def("_type_key_to_index", [](const std::string& key) { return TypeRegistry::IndexOf(key); });

  // ---- Object -------------------------------------------------------------
  nb::class_<ObjectRef>(m, "Object")
      .def("__init_handle_by_constructor__",
           [](nb::handle self, nb::handle constructor, nb::args args) {
             Any f = FromPython(constructor);
             auto func = f.cast<PackedFunc>();
             std::vector<Any> values;
             for (nb::handle a : args) values.push_back(FromPython(a));
             Any result = func.CallPacked(PackedArgs(values.data(), static_cast<int>(values.size())));
             if (!result.is_object()) {
               throw TypeError("constructor returned " + result.type_name() + ", not an object");
             }
             ObjectRef* slot = nb::inst_ptr<ObjectRef>(self);
             if (nb::inst_ready(self)) {
               *slot = result.raw_object();
             } else {
               new (slot) ObjectRef(result.raw_object());
               nb::inst_mark_ready(self);
             }
           })
      .def("__getattr__",
           [](const ObjectRef& self, const std::string& name) -> nb::object {
             if (auto v = Reflection::GetField(self.get(), name)) return ToPython(*v);
             throw AttributeError("'" + self->GetTypeKey() + "' object has no attribute '" + name + "'");
           })
      .def("__dir__",
           [](nb::handle self) {
             nb::list names;
             for (const FieldInfo* f : Reflection::ListFields(nb::inst_ptr<ObjectRef>(self)->type_index()))
               names.append(nb::str(f->name.c_str()));
             for (nb::handle n : nb::borrow<nb::list>(nb::module_::import_("builtins").attr("dir")(self.type())))
               names.append(n);
             return names;
           })
      .def("same_as", [](const ObjectRef& self, nb::handle other) {
        if (!nb::isinstance<ObjectRef>(other)) return false;
        return self.same_as(*nb::inst_ptr<ObjectRef>(other));
      })
      .def("__eq__", [](const ObjectRef& self, nb::handle other) {
        if (!nb::isinstance<ObjectRef>(other)) return false;
        return self.same_as(*nb::inst_ptr<ObjectRef>(other));
      })
      .def("__ne__", [](const ObjectRef& self, nb::handle other) {
        if (!nb::isinstance<ObjectRef>(other)) return true;
        return !self.same_as(*nb::inst_ptr<ObjectRef>(other));
      })
      .def("__hash__", [](const ObjectRef& self) { return reinterpret_cast<uintptr_t>(self.get()); })
      .def("__repr__", &ObjectRepr)
      .def_prop_ro("type_key", [](const ObjectRef& self) { return self->GetTypeKey(); })
      .def_prop_ro("handle", [](const ObjectRef& self) { return reinterpret_cast<uintptr_t>(self.get()); })
      .def_prop_ro("_use_count", [](const ObjectRef& self) { return self.use_count(); });

  RegisterPyClass("runtime.Object", m.attr("Object"));

  // ---- PackedFunc -----------------------------------------------------------
  nb::class_<PackedFunc, ObjectRef>(m, "PackedFuncBase")
      .def("__call__", [](const ObjectRef& self, nb::args args) {
        auto f = Downcast<PackedFunc>(self);
        std::vector<Any> values;
        values.reserve(args.size());
        for (nb::handle a : args) values.push_back(FromPython(a));
        Any result;
        {
          nb::gil_scoped_release release;
          // Deep IR: a call that ran out of stack is redone on a large-stack thread.
          result = RetryOnLargeStack([&] { return f.CallPacked(PackedArgs(values.data(), static_cast<int>(values.size()))); });
        }
        return ToPython(result);
      })
      .def_prop_ro("name", [](const ObjectRef& self) { return Downcast<PackedFunc>(self)->name; });
  RegisterPyClass("runtime.PackedFunc", m.attr("PackedFuncBase"));

  // ---- Device ---------------------------------------------------------------
  nb::class_<Device>(m, "Device")
      .def(nb::init<>())
      .def("__init__",
           [](Device* self, int device_type, int device_id) {
             new (self) Device{static_cast<DLDeviceType>(device_type), device_id};
           },
           nb::arg("device_type"), nb::arg("device_id") = 0)
      .def_prop_ro("device_type", [](const Device& d) { return static_cast<int>(d.device_type); })
      .def_prop_ro("device_id", [](const Device& d) { return d.device_id; })
      .def_prop_ro("exist", [](const Device& d) {
        try {
          return DeviceAPI::Get(d)->Exists(d.device_id);
        } catch (const ValueError&) {
          return false;
        }
      })
      .def("_get_attr", [](const Device& d, const std::string& attr) { return ToPython(DeviceAPI::Get(d)->GetAttr(d, attr)); })
      .def("sync", [](const Device& d) { DeviceAPI::Get(d)->Sync(d); })
      .def("__eq__", [](const Device& a, nb::handle b) {
        return nb::isinstance<Device>(b) && a == *nb::inst_ptr<Device>(b);
      })
      .def("__ne__", [](const Device& a, nb::handle b) {
        return !(nb::isinstance<Device>(b) && a == *nb::inst_ptr<Device>(b));
      })
      .def("__hash__", [](const Device& d) { return (static_cast<int64_t>(d.device_type) << 32) | d.device_id; })
      .def("__repr__", &Device::str)
      .def("__dlpack_device__", [](const Device& d) { return nb::make_tuple(static_cast<int>(d.device_type), d.device_id); });
  m.def("_device_type_from_name", [](const std::string& name) { return static_cast<int>(ParseDeviceType(name)); });
  m.def("_device_type_name", [](int t) { return DeviceTypeName(static_cast<DLDeviceType>(t)); });

  // ---- DataType -------------------------------------------------------------
  m.def("_dtype_parse", [](const std::string& s) {
    DataType t(s);
    return nb::make_tuple(static_cast<int>(t.code()), t.bits(), t.lanes(), t.str());
  });

  // ---- NDArray --------------------------------------------------------------
  nb::class_<NDArray, ObjectRef>(m, "NDArrayBase")
      .def_prop_ro("shape", [](const ObjectRef& self) {
        const auto& s = AsNDArray(self).Shape();
        nb::list l;
        for (int64_t d : s) l.append(d);
        return nb::tuple(l);
      })
      .def_prop_ro("dtype", [](const ObjectRef& self) { return AsNDArray(self).dtype().str(); })
      .def_prop_ro("device", [](const ObjectRef& self) { return AsNDArray(self).device(); })
      .def_prop_ro("ndim", [](const ObjectRef& self) { return AsNDArray(self).ndim(); })
      .def_prop_ro("nbytes", [](const ObjectRef& self) { return AsNDArray(self).NBytes(); })
      .def_prop_ro("data_ptr", [](const ObjectRef& self) { return reinterpret_cast<uintptr_t>(AsNDArray(self).DataPtr()); })
      .def("_copy_from_buffer", [](const ObjectRef& self, nb::handle buf) {
        BufferView v(buf, false);
        AsNDArray(self).CopyFromBytes(v.view.buf, static_cast<size_t>(v.view.len));
      })
      .def("_copy_to_buffer", [](const ObjectRef& self, nb::handle buf) {
        BufferView v(buf, true);
        NDArray arr = AsNDArray(self);
        nb::gil_scoped_release release;
        arr.CopyToBytes(v.view.buf, static_cast<size_t>(v.view.len));
      })
      .def("_copy_from_ndarray", [](const ObjectRef& self, const ObjectRef& other) {
        AsNDArray(self).CopyFrom(AsNDArray(other));
      })
      .def("_copy_to_device", [](const ObjectRef& self, const Device& dev) {
        return ToPython(AsNDArray(self).CopyTo(dev));
      })
      .def("__dlpack__",
           [](const ObjectRef& self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
              nb::handle copy) {
             (void)stream;  // host memory and synchronous copies: nothing to order
             if (!copy.is_none() && nb::cast<bool>(copy)) {
               throw ValueError("__dlpack__(copy=True) is not supported; Tessera exports zero-copy views");
             }
             NDArray arr = AsNDArray(self);
             if (!dl_device.is_none()) {
               auto t = nb::cast<nb::tuple>(dl_device);
               Device want{static_cast<DLDeviceType>(nb::cast<int>(t[0])), nb::cast<int>(t[1])};
               if (want != arr.device()) {
                 throw ValueError("__dlpack__: the array lives on " + arr.device().str() +
                                  ", not on the requested " + want.str());
               }
             }
             // Consumers that speak DLPack >= 1.0 get a versioned capsule
             // (which can say "writable"); older ones the legacy capsule.
             bool versioned = !max_version.is_none() && nb::cast<int>(nb::cast<nb::tuple>(max_version)[0]) >= 1;
             PyObject* cap = nullptr;
             if (versioned) {
               DLManagedTensorVersioned* t = arr.ToDLPackVersioned();
               cap = PyCapsule_New(t, kDLTensorVersionedName, DLPackVersionedCapsuleDestructor);
               if (cap == nullptr) t->deleter(t);
             } else {
               DLManagedTensor* t = arr.ToDLPack();
               cap = PyCapsule_New(t, kDLTensorName, DLPackCapsuleDestructor);
               if (cap == nullptr) t->deleter(t);
             }
             if (cap == nullptr) throw nb::python_error();
             return nb::steal(cap);
           },
           nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
           nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__", [](const ObjectRef& self) {
        Device d = AsNDArray(self).device();
        return nb::make_tuple(static_cast<int>(d.device_type), d.device_id);
      });
  RegisterPyClass("runtime.NDArray", m.attr("NDArrayBase"));

  m.def("_nd_empty", [](std::vector<int64_t> shape, const std::string& dtype, const Device& dev) {
    return ToPython(NDArray::Empty(shape, DataType(dtype), dev));
  });
  m.def("_nd_from_dlpack_capsule", [](nb::handle capsule) {
    PyObject* cap = capsule.ptr();
    if (PyCapsule_IsValid(cap, kDLTensorVersionedName)) {
      auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kDLTensorVersionedName));
      PyCapsule_SetName(cap, kUsedDLTensorVersionedName);
      return ToPython(NDArray::FromDLPackVersioned(t));
    }
    if (!PyCapsule_IsValid(cap, kDLTensorName)) {
      if (PyCapsule_CheckExact(cap) &&
          (PyCapsule_IsValid(cap, kUsedDLTensorName) || PyCapsule_IsValid(cap, kUsedDLTensorVersionedName))) {
        throw ValueError("from_dlpack: this DLPack capsule was already consumed");
      }
      throw TypeError("from_dlpack expects a 'dltensor' capsule or an object with __dlpack__");
    }
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kDLTensorName));
    PyCapsule_SetName(cap, kUsedDLTensorName);
    return ToPython(NDArray::FromDLPack(t));
  });

  // ---- Global function registry --------------------------------------------
  m.def("_register_func", [](const std::string& name, nb::handle f, bool override) {
    Registry::Set(name, FromPython(f).cast<PackedFunc>(), override);
  });
  m.def("_get_global_func", [](const std::string& name) -> nb::object {
    auto f = Registry::Get(name);
    if (!f) return nb::none();
    return ToPython(*f);
  });
  m.def("_remove_global_func", [](const std::string& name) { return Registry::Remove(name); });
  m.def("_list_global_func_names", []() { return Registry::ListNames(); });
  m.def("_as_packed_func", [](nb::handle f) { return ToPython(FromPython(f).cast<PackedFunc>()); });
  m.def("_type_name_of", [](nb::handle v) { return FromPython(v).type_name(); });
}

}  // namespace tessera::bindings

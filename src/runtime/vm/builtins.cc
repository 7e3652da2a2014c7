// The VM's builtin functions (vm.builtin.*, TVM's names and argument
// conventions): storage and tensor allocation, tuples, closures, the shape
// heap (match_shape / make_shape) and the run-time checks that Relax's
// shape lowering emits for function parameters. Runtime layer; called by
// bytecode that VMCodegen emits.
#include "runtime/array.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"
#include "runtime/vm/vm.h"

namespace tessera::runtime::vm {
namespace {

enum MatchShapeCode : int64_t { kNoOp = 0, kAssertEqualToImm = 1, kStoreToHeap = 2, kAssertEqualToLoad = 3 };
enum MakeShapeCode : int64_t { kUseImm = 0, kLoadShape = 1 };

// The err_ctx argument: the ErrorContext(...) string naming the parameter, or
// a generic prefix when absent.
std::string ErrCtx(const Any& a, const char* builtin) {
  if (const auto* s = a.as<StringObj>()) return s->data;
  return builtin;
}

std::string KindName(const Any& v) {
  if (v.as<NDArrayObj>()) return "R.Tensor";
  if (v.as<ShapeTupleObj>()) return "R.Shape";
  if (v.as<ArrayObj>()) return "R.Tuple";
  if (v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kFloat || v.kind() == Any::Kind::kBool) return "R.Prim";
  if (v.as<VMClosureObj>() || v.as<PackedFuncObj>()) return "R.Callable";
  return v.type_name();
}

// The heap argument: an int64 NDArray, or None when there is no heap.
int64_t* HeapData(const Any& heap, int64_t* size, const char* builtin) {
  if (heap.is_none()) {
    *size = 0;
    return nullptr;
  }
  const auto* arr = heap.as<NDArrayObj>();
  TESSERA_CHECK_OR_THROW(arr != nullptr && arr->dl.dtype.code == kDLInt && arr->dl.dtype.bits == 64 && arr->dl.ndim == 1,
                         TypeError)
      << builtin << ": the shape heap must be a 1-D int64 tensor (vm.builtin.alloc_shape_heap), got " << heap.type_name();
  *size = arr->shape[0];
  return reinterpret_cast<int64_t*>(static_cast<char*>(arr->dl.data) + arr->dl.byte_offset);
}

int64_t HeapSlot(int64_t index, int64_t heap_size, const char* builtin) {
  TESSERA_CHECK_OR_THROW(index >= 0 && index < heap_size, ValueError)
      << builtin << ": shape heap index " << index << " out of range (heap of " << heap_size << ")";
  return index;
}

template <typename Ctx>
const std::vector<int64_t>& ShapeOfValue(const Any& v, const Ctx& ctx) {
  if (const auto* a = v.as<NDArrayObj>()) return a->shape;
  if (const auto* s = v.as<ShapeTupleObj>()) return s->data;
  TESSERA_THROW(TypeError) << ctx() << ": expected a tensor or a shape, got " << KindName(v);
}

// vm.builtin.match_shape(value, heap, ndim, [code, value]*ndim, err_ctx)
Any MatchShape(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() >= 4, TypeError) << "vm.builtin.match_shape(value, heap, ndim, codes..., err_ctx)";
  auto ctx = [&] { return ErrCtx(args[args.size() - 1], "vm.builtin.match_shape"); };  // built only on error
  const std::vector<int64_t>& shape = ShapeOfValue(args[0], ctx);
  int64_t heap_size = 0;
  int64_t* heap = HeapData(args[1], &heap_size, "vm.builtin.match_shape");
  const int64_t ndim = args[2].cast<int64_t>();
  TESSERA_CHECK_OR_THROW(args.size() == 4 + 2 * ndim, TypeError)
      << "vm.builtin.match_shape: " << ndim << " dimensions need " << 4 + 2 * ndim << " arguments, got " << args.size();
  if (static_cast<int64_t>(shape.size()) != ndim) {
    TESSERA_THROW(ValueError) << ctx() << ": expected " << ndim << " dimensions but got " << shape.size() << " (shape "
                              << ShapeString(shape) << ")";
  }
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t code = args[static_cast<int>(3 + 2 * i)].cast<int64_t>();
    const int64_t value = args[static_cast<int>(4 + 2 * i)].cast<int64_t>();
    switch (code) {
      case kNoOp: break;
      case kAssertEqualToImm:
        if (shape[i] != value) {
          TESSERA_THROW(ValueError) << ctx() << ": shape mismatch at dimension " << i << ": expected " << value
                                    << " but got " << shape[i] << " (shape " << ShapeString(shape) << ")";
        }
        break;
      case kStoreToHeap: heap[HeapSlot(value, heap_size, "vm.builtin.match_shape")] = shape[i]; break;
      case kAssertEqualToLoad: {
        const int64_t expected = heap[HeapSlot(value, heap_size, "vm.builtin.match_shape")];
        if (shape[i] != expected) {
          TESSERA_THROW(ValueError) << ctx() << ": shape mismatch at dimension " << i << ": expected " << expected
                                    << " (the value this symbolic dimension took earlier) but got " << shape[i]
                                    << " (shape " << ShapeString(shape) << ")";
        }
        break;
      }
      default: TESSERA_THROW(ValueError) << "vm.builtin.match_shape: unknown code " << code << " for dimension " << i;
    }
  }
  return Any();
}

// vm.builtin.make_shape(heap, ndim, [code, value]*ndim)
Any MakeShape(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() >= 2, TypeError) << "vm.builtin.make_shape(heap, ndim, codes...)";
  int64_t heap_size = 0;
  int64_t* heap = HeapData(args[0], &heap_size, "vm.builtin.make_shape");
  const int64_t ndim = args[1].cast<int64_t>();
  TESSERA_CHECK_OR_THROW(ndim >= 0 && args.size() == 2 + 2 * ndim, TypeError)
      << "vm.builtin.make_shape: " << ndim << " dimensions need " << 2 + 2 * ndim << " arguments, got " << args.size();
  std::vector<int64_t> dims(static_cast<size_t>(ndim));
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t code = args[static_cast<int>(2 + 2 * i)].cast<int64_t>();
    const int64_t value = args[static_cast<int>(3 + 2 * i)].cast<int64_t>();
    if (code == kUseImm) {
      dims[i] = value;
    } else if (code == kLoadShape) {
      dims[i] = heap[HeapSlot(value, heap_size, "vm.builtin.make_shape")];
    } else {
      TESSERA_THROW(ValueError) << "vm.builtin.make_shape: unknown code " << code << " for dimension " << i;
    }
  }
  return ShapeTuple(std::move(dims));
}

// vm.builtin.match_prim_value(value, heap, code, index, err_ctx): a symbolic
// R.Prim("int64") parameter, matched like one dimension of match_shape.
Any MatchPrimValue(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 5, TypeError) << "vm.builtin.match_prim_value(value, heap, code, index, err_ctx)";
  auto ctx = [&] { return ErrCtx(args[4], "vm.builtin.match_prim_value"); };  // built only on error
  const Any& v = args[0];
  if (v.kind() != Any::Kind::kInt && v.kind() != Any::Kind::kBool) {
    TESSERA_THROW(TypeError) << ctx() << ": expected an integer value (R.Prim) but got " << v.type_name();
  }
  int64_t heap_size = 0;
  int64_t* heap = HeapData(args[1], &heap_size, "vm.builtin.match_prim_value");
  const int64_t code = args[2].cast<int64_t>(), index = args[3].cast<int64_t>(), value = v.raw_int();
  switch (code) {
    case kNoOp: break;
    case kAssertEqualToImm:
      if (value != index) TESSERA_THROW(ValueError) << ctx() << ": expected the value " << index << " but got " << value;
      break;
    case kStoreToHeap: heap[HeapSlot(index, heap_size, "vm.builtin.match_prim_value")] = value; break;
    case kAssertEqualToLoad: {
      const int64_t expected = heap[HeapSlot(index, heap_size, "vm.builtin.match_prim_value")];
      if (value != expected) {
        TESSERA_THROW(ValueError) << ctx() << ": expected the value " << expected
                                  << " (the value this symbolic variable took earlier) but got " << value;
      }
      break;
    }
    default: TESSERA_THROW(ValueError) << "vm.builtin.match_prim_value: unknown code " << code;
  }
  return Any();
}

// vm.builtin.make_prim_value(heap, code, value): an int64 from an immediate
// (kUseImm) or a shape heap slot (kLoadShape).
Any MakePrimValue(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 3, TypeError) << "vm.builtin.make_prim_value(heap, code, value)";
  int64_t heap_size = 0;
  int64_t* heap = HeapData(args[0], &heap_size, "vm.builtin.make_prim_value");
  const int64_t code = args[1].cast<int64_t>(), value = args[2].cast<int64_t>();
  if (code == kUseImm) return value;
  TESSERA_CHECK_OR_THROW(code == kLoadShape, ValueError) << "vm.builtin.make_prim_value: unknown code " << code;
  return heap[HeapSlot(value, heap_size, "vm.builtin.make_prim_value")];
}

// vm.builtin.check_tensor_info(value, [ndim], [dtype], err_ctx)
Any CheckTensorInfo(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() >= 2 && args.size() <= 4, TypeError)
      << "vm.builtin.check_tensor_info(value, [ndim], [dtype], err_ctx)";
  auto ctx = [&] { return ErrCtx(args[args.size() - 1], "vm.builtin.check_tensor_info"); };  // built only on error
  const auto* arr = args[0].as<NDArrayObj>();
  if (arr == nullptr) TESSERA_THROW(TypeError) << ctx() << ": expected a tensor (R.Tensor) but got " << KindName(args[0]);
  if (args.size() >= 3) {
    const int64_t ndim = args[1].cast<int64_t>();
    if (ndim != -1 && ndim != arr->dl.ndim) {
      TESSERA_THROW(ValueError) << ctx() << ": expected a tensor of " << ndim << " dimensions but got " << arr->dl.ndim
                                << " (shape " << ShapeString(arr->shape) << ")";
    }
  }
  if (args.size() == 4) {
    const DataType expected = args[2].cast<DataType>();
    const DataType actual = DataType::FromDLPack(arr->dl.dtype);
    if (!expected.is_void() && expected != actual) {
      TESSERA_THROW(TypeError) << ctx() << ": expected dtype " << expected.str() << " but got " << actual.str();
    }
  }
  return Any();
}

// vm.builtin.check_shape_info(value, ndim, err_ctx)
Any CheckShapeInfo(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 3, TypeError) << "vm.builtin.check_shape_info(value, ndim, err_ctx)";
  auto ctx = [&] { return ErrCtx(args[2], "vm.builtin.check_shape_info"); };  // built only on error
  const auto* s = args[0].as<ShapeTupleObj>();
  if (s == nullptr) TESSERA_THROW(TypeError) << ctx() << ": expected a shape (R.Shape) but got " << KindName(args[0]);
  const int64_t ndim = args[1].cast<int64_t>();
  if (ndim != -1 && ndim != static_cast<int64_t>(s->data.size())) {
    TESSERA_THROW(ValueError) << ctx() << ": expected a shape of " << ndim << " dimensions but got "
                              << s->data.size() << " " << ShapeString(s->data);
  }
  return Any();
}

// vm.builtin.check_tuple_info(value, size, err_ctx)
Any CheckTupleInfo(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 3, TypeError) << "vm.builtin.check_tuple_info(value, size, err_ctx)";
  auto ctx = [&] { return ErrCtx(args[2], "vm.builtin.check_tuple_info"); };  // built only on error
  const auto* a = args[0].as<ArrayObj>();
  if (a == nullptr) TESSERA_THROW(TypeError) << ctx() << ": expected a tuple (R.Tuple) but got " << KindName(args[0]);
  const int64_t size = args[1].cast<int64_t>();
  if (size != static_cast<int64_t>(a->data.size())) {
    TESSERA_THROW(ValueError) << ctx() << ": expected a tuple of " << size << " fields but got " << a->data.size();
  }
  return Any();
}

// vm.builtin.check_prim_value_info(value, dtype, err_ctx)
Any CheckPrimValueInfo(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 3, TypeError) << "vm.builtin.check_prim_value_info(value, dtype, err_ctx)";
  auto ctx = [&] { return ErrCtx(args[2], "vm.builtin.check_prim_value_info"); };  // built only on error
  const Any& v = args[0];
  const DataType dtype = args[1].cast<DataType>();
  const bool is_int = v.kind() == Any::Kind::kInt, is_float = v.kind() == Any::Kind::kFloat,
             is_bool = v.kind() == Any::Kind::kBool;
  if (!is_int && !is_float && !is_bool) {
    TESSERA_THROW(TypeError) << ctx() << ": expected a primitive value (R.Prim) but got " << KindName(v);
  }
  if (dtype.is_void()) return Any();
  bool ok = dtype.is_bool() ? (is_bool || is_int) : dtype.code() == DataType::kFloat ? true : (is_int || is_bool);
  if (!ok) TESSERA_THROW(TypeError) << ctx() << ": expected a value of dtype " << dtype.str() << " but got " << v.type_name();
  return Any();
}

// vm.builtin.check_func_info(value, err_ctx)
Any CheckFuncInfo(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 2, TypeError) << "vm.builtin.check_func_info(value, err_ctx)";
  auto ctx = [&] { return ErrCtx(args[1], "vm.builtin.check_func_info"); };  // built only on error
  if (!args[0].as<VMClosureObj>() && !args[0].as<PackedFuncObj>()) {
    TESSERA_THROW(TypeError) << ctx() << ": expected a function (R.Callable) but got " << KindName(args[0]);
  }
  return Any();
}

// vm.builtin.call_tir_dyn(func, args..., shape): func(args..., *shape)
Any CallTIRDyn(PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() >= 2, TypeError) << "vm.builtin.call_tir_dyn(func, args..., shape)";
  const auto* shape = args[args.size() - 1].as<ShapeTupleObj>();
  TESSERA_CHECK_OR_THROW(shape != nullptr, TypeError)
      << "vm.builtin.call_tir_dyn: the last argument must be a shape (the symbolic values), got "
      << args[args.size() - 1].type_name();
  std::vector<Any> call(args.data() + 1, args.data() + args.size() - 1);
  for (int64_t d : shape->data) call.emplace_back(d);
  const Any& fn = args[0];
  if (const auto* p = fn.as<PackedFuncObj>()) return p->body(PackedArgs(call.data(), static_cast<int>(call.size())));
  if (const auto* c = fn.as<VMClosureObj>()) return c->impl.CallPacked(PackedArgs(call.data(), static_cast<int>(call.size())));
  TESSERA_THROW(TypeError) << "vm.builtin.call_tir_dyn: the first argument must be a function, got " << fn.type_name();
}

int64_t ReadIfCond(const Any& v) {
  if (v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool) return v.raw_int() != 0;
  const auto* arr = v.as<NDArrayObj>();
  TESSERA_CHECK_OR_THROW(arr != nullptr, TypeError)
      << "the condition of an If must be a scalar tensor or a bool/int, got " << v.type_name();
  NDArray a = v.cast<NDArray>();
  TESSERA_CHECK_OR_THROW(a.NumElements() == 1, ValueError)
      << "the condition of an If must be a tensor of one element, got shape " << ShapeString(a.Shape());
  const DataType t = a.dtype();
  TESSERA_CHECK_OR_THROW(t.lanes() == 1 && (t.code() == DataType::kInt || t.code() == DataType::kUInt) && t.bits() <= 64,
                         TypeError)
      << "the condition of an If must be a bool or integer tensor, got dtype " << t.str();
  int64_t out = 0;
  char buf[8] = {0};
  a.CopyToBytes(buf, static_cast<size_t>(t.bytes()));
  for (int i = 0; i < t.bytes(); ++i) out |= static_cast<int64_t>(static_cast<unsigned char>(buf[i]));
  return out != 0;
}

TESSERA_REGISTER_GLOBAL("vm.builtin.alloc_storage").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 5, TypeError)
      << "vm.builtin.alloc_storage(vm, size, device_index, dtype_hint, storage_scope) takes 5 arguments, got " << args.size();
  VirtualMachineNode* vm = VMFromArg(args[0], "vm.builtin.alloc_storage");
  // The storage holds a buffer of `shape` elements of `dtype_hint` (the
  // lowering passes allocate bytes: shape (nbytes,) of uint8).
  ShapeTuple shape = args[1].cast<ShapeTuple>();
  TESSERA_CHECK_OR_THROW(shape.defined(), TypeError) << "vm.builtin.alloc_storage: the size must be a shape";
  Device dev = vm->GetDevice(args[2].cast<int64_t>());
  DataType dtype = args[3].cast<DataType>();
  std::string scope = args[4].is_none() ? "global" : args[4].cast<std::string>();
  TESSERA_CHECK_OR_THROW(scope == "global", ValueError)
      << "vm.builtin.alloc_storage: storage scope '" << scope << "' is not supported (only \"global\")";
  int64_t nbytes = dtype.is_void() ? 1 : dtype.bytes();
  for (int64_t d : shape.dims()) {
    TESSERA_CHECK_OR_THROW(d >= 0 && !__builtin_mul_overflow(nbytes, d, &nbytes), ValueError)
        << "vm.builtin.alloc_storage: bad storage size " << shape.str() << " of " << dtype.str();
  }
  return vm->storage_pool().Alloc(nbytes, dev);
});

TESSERA_REGISTER_GLOBAL("vm.builtin.alloc_tensor").set_body_typed([](Storage storage, int64_t offset, ShapeTuple shape, DataType dtype) {
  return const_cast<StorageObj*>(storage.get())->AllocTensor(offset, shape.dims(), dtype);
});

TESSERA_REGISTER_GLOBAL("vm.builtin.null_value").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 0, TypeError) << "vm.builtin.null_value takes no arguments";
  return Any();
});

TESSERA_REGISTER_GLOBAL("vm.builtin.make_tuple").set_body([](PackedArgs args) -> Any {
  return Array<Any>(std::vector<Any>(args.data(), args.data() + args.size()));
});

TESSERA_REGISTER_GLOBAL("vm.builtin.tuple_getitem").set_body_typed([](Array<Any> tup, int64_t index) {
  TESSERA_CHECK_OR_THROW(index >= 0 && static_cast<size_t>(index) < tup.size(), IndexError)
      << "vm.builtin.tuple_getitem: index " << index << " out of range for a tuple of " << tup.size();
  return tup.at_any(static_cast<size_t>(index));
});

TESSERA_REGISTER_GLOBAL("vm.builtin.read_if_cond").set_body_typed([](Any v) { return ReadIfCond(v); });
TESSERA_REGISTER_GLOBAL("vm.builtin.copy").set_body_typed([](Any v) { return v; });

TESSERA_REGISTER_GLOBAL("vm.builtin.shape_of").set_body_typed([](NDArray a) { return ShapeTuple(a.Shape()); });

TESSERA_REGISTER_GLOBAL("vm.builtin.reshape").set_body_typed([](NDArray a, ShapeTuple shape) {
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    TESSERA_CHECK_OR_THROW(d >= 0 && !__builtin_mul_overflow(n, d, &n), ValueError)
        << "vm.builtin.reshape: bad target shape " << shape.str();
  }
  TESSERA_CHECK_OR_THROW(n == a.NumElements() && IsContiguous(a->dl), ValueError)
      << "vm.builtin.reshape: cannot reshape a tensor of shape " << ShapeString(a.Shape()) << " to " << shape.str();
  auto v = make_object<NDArrayObj>();
  v->shape = shape.dims();
  v->dl = a->dl;
  v->dl.ndim = static_cast<int32_t>(v->shape.size());
  v->dl.shape = v->shape.data();
  v->dl.strides = nullptr;
  v->foreign_release = [keep = a]() {};
  return NDArray(ObjectPtr<Object>(std::move(v)));
});

TESSERA_REGISTER_GLOBAL("vm.builtin.alloc_shape_heap").set_body_typed([](Any vm, int64_t size) {
  VMFromArg(vm, "vm.builtin.alloc_shape_heap");
  TESSERA_CHECK_OR_THROW(size >= 0, ValueError) << "vm.builtin.alloc_shape_heap: negative size " << size;
  return NDArray::Empty({size}, DataType::Int(64), CPU());
});

TESSERA_REGISTER_GLOBAL("vm.builtin.match_shape").set_body(MatchShape);
TESSERA_REGISTER_GLOBAL("vm.builtin.make_shape").set_body(MakeShape);
TESSERA_REGISTER_GLOBAL("vm.builtin.match_prim_value").set_body(MatchPrimValue);
TESSERA_REGISTER_GLOBAL("vm.builtin.make_prim_value").set_body(MakePrimValue);
TESSERA_REGISTER_GLOBAL("vm.builtin.check_tensor_info").set_body(CheckTensorInfo);
TESSERA_REGISTER_GLOBAL("vm.builtin.check_shape_info").set_body(CheckShapeInfo);
TESSERA_REGISTER_GLOBAL("vm.builtin.check_tuple_info").set_body(CheckTupleInfo);
TESSERA_REGISTER_GLOBAL("vm.builtin.check_prim_value_info").set_body(CheckPrimValueInfo);
TESSERA_REGISTER_GLOBAL("vm.builtin.check_func_info").set_body(CheckFuncInfo);
TESSERA_REGISTER_GLOBAL("vm.builtin.call_tir_dyn").set_body(CallTIRDyn);

// vm.builtin.invoke_closure(vm, closure, args...)
TESSERA_REGISTER_GLOBAL("vm.builtin.invoke_closure").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 2, TypeError) << "vm.builtin.invoke_closure(vm, closure, args...)";
  VirtualMachineNode* vm = VMFromArg(args[0], "vm.builtin.invoke_closure");
  return vm->InvokeClosure(args[1], args.data() + 2, args.size() - 2);
});

// vm.builtin.make_closure(closure, args...): binds trailing arguments.
TESSERA_REGISTER_GLOBAL("vm.builtin.make_closure").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "vm.builtin.make_closure(closure, args...)";
  const Any& fn = args[0];
  std::string name;
  PackedFunc impl;
  if (const auto* c = fn.as<VMClosureObj>()) {
    name = c->func_name;
    impl = c->impl;
  } else if (fn.as<PackedFuncObj>()) {
    impl = fn.cast<PackedFunc>();
    name = impl->name;
  } else {
    TESSERA_THROW(TypeError) << "vm.builtin.make_closure: expected a function, got " << fn.type_name();
  }
  // The bound values become the last arguments (as TVM's BindLastArgs).
  std::vector<Any> bound(args.data() + 1, args.data() + args.size());
  return VMClosure(name, PackedFunc([impl, bound](PackedArgs rest) -> Any {
    std::vector<Any> all(rest.data(), rest.data() + rest.size());
    all.insert(all.end(), bound.begin(), bound.end());
    return impl.CallPacked(PackedArgs(all.data(), static_cast<int>(all.size())));
  }, name));
});

}  // namespace
}  // namespace tessera::runtime::vm

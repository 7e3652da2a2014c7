// PackedFunc: a type-erased function object taking and returning Any. It is
// how C++ and Python call each other (global registry, callbacks, compiled
// kernels). Runtime layer. `PackedFunc::FromTyped` wraps an ordinary C++
// callable and checks argument count and types with messages naming the
// offending argument.
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/any.h"

namespace tessera {

// A view of call arguments.
class PackedArgs {
 public:
  PackedArgs(const Any* values, int size) : values_(values), size_(size) {}
  int size() const { return size_; }
  const Any& operator[](int i) const {
    TESSERA_CHECK_OR_THROW(i >= 0 && i < size_, IndexError)
        << "argument index " << i << " out of range (" << size_ << " arguments given)";
    return values_[i];
  }
  const Any* data() const { return values_; }

 private:
  const Any* values_;
  int size_;
};

class PackedFuncObj : public Object {
 public:
  using FType = std::function<Any(PackedArgs)>;
  explicit PackedFuncObj(FType body, std::string name = "")
      : body(std::move(body)), name(std::move(name)) {}
  FType body;
  std::string name;  // for messages; empty for anonymous functions
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PackedFuncObj, Object, "runtime.PackedFunc");
};

class PackedFunc : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PackedFunc, ObjectRef, PackedFuncObj);
  explicit PackedFunc(PackedFuncObj::FType body, std::string name = "")
      : ObjectRef(make_object<PackedFuncObj>(std::move(body), std::move(name))) {}

  Any CallPacked(PackedArgs args) const { return get()->body(args); }

  template <typename... Args>
  Any operator()(Args&&... args) const {
    if constexpr (sizeof...(Args) == 0) {
      return CallPacked(PackedArgs(nullptr, 0));
    } else {
      Any values[] = {Any(std::forward<Args>(args))...};
      return CallPacked(PackedArgs(values, static_cast<int>(sizeof...(Args))));
    }
  }

  // Wraps a C++ callable R(A...) whose arguments are converted from Any with
  // checks; `name` appears in argument error messages.
  template <typename F>
  static PackedFunc FromTyped(F f, std::string name = "");
};

namespace detail {

template <typename Sig>
struct TypedCaller;

template <typename R, typename... A>
struct TypedCaller<std::function<R(A...)>> {
  static constexpr size_t kArity = sizeof...(A);
  template <typename F, size_t... I>
  static Any Call(const F& f, const std::string& name, PackedArgs args, std::index_sequence<I...>) {
    if (args.size() != static_cast<int>(kArity)) {
      TESSERA_THROW(TypeError) << (name.empty() ? std::string("function") : name) << " expects "
                               << kArity << " argument" << (kArity == 1 ? "" : "s")
                               << " but got " << args.size();
    }
    if constexpr (std::is_void_v<R>) {
      f(Arg<std::decay_t<A>>(name, args, I)...);
      return Any();
    } else {
      return Any(f(Arg<std::decay_t<A>>(name, args, I)...));
    }
  }
  template <typename T>
  static T Arg(const std::string& name, PackedArgs args, size_t i) {
    if constexpr (std::is_same_v<T, PackedArgs>) {
      return args;
    } else {
      // None where an object is expected is refused here, for every typed
      // function, instead of becoming a null reference that the body would
      // dereference; parameters that may be None are std::optional<T>.
      if constexpr (std::is_base_of_v<ObjectRef, T>) {
        if (args[static_cast<int>(i)].is_none()) {
          TESSERA_THROW(TypeError) << (name.empty() ? std::string("function") : name) << ": argument " << i
                                   << " must not be None (expected " << T::ContainerType::_type_key << ")";
        }
      }
      try {
        return args[static_cast<int>(i)].template cast<T>();
      } catch (const TypeError& e) {
        TESSERA_THROW(TypeError) << (name.empty() ? std::string("function") : name)
                                 << ": argument " << i << ": " << e.what();
      } catch (const OverflowError& e) {
        TESSERA_THROW(OverflowError) << (name.empty() ? std::string("function") : name)
                                     << ": argument " << i << ": " << e.what();
      }
    }
  }
};

}  // namespace detail

template <typename F>
PackedFunc PackedFunc::FromTyped(F f, std::string name) {
  using Caller = detail::TypedCaller<decltype(std::function(f))>;
  return PackedFunc(
      [f = std::move(f), name](PackedArgs args) -> Any {
        return Caller::Call(f, name, args, std::make_index_sequence<Caller::kArity>());
      },
      name);
}

}  // namespace tessera

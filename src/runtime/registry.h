// Global function registry: name -> PackedFunc. C++ registers with
// TESSERA_REGISTER_GLOBAL("name").set_body_typed(...); Python registers with
// tvm.register_func. This is how layers expose functions to the bindings and
// how compiled code calls back into user functions. Runtime layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/packed_func.h"

namespace tessera {

class Registry {
 public:
  // Registers `f` under `name`; raises ValueError when the name is taken and
  // `override` is false.
  static void Set(const std::string& name, PackedFunc f, bool override = false);
  static std::optional<PackedFunc> Get(const std::string& name);
  // Like Get but raises ValueError naming the missing function.
  static PackedFunc GetOrThrow(const std::string& name);
  static bool Remove(const std::string& name);
  static std::vector<std::string> ListNames();

  // Builder used by TESSERA_REGISTER_GLOBAL at static-initialization time.
  class Entry {
   public:
    explicit Entry(std::string name) : name_(std::move(name)) {}
    // Entries live for the whole process.
    static Entry& Create(std::string name) { return *new Entry(std::move(name)); }
    Entry& set_body(PackedFuncObj::FType body) {
      Registry::Set(name_, PackedFunc(std::move(body), name_));
      return *this;
    }
    template <typename F>
    Entry& set_body_typed(F f) {
      Registry::Set(name_, PackedFunc::FromTyped(std::move(f), name_));
      return *this;
    }

   private:
    std::string name_;
  };
};

}  // namespace tessera

#define TESSERA_REGISTRY_CONCAT_(a, b) a##b
#define TESSERA_REGISTRY_CONCAT(a, b) TESSERA_REGISTRY_CONCAT_(a, b)
#define TESSERA_REGISTER_GLOBAL(Name)                                                  \
  [[maybe_unused]] static ::tessera::Registry::Entry& TESSERA_REGISTRY_CONCAT( \
      _tessera_registry_entry_, __COUNTER__) = ::tessera::Registry::Entry::Create(Name)

// Structural hashing (see structural_hash.h): the same walk as
// StructuralEqual over each type's node registration, visiting children in
// the same order and numbering definitions as equality maps them, so that
// structurally equal IR always hashes alike. Registers "ir.StructuralHash".
#include "ir/structural_hash.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "ir/expr.h"
#include "ir/module.h"
#include "ir/ndarray_content.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"

namespace tessera {

namespace {

uint64_t HashString(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a: the same in every run
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t Combine(uint64_t seed, uint64_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

uint64_t Finalize(uint64_t x) {  // splitmix64 finalizer: spreads the bits
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Tags keeping different kinds of values apart.
enum Tag : uint64_t {
  kTagNone = 1,
  kTagInt,
  kTagFloat,
  kTagDType,
  kTagDevice,
  kTagHandle,
  kTagString,
  kTagArray,
  kTagMap,
  kTagModule,
  kTagVarDef,
  kTagVarRef,
  kTagFreeVar,
  kTagGraphRef,
  kTagOpaque,
};

class SHashImpl {
 public:
  explicit SHashImpl(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  uint64_t HashAny(const Any& v, bool def) {
    switch (v.kind()) {
      case Any::Kind::kNone: return kTagNone;
      // Plain numbers hash like the constant nodes they equal (IntImm and
      // FloatImm hash without their dtype, see HashObj).
      case Any::Kind::kInt:
      case Any::Kind::kBool: return HashInt(v.raw_int());
      case Any::Kind::kFloat: return HashFloat(v.raw_float());
      case Any::Kind::kDataType: {
        DataType t = v.raw_dtype();
        return Combine(kTagDType, (uint64_t(t.code()) << 32) | (uint64_t(t.bits()) << 16) | uint64_t(t.lanes()));
      }
      case Any::Kind::kDevice: {
        Device d = v.raw_device();
        return Combine(kTagDevice, (uint64_t(d.device_type) << 32) | uint64_t(uint32_t(d.device_id)));
      }
      case Any::Kind::kHandle: return Combine(kTagHandle, reinterpret_cast<uintptr_t>(v.raw_handle()));
      case Any::Kind::kObject: return HashObj(v.raw_object(), def);
    }
    return 0;
  }

 private:
  uint64_t TypeHash(const Object* o) {
    uint32_t index = o->type_index();
    if (type_hash_.size() <= index) type_hash_.resize(index + 1, 0);
    if (type_hash_[index] == 0) type_hash_[index] = HashString(o->GetTypeKey());
    return type_hash_[index];
  }

  static uint64_t HashInt(int64_t v) { return Combine(kTagInt, static_cast<uint64_t>(v)); }
  static uint64_t HashFloat(double x) {
    if (x == 0) x = 0;                                                 // -0.0 equals 0.0
    if (std::isnan(x)) x = std::numeric_limits<double>::quiet_NaN();  // all NaNs are equal
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    return Combine(kTagFloat, bits);
  }

  uint64_t HashObj(const ObjectRef& o, bool def) {
    CheckStack("structure");
    if (const auto* s = o.as<StringObj>()) return Combine(kTagString, HashString(s->data));
    // Constants hash by value only: a plain number equals them whatever their
    // dtype (int32 and int64 constants of one value merely collide).
    if (const auto* imm = o.as<IntImmNode>()) return HashInt(imm->value);
    if (const auto* imm = o.as<FloatImmNode>()) return HashFloat(imm->value);
    if (const auto* a = o.as<ArrayObj>()) {
      uint64_t h = Combine(kTagArray, a->data.size());
      for (const Any& e : a->data) h = Combine(h, HashAny(e, def));
      return h;
    }
    if (o.as<MapObj>()) return HashMap(static_cast<const MapObj*>(o.get()), def);
    if (o.as<IRModuleNode>()) return HashModule(static_cast<const IRModuleNode*>(o.get()));
    if (const auto* nd = o.as<NDArrayObj>()) {
      uint64_t h = Combine(HashString("runtime.NDArray"), nd->shape.size());
      for (int64_t d : nd->shape) h = Combine(h, static_cast<uint64_t>(d));
      h = Combine(h, (uint64_t{nd->dl.dtype.code} << 24) | (uint64_t{nd->dl.dtype.bits} << 16) | nd->dl.dtype.lanes);
      if (auto bytes = NDArrayContent(nd)) return Combine(h, std::hash<std::string_view>()(*bytes));
      return Combine(h, reinterpret_cast<uintptr_t>(nd));
    }
    // Types without registered fields are opaque: hashed by identity.
    const NodeInfo* traits = Reflection::Find(o->type_index());
    if (traits == nullptr) return Combine(kTagOpaque, reinterpret_cast<uintptr_t>(o.get()));
    switch (traits->kind) {
      case SEqualKind::kTree: return HashFields(o, *traits, def);
      case SEqualKind::kVar:
      case SEqualKind::kGlobalVar: {
        auto it = index_.find(o.get());
        if (it != index_.end()) return Combine(kTagVarRef, it->second);
        uint64_t fields = HashFields(o, *traits, def);  // as equality: fields of a definition define
        if (def || map_free_vars_) {
          index_[o.get()] = next_index_++;
          return Combine(kTagVarDef, fields);
        }
        return Combine(Combine(kTagFreeVar, fields), reinterpret_cast<uintptr_t>(o.get()));
      }
      case SEqualKind::kGraph: {
        auto it = index_.find(o.get());
        if (it != index_.end()) return Combine(kTagGraphRef, it->second);
        uint64_t h = HashFields(o, *traits, def);
        index_[o.get()] = next_index_++;
        return h;
      }
    }
    return 0;
  }

  uint64_t HashFields(const ObjectRef& o, const NodeInfo& traits, bool def) {
    uint64_t h = TypeHash(o.get());
    for (const FieldInfo* f : traits.fields) {
      if (f->role == FieldRole::kIgnored) continue;
      h = Combine(h, HashAny(f->getter(o.get()), def || f->role == FieldRole::kDef));
    }
    return h;
  }

  // Entries in an order both sides of an equal pair agree on: string keys
  // sorted, keys that are defined variables by definition order, the rest
  // in insertion order (as StructuralEqual, which looks keys up).
  uint64_t HashMap(const MapObj* m, bool def) {
    std::vector<const std::pair<Any, Any>*> entries;
    for (const auto& kv : m->data) entries.push_back(&kv);
    auto rank = [this](const Any& key) -> std::pair<int, uint64_t> {
      if (key.is_object()) {
        auto it = index_.find(key.raw_object().get());
        if (it != index_.end()) return {0, it->second};
      }
      return {1, 0};
    };
    std::stable_sort(entries.begin(), entries.end(), [&](const auto* x, const auto* y) {
      const StringObj* sx = x->first.template as<StringObj>();
      const StringObj* sy = y->first.template as<StringObj>();
      if (sx && sy) return sx->data < sy->data;
      if (sx || sy) return sx != nullptr;
      return rank(x->first) < rank(y->first);
    });
    uint64_t h = Combine(kTagMap, m->data.size());
    for (const auto* kv : entries) {
      h = Combine(h, HashAny(kv->first, false));
      h = Combine(h, HashAny(kv->second, def));
    }
    return h;
  }

  uint64_t HashModule(const IRModuleNode* m) {
    uint64_t h = kTagModule;
    std::vector<GlobalVar> gvars = m->GetGlobalVars();  // sorted by name
    for (const GlobalVar& gv : gvars) {
      h = Combine(h, HashString(gv->name_hint));
      if (!index_.count(gv.get())) index_[gv.get()] = next_index_++;
    }
    for (const GlobalVar& gv : gvars) h = Combine(h, HashAny(m->Lookup(gv), false));
    return Combine(h, HashAny(m->attrs, false));
  }

  bool map_free_vars_;
  std::vector<uint64_t> type_hash_;  // hash of each type key met, by type index
  // Definition order of variables and buffers met so far.
  std::unordered_map<const Object*, uint64_t> index_;
  uint64_t next_index_ = 0;
};

}  // namespace

uint64_t StructuralHash(const Any& node, bool map_free_vars) {
  SHashImpl impl(map_free_vars);
  return Finalize(impl.HashAny(node, false));
}

TESSERA_REGISTER_GLOBAL("ir.StructuralHash").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 1 || args.size() == 2, TypeError)
      << "ir.StructuralHash expects (node[, map_free_vars]) but got " << args.size() << " arguments";
  bool map_free_vars = args.size() == 2 && args[1].cast<bool>();
  return static_cast<int64_t>(StructuralHash(args[0], map_free_vars));
});

}  // namespace tessera

// Structural equality (see structural_equal.h): a depth-first walk of both
// sides driven by each type's node registration (runtime/reflection.h),
// mapping variables and buffers at their definition points, and recording
// the path of the first difference for assert_structural_equal. Also holds
// the "ir.StructuralEqual" / "ir.GetFirstStructuralMismatch" globals.
#include "ir/structural_equal.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "ir/module.h"
#include "ir/ndarray_content.h"
#include "ir/node_repr.h"
#include "ir/op.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"

namespace tessera {

// ---- rendering ------------------------------------------------------------------------

namespace {

constexpr size_t kMaxRenderChars = 6000;

std::string Truncate(std::string s) {
  if (s.size() > kMaxRenderChars) s = s.substr(0, kMaxRenderChars) + "\n... (truncated)";
  return s;
}

std::optional<std::string> TryPrinter(const char* name, const ObjectRef& obj) {
  std::optional<PackedFunc> f = Registry::Get(name);
  if (!f) return std::nullopt;
  try {
    Any out = (*f)(obj);
    if (auto s = out.try_cast<std::string>()) {
      if (!s->empty()) return *s;
    }
  } catch (const std::exception&) {
    // The printer may not handle every node; fall back to the generic form.
  }
  return std::nullopt;
}

}  // namespace

std::string RenderForMismatch(const Any& value) {
  if (value.is_object() && !value.raw_object().as<StringObj>() && !value.raw_object().as<ArrayObj>() &&
      !value.raw_object().as<MapObj>()) {
    if (auto s = TryPrinter("script.AsTVMScript", value.raw_object())) return Truncate(*s);
    if (auto s = TryPrinter("node.AsRepr", value.raw_object())) return Truncate(*s);
  }
  if (value.is_object()) {
    if (const auto* arr = value.raw_object().as<ArrayObj>()) {
      std::string out = "[";
      for (size_t i = 0; i < arr->data.size(); ++i) {
        if (i) out += ", ";
        out += RenderForMismatch(arr->data[i]);
        if (out.size() > kMaxRenderChars) break;
      }
      return Truncate(out + "]");
    }
  }
  return Truncate(ReprByFields(value, 4));
}

// ---- equality ---------------------------------------------------------------------------

namespace {

bool PodEqual(const Any& a, const Any& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Any::Kind::kNone: return true;
    case Any::Kind::kInt:
    case Any::Kind::kBool: return a.raw_int() == b.raw_int();
    case Any::Kind::kFloat: {
      double x = a.raw_float(), y = b.raw_float();
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case Any::Kind::kDataType: return a.raw_dtype() == b.raw_dtype();
    case Any::Kind::kDevice: return a.raw_device() == b.raw_device();
    case Any::Kind::kHandle: return a.raw_handle() == b.raw_handle();
    case Any::Kind::kObject: return false;
  }
  return false;
}

// A plain number against a constant node (an annotation set from Python
// with 16 vs one parsed as T.int32(16)): equal when the values are, as TVM,
// which turns Python numbers into IntImm/FloatImm. nullopt when not that case.
std::optional<bool> NumberVersusImm(const Any& a, const Any& b) {
  auto number = [](const Any& v) {
    return v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool || v.kind() == Any::Kind::kFloat;
  };
  const Any* pod = number(a) ? &a : number(b) ? &b : nullptr;
  const Any* obj = pod == &a ? &b : &a;
  if (pod == nullptr || !obj->is_object()) return std::nullopt;
  if (const auto* imm = obj->as<IntImmNode>()) {
    return pod->kind() != Any::Kind::kFloat && pod->raw_int() == imm->value;
  }
  if (const auto* imm = obj->as<FloatImmNode>()) {
    return pod->kind() == Any::Kind::kFloat &&
           (pod->raw_float() == imm->value || (std::isnan(pod->raw_float()) && std::isnan(imm->value)));
  }
  return std::nullopt;
}

bool IsLeafValue(const Any& v) { return !v.is_object() || v.raw_object().as<StringObj>() != nullptr; }

// Text of a map key inside a path: strings quoted, variables by name.
std::string KeyText(const Any& key) {
  if (key.is_object()) {
    if (const auto* s = key.raw_object().as<StringObj>()) return "\"" + s->data + "\"";
    if (auto name = Reflection::GetField(key.raw_object().get(), "name_hint")) {
      if (auto s = name->try_cast<std::string>()) return *s;
    }
    return key.raw_object()->GetTypeKey();
  }
  return key.repr();
}

// "[inner]", built by appending (GCC 12 warns falsely on "[" + std::string&&).
std::string Bracket(const std::string& inner) {
  std::string out;
  out.reserve(inner.size() + 2);
  out += '[';
  out += inner;
  out += ']';
  return out;
}

class SEqualImpl {
 public:
  SEqualImpl(bool map_free_vars, bool record) : map_free_vars_(map_free_vars), record_(record) {}

  bool Run(const Any& lhs, const Any& rhs) {
    path_ = {"root"};
    return EqAny(lhs, rhs, false);
  }

  std::optional<StructuralMismatch> mismatch;

 private:
  // Appends a path component for the lifetime of the scope (only when recording).
  class PathScope {
   public:
    PathScope(SEqualImpl* self, std::string part) : self_(self) {
      if (self_->record_) self_->path_.push_back(std::move(part));
    }
    ~PathScope() {
      if (self_->record_) self_->path_.pop_back();
    }

   private:
    SEqualImpl* self_;
  };

  // The IR nodes being compared, innermost last (only when recording).
  class NodeScope {
   public:
    NodeScope(SEqualImpl* self, const ObjectRef& a, const ObjectRef& b) : self_(self) {
      pushed_ = self->record_ && !a.as<StringObj>() && !a.as<ArrayObj>() && !a.as<MapObj>();
      if (pushed_) self_->nodes_.emplace_back(a, b);
    }
    ~NodeScope() {
      if (pushed_) self_->nodes_.pop_back();
    }

   private:
    SEqualImpl* self_;
    bool pushed_;
  };

  bool Fail(const std::string& reason, const Any& lhs, const Any& rhs) {
    if (record_ && !mismatch) {
      std::string path;
      for (const std::string& p : path_) path += p;
      mismatch = StructuralMismatch{path, reason, RenderForMismatch(lhs), RenderForMismatch(rhs), ObjectRef(),
                                    ObjectRef()};
      if (!nodes_.empty()) {
        mismatch->lhs_node = nodes_.back().first;
        mismatch->rhs_node = nodes_.back().second;
      }
    }
    return false;
  }

  bool EqAny(const Any& a, const Any& b, bool def) {
    if (std::optional<bool> same = NumberVersusImm(a, b)) {
      return *same ? true : Fail("values differ", a, b);
    }
    if (a.kind() != b.kind()) {
      return Fail("kinds differ (" + a.type_name() + " vs " + b.type_name() + ")", a, b);
    }
    if (!a.is_object()) return PodEqual(a, b) ? true : Fail("values differ", a, b);
    return EqObj(a.raw_object(), b.raw_object(), def);
  }

  bool EqObj(const ObjectRef& a, const ObjectRef& b, bool def) {
    CheckStack("structure");
    NodeScope node_scope(this, a, b);
    if (a->type_index() != b->type_index()) {
      return Fail("node types differ (" + a->GetTypeKey() + " vs " + b->GetTypeKey() + ")", a, b);
    }
    if (const auto* sa = a.as<StringObj>()) {
      return sa->data == static_cast<const StringObj*>(b.get())->data ? true : Fail("strings differ", a, b);
    }
    if (a.as<ArrayObj>()) return EqArray(a, b, def);
    if (a.as<MapObj>()) return EqMap(a, b, def);
    if (a.as<IRModuleNode>()) return EqModule(a, b);
    if (a.as<NDArrayObj>()) return EqNDArray(a, b);
    // Types without registered fields are opaque: compared by identity.
    const NodeInfo* info = Reflection::Find(a->type_index());
    if (info == nullptr) return a.same_as(b) ? true : Fail("opaque objects are different objects", a, b);
    switch (info->kind) {
      case SEqualKind::kTree: return EqFields(a, b, *info, def);
      case SEqualKind::kVar:
      case SEqualKind::kGlobalVar: return EqVar(a, b, *info, def);
      case SEqualKind::kGraph: return EqGraph(a, b, *info, def);
    }
    return false;
  }

  // Constants' data: equal by dtype, shape and content (identity when
  // unreadable here). Out of line so that EqObj's frame, repeated at every
  // level of deep IR, stays small.
  [[gnu::noinline]] bool EqNDArray(const ObjectRef& a, const ObjectRef& b) {
    if (a.same_as(b)) return true;
    const auto* na = static_cast<const NDArrayObj*>(a.get());
    const auto* nb = static_cast<const NDArrayObj*>(b.get());
    if (!NDArraySameMeta(na, nb)) return Fail("arrays differ in dtype or shape", a, b);
    auto ca = NDArrayContent(na);
    auto cb = NDArrayContent(nb);
    if (!ca || !cb) return Fail("arrays off the CPU are compared by identity", a, b);
    return *ca == *cb ? true : Fail("array contents differ", a, b);
  }

  bool EqFields(const ObjectRef& a, const ObjectRef& b, const NodeInfo& info, bool def) {
    for (const FieldInfo* fp : info.fields) {
      const FieldInfo& f = *fp;
      if (f.role == FieldRole::kIgnored) continue;
      Any fa = f.getter(a.get());
      Any fb = f.getter(b.get());
      if (IsLeafValue(fa) && IsLeafValue(fb)) {
        bool same = fa.is_object() && fb.is_object()
                        ? fa.raw_object().as<StringObj>()->data == fb.raw_object().as<StringObj>()->data
                        : PodEqual(fa, fb);
        if (same) continue;
        // A constant's own value is reported at the constant; other scalar
        // fields (dtype, kind, name_hint...) at the field.
        if (f.name == "value") return Fail("values differ", a, b);
        PathScope scope(this, record_ ? "." + f.name : std::string());
        return Fail(f.name + " differs", fa, fb);
      }
      PathScope scope(this, record_ ? "." + f.name : std::string());
      if (!EqAny(fa, fb, def || f.role == FieldRole::kDef)) return false;
    }
    return true;
  }

  // Variables (and GlobalVars): matched through definitions; free ones must
  // be the same object unless map_free_vars.
  bool EqVar(const ObjectRef& a, const ObjectRef& b, const NodeInfo& traits, bool def) {
    auto it = lmap_.find(a.get());
    if (it != lmap_.end()) {
      if (it->second == b.get()) return true;
      return Fail("variable corresponds to a different variable (defined at a different place)", a, b);
    }
    if (rmap_.count(b.get())) {
      return Fail("right-hand variable already corresponds to another variable", a, b);
    }
    // At a definition the variable's own fields are definitions too (the
    // symbolic dims of a relax parameter's struct info).
    if (!EqFields(a, b, traits, def)) return false;
    if (def || map_free_vars_) {
      lmap_[a.get()] = b.get();
      rmap_[b.get()] = a.get();
      return true;
    }
    if (a.same_as(b)) return true;
    return Fail("free variables (not defined in the compared IR) are different objects", a, b);
  }

  // Buffers: compared by content the first time, afterwards by correspondence.
  bool EqGraph(const ObjectRef& a, const ObjectRef& b, const NodeInfo& traits, bool def) {
    auto it = lmap_.find(a.get());
    if (it != lmap_.end()) {
      if (it->second == b.get()) return true;
      return Fail(a->GetTypeKey() + " corresponds to a different " + a->GetTypeKey(), a, b);
    }
    if (rmap_.count(b.get())) {
      return Fail("right-hand " + a->GetTypeKey() + " already corresponds to another one", a, b);
    }
    if (!EqFields(a, b, traits, def)) return false;
    lmap_[a.get()] = b.get();
    rmap_[b.get()] = a.get();
    return true;
  }

  bool EqArray(const ObjectRef& a, const ObjectRef& b, bool def) {
    const auto& la = static_cast<const ArrayObj*>(a.get())->data;
    const auto& lb = static_cast<const ArrayObj*>(b.get())->data;
    size_t n = std::min(la.size(), lb.size());
    for (size_t i = 0; i < n; ++i) {
      PathScope scope(this, record_ ? Bracket(std::to_string(i)) : std::string());
      if (!EqAny(la[i], lb[i], def)) return false;
    }
    if (la.size() != lb.size()) {
      return Fail("array lengths differ (" + std::to_string(la.size()) + " vs " + std::to_string(lb.size()) + ")", a, b);
    }
    return true;
  }

  // The right-hand key corresponding to a left-hand key: mapped variables by
  // their correspondence, strings and PODs by value, other objects by identity.
  const Any* FindCounterpart(const MapObj* rhs, const Any& key) {
    if (key.is_object()) {
      auto it = lmap_.find(key.raw_object().get());
      if (it != lmap_.end()) {
        for (const auto& kv : rhs->data) {
          if (kv.first.is_object() && kv.first.raw_object().get() == it->second) return &kv.second;
        }
        return nullptr;
      }
    }
    return rhs->Find(key);
  }

  bool EqMap(const ObjectRef& a, const ObjectRef& b, bool def) {
    const auto* ma = static_cast<const MapObj*>(a.get());
    const auto* mb = static_cast<const MapObj*>(b.get());
    // String keys are visited in sorted order (maps compare regardless of
    // insertion order); other keys in left-hand insertion order.
    std::vector<const std::pair<Any, Any>*> entries;
    for (const auto& kv : ma->data) entries.push_back(&kv);
    std::stable_sort(entries.begin(), entries.end(), [](const auto* x, const auto* y) {
      const StringObj* sx = x->first.template as<StringObj>();
      const StringObj* sy = y->first.template as<StringObj>();
      if (sx && sy) return sx->data < sy->data;
      return false;
    });
    for (const auto* kv : entries) {
      PathScope scope(this, record_ ? Bracket(KeyText(kv->first)) : std::string());
      const Any* other = FindCounterpart(mb, kv->first);
      if (other == nullptr) return Fail("key is missing on the right-hand side", kv->second, Any());
      if (!EqAny(kv->second, *other, def)) return false;
    }
    if (ma->data.size() != mb->data.size()) {
      // Some right-hand key has no left-hand counterpart.
      for (const auto& kv : mb->data) {
        bool found = false;
        for (const auto& lkv : ma->data) {
          if (FindCounterpart(mb, lkv.first) == &kv.second) {
            found = true;
            break;
          }
        }
        if (!found) {
          PathScope scope(this, record_ ? Bracket(KeyText(kv.first)) : std::string());
          return Fail("key is missing on the left-hand side", Any(), kv.second);
        }
      }
      return Fail("map sizes differ", a, b);
    }
    return true;
  }

  // Modules: functions matched by name (their GlobalVars correspond, so calls
  // between functions compare), then module attributes.
  bool EqModule(const ObjectRef& a, const ObjectRef& b) {
    const auto* ma = static_cast<const IRModuleNode*>(a.get());
    const auto* mb = static_cast<const IRModuleNode*>(b.get());
    std::vector<GlobalVar> lvars = ma->GetGlobalVars();
    std::vector<std::pair<GlobalVar, GlobalVar>> pairs;
    for (const GlobalVar& lgv : lvars) {
      std::optional<GlobalVar> rgv = mb->FindGlobalVar(lgv->name_hint);
      if (!rgv) {
        PathScope scope(this, record_ ? ".functions[\"" + lgv->name_hint + "\"]" : std::string());
        return Fail("function is missing on the right-hand side", ma->Lookup(lgv), Any());
      }
      pairs.emplace_back(lgv, *rgv);
    }
    for (const GlobalVar& rgv : mb->GetGlobalVars()) {
      if (!ma->FindGlobalVar(rgv->name_hint)) {
        PathScope scope(this, record_ ? ".functions[\"" + rgv->name_hint + "\"]" : std::string());
        return Fail("function is missing on the left-hand side", Any(), mb->Lookup(rgv));
      }
    }
    for (const auto& [lgv, rgv] : pairs) {
      auto it = lmap_.find(lgv.get());
      if (it != lmap_.end() ? it->second != rgv.get() : rmap_.count(rgv.get()) > 0) {
        PathScope scope(this, record_ ? ".functions[\"" + lgv->name_hint + "\"]" : std::string());
        return Fail("global variable corresponds to a different one", lgv, rgv);
      }
      lmap_[lgv.get()] = rgv.get();
      rmap_[rgv.get()] = lgv.get();
    }
    for (const auto& [lgv, rgv] : pairs) {
      PathScope scope(this, record_ ? ".functions[\"" + lgv->name_hint + "\"]" : std::string());
      if (!EqAny(ma->Lookup(lgv), mb->Lookup(rgv), false)) return false;
    }
    PathScope scope(this, record_ ? ".attrs" : std::string());
    return EqAny(ma->attrs, mb->attrs, false);
  }

  bool map_free_vars_;
  bool record_;
  std::vector<std::string> path_;
  std::vector<std::pair<ObjectRef, ObjectRef>> nodes_;
  // Correspondences established so far (variables, global variables, buffers).
  std::unordered_map<const Object*, const Object*> lmap_, rmap_;
};

}  // namespace

bool StructuralEqual(const Any& lhs, const Any& rhs, bool map_free_vars) {
  SEqualImpl impl(map_free_vars, false);
  return impl.Run(lhs, rhs);
}

std::optional<StructuralMismatch> GetFirstStructuralMismatch(const Any& lhs, const Any& rhs, bool map_free_vars) {
  SEqualImpl impl(map_free_vars, true);
  if (impl.Run(lhs, rhs)) return std::nullopt;
  TESSERA_ICHECK(impl.mismatch.has_value()) << "structural equality failed without recording where";
  return impl.mismatch;
}

// ---- globals ------------------------------------------------------------------------------

namespace {
// (lhs, rhs[, map_free_vars]) of the structural globals.
bool MapFreeVarsArg(const char* name, PackedArgs args) {
  TESSERA_CHECK_OR_THROW(args.size() == 2 || args.size() == 3, TypeError)
      << name << " expects (lhs, rhs[, map_free_vars]) but got " << args.size() << " arguments";
  return args.size() == 3 && args[2].cast<bool>();
}
}  // namespace

TESSERA_REGISTER_GLOBAL("ir.StructuralEqual").set_body([](PackedArgs args) -> Any {
  bool map_free_vars = MapFreeVarsArg("ir.StructuralEqual", args);
  return StructuralEqual(args[0], args[1], map_free_vars);
});

// None when equal, else [path, reason, lhs text, rhs text, lhs node, rhs node]
// (the innermost IR nodes holding the difference, None when there are none).
TESSERA_REGISTER_GLOBAL("ir.GetFirstStructuralMismatch").set_body([](PackedArgs args) -> Any {
  bool map_free_vars = MapFreeVarsArg("ir.GetFirstStructuralMismatch", args);
  std::optional<StructuralMismatch> m = GetFirstStructuralMismatch(args[0], args[1], map_free_vars);
  if (!m) return Any();
  auto node = [](const ObjectRef& n) { return n.defined() ? Any(n) : Any(); };
  return Array<Any>({Any(String(m->path)), Any(String(m->reason)), Any(String(m->lhs)), Any(String(m->rhs)),
                     node(m->lhs_node), node(m->rhs_node)});
});

}  // namespace tessera

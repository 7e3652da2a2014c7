// Map<K, V>: an immutable, insertion-ordered, reference-counted dictionary
// (copy-on-write on mutation), the dictionary type of IR nodes (function
// attributes, buffer maps, annotations). Keys compare as Any::same_as:
// strings by content, objects by identity. Runtime layer. Lookups are
// linear: IR maps are small; hot paths use std::unordered_map directly.
#pragma once

#include <utility>
#include <vector>

#include "runtime/any.h"

namespace tessera {

class MapObj : public Object {
 public:
  std::vector<std::pair<Any, Any>> data;
  const Any* Find(const Any& key) const {
    for (const auto& kv : data)
      if (kv.first.same_as(key)) return &kv.second;
    return nullptr;
  }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(MapObj, Object, "runtime.Map");
};

template <typename K = Any, typename V = Any>
class Map : public ObjectRef {
 public:
  using ContainerType = MapObj;

  Map() : ObjectRef(make_object<MapObj>()) {}
  explicit Map(ObjectPtr<Object> n) : ObjectRef(n ? std::move(n) : ObjectPtr<Object>(make_object<MapObj>())) {}
  Map(std::initializer_list<std::pair<K, V>> init) : Map() {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }

  size_t size() const { return node()->data.size(); }
  bool empty() const { return size() == 0; }
  bool count(const K& key) const { return node()->Find(Any(key)) != nullptr; }
  // Raises KeyError when missing.
  V at(const K& key) const {
    const Any* v = node()->Find(Any(key));
    if (v == nullptr) TESSERA_THROW(KeyError) << "key " << Any(key).repr() << " is not in the map";
    return v->template cast<V>();
  }
  V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    const Any* v = node()->Find(Any(key));
    if (v == nullptr) return std::nullopt;
    return v->template cast<V>();
  }
  void Set(const K& key, const V& value) {
    MapObj* n = this->template CopyOnWriteAs<MapObj>();
    Any k(key);
    for (auto& kv : n->data) {
      if (kv.first.same_as(k)) {
        kv.second = Any(value);
        return;
      }
    }
    n->data.emplace_back(k, Any(value));
  }
  void erase(const K& key) {
    MapObj* n = this->template CopyOnWriteAs<MapObj>();
    Any k(key);
    for (auto it = n->data.begin(); it != n->data.end(); ++it) {
      if (it->first.same_as(k)) {
        n->data.erase(it);
        return;
      }
    }
  }
  std::vector<std::pair<K, V>> items() const {
    std::vector<std::pair<K, V>> out;
    out.reserve(size());
    for (const auto& kv : node()->data) out.emplace_back(kv.first.template cast<K>(), kv.second.template cast<V>());
    return out;
  }
  const std::vector<std::pair<Any, Any>>& raw() const { return node()->data; }

 private:
  const MapObj* node() const { return static_cast<const MapObj*>(data_.get()); }
};

}  // namespace tessera

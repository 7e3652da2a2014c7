// Array<T>: an immutable, reference-counted sequence (copy-on-write on
// mutation), the list type of IR nodes and of function arguments. Elements
// are stored as Any and converted to T on access. Runtime layer.
#pragma once

#include <initializer_list>
#include <iterator>
#include <vector>

#include "runtime/any.h"

namespace tessera {

class ArrayObj : public Object {
 public:
  std::vector<Any> data;
  ArrayObj() = default;
  explicit ArrayObj(std::vector<Any> d) : data(std::move(d)) {}
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ArrayObj, Object, "runtime.Array");
};

template <typename T = Any>
class Array : public ObjectRef {
 public:
  using ContainerType = ArrayObj;
  using value_type = T;

  Array() : ObjectRef(make_object<ArrayObj>()) {}
  explicit Array(ObjectPtr<Object> n) : ObjectRef(n ? std::move(n) : ObjectPtr<Object>(make_object<ArrayObj>())) {}
  Array(std::initializer_list<T> init) : Array(std::vector<T>(init)) {}
  Array(const std::vector<T>& v) : ObjectRef(Build(v.begin(), v.end())) {}  // NOLINT
  template <typename It>
  Array(It first, It last) : ObjectRef(Build(first, last)) {}
  // Reinterprets an array of another element type (elements checked on access).
  template <typename U>
  static Array<T> From(const Array<U>& other) {
    return Array<T>(other.data());
  }

  size_t size() const { return node()->data.size(); }
  bool empty() const { return size() == 0; }
  T operator[](size_t i) const {
    TESSERA_CHECK_OR_THROW(i < size(), IndexError) << "array index " << i << " out of range " << size();
    return node()->data[i].template cast<T>();
  }
  T back() const { return (*this)[size() - 1]; }
  const Any& at_any(size_t i) const { return node()->data.at(i); }

  void push_back(const T& v) { Mutable()->data.emplace_back(v); }
  void Set(size_t i, const T& v) {
    TESSERA_CHECK_OR_THROW(i < size(), IndexError) << "array index " << i << " out of range " << size();
    Mutable()->data[i] = Any(v);
  }
  void insert_at(size_t pos, const T& v) { Mutable()->data.insert(Mutable()->data.begin() + pos, Any(v)); }
  void erase_at(size_t pos) { Mutable()->data.erase(Mutable()->data.begin() + pos); }
  void clear() { Mutable()->data.clear(); }

  std::vector<T> to_vector() const {
    std::vector<T> out;
    out.reserve(size());
    for (const Any& a : node()->data) out.push_back(a.template cast<T>());
    return out;
  }

  // Input iterator yielding elements by value.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;
    explicit iterator(std::vector<Any>::const_iterator it) : it_(it) {}
    T operator*() const { return it_->template cast<T>(); }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator==(const iterator& o) const { return it_ == o.it_; }
    bool operator!=(const iterator& o) const { return it_ != o.it_; }

   private:
    std::vector<Any>::const_iterator it_;
  };
  iterator begin() const { return iterator(node()->data.begin()); }
  iterator end() const { return iterator(node()->data.end()); }

 private:
  template <typename It>
  static ObjectPtr<Object> Build(It first, It last) {
    auto n = make_object<ArrayObj>();
    for (; first != last; ++first) n->data.emplace_back(T(*first));
    return ObjectPtr<Object>(std::move(n));
  }
  const ArrayObj* node() const { return static_cast<const ArrayObj*>(data_.get()); }
  ArrayObj* Mutable() { return this->template CopyOnWriteAs<ArrayObj>(); }
};

template <typename T>
struct IsArrayRef<Array<T>> : std::true_type {};

// Any -> Array<T>: None is the empty array; elements are converted to T's
// canonical form (e.g. Python ints become IntImm in an Array<PrimExpr>), so
// an array always holds what its type says.
template <typename T>
struct AnyConverter<Array<T>> {
  static bool Check(const Any& v) { return v.is_none() || v.as<ArrayObj>() != nullptr; }
  static Array<T> Convert(const Any& v) {
    if (v.is_none()) return Array<T>();
    const ArrayObj* a = v.as<ArrayObj>();
    if (a == nullptr) ThrowAnyCastError(v, "Array");
    if constexpr (std::is_same_v<T, Any>) {
      return Array<T>(v.raw_object().data());
    } else {
      bool canonical = true;
      for (const Any& x : a->data) {
        if constexpr (std::is_base_of_v<ObjectRef, T>) {
          canonical = canonical && (x.is_none() || x.is_object());
        } else {
          canonical = canonical && !x.is_object();
        }
      }
      if (canonical) return Array<T>(v.raw_object().data());
      std::vector<T> out;
      out.reserve(a->data.size());
      for (const Any& x : a->data) out.push_back(x.cast<T>());
      return Array<T>(out);
    }
  }
};

}  // namespace tessera

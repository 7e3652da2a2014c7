// The object system: intrusive reference-counted nodes with a runtime type
// index, and the smart references (ObjectPtr / ObjectRef) that hold them.
// Bottom of the runtime layer; every IR node and runtime value (NDArray,
// PackedFunc, String, Array) is an Object. Nodes are immutable once shared;
// copy-on-write (ObjectRef::CopyOnWrite) mutates only when uniquely owned.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/error.h"

namespace tessera {

class Object;
template <typename T>
class ObjectPtr;
template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args);

// Registry of object types: type key <-> type index, parent links for
// IsInstance checks. Types register lazily on first use of
// T::RuntimeTypeIndex() and eagerly through TESSERA_REGISTER_OBJECT_TYPE.
class TypeRegistry {
 public:
  static constexpr uint32_t kRootIndex = 0;
  // Returns the index of `key`, registering it under `parent` if new.
  // `create` makes a default-constructed node of the type (one owned
  // reference), or is null when the type has no default constructor.
  static uint32_t Register(const std::string& key, uint32_t parent, bool final, Object* (*create)() = nullptr);
  // A default-constructed node of type `index` (reference count 1, owned by
  // the caller), or nullptr when the type cannot be default-constructed.
  // Generic constructors (JSON loading) fill its fields through reflection.
  static Object* CreateDefault(uint32_t index);
  static const std::string& KeyOf(uint32_t index);
  // Index of a registered key, or -1 when unknown.
  static int64_t IndexOf(const std::string& key);
  static uint32_t ParentOf(uint32_t index);
  static bool IsDerivedFrom(uint32_t child, uint32_t parent);
  static uint32_t NumTypes();
};

template <typename T>
Object* DefaultObjectCreator();

class Object {
 public:
  virtual ~Object() = default;
  Object() = default;
  Object(const Object&) : type_index_(0), ref_counter_(0) {}
  Object& operator=(const Object&) { return *this; }

  uint32_t type_index() const { return type_index_; }
  const std::string& GetTypeKey() const { return TypeRegistry::KeyOf(type_index_); }
  int32_t use_count() const { return ref_counter_.load(std::memory_order_relaxed); }
  bool unique() const { return use_count() == 1; }

  template <typename T>
  bool IsInstance() const {
    if (type_index_ == T::RuntimeTypeIndex()) return true;
    if constexpr (T::_type_final) return false;
    return TypeRegistry::IsDerivedFrom(type_index_, T::RuntimeTypeIndex());
  }

  static constexpr const char* _type_key = "runtime.Object";
  static constexpr bool _type_final = false;
  static uint32_t RuntimeTypeIndex() { return TypeRegistry::kRootIndex; }

  // A fresh copy of this node (same dynamic type, reference count 0); used
  // by copy-on-write. Raises InternalError for non-copyable node types.
  virtual Object* CloneImpl() const;

  void IncRef() const { ref_counter_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() const {
    if (ref_counter_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy(this);
  }
  // Deletes a node whose count reached zero. Nested releases (a node's
  // children dying with it) are queued and deleted in a loop by the
  // outermost call, so freeing a chain as deep as 10^6 nodes uses O(1) stack.
  static void Destroy(const Object* obj);

 protected:
  template <typename T>
  static Object* CloneAs(const T* self) {
    if constexpr (std::is_copy_constructible_v<T>) {
      T* p = new T(*self);
      p->type_index_ = T::RuntimeTypeIndex();
      return p;
    } else {
      return self->Object::CloneImpl();
    }
  }

  uint32_t type_index_{0};
  mutable std::atomic<int32_t> ref_counter_{0};

  template <typename T, typename... Args>
  friend ObjectPtr<T> make_object(Args&&... args);
};

// Declares the type-system members of a node class. Put it in the public
// section: TESSERA_DECLARE_OBJECT_INFO(VarNode, PrimExprNode, "tir.Var").
#define TESSERA_DECLARE_OBJECT_INFO_IMPL(TypeName, ParentType, TypeKey, Final)        \
  ::tessera::Object* CloneImpl() const override { return CloneAs<TypeName>(this); }   \
  static constexpr const char* _type_key = TypeKey;                                   \
  static constexpr bool _type_final = Final;                                          \
  using _parent_type = ParentType;                                                    \
  static uint32_t RuntimeTypeIndex() {                                                \
    static_assert(std::is_base_of_v<ParentType, TypeName>, "wrong parent type");      \
    static const uint32_t index = ::tessera::TypeRegistry::Register(                  \
        TypeKey, ParentType::RuntimeTypeIndex(), Final,                               \
        &::tessera::DefaultObjectCreator<TypeName>);                                  \
    return index;                                                                     \
  }
#define TESSERA_DECLARE_OBJECT_INFO(TypeName, ParentType, TypeKey) \
  TESSERA_DECLARE_OBJECT_INFO_IMPL(TypeName, ParentType, TypeKey, false)
#define TESSERA_DECLARE_FINAL_OBJECT_INFO(TypeName, ParentType, TypeKey) \
  TESSERA_DECLARE_OBJECT_INFO_IMPL(TypeName, ParentType, TypeKey, true)

// Registers a node type at library load so that its key is known before
// the first instance exists (Python registers classes by key).
#define TESSERA_REGISTER_OBJECT_TYPE(TypeName)                                      \
  [[maybe_unused]] static const uint32_t _tessera_type_index_##TypeName##__ = \
      TypeName::RuntimeTypeIndex()

// Intrusive strong pointer to an Object (or subclass).
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT
  explicit ObjectPtr(T* p) : ptr_(p) {
    if (ptr_) ptr_->IncRef();
  }
  ObjectPtr(const ObjectPtr& o) : ObjectPtr(o.ptr_) {}
  ObjectPtr(ObjectPtr&& o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& o) : ObjectPtr(static_cast<T*>(o.get())) {}  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& o) noexcept : ptr_(static_cast<T*>(o.release())) {}  // NOLINT
  ~ObjectPtr() { reset(); }

  ObjectPtr& operator=(const ObjectPtr& o) {
    ObjectPtr(o).swap(*this);
    return *this;
  }
  ObjectPtr& operator=(ObjectPtr&& o) noexcept {
    ObjectPtr(std::move(o)).swap(*this);
    return *this;
  }
  void swap(ObjectPtr& o) noexcept { std::swap(ptr_, o.ptr_); }
  void reset() {
    if (ptr_) ptr_->DecRef();
    ptr_ = nullptr;
  }
  // Gives up ownership without decrementing (the caller now owns one reference).
  T* release() {
    T* p = ptr_;
    ptr_ = nullptr;
    return p;
  }
  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool operator==(const ObjectPtr& o) const { return ptr_ == o.ptr_; }
  bool operator!=(const ObjectPtr& o) const { return ptr_ != o.ptr_; }
  bool operator==(std::nullptr_t) const { return ptr_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return ptr_ != nullptr; }

 private:
  T* ptr_ = nullptr;
};

// Allocates a node and stamps its runtime type index.
template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  static_assert(std::is_base_of_v<Object, T>);
  T* p = new T(std::forward<Args>(args)...);
  p->type_index_ = T::RuntimeTypeIndex();
  return ObjectPtr<T>(p);
}

// Creator registered with each type (TypeRegistry::CreateDefault).
template <typename T>
Object* DefaultObjectCreator() {
  if constexpr (std::is_default_constructible_v<T>) {
    return make_object<T>().release();
  } else {
    return nullptr;
  }
}

// Base of all references. Holds (possibly null) ObjectPtr<Object>.
class ObjectRef {
 public:
  using ContainerType = Object;
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}

  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool defined() const { return data_ != nullptr; }
  bool same_as(const ObjectRef& other) const { return data_ == other.data_; }
  bool operator==(const ObjectRef& other) const { return data_ == other.data_; }
  bool operator!=(const ObjectRef& other) const { return data_ != other.data_; }
  bool operator<(const ObjectRef& other) const { return data_.get() < other.data_.get(); }
  int32_t use_count() const { return data_ ? data_->use_count() : 0; }
  uint32_t type_index() const { return data_ ? data_->type_index() : ~0u; }

  template <typename T>
  const T* as() const {
    if (data_ && data_->IsInstance<T>()) return static_cast<const T*>(data_.get());
    return nullptr;
  }

  // Access to the data pointer for friends in other layers (FFI, containers).
  const ObjectPtr<Object>& data() const { return data_; }

 protected:
  ObjectPtr<Object> data_;

  // Copy-on-write: returns a mutable node, copying it first if shared.
  template <typename T>
  T* CopyOnWriteAs() {
    TESSERA_ICHECK(data_ != nullptr) << "CopyOnWrite on an undefined reference";
    if (!data_->unique()) data_ = ObjectPtr<Object>(data_->CloneImpl());
    return static_cast<T*>(data_.get());
  }
};

// Standard members of a reference class RefType whose node is NodeType.
#define TESSERA_DEFINE_OBJECT_REF_METHODS(RefType, ParentRef, NodeType)                  \
  RefType() = default;                                                                   \
  explicit RefType(::tessera::ObjectPtr<::tessera::Object> n) : ParentRef(std::move(n)) {} \
  const NodeType* operator->() const { return static_cast<const NodeType*>(data_.get()); } \
  const NodeType* get() const { return static_cast<const NodeType*>(data_.get()); }       \
  using ContainerType = NodeType;

// Adds `NodeType* CopyOnWrite()` to a reference class.
#define TESSERA_DEFINE_OBJECT_REF_COW_METHOD(NodeType) \
  NodeType* CopyOnWrite() { return this->template CopyOnWriteAs<NodeType>(); }

// Checked downcast between reference types; raises TypeError on mismatch.
template <typename RefT>
RefT Downcast(const ObjectRef& ref) {
  using NodeT = typename RefT::ContainerType;
  if (ref.defined() && !ref->IsInstance<NodeT>()) {
    TESSERA_THROW(TypeError) << "expected an object of type " << NodeT::_type_key
                             << " but got " << ref->GetTypeKey();
  }
  return RefT(ref.data());
}

// Builds a reference of type RefT from a freshly made node.
template <typename RefT, typename NodeT>
RefT MakeRef(ObjectPtr<NodeT> node) {
  return RefT(ObjectPtr<Object>(std::move(node)));
}

// A reference of type RefT to an existing node (adds a reference).
template <typename RefT, typename NodeT>
RefT GetRef(const NodeT* node) {
  return RefT(ObjectPtr<Object>(const_cast<NodeT*>(node)));
}

struct ObjectPtrHash {
  size_t operator()(const ObjectRef& r) const { return std::hash<const void*>()(r.get()); }
};
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

}  // namespace tessera

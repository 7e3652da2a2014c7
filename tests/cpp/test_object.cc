// Object system: reference counting, type indices, downcasts, copy-on-write.
#include <gtest/gtest.h>

#include "runtime/array.h"
#include "runtime/object.h"

namespace tessera {
namespace {

class BaseNode : public Object {
 public:
  int value = 0;
  TESSERA_DECLARE_OBJECT_INFO(BaseNode, Object, "test.Base");
};
class DerivedNode : public BaseNode {
 public:
  std::string tag;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DerivedNode, BaseNode, "test.Derived");
};
class OtherNode : public Object {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(OtherNode, Object, "test.Other");
};
class Base : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Base, ObjectRef, BaseNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(BaseNode);
};
class Derived : public Base {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Derived, Base, DerivedNode);
};

struct Counted : public Object {
  static inline int live = 0;
  Counted() { ++live; }
  ~Counted() override { --live; }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(Counted, Object, "test.Counted");
};

TEST(Object, RefCountingFreesExactlyOnce) {
  ASSERT_EQ(Counted::live, 0);
  {
    ObjectRef a(make_object<Counted>());
    EXPECT_EQ(Counted::live, 1);
    EXPECT_EQ(a.use_count(), 1);
    ObjectRef b = a;
    EXPECT_EQ(a.use_count(), 2);
    ObjectRef c = std::move(b);
    EXPECT_FALSE(b.defined());
    EXPECT_EQ(a.use_count(), 2);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(Object, TypeKeysAndIndices) {
  ObjectRef d(make_object<DerivedNode>());
  EXPECT_EQ(d->GetTypeKey(), "test.Derived");
  EXPECT_EQ(TypeRegistry::KeyOf(BaseNode::RuntimeTypeIndex()), "test.Base");
  EXPECT_EQ(TypeRegistry::IndexOf("test.Derived"), static_cast<int64_t>(DerivedNode::RuntimeTypeIndex()));
  EXPECT_EQ(TypeRegistry::IndexOf("test.NoSuchType"), -1);
  EXPECT_EQ(TypeRegistry::ParentOf(DerivedNode::RuntimeTypeIndex()), BaseNode::RuntimeTypeIndex());
}

TEST(Object, IsInstanceFollowsTheHierarchy) {
  ObjectRef d(make_object<DerivedNode>());
  ObjectRef b(make_object<BaseNode>());
  ObjectRef o(make_object<OtherNode>());
  EXPECT_TRUE(d->IsInstance<DerivedNode>());
  EXPECT_TRUE(d->IsInstance<BaseNode>());
  EXPECT_TRUE(d->IsInstance<Object>());
  EXPECT_FALSE(b->IsInstance<DerivedNode>());
  EXPECT_FALSE(o->IsInstance<BaseNode>());
  EXPECT_NE(d.as<BaseNode>(), nullptr);
  EXPECT_EQ(o.as<BaseNode>(), nullptr);
}

TEST(Object, DowncastChecksTypes) {
  ObjectRef d(make_object<DerivedNode>());
  Base as_base = Downcast<Base>(d);
  EXPECT_TRUE(as_base.same_as(d));
  Derived as_derived = Downcast<Derived>(as_base);
  EXPECT_TRUE(as_derived.same_as(d));
  ObjectRef o(make_object<OtherNode>());
  EXPECT_THROW(Downcast<Base>(o), TypeError);
  try {
    Downcast<Derived>(o);
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("test.Derived"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("test.Other"), std::string::npos);
  }
}

TEST(Object, CopyOnWriteCopiesOnlyWhenShared) {
  Base a(make_object<BaseNode>());
  const BaseNode* original = a.get();
  a.CopyOnWrite()->value = 1;  // unique: mutated in place
  EXPECT_EQ(a.get(), original);
  Base b = a;
  b.CopyOnWrite()->value = 2;  // shared: b gets its own copy
  EXPECT_NE(b.get(), a.get());
  EXPECT_EQ(a->value, 1);
  EXPECT_EQ(b->value, 2);
  EXPECT_EQ(b->type_index(), BaseNode::RuntimeTypeIndex());
  EXPECT_EQ(b.use_count(), 1);
}

TEST(Array, ImmutableSharingAndCopyOnWrite) {
  Array<int64_t> a{1, 2, 3};
  Array<int64_t> b = a;
  b.push_back(4);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(b[3], 4);
  std::vector<int64_t> seen;
  for (int64_t x : b) seen.push_back(x);
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_THROW(a[3], IndexError);
  Array<String> s{"x", "y"};
  EXPECT_EQ(s[1].str(), "y");
  EXPECT_THROW(Array<String>::From(a)[0], TypeError);  // elements are checked on access
}

}  // namespace
}  // namespace tessera

// Dialect-neutral values the script evaluator computes that are not IR nodes:
// namespaces (T, T.axis, I, ...) and Python slices. Dialects add their own
// helper values in their folders (parser/tir/tir_values.h). Script parser
// internals (parser/core); they never escape into the IR.
#pragma once

#include <string>
#include <vector>

#include "runtime/any.h"
#include "runtime/object.h"

namespace tessera {
namespace script {

// A dotted namespace path in canonical spelling ("T", "T.axis", "I", "R").
class NamespaceObj : public Object {
 public:
  std::string path;
  explicit NamespaceObj(std::string p) : path(std::move(p)) {}
  TESSERA_DECLARE_FINAL_OBJECT_INFO(NamespaceObj, Object, "script.Namespace");
};

// A Python slice lo:hi:step (each may be None).
class SliceObj : public Object {
 public:
  Any start, stop, step;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SliceObj, Object, "script.Slice");
};

namespace ast {
struct Expr;
}  // namespace ast

// A lambda expression (`lambda x, y: x + y`), kept as its syntax: a builtin
// that takes one (T.comm_reducer) calls it with Evaluator::CallLambda.
class LambdaObj : public Object {
 public:
  const ast::Expr* node = nullptr;  // kLambda; the AST outlives the evaluation
  std::vector<std::string> params;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(LambdaObj, Object, "script.Lambda");
};

template <typename T>
ObjectRef AsRef(ObjectPtr<T> p) {
  return ObjectRef(ObjectPtr<Object>(std::move(p)));
}

// Canonical spelling of a namespace path: tvm.script.tir.X -> T.X, ...
std::string CanonicalPath(const std::string& path);
// The first component of a namespace path ("T" for "T.axis.spatial").
inline std::string NamespaceRoot(const std::string& path) { return path.substr(0, path.find('.')); }

}  // namespace script
}  // namespace tessera

// PrimFunc: a TensorIR function (parameters, buffer map binding handle
// parameters to Buffers, body, attributes). TIR layer; lives in IRModules.
#pragma once

#include "tir/stmt.h"

namespace tessera {
namespace tir {

class PrimFuncNode : public BaseFuncNode {
 public:
  Array<Var> params;
  Stmt body;
  DataType ret_type = DataType::Void();
  Map<Var, Buffer> buffer_map;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PrimFuncNode, BaseFuncNode, "tir.PrimFunc");
};

class PrimFunc : public BaseFunc {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PrimFunc, BaseFunc, PrimFuncNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(PrimFuncNode);
  // Raises ValueError when a buffer_map key is not a parameter.
  PrimFunc(Array<Var> params, Stmt body, Map<Var, Buffer> buffer_map = {}, Attrs attrs = {},
           DataType ret_type = DataType::Void(), Span span = Span());
};

}  // namespace tir
}  // namespace tessera

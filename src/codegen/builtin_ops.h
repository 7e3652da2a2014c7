// The TIR builtin ops that every code generator emits itself (bit
// operations, reinterpret, access pointers, extern calls, run-time checks),
// looked up once: CodeGenC (source/) and CodeGenLLVM (llvm/) compare a call's
// op against these instead of each keeping its own table. Codegen layer.
#pragma once

#include "ir/op.h"

namespace tessera {
namespace codegen {

struct BuiltinOps {
  const Object* likely = Op::Get("tir.likely").get();
  const Object* bitwise_and = Op::Get("tir.bitwise_and").get();
  const Object* bitwise_or = Op::Get("tir.bitwise_or").get();
  const Object* bitwise_xor = Op::Get("tir.bitwise_xor").get();
  const Object* bitwise_not = Op::Get("tir.bitwise_not").get();
  const Object* shift_left = Op::Get("tir.shift_left").get();
  const Object* shift_right = Op::Get("tir.shift_right").get();
  const Object* reinterpret = Op::Get("tir.reinterpret").get();
  const Object* access_ptr = Op::Get("tir.tvm_access_ptr").get();
  const Object* type_annotation = Op::Get("tir.type_annotation").get();
  const Object* if_then_else = Op::Get("tir.if_then_else").get();
  const Object* call_extern = Op::Get("tir.call_extern").get();
  const Object* call_pure_extern = Op::Get("tir.call_pure_extern").get();
  const Object* call_llvm_pure_intrin = Op::Get("tir.call_llvm_pure_intrin").get();
  const Object* checked_index = Op::Get("tir.checked_index").get();
  const Object* checked_value = Op::Get("tir.checked_value").get();

  static const BuiltinOps& Get() {
    static const BuiltinOps ops;
    return ops;
  }
};

}  // namespace codegen
}  // namespace tessera

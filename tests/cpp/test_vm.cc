// The VM from C++: programs written with ExecBuilder (arithmetic through
// registered functions, If with only the taken branch running, a Goto loop,
// closures, storage), the binary form (round trip, every truncation and
// byte flip refused with ValueError), no heap allocation per call in steady
// state, and the dispatch cost of a no-op call (printed, not asserted).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>

#include "runtime/array.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"
#include "runtime/vm/exec_builder.h"
#include "runtime/vm/vm.h"

// Counts heap allocations of the whole process while `g_counting` is set.
#if !defined(__SANITIZE_ADDRESS__)
#define TESSERA_VM_TEST_COUNTS_ALLOCATIONS 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
static std::atomic<bool> g_counting{false};
static std::atomic<int64_t> g_allocations{0};
void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
#endif

namespace tessera::runtime::vm {
namespace {

using FK = VMFuncInfo::FuncKind;

Arg R(RegName r) { return Arg::Register(r); }
Arg Imm(int64_t v) { return Arg::Immediate(v); }

ObjectPtr<VirtualMachineNode> MakeVM(const ObjectPtr<ExecutableNode>& exec) {
  auto vm = make_object<VirtualMachineNode>(exec);
  vm->Init({CPU()});
  return vm;
}

Any Call(const ObjectPtr<VirtualMachineNode>& vm, const std::string& name, std::vector<Any> args) {
  return vm->Invoke(name, args.data(), static_cast<int>(args.size()));
}

TEST(VM, ArithmeticThroughRegisteredFunctions) {
  auto b = make_object<ExecBuilderNode>();
  b->EmitFunction("main", 2, {"a", "b"});
  b->EmitCall("test.vm.add_scalar", {R(0), R(1)}, 2);
  b->EmitCall("test.vm.add_scalar", {R(2), Imm(-10)}, 3);
  b->EmitRet(R(3));
  b->EndFunction("main");
  auto vm = MakeVM(b->Get());
  EXPECT_EQ(Call(vm, "main", {int64_t{5}, int64_t{7}}).cast<int64_t>(), 2);
  EXPECT_THROW(Call(vm, "main", {int64_t{5}}), TypeError);
  try {
    Call(vm, "main", {int64_t{1}, int64_t{2}, int64_t{3}});
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "main() takes 2 arguments but 3 were given");
  }
}

TEST(VM, IfRunsOnlyTheTakenBranch) {
  static int then_calls = 0, else_calls = 0;
  Registry::Set("test.vm_cc.then", PackedFunc([](PackedArgs) -> Any { return int64_t{++then_calls}; }), true);
  Registry::Set("test.vm_cc.else", PackedFunc([](PackedArgs) -> Any { return int64_t{-(++else_calls)}; }), true);
  auto b = make_object<ExecBuilderNode>();
  b->EmitFunction("main", 1, {});
  b->EmitIf(R(0), 3);
  b->EmitCall("test.vm_cc.then", {}, 1);
  b->EmitGoto(2);
  b->EmitCall("test.vm_cc.else", {}, 1);
  b->EmitRet(R(1));
  b->EndFunction("main");
  auto vm = MakeVM(b->Get());
  EXPECT_EQ(Call(vm, "main", {int64_t{1}}).cast<int64_t>(), 1);
  EXPECT_EQ(Call(vm, "main", {false}).cast<int64_t>(), -1);
  EXPECT_EQ(Call(vm, "main", {int64_t{7}}).cast<int64_t>(), 2);
  EXPECT_EQ(then_calls, 2);
  EXPECT_EQ(else_calls, 1);
}

TEST(VM, GotoLoopSumsOneToN) {
  Registry::Set("test.vm_cc.le", PackedFunc::FromTyped([](int64_t a, int64_t b) { return a <= b; }), true);
  // s = 0; i = 1; while i <= n: s += i; i += 1; return s
  auto b = make_object<ExecBuilderNode>();
  b->EmitFunction("main", 1, {"n"});
  b->EmitCall("test.vm.add_scalar", {Imm(0), Imm(0)}, 1);  // s
  b->EmitCall("test.vm.add_scalar", {Imm(1), Imm(0)}, 2);  // i
  b->EmitCall("test.vm_cc.le", {R(2), R(0)}, 3);           // pc 2
  b->EmitIf(R(3), 4);
  b->EmitCall("test.vm.add_scalar", {R(1), R(2)}, 1);
  b->EmitCall("test.vm.add_scalar", {R(2), Imm(1)}, 2);
  b->EmitGoto(-4);
  b->EmitRet(R(1));
  b->EndFunction("main");
  auto vm = MakeVM(b->Get());
  for (int64_t n : {0, 1, 10, 1000}) EXPECT_EQ(Call(vm, "main", {n}).cast<int64_t>(), n * (n + 1) / 2);
}

TEST(VM, ClosuresAndVMToVMCalls) {
  auto b = make_object<ExecBuilderNode>();
  b->DeclareFunction("affine", FK::kVMFunc);
  b->EmitFunction("make", 1, {});  // make(c) -> closure x => affine(x, c)
  b->EmitCall("vm.builtin.make_closure", {Arg::FuncIdx(b->GetFunctionIndex("affine")), R(0)}, 1);
  b->EmitRet(R(1));
  b->EndFunction("make");
  b->EmitFunction("affine", 2, {});  // affine(x, c) = 3 * x + c
  b->EmitCall("test.vm.add_scalar", {R(0), R(0)}, 2);
  b->EmitCall("test.vm.add_scalar", {R(2), R(0)}, 3);
  b->EmitCall("test.vm.add_scalar", {R(3), R(1)}, 4);
  b->EmitRet(R(4));
  b->EndFunction("affine");
  b->EmitFunction("apply", 2, {});  // apply(f, x) = f(x) + affine(x, 1)
  b->EmitCall("vm.builtin.invoke_closure", {Arg::Register(kVMRegister), R(0), R(1)}, 2);
  b->EmitCall("affine", {R(1), Imm(1)}, 3);
  b->EmitCall("test.vm.add_scalar", {R(2), R(3)}, 4);
  b->EmitRet(R(4));
  b->EndFunction("apply");
  auto vm = MakeVM(b->Get());
  Any clo = Call(vm, "make", {int64_t{100}});
  ASSERT_NE(clo.as<VMClosureObj>(), nullptr);
  EXPECT_EQ(clo.as<VMClosureObj>()->func_name, "affine");
  EXPECT_EQ(Call(vm, "apply", {clo, int64_t{2}}).cast<int64_t>(), (3 * 2 + 100) + (3 * 2 + 1));
}

ObjectPtr<ExecutableNode> StorageProgram() {
  // main(x) = tensor view of a pooled storage, passed to a no-op kernel; returns x.
  auto b = make_object<ExecBuilderNode>();
  b->EmitFunction("main", 1, {"x"});
  b->EmitCall("vm.builtin.alloc_storage",
              {Arg::Register(kVMRegister), Arg::ConstIdx(b->ConvertConstant(ShapeTuple({256}))), Imm(0),
               Arg::ConstIdx(b->ConvertConstant(DataType::UInt(8))), Arg::ConstIdx(b->ConvertConstant(String("global")))},
              1);
  b->EmitCall("vm.builtin.alloc_tensor",
              {R(1), Imm(0), Arg::ConstIdx(b->ConvertConstant(ShapeTuple({8, 8}))),
               Arg::ConstIdx(b->ConvertConstant(DataType::Float(32)))},
              2);
  b->EmitCall("vm.builtin.check_tensor_info",
              {R(2), Imm(2), Arg::ConstIdx(b->ConvertConstant(DataType::Float(32))),
               Arg::ConstIdx(b->ConvertConstant(String("ErrorContext(param=tmp)")))},
              kVoidRegister);
  b->EmitCall("test.vm.noop", {R(2), R(0)}, kVoidRegister);
  b->EmitRet(R(0));
  b->EndFunction("main");
  b->EmitFunction("noop", 1, {"x"});
  b->EmitRet(R(0));
  b->EndFunction("noop");
  return b->Get();
}

TEST(VM, NoHeapAllocationPerCallInSteadyState) {
#ifndef TESSERA_VM_TEST_COUNTS_ALLOCATIONS
  GTEST_SKIP() << "allocation counting is off under sanitizers";
#else
  auto vm = MakeVM(StorageProgram());
  Any x(int64_t{3});
  PackedFunc main = *vm->GetFunction("main");
  for (int i = 0; i < 3; ++i) main(x);  // warm-up: frames, storage and views are made once
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 1000; ++i) main.CallPacked(PackedArgs(&x, 1));
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_EQ(vm->storage_pool().size(), 1u);
#endif
}

TEST(VM, DispatchOverheadOfANoOpCall) {
  auto vm = MakeVM(StorageProgram());
  PackedFunc noop = *vm->GetFunction("noop");
  Any x(int64_t{1});
  for (int i = 0; i < 1000; ++i) noop.CallPacked(PackedArgs(&x, 1));
  const int n = 200000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) noop.CallPacked(PackedArgs(&x, 1));
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / n;
  std::printf("[ VM ] no-op VM function call from C++: %.1f ns per call\n", ns);
  EXPECT_GT(ns, 0.0);
  EXPECT_EQ(noop.CallPacked(PackedArgs(&x, 1)).cast<int64_t>(), 1);
}

TEST(VM, BinaryRoundTripAndCorruption) {
  auto exec = StorageProgram();
  std::string bytes = exec->SaveToBytes();
  auto loaded = ExecutableNode::LoadFromBytes(bytes);
  EXPECT_EQ(loaded->AsText(), exec->AsText());
  EXPECT_EQ(loaded->SaveToBytes(), bytes);
  EXPECT_EQ(Call(MakeVM(loaded), "main", {int64_t{9}}).cast<int64_t>(), 9);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(ExecutableNode::LoadFromBytes(bytes.substr(0, n)), ValueError) << "truncated to " << n;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    EXPECT_THROW(ExecutableNode::LoadFromBytes(bad), ValueError) << "byte " << i;
  }
}

TEST(VM, ValidationRefusesBadBytecode) {
  auto exec = StorageProgram();
  auto bad = make_object<ExecutableNode>(*exec);
  bad->instr_data[bad->instr_offset[0] + 2] = 99;  // call of function index 99
  EXPECT_THROW(bad->Validate(), ValueError);
  auto bad2 = make_object<ExecutableNode>(*exec);
  bad2->func_table[bad2->FindFunction("main")].register_file_size = 1;  // registers beyond the file
  EXPECT_THROW(make_object<VirtualMachineNode>(bad2), ValueError);
  auto bad3 = make_object<ExecutableNode>(*exec);
  bad3->instr_data[bad3->instr_offset[0]] = 77;  // unknown opcode
  try {
    bad3->Validate();
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown opcode 77"), std::string::npos) << e.what();
  }
}

TEST(VM, MissingFunctionIsNamed) {
  auto b = make_object<ExecBuilderNode>();
  b->EmitFunction("main", 0, {});
  b->EmitCall("test.vm_cc.does_not_exist", {}, 0);
  b->EmitRet(R(0));
  b->EndFunction("main");
  auto vm = MakeVM(b->Get());
  try {
    Call(vm, "main", {});
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("main calls 'test.vm_cc.does_not_exist'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera::runtime::vm

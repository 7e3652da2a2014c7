// The CPU host part of LLVM code generation (see codegen_cpu.h).
#include "codegen/llvm/codegen_cpu.h"

#include <algorithm>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "tir/transform/make_packed_api.h"
#include "codegen/parallel_task.h"
#include "codegen/split_host_device.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

CodeGenCPU::CodeGenCPU(llvm::LLVMContext* ctx, llvm::Module* module, const Target& target)
    : CodeGenLLVM(ctx, module, target) {}

// ---- functions ----------------------------------------------------------------
// ---- functions ----------------------------------------------------------------
FunctionInfo CodeGenCPU::AddFunction(const std::string& name, const PrimFunc& func) {
  func_name_ = name;
  var_map_.clear();
  buffers_.clear();
  bool noalias = false;
  if (auto a = func->attrs.Get("tir.noalias")) noalias = a->try_cast<bool>().value_or(false);
  PackedAPI api = GetPackedAPI(name, func);  // recorded by tir.transform.MakePackedAPI
  const FunctionInfo& info = api.info;
  const std::vector<Var>& sym_vars = api.sym_vars;

  // Parameters of the compute function: buffers, scalars, then size variables.
  std::vector<llvm::Type*> param_types;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Buffer& buf = api.buffers[i];
    if (buf.defined()) CheckBufferDtype(buf->name, buf->dtype);
    param_types.push_back(buf.defined() ? llvm::PointerType::getUnqual(StorageType(buf->dtype))
                                        : ValueType(func->params[i].dtype()));
  }
  for (const Var& v : sym_vars) param_types.push_back(ValueType(v.dtype()));

  llvm::Type* i32 = builder_->getInt32Ty();
  auto* compute_type = llvm::FunctionType::get(i32, param_types, false);
  llvm::Function* compute =
      llvm::Function::Create(compute_type, llvm::Function::InternalLinkage, name + "_compute", module_);
  compute->addFnAttr(llvm::Attribute::AlwaysInline);
  compute->addFnAttr(llvm::Attribute::NoUnwind);
  function_ = compute;
  builder_->SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "entry", compute));
  size_t np = func->params.size();
  for (size_t i = 0; i < np; ++i) {
    llvm::Argument* arg = compute->getArg(static_cast<unsigned>(i));
    arg->setName(info.params[i].name);
    if (const Buffer& buf = api.buffers[i]; buf.defined()) {
      if (noalias) compute->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
      if (info.params[i].alignment > 1) {  // the call guarantees it (kernel_abi.cc)
        compute->addParamAttr(static_cast<unsigned>(i),
                              llvm::Attribute::getWithAlignment(*ctx_, llvm::Align(info.params[i].alignment)));
      }
      buffers_[buf->data.get()] = BufferPtr{arg, buf->dtype};
    } else {
      var_map_[func->params[i].get()] = arg;
    }
  }
  for (size_t k = 0; k < sym_vars.size(); ++k) {
    llvm::Argument* arg = compute->getArg(static_cast<unsigned>(np + k));
    arg->setName(sym_vars[k]->name_hint);
    var_map_[sym_vars[k].get()] = arg;
  }
  VisitStmt(func->body);
  builder_->CreateRet(builder_->getInt32(0));

  EmitPackedEntry(name, info, compute);

  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*module_, &os)) {
    TESSERA_THROW(InternalError) << "generated invalid LLVM IR for " << name << ": " << os.str();
  }
  return info;
}

void CodeGenCPU::EmitPackedEntry(const std::string& name, const FunctionInfo& info, llvm::Function* compute) {
  llvm::Type* i32 = builder_->getInt32Ty();
  size_t np = info.params.size();
  size_t nsym = info.sym_vars.size();
  auto param_type = [&](size_t i) { return compute->getFunctionType()->getParamType(static_cast<unsigned>(i)); };
  // The exported entry: unpacks void** args per the kernel ABI.
  llvm::Type* i8p = builder_->getInt8PtrTy();
  auto* entry_type = llvm::FunctionType::get(i32, {llvm::PointerType::getUnqual(i8p)}, false);
  llvm::Function* entry = llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage,
                                                 KernelSymbol(name), module_);
  builder_->SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "entry", entry));
  llvm::Value* args = entry->getArg(0);
  std::vector<llvm::Value*> call_args;
  auto slot = [&](size_t i) {
    return builder_->CreateLoad(i8p, builder_->CreateInBoundsGEP(i8p, args, builder_->getInt64(i)));
  };
  for (size_t i = 0; i < np; ++i) {
    llvm::Value* p = slot(i);
    if (info.params[i].is_buffer) {
      if (info.params[i].alignment > 1) {
        // The alignment fact, as TVM's storage_alignment: llvm.assume(align).
        builder_->CreateAlignmentAssumption(module_->getDataLayout(), p,
                                            static_cast<uint64_t>(info.params[i].alignment));
      }
      call_args.push_back(builder_->CreateBitCast(p, param_type(i)));
    } else if (info.params[i].dtype.is_float()) {
      llvm::Value* d = builder_->CreateLoad(builder_->getDoubleTy(), builder_->CreateBitCast(p, llvm::PointerType::getUnqual(builder_->getDoubleTy())));
      call_args.push_back(builder_->CreateFPCast(d, param_type(i)));
    } else {
      llvm::Value* v = builder_->CreateLoad(builder_->getInt64Ty(), builder_->CreateBitCast(p, llvm::PointerType::getUnqual(builder_->getInt64Ty())));
      call_args.push_back(info.params[i].dtype.is_bool() ? builder_->CreateICmpNE(v, builder_->getInt64(0))
                                                           : builder_->CreateIntCast(v, param_type(i), true));
    }
  }
  for (size_t k = 0; k < nsym; ++k) {
    llvm::Value* p = slot(np + k);
    llvm::Value* v = builder_->CreateLoad(builder_->getInt64Ty(), builder_->CreateBitCast(p, llvm::PointerType::getUnqual(builder_->getInt64Ty())));
    call_args.push_back(builder_->CreateIntCast(v, param_type(np + k), true));
  }
  builder_->CreateRet(builder_->CreateCall(compute, call_args));
}

void CodeGenCPU::EmitParallelFor(const ForNode* op) {
  std::vector<const VarNode*> captured =
      ParallelTaskCaptures(op, bound_check_, [&](const VarNode* v) { return var_map_.count(v) > 0; });
  // Closure: captured scalar values and buffer pointers.
  std::vector<llvm::Type*> field_types;
  std::vector<llvm::Value*> field_values;
  for (const VarNode* v : captured) {
    llvm::Value* value = nullptr;
    auto b = buffers_.find(v);
    if (b != buffers_.end()) {
      value = b->second.ptr;
    } else {
      auto it = var_map_.find(v);
      if (it == var_map_.end()) {
        TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << ": variable " << v->name_hint
                                  << " is used but never defined";
      }
      value = it->second;
    }
    field_types.push_back(value->getType());
    field_values.push_back(value);
  }
  llvm::StructType* closure_type = llvm::StructType::get(*ctx_, field_types);
  llvm::Value* closure = EntryAlloca(closure_type, nullptr, 8);
  for (size_t i = 0; i < field_values.size(); ++i) {
    builder_->CreateStore(field_values[i], builder_->CreateStructGEP(closure_type, closure, static_cast<unsigned>(i)));
  }
  llvm::Value* extent = VisitExpr(op->extent);
  llvm::Value* min = VisitExpr(op->min);

  // The task: i32 task(i32 index, i8* closure).
  llvm::Type* i32 = builder_->getInt32Ty();
  llvm::Type* i8p = builder_->getInt8PtrTy();
  auto* task_type = llvm::FunctionType::get(i32, {i32, i8p}, false);
  llvm::Function* task = llvm::Function::Create(task_type, llvm::Function::InternalLinkage,
                                                func_name_ + "_parallel_" + std::to_string(task_counter_++), module_);
  // Save the enclosing function's state.
  llvm::Function* saved_fn = function_;
  llvm::BasicBlock* saved_bb = builder_->GetInsertBlock();
  auto saved_vars = var_map_;
  auto saved_buffers = buffers_;
  auto saved_workspaces = std::move(live_workspaces_);  // the task frees none of the caller's
  live_workspaces_.clear();
  function_ = task;
  builder_->SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "entry", task));
  llvm::Value* data = builder_->CreateBitCast(task->getArg(1), llvm::PointerType::getUnqual(closure_type));
  for (size_t i = 0; i < captured.size(); ++i) {
    llvm::Value* v = builder_->CreateLoad(field_types[i], builder_->CreateStructGEP(closure_type, data, static_cast<unsigned>(i)));
    auto b = saved_buffers.find(captured[i]);
    if (b != saved_buffers.end()) {
      buffers_[captured[i]] = BufferPtr{v, b->second.dtype};
    } else {
      var_map_[captured[i]] = v;
    }
  }
  llvm::Value* index = builder_->CreateIntCast(task->getArg(0), min->getType(), true);
  // The loop's min is recomputed inside the task from captured values.
  llvm::Value* min_in_task = VisitExpr(op->min);
  var_map_[op->loop_var.get()] = builder_->CreateAdd(min_in_task, index);
  VisitStmt(op->body);
  builder_->CreateRet(builder_->getInt32(0));
  // Restore.
  function_ = saved_fn;
  var_map_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);
  live_workspaces_ = std::move(saved_workspaces);
  builder_->SetInsertPoint(saved_bb);

  llvm::FunctionCallee launcher = module_->getOrInsertFunction(
      "TesseraParallelFor", llvm::FunctionType::get(i32, {llvm::PointerType::getUnqual(task_type), i8p, i32}, false));
  llvm::Value* rc = builder_->CreateCall(
      launcher, {task, builder_->CreateBitCast(closure, i8p), builder_->CreateIntCast(extent, i32, true)});
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(*ctx_, "parallel_ok", function_);
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(*ctx_, "parallel_fail", function_);
  builder_->CreateCondBr(builder_->CreateICmpEQ(rc, builder_->getInt32(0)), ok, fail);
  builder_->SetInsertPoint(fail);
  FreeLiveWorkspaces();
  builder_->CreateRet(rc);
  builder_->SetInsertPoint(ok);
}

void CodeGenCPU::VisitStmt_(const EvaluateNode* op) {
  const auto* call = op->value.as<CallNode>();
  if (call == nullptr || !IsLaunchKernel(call)) return CodeGenLLVM::VisitStmt_(op);
  LaunchKernelCall launch = ParseLaunchKernel(call, func_name_);
  llvm::Type* i8p = builder_->getInt8PtrTy();
  llvm::Type* i32 = builder_->getInt32Ty();
  llvm::Type* i64 = builder_->getInt64Ty();
  // Each argument's value in a stack slot; the launch takes their addresses.
  const size_t n = launch.args.size();
  llvm::Value* slots = EntryAlloca(i8p, builder_->getInt32(static_cast<uint32_t>(std::max<size_t>(n, 1))), 8);
  for (size_t i = 0; i < n; ++i) {
    const PrimExpr& a = launch.args[i];
    llvm::Value* value = nullptr;
    if (const auto* v = a.as<VarNode>(); v != nullptr && buffers_.count(v)) {
      value = builder_->CreateBitCast(buffers_.at(v).ptr, i8p);
    } else if (a.dtype().is_handle()) {
      value = VisitExpr(a);
    } else {  // the kernel reads the value as it is stored (bfloat16 as 16 bits, bool as a byte)
      value = ToStorage(VisitExpr(a), a.dtype());
    }
    llvm::Value* cell = EntryAlloca(value->getType(), nullptr, 8);
    builder_->CreateStore(value, cell);
    builder_->CreateStore(builder_->CreateBitCast(cell, i8p),
                          builder_->CreateInBoundsGEP(i8p, slots, builder_->getInt64(i)));
  }
  std::vector<llvm::Value*> call_args = {builder_->CreateGlobalStringPtr(launch.kernel)};
  for (const PrimExpr& d : launch.dims) call_args.push_back(builder_->CreateIntCast(VisitExpr(d), i64, true));
  call_args.push_back(slots);
  call_args.push_back(builder_->getInt32(static_cast<uint32_t>(n)));
  std::vector<llvm::Type*> types(8, i64);
  types[0] = i8p;
  types.push_back(llvm::PointerType::getUnqual(i8p));
  types.push_back(i32);
  llvm::FunctionCallee launcher =
      module_->getOrInsertFunction("TesseraLaunchKernel", llvm::FunctionType::get(i32, types, false));
  llvm::Value* rc = builder_->CreateCall(launcher, call_args);
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(*ctx_, "launch_ok", function_);
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(*ctx_, "launch_fail", function_);
  builder_->CreateCondBr(builder_->CreateICmpEQ(rc, builder_->getInt32(0)), ok, fail);
  builder_->SetInsertPoint(fail);
  FreeLiveWorkspaces();
  builder_->CreateRet(rc);
  builder_->SetInsertPoint(ok);
}

llvm::Value* CodeGenCPU::EmitWorkspaceAlloc(llvm::Value* bytes) {
  // A 64-byte aligned workspace from the runtime.
  llvm::FunctionCallee alloc = module_->getOrInsertFunction(
      "TesseraWorkspaceAlloc", llvm::FunctionType::get(builder_->getInt8PtrTy(), {builder_->getInt64Ty()}, false));
  return builder_->CreateCall(alloc, {bytes});
}

void CodeGenCPU::EmitWorkspaceFree(llvm::Value* ptr) {
  llvm::FunctionCallee free_fn = module_->getOrInsertFunction(
      "TesseraWorkspaceFree", llvm::FunctionType::get(builder_->getVoidTy(), {builder_->getInt8PtrTy()}, false));
  builder_->CreateCall(free_fn, {ptr});
}

void CodeGenCPU::EmitWhileBackEdgeCheck() {
  // One load and a predictable branch per iteration of a while loop.
  llvm::Type* i32 = builder_->getInt32Ty();
  auto* flag = llvm::cast<llvm::GlobalVariable>(module_->getOrInsertGlobal("TesseraInterruptRequested", i32));
  llvm::LoadInst* v = builder_->CreateLoad(i32, flag);
  v->setVolatile(true);
  llvm::BasicBlock* stop = llvm::BasicBlock::Create(*ctx_, "interrupted", function_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(*ctx_, "not_interrupted", function_);
  builder_->CreateCondBr(builder_->CreateICmpNE(v, builder_->getInt32(0)), stop, cont);
  builder_->SetInsertPoint(stop);
  EmitRaise("KeyboardInterrupt: a while loop of function " + func_name_ + " was interrupted");
  builder_->SetInsertPoint(cont);
}

void CodeGenCPU::FreeLiveWorkspaces() {
  for (auto it = live_workspaces_.rbegin(); it != live_workspaces_.rend(); ++it) EmitWorkspaceFree(*it);
}

void CodeGenCPU::EmitRaise(const std::string& message) {
  // Kernels return nonzero after recording the message (runtime/kernel_abi.h).
  llvm::FunctionCallee set_error = module_->getOrInsertFunction(
      "TesseraSetLastError", llvm::FunctionType::get(builder_->getVoidTy(), {builder_->getInt8PtrTy()}, false));
  builder_->CreateCall(set_error, {builder_->CreateGlobalStringPtr(message)});
  FreeLiveWorkspaces();
  builder_->CreateRet(builder_->getInt32(-1));
}

void CodeGenCPU::EmitRaiseIndex(const std::string& what, llvm::Value* index, llvm::Value* extent) {
  llvm::Type* i64 = builder_->getInt64Ty();
  llvm::FunctionCallee set_error = module_->getOrInsertFunction(
      "TesseraSetIndexError", llvm::FunctionType::get(builder_->getVoidTy(), {builder_->getInt8PtrTy(), i64, i64}, false));
  builder_->CreateCall(set_error, {builder_->CreateGlobalStringPtr(what), index, extent});
  FreeLiveWorkspaces();
  builder_->CreateRet(builder_->getInt32(-1));
}

}  // namespace codegen
}  // namespace tessera

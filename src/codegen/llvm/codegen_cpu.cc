// The CPU host part of LLVM code generation (see codegen_cpu.h).
#include "codegen/llvm/codegen_cpu.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

// Variables an outlined parallel body reads from its environment.
class FreeVarCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const SizeVarNode* op) override { Use(op); }
  void VisitExpr_(const LetNode* op) override {
    defined_.insert(op->var.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitBufferUse(const Buffer& b) override { Use(b->data.get()); }
  void VisitStmt_(const ForNode* op) override {
    defined_.insert(op->loop_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    defined_.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    defined_.insert(op->buffer_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  std::vector<const VarNode*> Free() const {
    std::vector<const VarNode*> out;
    for (const VarNode* v : order_)
      if (!defined_.count(v)) out.push_back(v);
    return out;
  }

 private:
  void Use(const VarNode* v) {
    if (seen_.insert(v).second) order_.push_back(v);
  }
  std::set<const VarNode*> seen_, defined_;
  std::vector<const VarNode*> order_;
};

}  // namespace

CodeGenCPU::CodeGenCPU(llvm::LLVMContext* ctx, llvm::Module* module, const Target& target)
    : CodeGenLLVM(ctx, module, target) {}

// ---- functions ----------------------------------------------------------------
// ---- functions ----------------------------------------------------------------
FunctionInfo CodeGenCPU::AddFunction(const std::string& name, const PrimFunc& func) {
  func_name_ = name;
  var_map_.clear();
  buffers_.clear();
  FunctionInfo info;
  info.name = name;
  bool noalias = false;
  if (auto a = func->attrs.Get("tir.noalias")) noalias = a->try_cast<bool>().value_or(false);

  // Parameters of the compute function: buffers, scalars, then size variables.
  std::vector<llvm::Type*> param_types;
  std::vector<std::pair<const VarNode*, DataType>> scalar_params;
  std::vector<Var> sym_vars;
  std::vector<bool> is_buffer;
  std::vector<Buffer> param_buffers;
  for (Var p : func->params) {
    ParamInfo pi;
    if (auto b = func->buffer_map.Get(p)) {
      Buffer buf = *b;
      pi.name = buf->name;
      pi.is_buffer = true;
      pi.dtype = buf->dtype;
      if (!buf->strides.empty()) Unsupported("parameter buffer " + buf->name + " has explicit strides");
      if (!IsConstInt(buf->elem_offset, 0)) Unsupported("parameter buffer " + buf->name + " has an element offset");
      for (PrimExpr dim : buf->shape) {
        ShapeDim sd;
        if (const int64_t* c = AsConstInt(dim)) {
          sd.value = *c;
        } else if (const auto* v = dim.as<VarNode>()) {
          int k = -1;
          for (size_t i = 0; i < sym_vars.size(); ++i)
            if (sym_vars[i].get() == v) k = static_cast<int>(i);
          if (k < 0) {
            k = static_cast<int>(sym_vars.size());
            sym_vars.push_back(GetRef<Var>(v));
            info.sym_vars.push_back(v->name_hint);
          }
          sd.sym = k;
        } else {
          Unsupported("the shape of parameter " + buf->name + " uses an expression; bind each dimension to a variable");
        }
        pi.shape.push_back(sd);
      }
      param_types.push_back(llvm::PointerType::getUnqual(StorageType(buf->dtype)));
      param_buffers.push_back(buf);
      is_buffer.push_back(true);
    } else {
      pi.name = p->name_hint;
      pi.is_buffer = false;
      pi.dtype = p.dtype();
      if (p.dtype().is_handle()) Unsupported("handle parameter " + p->name_hint + " has no buffer in buffer_map");
      param_types.push_back(ValueType(p.dtype()));
      param_buffers.push_back(Buffer());
      is_buffer.push_back(false);
    }
    info.params.push_back(pi);
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
    if (is_buffer[i]) {
      if (noalias) compute->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
      buffers_[param_buffers[i]->data.get()] = BufferPtr{arg, param_buffers[i]->dtype};
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
  FreeVarCollector collector;
  collector.VisitExpr(op->min);
  collector.VisitStmt(op->body);
  std::vector<const VarNode*> captured;
  for (const VarNode* v : collector.Free()) {
    if (v == op->loop_var.get()) continue;
    captured.push_back(v);
  }
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
  builder_->SetInsertPoint(saved_bb);

  llvm::FunctionCallee launcher = module_->getOrInsertFunction(
      "TesseraParallelFor", llvm::FunctionType::get(i32, {llvm::PointerType::getUnqual(task_type), i8p, i32}, false));
  llvm::Value* rc = builder_->CreateCall(
      launcher, {task, builder_->CreateBitCast(closure, i8p), builder_->CreateIntCast(extent, i32, true)});
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(*ctx_, "parallel_ok", function_);
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(*ctx_, "parallel_fail", function_);
  builder_->CreateCondBr(builder_->CreateICmpEQ(rc, builder_->getInt32(0)), ok, fail);
  builder_->SetInsertPoint(fail);
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

void CodeGenCPU::EmitRaise(const std::string& message) {
  // Kernels return nonzero after recording the message (runtime/kernel_abi.h).
  llvm::FunctionCallee set_error = module_->getOrInsertFunction(
      "TesseraSetLastError", llvm::FunctionType::get(builder_->getVoidTy(), {builder_->getInt8PtrTy()}, false));
  builder_->CreateCall(set_error, {builder_->CreateGlobalStringPtr(message)});
  builder_->CreateRet(builder_->getInt32(-1));
}

}  // namespace codegen
}  // namespace tessera

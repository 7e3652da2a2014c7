// TIR -> LLVM IR translation (see codegen_llvm.h).
#include "codegen/llvm/codegen_llvm.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

bool IsFloat(DataType t) { return t.is_float() || t.is_bfloat16(); }
bool IsSigned(DataType t) { return t.is_int(); }

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

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext* ctx, llvm::Module* module, bool bound_check)
    : ctx_(ctx), module_(module), builder_(std::make_unique<llvm::IRBuilder<>>(*ctx)), bound_check_(bound_check) {
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);  // lets LLVM fuse a*b+c into FMA
  builder_->setFastMathFlags(fmf);
}

void CodeGenLLVM::Unsupported(const std::string& what) {
  TESSERA_THROW(NotImplementedError) << "cannot compile function " << func_name_ << ": " << what;
}

llvm::Type* CodeGenLLVM::ValueType(DataType t) {
  llvm::Type* e = nullptr;
  if (t.is_bool()) {
    e = llvm::Type::getInt1Ty(*ctx_);
  } else if (t.is_int() || t.is_uint()) {
    e = llvm::Type::getIntNTy(*ctx_, t.bits());
  } else if (t.is_float()) {
    e = t.bits() == 16 ? llvm::Type::getHalfTy(*ctx_)
        : t.bits() == 32 ? llvm::Type::getFloatTy(*ctx_) : llvm::Type::getDoubleTy(*ctx_);
  } else if (t.is_bfloat16()) {
    e = llvm::Type::getFloatTy(*ctx_);  // computed in float32, rounded on store
  } else if (t.is_handle()) {
    e = llvm::Type::getInt8PtrTy(*ctx_);
  } else {
    Unsupported("values of dtype " + t.str());
  }
  return t.lanes() > 1 ? llvm::FixedVectorType::get(e, t.lanes()) : e;
}

llvm::Type* CodeGenLLVM::StorageType(DataType t) {
  llvm::Type* e = nullptr;
  if (t.is_bool()) e = llvm::Type::getInt8Ty(*ctx_);
  else if (t.is_bfloat16()) e = llvm::Type::getInt16Ty(*ctx_);
  else return ValueType(t);
  return t.lanes() > 1 ? llvm::FixedVectorType::get(e, t.lanes()) : e;
}

llvm::Value* CodeGenLLVM::ToStorage(llvm::Value* v, DataType t) {
  if (t.is_bool()) return builder_->CreateZExt(v, StorageType(t));
  if (t.is_bfloat16()) {
    // Round to nearest even: bits + 0x7FFF + ((bits >> 16) & 1), keep the high half.
    llvm::Type* i32 = builder_->getInt32Ty();
    if (t.lanes() > 1) i32 = llvm::FixedVectorType::get(i32, t.lanes());
    llvm::Value* bits = builder_->CreateBitCast(v, i32);
    llvm::Value* lsb = builder_->CreateAnd(builder_->CreateLShr(bits, 16), 1);
    llvm::Value* rounded = builder_->CreateAdd(builder_->CreateAdd(bits, llvm::ConstantInt::get(i32, 0x7FFF)), lsb);
    return builder_->CreateTrunc(builder_->CreateLShr(rounded, 16), StorageType(t));
  }
  return v;
}

llvm::Value* CodeGenLLVM::FromStorage(llvm::Value* v, DataType t) {
  if (t.is_bool()) return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  if (t.is_bfloat16()) {
    llvm::Type* i32 = builder_->getInt32Ty();
    if (t.lanes() > 1) i32 = llvm::FixedVectorType::get(i32, t.lanes());
    return builder_->CreateBitCast(builder_->CreateShl(builder_->CreateZExt(v, i32), 16), ValueType(t));
  }
  return v;
}

llvm::Value* CodeGenLLVM::Cast(llvm::Value* v, DataType from, DataType to) {
  llvm::Type* target = ValueType(to);
  if (from == to) return v;
  if (to.is_bool()) {
    if (IsFloat(from)) return builder_->CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (IsFloat(from) && IsFloat(to)) {
    // double <-> half goes through float: x86 has instructions for float <-> half only.
    if ((from.bits() == 64 && to.bits() == 16) || (from.bits() == 16 && to.bits() == 64)) {
      v = builder_->CreateFPCast(v, ValueType(DataType::Float(32, from.lanes())));
    }
    return builder_->CreateFPCast(v, target);
  }
  if (IsFloat(from)) return IsSigned(to) ? builder_->CreateFPToSI(v, target) : builder_->CreateFPToUI(v, target);
  if (IsFloat(to)) {
    return (IsSigned(from) ? builder_->CreateSIToFP(v, target) : builder_->CreateUIToFP(v, target));
  }
  return builder_->CreateIntCast(v, target, IsSigned(from) && !from.is_bool());
}

llvm::AllocaInst* CodeGenLLVM::EntryAlloca(llvm::Type* type, llvm::Value* count, unsigned align) {
  llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
  llvm::AllocaInst* a = entry.CreateAlloca(type, count);
  a->setAlignment(llvm::Align(align));
  return a;
}

CodeGenLLVM::BufferPtr CodeGenLLVM::LookupBuffer(const Buffer& buffer) {
  auto it = buffers_.find(buffer->data.get());
  if (it == buffers_.end()) Unsupported("buffer " + buffer->name + " is used but not allocated or passed in");
  return it->second;
}

void CodeGenLLVM::CheckBounds(const Buffer& buffer, llvm::Value* index) {
  if (!bound_check_ || buffer->shape.size() != 1) return;
  llvm::Value* extent = builder_->CreateIntCast(VisitExpr(buffer->shape[0]), index->getType(), true);
  llvm::Value* ok = builder_->CreateAnd(builder_->CreateICmpSGE(index, llvm::ConstantInt::get(index->getType(), 0)),
                                        builder_->CreateICmpSLT(index, extent));
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(*ctx_, "out_of_bounds", function_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(*ctx_, "in_bounds", function_);
  builder_->CreateCondBr(ok, cont, fail);
  builder_->SetInsertPoint(fail);
  llvm::FunctionCallee set_error = module_->getOrInsertFunction(
      "TesseraSetLastError", llvm::FunctionType::get(builder_->getVoidTy(), {builder_->getInt8PtrTy()}, false));
  builder_->CreateCall(set_error, {builder_->CreateGlobalStringPtr("index out of bounds in buffer " + buffer->name)});
  builder_->CreateRet(builder_->getInt32(-1));
  builder_->SetInsertPoint(cont);
}

llvm::Value* CodeGenLLVM::ElementPtr(const BufferPtr& buf, llvm::Value* index) {
  return builder_->CreateInBoundsGEP(StorageType(buf.dtype), buf.ptr, index);
}

// ---- functions ----------------------------------------------------------------
FunctionInfo CodeGenLLVM::AddFunction(const std::string& name, const PrimFunc& original, const PrimFunc& lowered) {
  func_name_ = name;
  var_map_.clear();
  buffers_.clear();
  FunctionInfo info;
  info.name = name;
  bool noalias = false;
  if (auto a = original->attrs.Get("tir.noalias")) noalias = a->try_cast<bool>().value_or(false);

  // Parameters of the compute function: buffers, scalars, then size variables.
  std::vector<llvm::Type*> param_types;
  std::vector<std::pair<const VarNode*, DataType>> scalar_params;
  std::vector<Var> sym_vars;
  std::vector<bool> is_buffer;
  std::vector<Buffer> param_buffers;
  for (Var p : original->params) {
    ParamInfo pi;
    if (auto b = original->buffer_map.Get(p)) {
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
  size_t np = original->params.size();
  for (size_t i = 0; i < np; ++i) {
    llvm::Argument* arg = compute->getArg(static_cast<unsigned>(i));
    arg->setName(info.params[i].name);
    if (is_buffer[i]) {
      if (noalias) compute->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
      buffers_[param_buffers[i]->data.get()] = BufferPtr{arg, param_buffers[i]->dtype};
    } else {
      var_map_[original->params[i].get()] = arg;
    }
  }
  for (size_t k = 0; k < sym_vars.size(); ++k) {
    llvm::Argument* arg = compute->getArg(static_cast<unsigned>(np + k));
    arg->setName(sym_vars[k]->name_hint);
    var_map_[sym_vars[k].get()] = arg;
  }
  VisitStmt(lowered->body);
  builder_->CreateRet(builder_->getInt32(0));

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
    if (is_buffer[i]) {
      call_args.push_back(builder_->CreateBitCast(p, param_types[i]));
    } else if (info.params[i].dtype.is_float()) {
      llvm::Value* d = builder_->CreateLoad(builder_->getDoubleTy(), builder_->CreateBitCast(p, llvm::PointerType::getUnqual(builder_->getDoubleTy())));
      call_args.push_back(builder_->CreateFPCast(d, param_types[i]));
    } else {
      llvm::Value* v = builder_->CreateLoad(builder_->getInt64Ty(), builder_->CreateBitCast(p, llvm::PointerType::getUnqual(builder_->getInt64Ty())));
      call_args.push_back(info.params[i].dtype.is_bool() ? builder_->CreateICmpNE(v, builder_->getInt64(0))
                                                           : builder_->CreateIntCast(v, param_types[i], true));
    }
  }
  for (size_t k = 0; k < sym_vars.size(); ++k) {
    llvm::Value* p = slot(np + k);
    llvm::Value* v = builder_->CreateLoad(builder_->getInt64Ty(), builder_->CreateBitCast(p, llvm::PointerType::getUnqual(builder_->getInt64Ty())));
    call_args.push_back(builder_->CreateIntCast(v, param_types[np + k], true));
  }
  builder_->CreateRet(builder_->CreateCall(compute, call_args));

  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*module_, &os)) {
    TESSERA_THROW(InternalError) << "generated invalid LLVM IR for " << name << ": " << os.str();
  }
  return info;
}

// ---- expressions ------------------------------------------------------------
llvm::Value* CodeGenLLVM::VisitExprDefault_(const Object* op) {
  Unsupported("expression " + op->GetTypeKey());
}

llvm::Value* CodeGenLLVM::VisitExpr_(const VarNode* op) {
  auto it = var_map_.find(op);
  if (it == var_map_.end()) {
    TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << ": variable " << op->name_hint
                              << " is used but never defined (not a parameter, loop variable or let binding)";
  }
  return it->second;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const IntImmNode* op) {
  return llvm::ConstantInt::getSigned(ValueType(op->dtype), op->value);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const FloatImmNode* op) { return llvm::ConstantFP::get(ValueType(op->dtype), op->value); }
llvm::Value* CodeGenLLVM::VisitExpr_(const StringImmNode* op) { return builder_->CreateGlobalStringPtr(op->value); }
llvm::Value* CodeGenLLVM::VisitExpr_(const CastNode* op) { return Cast(VisitExpr(op->value), op->value.dtype(), op->dtype); }

llvm::Value* CodeGenLLVM::VisitExpr_(const AddNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  return IsFloat(op->dtype) ? builder_->CreateFAdd(a, b) : builder_->CreateAdd(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const SubNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  return IsFloat(op->dtype) ? builder_->CreateFSub(a, b) : builder_->CreateSub(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const MulNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  return IsFloat(op->dtype) ? builder_->CreateFMul(a, b) : builder_->CreateMul(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const DivNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (IsFloat(op->dtype)) return builder_->CreateFDiv(a, b);
  return IsSigned(op->dtype) ? builder_->CreateSDiv(a, b) : builder_->CreateUDiv(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const ModNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (IsFloat(op->dtype)) return builder_->CreateFRem(a, b);
  return IsSigned(op->dtype) ? builder_->CreateSRem(a, b) : builder_->CreateURem(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const FloorDivNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (IsFloat(op->dtype)) {
    return CallIntrinsic(llvm::Intrinsic::floor, {builder_->CreateFDiv(a, b)}, ValueType(op->dtype));
  }
  if (!IsSigned(op->dtype)) return builder_->CreateUDiv(a, b);
  // Python semantics: q = a / b, minus one when the remainder's sign differs from b's.
  llvm::Value* q = builder_->CreateSDiv(a, b);
  llvm::Value* r = builder_->CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust = builder_->CreateAnd(builder_->CreateICmpNE(r, zero),
                                            builder_->CreateICmpNE(builder_->CreateICmpSLT(r, zero),
                                                                   builder_->CreateICmpSLT(b, zero)));
  return builder_->CreateSub(q, builder_->CreateZExt(adjust, a->getType()));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const FloorModNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  if (IsFloat(op->dtype)) {
    llvm::Value* q = CallIntrinsic(llvm::Intrinsic::floor, {builder_->CreateFDiv(a, b)}, ValueType(op->dtype));
    return builder_->CreateFSub(a, builder_->CreateFMul(q, b));
  }
  if (!IsSigned(op->dtype)) return builder_->CreateURem(a, b);
  llvm::Value* r = builder_->CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust = builder_->CreateAnd(builder_->CreateICmpNE(r, zero),
                                            builder_->CreateICmpNE(builder_->CreateICmpSLT(r, zero),
                                                                   builder_->CreateICmpSLT(b, zero)));
  return builder_->CreateSelect(adjust, builder_->CreateAdd(r, b), r);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const MinNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  llvm::Value* lt = IsFloat(op->dtype) ? builder_->CreateFCmpOLT(a, b)
                    : IsSigned(op->dtype) ? builder_->CreateICmpSLT(a, b) : builder_->CreateICmpULT(a, b);
  return builder_->CreateSelect(lt, a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const MaxNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  llvm::Value* gt = IsFloat(op->dtype) ? builder_->CreateFCmpOGT(a, b)
                    : IsSigned(op->dtype) ? builder_->CreateICmpSGT(a, b) : builder_->CreateICmpUGT(a, b);
  return builder_->CreateSelect(gt, a, b);
}

llvm::Value* CodeGenLLVM::Compare(const BinaryOpNode* op, llvm::CmpInst::Predicate si, llvm::CmpInst::Predicate ui,
                                  llvm::CmpInst::Predicate f) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  DataType t = op->a.dtype();
  if (IsFloat(t)) return builder_->CreateFCmp(f, a, b);
  return builder_->CreateICmp(IsSigned(t) ? si : ui, a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const EQNode* op) {
  return Compare(op, llvm::CmpInst::ICMP_EQ, llvm::CmpInst::ICMP_EQ, llvm::CmpInst::FCMP_OEQ);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const NENode* op) {
  return Compare(op, llvm::CmpInst::ICMP_NE, llvm::CmpInst::ICMP_NE, llvm::CmpInst::FCMP_UNE);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const LTNode* op) {
  return Compare(op, llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_ULT, llvm::CmpInst::FCMP_OLT);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const LENode* op) {
  return Compare(op, llvm::CmpInst::ICMP_SLE, llvm::CmpInst::ICMP_ULE, llvm::CmpInst::FCMP_OLE);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const GTNode* op) {
  return Compare(op, llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_UGT, llvm::CmpInst::FCMP_OGT);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const GENode* op) {
  return Compare(op, llvm::CmpInst::ICMP_SGE, llvm::CmpInst::ICMP_UGE, llvm::CmpInst::FCMP_OGE);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const AndNode* op) { return builder_->CreateAnd(VisitExpr(op->a), VisitExpr(op->b)); }
llvm::Value* CodeGenLLVM::VisitExpr_(const OrNode* op) { return builder_->CreateOr(VisitExpr(op->a), VisitExpr(op->b)); }
llvm::Value* CodeGenLLVM::VisitExpr_(const NotNode* op) { return builder_->CreateNot(VisitExpr(op->a)); }
llvm::Value* CodeGenLLVM::VisitExpr_(const SelectNode* op) {
  return builder_->CreateSelect(VisitExpr(op->condition), VisitExpr(op->true_value), VisitExpr(op->false_value));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const LetNode* op) {
  var_map_[op->var.get()] = VisitExpr(op->value);
  llvm::Value* v = VisitExpr(op->body);
  var_map_.erase(op->var.get());
  return v;
}
llvm::Value* CodeGenLLVM::VisitExpr_(const RampNode* op) {
  llvm::Value* base = VisitExpr(op->base);
  llvm::Value* stride = VisitExpr(op->stride);
  llvm::Type* et = base->getType();
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < op->lanes; ++i) lanes.push_back(llvm::ConstantInt::get(et, i));
  llvm::Value* iota = llvm::ConstantVector::get(lanes);
  llvm::Value* vb = builder_->CreateVectorSplat(op->lanes, base);
  llvm::Value* vs = builder_->CreateVectorSplat(op->lanes, stride);
  return builder_->CreateAdd(vb, builder_->CreateMul(vs, iota));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const BroadcastNode* op) {
  return builder_->CreateVectorSplat(op->lanes, VisitExpr(op->value));
}

llvm::Value* CodeGenLLVM::CallIntrinsic(llvm::Intrinsic::ID id, const std::vector<llvm::Value*>& args, llvm::Type* type) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(module_, id, {type});
  return builder_->CreateCall(f, args);
}

llvm::Value* CodeGenLLVM::CallLibm(const std::string& name, llvm::Value* x, DataType t) {
  // libm works on scalars of float or double: widen half, scalarize vectors.
  DataType scalar = t.element_of();
  bool is_double = scalar.is_float() && scalar.bits() == 64;
  llvm::Type* ct = is_double ? builder_->getDoubleTy() : builder_->getFloatTy();
  std::string fname = is_double ? name : name + "f";
  llvm::FunctionCallee fn = module_->getOrInsertFunction(fname, llvm::FunctionType::get(ct, {ct}, false));
  auto one = [&](llvm::Value* v) {
    llvm::Value* w = builder_->CreateFPCast(v, ct);
    return builder_->CreateFPCast(builder_->CreateCall(fn, {w}), ValueType(scalar));
  };
  if (t.lanes() == 1) return one(x);
  llvm::Value* out = llvm::UndefValue::get(ValueType(t));
  for (int i = 0; i < t.lanes(); ++i) {
    out = builder_->CreateInsertElement(out, one(builder_->CreateExtractElement(x, builder_->getInt32(i))), builder_->getInt32(i));
  }
  return out;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const CallNode* op) {
  const auto* callee = op->op.as<OpNode>();
  if (callee == nullptr) Unsupported("calls to functions other than intrinsics");
  const std::string& name = callee->name;
  llvm::Type* rt = ValueType(op->dtype);
  auto arg = [&](size_t i) { return VisitExpr(op->args[i]); };
  struct IntrinsicEntry {
    const char* name;
    llvm::Intrinsic::ID id;
  };
  static const IntrinsicEntry kUnary[] = {
      {"tir.exp", llvm::Intrinsic::exp},     {"tir.exp2", llvm::Intrinsic::exp2},   {"tir.log", llvm::Intrinsic::log},
      {"tir.log2", llvm::Intrinsic::log2},   {"tir.log10", llvm::Intrinsic::log10}, {"tir.sqrt", llvm::Intrinsic::sqrt},
      {"tir.fabs", llvm::Intrinsic::fabs},   {"tir.floor", llvm::Intrinsic::floor}, {"tir.ceil", llvm::Intrinsic::ceil},
      {"tir.trunc", llvm::Intrinsic::trunc}, {"tir.round", llvm::Intrinsic::nearbyint},
      {"tir.nearbyint", llvm::Intrinsic::nearbyint}, {"tir.sin", llvm::Intrinsic::sin}, {"tir.cos", llvm::Intrinsic::cos},
  };
  for (const auto& e : kUnary) {
    if (name == e.name) return CallIntrinsic(e.id, {arg(0)}, rt);
  }
  static const char* kLibm[][2] = {{"tir.tanh", "tanh"}, {"tir.erf", "erf"}, {"tir.tan", "tan"}, {"tir.asin", "asin"},
                                   {"tir.acos", "acos"}, {"tir.atan", "atan"}, {"tir.sinh", "sinh"}, {"tir.cosh", "cosh"},
                                   {"tir.log1p", "log1p"}};
  for (const auto& e : kLibm) {
    if (name == e[0]) return CallLibm(e[1], arg(0), op->dtype);
  }
  if (name == "tir.pow") return CallIntrinsic(llvm::Intrinsic::pow, {arg(0), arg(1)}, rt);
  if (name == "tir.exp10") {
    return CallIntrinsic(llvm::Intrinsic::pow, {llvm::ConstantFP::get(rt, 10.0), arg(0)}, rt);
  }
  if (name == "tir.fmod") return builder_->CreateFRem(arg(0), arg(1));
  if (name == "tir.sigmoid") {
    llvm::Value* x = arg(0);
    llvm::Value* e = CallIntrinsic(llvm::Intrinsic::exp, {builder_->CreateFNeg(x)}, rt);
    llvm::Value* one = llvm::ConstantFP::get(rt, 1.0);
    return builder_->CreateFDiv(one, builder_->CreateFAdd(one, e));
  }
  if (name == "tir.rsqrt") {
    return builder_->CreateFDiv(llvm::ConstantFP::get(rt, 1.0), CallIntrinsic(llvm::Intrinsic::sqrt, {arg(0)}, rt));
  }
  if (name == "tir.isnan") {
    llvm::Value* x = arg(0);
    return builder_->CreateFCmpUNO(x, x);
  }
  if (name == "tir.isinf" || name == "tir.isfinite") {
    llvm::Value* x = arg(0);
    llvm::Value* ax = CallIntrinsic(llvm::Intrinsic::fabs, {x}, x->getType());
    llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
    return name == "tir.isinf" ? builder_->CreateFCmpOEQ(ax, inf) : builder_->CreateFCmpOLT(ax, inf);
  }
  if (name == "tir.likely") return arg(0);
  if (name == "tir.bitwise_and") return builder_->CreateAnd(arg(0), arg(1));
  if (name == "tir.bitwise_or") return builder_->CreateOr(arg(0), arg(1));
  if (name == "tir.bitwise_xor") return builder_->CreateXor(arg(0), arg(1));
  if (name == "tir.bitwise_not") return builder_->CreateNot(arg(0));
  if (name == "tir.shift_left") return builder_->CreateShl(arg(0), arg(1));
  if (name == "tir.shift_right") {
    return IsSigned(op->dtype) ? builder_->CreateAShr(arg(0), arg(1)) : builder_->CreateLShr(arg(0), arg(1));
  }
  if (name == "tir.popcount") return CallIntrinsic(llvm::Intrinsic::ctpop, {arg(0)}, rt);
  if (name == "tir.reinterpret") return builder_->CreateBitCast(arg(0), rt);
  if (name == "tir.tvm_access_ptr") {
    const auto* data = op->args[1].as<VarNode>();
    if (data == nullptr) Unsupported("access_ptr of a non-variable data pointer");
    auto it = buffers_.find(data);
    if (it == buffers_.end()) Unsupported("access_ptr of buffer data " + data->name_hint + " that is not allocated");
    llvm::Value* p = ElementPtr(it->second, arg(2));
    return builder_->CreateBitCast(p, builder_->getInt8PtrTy());
  }
  if (name == "tir.type_annotation") return llvm::Constant::getNullValue(builder_->getInt8PtrTy());
  if (name == "tir.if_then_else") {
    llvm::Value* cond = arg(0);
    if (cond->getType()->isVectorTy()) return builder_->CreateSelect(cond, arg(1), arg(2));
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(*ctx_, "ite_then", function_);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(*ctx_, "ite_else", function_);
    llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(*ctx_, "ite_end", function_);
    builder_->CreateCondBr(cond, then_bb, else_bb);
    builder_->SetInsertPoint(then_bb);
    llvm::Value* t = arg(1);
    llvm::BasicBlock* then_end = builder_->GetInsertBlock();
    builder_->CreateBr(end_bb);
    builder_->SetInsertPoint(else_bb);
    llvm::Value* f = arg(2);
    llvm::BasicBlock* else_end = builder_->GetInsertBlock();
    builder_->CreateBr(end_bb);
    builder_->SetInsertPoint(end_bb);
    llvm::PHINode* phi = builder_->CreatePHI(rt, 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }
  if (name == "tir.call_extern" || name == "tir.call_pure_extern") {
    const auto* fname = op->args.size() > 0 ? op->args[0].as<StringImmNode>() : nullptr;
    if (fname == nullptr) Unsupported("call_extern needs the function name as its first argument");
    std::vector<llvm::Value*> values;
    std::vector<llvm::Type*> types;
    for (size_t i = 1; i < op->args.size(); ++i) {
      values.push_back(arg(i));
      types.push_back(values.back()->getType());
    }
    llvm::Type* ret = op->dtype.is_void() ? builder_->getVoidTy() : rt;
    llvm::FunctionCallee fn = module_->getOrInsertFunction(fname->value, llvm::FunctionType::get(ret, types, false));
    llvm::Value* r = builder_->CreateCall(fn, values);
    return op->dtype.is_void() ? llvm::ConstantInt::get(builder_->getInt32Ty(), 0) : r;
  }
  Unsupported("the intrinsic " + name);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const BufferLoadNode* op) {
  BufferPtr buf = LookupBuffer(op->buffer);
  TESSERA_ICHECK(op->indices.size() == 1) << "BufferLoad of " << op->buffer->name << " was not flattened";
  PrimExpr index = op->indices[0];
  DataType t = op->dtype;
  if (t.lanes() == 1) {
    llvm::Value* idx = VisitExpr(index);
    CheckBounds(op->buffer, idx);
    llvm::Value* v = builder_->CreateAlignedLoad(StorageType(t), ElementPtr(buf, idx),
                                                 llvm::Align(std::max(1, t.bytes())));
    return FromStorage(v, t);
  }
  if (const auto* ramp = index.as<RampNode>()) {
    if (IsConstInt(ramp->stride, 1)) {
      llvm::Value* p = ElementPtr(buf, VisitExpr(ramp->base));
      p = builder_->CreateBitCast(p, llvm::PointerType::getUnqual(StorageType(t)));
      llvm::Value* v = builder_->CreateAlignedLoad(StorageType(t), p, llvm::Align(std::max(1, t.element_of().bytes())));
      return FromStorage(v, t);
    }
  }
  llvm::Value* idx = VisitExpr(index);
  llvm::Value* out = llvm::UndefValue::get(ValueType(t));
  DataType et = t.element_of();
  for (int i = 0; i < t.lanes(); ++i) {
    llvm::Value* li = builder_->CreateExtractElement(idx, builder_->getInt32(i));
    llvm::Value* v = builder_->CreateAlignedLoad(StorageType(et), ElementPtr(buf, li), llvm::Align(std::max(1, et.bytes())));
    out = builder_->CreateInsertElement(out, FromStorage(v, et), builder_->getInt32(i));
  }
  return out;
}

// ---- statements ----------------------------------------------------------------
void CodeGenLLVM::VisitStmtDefault_(const Object* op) { Unsupported("statement " + op->GetTypeKey()); }

void CodeGenLLVM::VisitStmt_(const BufferStoreNode* op) {
  BufferPtr buf = LookupBuffer(op->buffer);
  TESSERA_ICHECK(op->indices.size() == 1) << "BufferStore to " << op->buffer->name << " was not flattened";
  PrimExpr index = op->indices[0];
  DataType t = op->value.dtype();
  llvm::Value* value = VisitExpr(op->value);
  if (t.lanes() == 1) {
    llvm::Value* idx = VisitExpr(index);
    CheckBounds(op->buffer, idx);
    builder_->CreateAlignedStore(ToStorage(value, t), ElementPtr(buf, idx), llvm::Align(std::max(1, t.bytes())));
    return;
  }
  if (const auto* ramp = index.as<RampNode>()) {
    if (IsConstInt(ramp->stride, 1)) {
      llvm::Value* p = ElementPtr(buf, VisitExpr(ramp->base));
      p = builder_->CreateBitCast(p, llvm::PointerType::getUnqual(StorageType(t)));
      builder_->CreateAlignedStore(ToStorage(value, t), p, llvm::Align(std::max(1, t.element_of().bytes())));
      return;
    }
  }
  llvm::Value* idx = VisitExpr(index);
  DataType et = t.element_of();
  for (int i = 0; i < t.lanes(); ++i) {
    llvm::Value* li = builder_->CreateExtractElement(idx, builder_->getInt32(i));
    llvm::Value* v = builder_->CreateExtractElement(value, builder_->getInt32(i));
    builder_->CreateAlignedStore(ToStorage(v, et), ElementPtr(buf, li), llvm::Align(std::max(1, et.bytes())));
  }
}

void CodeGenLLVM::EmitSerialFor(const Var& var, llvm::Value* min, llvm::Value* extent, const Stmt& body) {
  llvm::BasicBlock* pre = builder_->GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(*ctx_, "for_" + var->name_hint, function_);
  llvm::BasicBlock* loop_body = llvm::BasicBlock::Create(*ctx_, "for_body", function_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(*ctx_, "for_end", function_);
  llvm::Value* end = builder_->CreateAdd(min, extent);
  builder_->CreateBr(header);
  builder_->SetInsertPoint(header);
  llvm::PHINode* iv = builder_->CreatePHI(min->getType(), 2, var->name_hint);
  iv->addIncoming(min, pre);
  builder_->CreateCondBr(builder_->CreateICmpSLT(iv, end), loop_body, exit);
  builder_->SetInsertPoint(loop_body);
  var_map_[var.get()] = iv;
  VisitStmt(body);
  llvm::Value* next = builder_->CreateAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), "", /*HasNUW=*/false,
                                          /*HasNSW=*/true);
  iv->addIncoming(next, builder_->GetInsertBlock());
  builder_->CreateBr(header);
  builder_->SetInsertPoint(exit);
  var_map_.erase(var.get());
}

void CodeGenLLVM::EmitParallelFor(const ForNode* op) {
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

void CodeGenLLVM::VisitStmt_(const ForNode* op) {
  if (op->kind == ForKind::kThreadBinding) {
    TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << " for the CPU: loop "
                              << op->loop_var->name_hint << " is bound to a GPU thread axis (build with target=\"cuda\")";
  }
  if (op->kind == ForKind::kParallel) {
    if (const int64_t* ext = AsConstInt(op->extent); ext != nullptr && *ext <= 1) {
      // Nothing to distribute.
    } else {
      EmitParallelFor(op);
      return;
    }
  }
  EmitSerialFor(op->loop_var, VisitExpr(op->min), VisitExpr(op->extent), op->body);
}

void CodeGenLLVM::VisitStmt_(const IfThenElseNode* op) {
  llvm::Value* cond = VisitExpr(op->condition);
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(*ctx_, "if_then", function_);
  llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(*ctx_, "if_end", function_);
  llvm::BasicBlock* else_bb = op->else_case ? llvm::BasicBlock::Create(*ctx_, "if_else", function_) : end_bb;
  builder_->CreateCondBr(cond, then_bb, else_bb);
  builder_->SetInsertPoint(then_bb);
  VisitStmt(op->then_case);
  builder_->CreateBr(end_bb);
  if (op->else_case) {
    builder_->SetInsertPoint(else_bb);
    VisitStmt(*op->else_case);
    builder_->CreateBr(end_bb);
  }
  builder_->SetInsertPoint(end_bb);
}

void CodeGenLLVM::VisitStmt_(const SeqStmtNode* op) {
  for (Stmt s : op->seq) VisitStmt(s);
}
void CodeGenLLVM::VisitStmt_(const EvaluateNode* op) {
  if (op->value.as<IntImmNode>()) return;
  VisitExpr(op->value);
}
void CodeGenLLVM::VisitStmt_(const LetStmtNode* op) {
  var_map_[op->var.get()] = VisitExpr(op->value);
  VisitStmt(op->body);
  var_map_.erase(op->var.get());
}
void CodeGenLLVM::VisitStmt_(const AttrStmtNode* op) { VisitStmt(op->body); }
void CodeGenLLVM::VisitStmt_(const DeclBufferNode* op) { VisitStmt(op->body); }

void CodeGenLLVM::VisitStmt_(const AllocateNode* op) {
  TESSERA_ICHECK(op->extents.size() == 1) << "Allocate of " << op->buffer_var->name_hint << " was not flattened";
  DataType t = op->dtype;
  llvm::Type* st = StorageType(t);
  constexpr int64_t kStackLimitBytes = 64 * 1024;
  const int64_t* count = AsConstInt(op->extents[0]);
  if (count != nullptr && *count * std::max(1, t.bytes()) <= kStackLimitBytes) {
    llvm::Value* p = EntryAlloca(st, builder_->getInt64(std::max<int64_t>(1, *count)), 64);
    buffers_[op->buffer_var.get()] = BufferPtr{p, t};
    VisitStmt(op->body);
    buffers_.erase(op->buffer_var.get());
    return;
  }
  // Large or symbolic: a 64-byte aligned workspace from the runtime.
  llvm::Type* i8p = builder_->getInt8PtrTy();
  llvm::FunctionCallee alloc = module_->getOrInsertFunction(
      "TesseraWorkspaceAlloc", llvm::FunctionType::get(i8p, {builder_->getInt64Ty()}, false));
  llvm::FunctionCallee free_fn = module_->getOrInsertFunction(
      "TesseraWorkspaceFree", llvm::FunctionType::get(builder_->getVoidTy(), {i8p}, false));
  llvm::Value* n = builder_->CreateIntCast(VisitExpr(op->extents[0]), builder_->getInt64Ty(), true);
  llvm::Value* bytes = builder_->CreateMul(n, builder_->getInt64(std::max(1, t.bytes())));
  llvm::Value* raw = builder_->CreateCall(alloc, {bytes});
  buffers_[op->buffer_var.get()] = BufferPtr{builder_->CreateBitCast(raw, llvm::PointerType::getUnqual(st)), t};
  VisitStmt(op->body);
  builder_->CreateCall(free_fn, {raw});
  buffers_.erase(op->buffer_var.get());
}

void CodeGenLLVM::VisitStmt_(const WhileNode* op) {
  llvm::BasicBlock* header = llvm::BasicBlock::Create(*ctx_, "while_cond", function_);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(*ctx_, "while_body", function_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(*ctx_, "while_end", function_);
  builder_->CreateBr(header);
  builder_->SetInsertPoint(header);
  builder_->CreateCondBr(VisitExpr(op->condition), body, exit);
  builder_->SetInsertPoint(body);
  VisitStmt(op->body);
  builder_->CreateBr(header);
  builder_->SetInsertPoint(exit);
}

}  // namespace codegen
}  // namespace tessera

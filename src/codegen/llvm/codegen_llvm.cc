// TIR -> LLVM IR translation, independent of how functions are entered
// (see codegen_llvm.h; the CPU host part is codegen_cpu.cc).
#include "codegen/llvm/codegen_llvm.h"

#include "codegen/builtin_ops.h"

#include <llvm/IR/Intrinsics.h>

#include <limits>
#include <sstream>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "ir/op.h"
#include "runtime/registry.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

bool IsFloat(DataType t) { return t.is_float() || t.is_bfloat16(); }
bool IsSigned(DataType t) { return t.is_int(); }

}  // namespace

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext* ctx, llvm::Module* module, const Target& target)
    : ctx_(ctx), module_(module), builder_(std::make_unique<llvm::IRBuilder<>>(*ctx)), target_kind_(target->kind) {
  bound_check_ = target.GetBool("bound-check");
  llvm::FastMathFlags fmf;
  // Contraction (a*b+c into FMA) is on unless -fast-math-contract=false.
  auto contract = target->attrs.Get("fast-math-contract");
  fmf.setAllowContract(!contract || contract->try_cast<bool>().value_or(true));
  if (target.GetBool("fast-math")) fmf.setFast();
  if (target.GetBool("fast-math-nnan")) fmf.setNoNaNs();
  if (target.GetBool("fast-math-ninf")) fmf.setNoInfs();
  if (target.GetBool("fast-math-nsz")) fmf.setNoSignedZeros();
  if (target.GetBool("fast-math-arcp")) fmf.setAllowReciprocal();
  if (target.GetBool("fast-math-reassoc")) fmf.setAllowReassoc();
  builder_->setFastMathFlags(fmf);
}

// ---- hooks: refused unless the backend provides them ------------------------
void CodeGenLLVM::EmitParallelFor(const ForNode* op) {
  Unsupported("parallel loop " + op->loop_var->name_hint + " (target '" + target_kind_ + "' has no parallel runtime)");
}
llvm::Value* CodeGenLLVM::EmitWorkspaceAlloc(llvm::Value*) {
  Unsupported("allocations larger than the stack allows or of symbolic size on target '" + target_kind_ + "'");
}
void CodeGenLLVM::EmitThreadBinding(const ForNode* op) {
  TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << " for target '" << target_kind_
                            << "': loop " << op->loop_var->name_hint
                            << " is bound to a GPU thread axis (build with target=\"cuda\")";
}
void CodeGenLLVM::EmitWorkspaceFree(llvm::Value*) {
  Unsupported("heap workspaces on target '" + target_kind_ + "'");
}
void CodeGenLLVM::EmitRaise(const std::string& message) {
  Unsupported("runtime errors (" + message + ") on target '" + target_kind_ + "'");
}
void CodeGenLLVM::EmitRaiseIndex(const std::string& what, llvm::Value*, llvm::Value*) {
  Unsupported("runtime index checks (" + what + ") on target '" + target_kind_ + "'");
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
  EmitRaise("index out of bounds in buffer " + buffer->name);
  builder_->SetInsertPoint(cont);
}

void CodeGenLLVM::RaiseIf(llvm::Value* bad, const std::string& message) {
  if (bad->getType()->isVectorTy()) bad = builder_->CreateOrReduce(bad);
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(*ctx_, "check_failed", function_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(*ctx_, "check_ok", function_);
  builder_->CreateCondBr(bad, fail, cont);
  builder_->SetInsertPoint(fail);
  EmitRaise(message);
  builder_->SetInsertPoint(cont);
}

void CodeGenLLVM::CheckVectorBounds(const Buffer& buffer, const PrimExpr& index, llvm::Value* base,
                                    llvm::Value* lanes) {
  if (!bound_check_ || buffer->shape.size() != 1) return;
  if (const auto* ramp = index.as<RampNode>()) {
    // A ramp is monotonic: its first and last lanes bound all the others.
    CheckBounds(buffer, base);
    llvm::Value* stride = builder_->CreateIntCast(VisitExpr(ramp->stride), base->getType(), true);
    int n = index.dtype().lanes();
    llvm::Value* last = builder_->CreateAdd(base, builder_->CreateMul(stride, llvm::ConstantInt::get(base->getType(), n - 1)));
    CheckBounds(buffer, last);
    return;
  }
  llvm::Type* vt = lanes->getType();
  llvm::Value* extent = builder_->CreateIntCast(VisitExpr(buffer->shape[0]), vt->getScalarType(), true);
  extent = builder_->CreateVectorSplat(llvm::cast<llvm::FixedVectorType>(vt)->getNumElements(), extent);
  llvm::Value* bad = builder_->CreateOr(builder_->CreateICmpSLT(lanes, llvm::Constant::getNullValue(vt)),
                                        builder_->CreateICmpSGE(lanes, extent));
  RaiseIf(bad, "index out of bounds in buffer " + buffer->name);
}

void CodeGenLLVM::CheckDivisor(const PrimExpr& expr, llvm::Value* a, llvm::Value* b) {
  // Always on (not only under -bound-check): a zero divisor or MIN / -1
  // would otherwise kill the process with SIGFPE. Divisors whose bounds
  // exclude 0 (and -1, or a dividend that excludes MIN) cost nothing.
  DataType t = expr.dtype();
  const auto* bin = expr.as<BinaryOpNode>();
  if (IsFloat(t) || bin == nullptr) return;
  arith::Analyzer ana;
  const arith::BoundEntry db = ana.const_int_bound.Eval(bin->b);
  const bool maybe_zero = db.min_value <= 0 && db.max_value >= 0;
  bool maybe_overflow = IsSigned(t) && db.min_value <= -1 && db.max_value >= -1;
  if (maybe_overflow) {
    const arith::BoundEntry ab = ana.const_int_bound.Eval(bin->a);
    maybe_overflow = ab.min_value <= arith::TypeBound(t.element_of()).min_value;
  }
  if (!maybe_zero && !maybe_overflow) return;
  std::string where = " in `" + arith::ExprToString(expr) + "` of function " + func_name_;
  if (maybe_zero) {
    RaiseIf(builder_->CreateICmpEQ(b, llvm::Constant::getNullValue(b->getType())),
            "ZeroDivisionError: integer division by zero" + where);
  }
  if (maybe_overflow) {
    llvm::Type* st = b->getType()->getScalarType();
    llvm::Value* minus_one = llvm::ConstantInt::getSigned(b->getType(), -1);
    llvm::Value* min = llvm::ConstantInt::get(b->getType(), llvm::APInt::getSignedMinValue(st->getIntegerBitWidth()));
    RaiseIf(builder_->CreateAnd(builder_->CreateICmpEQ(b, minus_one), builder_->CreateICmpEQ(a, min)),
            "OverflowError: integer overflow (the type's minimum divided by -1)" + where);
  }
}

llvm::Value* CodeGenLLVM::EmitCheckedIndex(const CallNode* op) {
  const auto* what = op->args.size() == 4 ? op->args[2].as<StringImmNode>() : nullptr;
  const auto* from_end = op->args.size() == 4 ? op->args[3].as<IntImmNode>() : nullptr;
  if (what == nullptr || from_end == nullptr || !op->dtype.is_int() || op->args[0].dtype() != op->dtype) {
    Unsupported("tir.checked_index needs (index, extent, what: a string, negative_from_end: an int) with a signed "
                "integer index");
  }
  llvm::Value* index = VisitExpr(op->args[0]);
  llvm::Type* type = index->getType();
  llvm::Value* extent = VisitExpr(op->args[1]);
  if (extent->getType()->isVectorTy() != type->isVectorTy()) {
    extent = builder_->CreateVectorSplat(llvm::cast<llvm::FixedVectorType>(type)->getNumElements(), extent);
  }
  extent = builder_->CreateIntCast(extent, type, true);
  llvm::Value* fixed = index;
  if (from_end->value != 0) {
    llvm::Value* negative = builder_->CreateICmpSLT(index, llvm::Constant::getNullValue(type));
    fixed = builder_->CreateSelect(negative, builder_->CreateAdd(index, extent), index);
  }
  // One unsigned compare covers both ends: a still-negative index is huge.
  llvm::Value* bad = builder_->CreateICmpUGE(fixed, extent);
  llvm::Value* any_bad = type->isVectorTy() ? builder_->CreateOrReduce(bad) : bad;
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(*ctx_, "index_out_of_range", function_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(*ctx_, "index_ok", function_);
  builder_->CreateCondBr(any_bad, fail, cont);
  builder_->SetInsertPoint(fail);
  llvm::Value* shown = index;
  llvm::Value* shown_extent = extent;
  if (type->isVectorTy()) {
    // Report the first offending lane.
    int lanes = static_cast<int>(llvm::cast<llvm::FixedVectorType>(type)->getNumElements());
    shown = builder_->CreateExtractElement(index, builder_->getInt32(lanes - 1));
    shown_extent = builder_->CreateExtractElement(extent, builder_->getInt32(0));
    for (int k = lanes - 2; k >= 0; --k) {
      llvm::Value* lane_bad = builder_->CreateExtractElement(bad, builder_->getInt32(k));
      shown = builder_->CreateSelect(lane_bad, builder_->CreateExtractElement(index, builder_->getInt32(k)), shown);
    }
  }
  EmitRaiseIndex(what->value, builder_->CreateIntCast(shown, builder_->getInt64Ty(), true),
                 builder_->CreateIntCast(shown_extent, builder_->getInt64Ty(), true));
  builder_->SetInsertPoint(cont);
  return fixed;
}

void CodeGenLLVM::CheckBufferDtype(const std::string& buffer, DataType t) {
  if (t.is_handle() || t.lanes() != 1 || t.is_void()) {
    TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << ": buffer " << buffer << " has dtype " << t
                              << "; buffer elements must be scalars (int, uint, float, bfloat16 or bool), not "
                              << (t.is_handle() ? "handles" : t.is_void() ? "void" : "vectors");
  }
}

llvm::Value* CodeGenLLVM::ElementPtr(const BufferPtr& buf, llvm::Value* index) {
  return builder_->CreateInBoundsGEP(StorageType(buf.dtype), buf.ptr, index);
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
  CheckDivisor(GetRef<PrimExpr>(op), a, b);
  if (IsFloat(op->dtype)) return builder_->CreateFDiv(a, b);
  return IsSigned(op->dtype) ? builder_->CreateSDiv(a, b) : builder_->CreateUDiv(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const ModNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  CheckDivisor(GetRef<PrimExpr>(op), a, b);
  if (IsFloat(op->dtype)) return builder_->CreateFRem(a, b);
  return IsSigned(op->dtype) ? builder_->CreateSRem(a, b) : builder_->CreateURem(a, b);
}
llvm::Value* CodeGenLLVM::VisitExpr_(const FloorDivNode* op) {
  llvm::Value *a = VisitExpr(op->a), *b = VisitExpr(op->b);
  CheckDivisor(GetRef<PrimExpr>(op), a, b);
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
  CheckDivisor(GetRef<PrimExpr>(op), a, b);
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

// ---- calls --------------------------------------------------------------------
// Builtins (control flow, bit operations, pointers, external and LLVM calls)
// are emitted here; every other op lowers through its
// "<target kind>.FLowerIntrinsic" attribute into an expression made of them.
llvm::Value* CodeGenLLVM::VisitExpr_(const CallNode* op) {
  const auto* callee = op->op.as<OpNode>();
  if (callee == nullptr) Unsupported("calls to functions other than intrinsics");
  if (llvm::Value* v = EmitBuiltin(op)) return v;
  const std::string attr = target_kind_ + ".FLowerIntrinsic";
  std::optional<Any> rule = GetRef<Op>(callee).GetAttr(attr);
  if (!rule) {
    TESSERA_THROW(NotImplementedError) << "cannot compile function " << func_name_ << ": operator " << callee->name
                                       << " has no lowering for target '" << target_kind_
                                       << "' (no op attribute " << attr << ")";
  }
  PrimExpr call = GetRef<PrimExpr>(op);
  PrimExpr lowered = rule->cast<PackedFunc>()(call).cast<PrimExpr>();
  TESSERA_ICHECK(!lowered.same_as(call)) << "the " << attr << " rule of " << callee->name << " returned the call unchanged";
  TESSERA_ICHECK(lowered.dtype() == op->dtype) << "the " << attr << " rule of " << callee->name << " changed the dtype from "
                                               << op->dtype << " to " << lowered.dtype();
  return VisitExpr(lowered);
}

llvm::Value* CodeGenLLVM::EmitCallExtern(const CallNode* op, size_t first_arg, const std::string& name) {
  // Vector calls of scalar functions are scalarized lane by lane.
  int lanes = op->dtype.lanes();
  DataType et = op->dtype.element_of();
  std::vector<llvm::Value*> values;
  for (size_t i = first_arg; i < op->args.size(); ++i) values.push_back(VisitExpr(op->args[i]));
  llvm::Type* ret = op->dtype.is_void() ? builder_->getVoidTy() : ValueType(et);
  auto call_lane = [&](int lane) {
    std::vector<llvm::Value*> lane_values;
    std::vector<llvm::Type*> types;
    for (size_t i = 0; i < values.size(); ++i) {
      llvm::Value* v = values[i];
      if (lanes > 1 && op->args[first_arg + i].dtype().lanes() == lanes) {
        v = builder_->CreateExtractElement(v, builder_->getInt32(lane));
      }
      lane_values.push_back(v);
      types.push_back(v->getType());
    }
    llvm::FunctionCallee fn = module_->getOrInsertFunction(name, llvm::FunctionType::get(ret, types, false));
    return static_cast<llvm::Value*>(builder_->CreateCall(fn, lane_values));
  };
  if (op->dtype.is_void()) {
    call_lane(0);
    return llvm::ConstantInt::get(builder_->getInt32Ty(), 0);
  }
  if (lanes == 1) return call_lane(0);
  llvm::Value* out = llvm::UndefValue::get(ValueType(op->dtype));
  for (int i = 0; i < lanes; ++i) out = builder_->CreateInsertElement(out, call_lane(i), builder_->getInt32(i));
  return out;
}

llvm::Value* CodeGenLLVM::EmitBuiltin(const CallNode* op) {
  const BuiltinOps& b = BuiltinOps::Get();
  const Object* o = op->op.get();
  auto arg = [&](size_t i) { return VisitExpr(op->args[i]); };
  if (o == b.likely) return arg(0);
  if (o == b.checked_index) return EmitCheckedIndex(op);
  if (o == b.checked_value) {
    const auto* message = op->args.size() == 3 ? op->args[2].as<StringImmNode>() : nullptr;
    if (message == nullptr) Unsupported("tir.checked_value needs (cond, value, message: a string)");
    RaiseIf(builder_->CreateNot(arg(0)), message->value);
    return arg(1);
  }
  if (o == b.bitwise_and) return builder_->CreateAnd(arg(0), arg(1));
  if (o == b.bitwise_or) return builder_->CreateOr(arg(0), arg(1));
  if (o == b.bitwise_xor) return builder_->CreateXor(arg(0), arg(1));
  if (o == b.bitwise_not) return builder_->CreateNot(arg(0));
  if (o == b.shift_left) return builder_->CreateShl(arg(0), arg(1));
  if (o == b.shift_right) {
    return IsSigned(op->dtype) ? builder_->CreateAShr(arg(0), arg(1)) : builder_->CreateLShr(arg(0), arg(1));
  }
  if (o == b.reinterpret) return builder_->CreateBitCast(arg(0), ValueType(op->dtype));
  if (o == b.access_ptr) {
    const auto* data = op->args[1].as<VarNode>();
    if (data == nullptr) Unsupported("access_ptr of a non-variable data pointer");
    auto it = buffers_.find(data);
    if (it == buffers_.end()) Unsupported("access_ptr of buffer data " + data->name_hint + " that is not allocated");
    llvm::Value* p = ElementPtr(it->second, arg(2));
    return builder_->CreateBitCast(p, builder_->getInt8PtrTy());
  }
  if (o == b.type_annotation) return llvm::Constant::getNullValue(builder_->getInt8PtrTy());
  if (o == b.if_then_else) {
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
    llvm::PHINode* phi = builder_->CreatePHI(ValueType(op->dtype), 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }
  if (o == b.call_extern || o == b.call_pure_extern) {
    const auto* fname = op->args.size() > 0 ? op->args[0].as<StringImmNode>() : nullptr;
    if (fname == nullptr) Unsupported("call_extern needs the function name as its first argument");
    return EmitCallExtern(op, 1, fname->value);
  }
  if (o == b.call_llvm_pure_intrin) {
    const auto* iname = op->args.size() > 0 ? op->args[0].as<StringImmNode>() : nullptr;
    if (iname == nullptr) Unsupported("call_llvm_pure_intrin needs the intrinsic name as its first argument");
    llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(iname->value);
    if (id == llvm::Intrinsic::not_intrinsic) Unsupported("unknown LLVM intrinsic " + iname->value);
    std::vector<llvm::Value*> values;
    for (size_t i = 1; i < op->args.size(); ++i) values.push_back(arg(i));
    std::vector<llvm::Type*> overload;
    if (llvm::Intrinsic::isOverloaded(id)) overload.push_back(ValueType(op->dtype));
    return builder_->CreateCall(llvm::Intrinsic::getDeclaration(module_, id, overload), values);
  }
  return nullptr;
}

namespace {
// The row-major offset into an N-d flattened buffer (one axis per group of
// axis_separators), and in `flat` a 1-d view of the same memory.
PrimExpr LinearizeNdIndex(const Buffer& buffer, const Array<PrimExpr>& indices, Buffer* flat) {
  PrimExpr index;
  PrimExpr total = IntImm(DataType::Int(64), 1);
  for (size_t k = 0; k < indices.size(); ++k) {
    PrimExpr extent = cast(DataType::Int(64), buffer->shape[k]);
    PrimExpr i = indices[k];
    DataType t = DataType::Int(64).with_lanes(i.dtype().lanes());
    if (i.dtype() != t) i = cast(t, i);
    index = index.defined() ? add(mul(index, extent), i) : i;
    total = mul(total, extent);
  }
  *flat = Buffer(buffer->data, buffer->dtype, {total}, {}, IntImm(DataType::Int(32), 0), buffer->name, buffer->scope,
                 buffer->data_alignment, buffer->offset_factor, buffer->span);
  return index;
}
}  // namespace

llvm::Value* CodeGenLLVM::VisitExpr_(const BufferLoadNode* op) {
  BufferPtr buf = LookupBuffer(op->buffer);
  if (op->indices.size() != 1 && !op->buffer->axis_separators.empty()) {
    // N-d physical memory (axis_separators) is one row-major block on a CPU.
    Buffer flat;
    PrimExpr index = LinearizeNdIndex(op->buffer, op->indices, &flat);
    return VisitExpr(BufferLoad(flat, {index}, op->span));
  }
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
      llvm::Value* base = VisitExpr(ramp->base);
      CheckVectorBounds(op->buffer, index, base, nullptr);
      llvm::Value* p = ElementPtr(buf, base);
      p = builder_->CreateBitCast(p, llvm::PointerType::getUnqual(StorageType(t)));
      llvm::Value* v = builder_->CreateAlignedLoad(StorageType(t), p, llvm::Align(std::max(1, t.element_of().bytes())));
      return FromStorage(v, t);
    }
  }
  llvm::Value* out = llvm::UndefValue::get(ValueType(t));
  DataType et = t.element_of();
  LaneIndices lanes = LaneIndicesOf(op->buffer, index);
  for (int i = 0; i < t.lanes(); ++i) {
    llvm::Value* v =
        builder_->CreateAlignedLoad(StorageType(et), ElementPtr(buf, lanes(i)), llvm::Align(std::max(1, et.bytes())));
    out = builder_->CreateInsertElement(out, FromStorage(v, et), builder_->getInt32(i));
  }
  return out;
}

CodeGenLLVM::LaneIndices CodeGenLLVM::LaneIndicesOf(const Buffer& buffer, const PrimExpr& index) {
  const auto* ramp = index.as<RampNode>();
  if (ramp != nullptr && ramp->stride.as<IntImmNode>() != nullptr) {
    // A constant stride: each lane's index is the scalar base plus a constant,
    // which LLVM folds into the address (no vector of indices to take apart).
    llvm::Value* base = VisitExpr(ramp->base);
    CheckVectorBounds(buffer, index, base, nullptr);
    const int64_t stride = ramp->stride.as<IntImmNode>()->value;
    return [this, base, stride](int i) -> llvm::Value* {
      return builder_->CreateAdd(base, llvm::ConstantInt::get(base->getType(), stride * i, true));
    };
  }
  llvm::Value* idx = VisitExpr(index);
  CheckVectorBounds(buffer, index, ramp != nullptr ? builder_->CreateExtractElement(idx, builder_->getInt32(0)) : nullptr,
                    idx);
  return [this, idx](int i) -> llvm::Value* { return builder_->CreateExtractElement(idx, builder_->getInt32(i)); };
}

// ---- statements ----------------------------------------------------------------
void CodeGenLLVM::VisitStmtDefault_(const Object* op) { Unsupported("statement " + op->GetTypeKey()); }

void CodeGenLLVM::VisitStmt_(const BufferStoreNode* op) {
  BufferPtr buf = LookupBuffer(op->buffer);
  if (op->indices.size() != 1 && !op->buffer->axis_separators.empty()) {
    Buffer flat;
    PrimExpr index = LinearizeNdIndex(op->buffer, op->indices, &flat);
    VisitStmt(BufferStore(flat, op->value, {index}, op->span));
    return;
  }
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
      llvm::Value* base = VisitExpr(ramp->base);
      CheckVectorBounds(op->buffer, index, base, nullptr);
      llvm::Value* p = ElementPtr(buf, base);
      p = builder_->CreateBitCast(p, llvm::PointerType::getUnqual(StorageType(t)));
      builder_->CreateAlignedStore(ToStorage(value, t), p, llvm::Align(std::max(1, t.element_of().bytes())));
      return;
    }
  }
  DataType et = t.element_of();
  LaneIndices lanes = LaneIndicesOf(op->buffer, index);
  for (int i = 0; i < t.lanes(); ++i) {
    llvm::Value* v = builder_->CreateExtractElement(value, builder_->getInt32(i));
    builder_->CreateAlignedStore(ToStorage(v, et), ElementPtr(buf, lanes(i)), llvm::Align(std::max(1, et.bytes())));
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


void CodeGenLLVM::VisitStmt_(const ForNode* op) {
  if (op->kind == ForKind::kThreadBinding) {
    EmitThreadBinding(op);
    return;
  }
  if (const int64_t* ext = AsConstInt(op->extent); ext != nullptr && *ext == 1) {
    // A unit loop runs its body once with the variable at `min`; no loop
    // blocks, so deep nests of unit loops (split factors of 1) do not cost
    // LLVM's loop passes time quadratic in the nest depth.
    var_map_[op->loop_var.get()] = VisitExpr(op->min);
    VisitStmt(op->body);
    var_map_.erase(op->loop_var.get());
    return;
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
  if (op->extents.size() > 1) {
    // An N-d allocation (a buffer with axis_separators): one block of their product.
    PrimExpr total = IntImm(DataType::Int(64), 1);
    for (const PrimExpr& e : op->extents) total = mul(total, cast(DataType::Int(64), e));
    VisitStmt(Allocate(op->buffer_var, op->dtype, {total}, op->condition, op->body, op->annotations, op->span));
    return;
  }
  TESSERA_ICHECK(op->extents.size() == 1) << "Allocate of " << op->buffer_var->name_hint << " was not flattened";
  DataType t = op->dtype;
  CheckBufferDtype(op->buffer_var->name_hint, t);
  llvm::Type* st = StorageType(t);
  constexpr int64_t kStackLimitBytes = 64 * 1024;
  const PrimExpr& extent0 = op->extents[0];
  const int64_t* count = AsConstInt(extent0);
  const int64_t elem_bytes = std::max(1, t.bytes());
  if (count != nullptr && *count < 0) {
    TESSERA_THROW(ValueError) << "cannot compile function " << func_name_ << ": buffer " << op->buffer_var->name_hint
                              << " is allocated with a negative number of elements (" << *count << ")";
  }
  if (count != nullptr && *count <= kStackLimitBytes / elem_bytes) {
    llvm::Value* p = EntryAlloca(st, builder_->getInt64(std::max<int64_t>(1, *count)), 64);
    buffers_[op->buffer_var.get()] = BufferPtr{p, t};
    VisitStmt(op->body);
    buffers_.erase(op->buffer_var.get());
    return;
  }
  // Large or symbolic: a heap workspace from the backend.
  // A size that is negative or overflows int64, or memory the system
  // refuses, raises MemoryError naming the buffer (kernel_abi.h: a message
  // "MemoryError: ..." selects the class).
  std::string size_text;
  if (count != nullptr) {
    size_text = std::to_string(*count) + " x " + t.str() + " (" +
                (*count > std::numeric_limits<int64_t>::max() / elem_bytes ? std::string("more than 2**63")
                                                                            : std::to_string(*count * elem_bytes)) +
                " bytes)";
  } else {
    size_text = arith::ExprToString(op->extents[0]) + " x " + t.str();
  }
  const std::string failure = "MemoryError: cannot allocate buffer " + op->buffer_var->name_hint + " of " + size_text +
                              " in function " + func_name_;
  llvm::Value* n = builder_->CreateIntCast(VisitExpr(op->extents[0]), builder_->getInt64Ty(), true);
  llvm::Value* prod = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, n, builder_->getInt64(elem_bytes));
  llvm::Value* bytes = builder_->CreateExtractValue(prod, 0);
  RaiseIf(builder_->CreateOr(builder_->CreateExtractValue(prod, 1), builder_->CreateICmpSLT(n, builder_->getInt64(0))),
          failure);
  llvm::Value* raw = EmitWorkspaceAlloc(bytes);
  RaiseIf(builder_->CreateIsNull(raw), failure);
  buffers_[op->buffer_var.get()] = BufferPtr{builder_->CreateBitCast(raw, llvm::PointerType::getUnqual(st)), t};
  live_workspaces_.push_back(raw);
  VisitStmt(op->body);
  live_workspaces_.pop_back();
  EmitWorkspaceFree(raw);
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
  EmitWhileBackEdgeCheck();
  builder_->CreateBr(header);
  builder_->SetInsertPoint(exit);
}

}  // namespace codegen
}  // namespace tessera

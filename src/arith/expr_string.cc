// Infix rendering of TIR expressions for messages (see expr_string.h).
#include "arith/expr_string.h"

#include <sstream>

#include "arith/iter_map.h"
#include "tir/buffer.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace arith {
namespace {

using namespace tir;

// Precedence: higher binds tighter.
int Prec(const PrimExpr& e) {
  if (e.as<OrNode>()) return 1;
  if (e.as<AndNode>()) return 2;
  if (e.as<EQNode>() || e.as<NENode>() || e.as<LTNode>() || e.as<LENode>() || e.as<GTNode>() || e.as<GENode>())
    return 3;
  if (e.as<AddNode>() || e.as<SubNode>()) return 4;
  if (e.as<MulNode>() || e.as<DivNode>() || e.as<ModNode>() || e.as<FloorDivNode>() || e.as<FloorModNode>()) return 5;
  if (const int64_t* v = AsConstInt(e)) return *v < 0 ? 6 : 9;
  return 9;
}

void Print(std::ostream& os, const PrimExpr& e);

void PrintOperand(std::ostream& os, const PrimExpr& e, int prec, bool right) {
  int p = Prec(e);
  bool paren = p < prec || (right && p == prec);
  if (paren) os << "(";
  Print(os, e);
  if (paren) os << ")";
}

void Print(std::ostream& os, const PrimExpr& e) {
  CheckStack("expression");
  if (!e.defined()) {
    os << "None";
    return;
  }
  if (const auto* n = e.as<IntImmNode>()) {
    if (n->dtype.is_bool()) os << (n->value ? "True" : "False");
    else os << n->value;
    return;
  }
  if (const auto* n = e.as<FloatImmNode>()) {
    os << n->value;
    return;
  }
  if (const auto* n = e.as<VarNode>()) {
    os << n->name_hint;
    return;
  }
  const char* sym = nullptr;
  bool func = false;
  if (e.as<AddNode>()) sym = " + ";
  else if (e.as<SubNode>()) sym = " - ";
  else if (e.as<MulNode>()) sym = " * ";
  else if (e.as<FloorDivNode>()) sym = " // ";
  else if (e.as<FloorModNode>()) sym = " % ";
  else if (e.as<DivNode>()) sym = "truncdiv", func = true;
  else if (e.as<ModNode>()) sym = "truncmod", func = true;
  else if (e.as<MinNode>()) sym = "min", func = true;
  else if (e.as<MaxNode>()) sym = "max", func = true;
  else if (e.as<EQNode>()) sym = " == ";
  else if (e.as<NENode>()) sym = " != ";
  else if (e.as<LTNode>()) sym = " < ";
  else if (e.as<LENode>()) sym = " <= ";
  else if (e.as<GTNode>()) sym = " > ";
  else if (e.as<GENode>()) sym = " >= ";
  else if (e.as<AndNode>()) sym = " and ";
  else if (e.as<OrNode>()) sym = " or ";
  if (sym != nullptr) {
    const auto* b = e.as<BinaryOpNode>();
    if (func) {
      os << sym << "(";
      Print(os, b->a);
      os << ", ";
      Print(os, b->b);
      os << ")";
    } else {
      int p = Prec(e);
      PrintOperand(os, b->a, p, false);
      os << sym;
      PrintOperand(os, b->b, p, true);
    }
    return;
  }
  if (const auto* n = e.as<NotNode>()) {
    os << "not ";
    PrintOperand(os, n->a, 9, false);
    return;
  }
  if (const auto* n = e.as<CastNode>()) {
    os << "T.Cast(\"" << n->dtype << "\", ";
    Print(os, n->value);
    os << ")";
    return;
  }
  if (const auto* n = e.as<SelectNode>()) {
    os << "T.Select(";
    Print(os, n->condition);
    os << ", ";
    Print(os, n->true_value);
    os << ", ";
    Print(os, n->false_value);
    os << ")";
    return;
  }
  if (const auto* n = e.as<BufferLoadNode>()) {
    os << n->buffer->name << "[";
    for (size_t i = 0; i < n->indices.size(); ++i) {
      if (i) os << ", ";
      Print(os, n->indices[i]);
    }
    os << "]";
    return;
  }
  if (e.as<IterSumExprNode>() || e.as<IterSplitExprNode>()) {
    Print(os, NormalizeIterMapToExpr(e));
    return;
  }
  os << e->GetTypeKey() << "(...)";
}

}  // namespace

std::string ExprToString(const PrimExpr& e) {
  std::ostringstream os;
  Print(os, e);
  return os.str();
}

}  // namespace arith
}  // namespace tessera

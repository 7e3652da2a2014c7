// Stack guard (runtime/stack_guard.h): deep IR walked by the shared functors
// raises RecursionError on a small stack instead of overflowing, works on a
// large stack, and deep chains are freed without recursion.
#include <gtest/gtest.h>

#include <pthread.h>

#include <functional>
#include <string>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "runtime/stack_guard.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace {

using tir::Var;

PrimExpr LeftChain(const Var& x, int n) {
  PrimExpr e = x;
  for (int i = 0; i < n; ++i) e = add(e, x);
  return e;
}

// Counts the leaves of an expression with the shared ExprVisitor.
struct LeafCounter : tir::ExprVisitor {
  int64_t leaves = 0;
  void VisitExpr_(const tir::VarNode*) override { ++leaves; }
};

// Runs fn on a thread with the given stack size; returns the message of the
// tessera::Error it raised ("" if none).
std::string OnThread(size_t stack_bytes, const std::function<void()>& fn) {
  std::string message;
  RunOnLargeStack(
      [&] {
        try {
          fn();
        } catch (const RecursionError& e) {
          EXPECT_EQ(e.kind(), "RecursionError");
          message = e.what();
        }
      },
      stack_bytes);
  return message;
}

TEST(StackGuard, SmallStackRaisesRecursionErrorNamingTheLimit) {
  Var x("x", DataType::Int(32));
  PrimExpr e = LeftChain(x, 200000);
  std::string msg = OnThread(size_t(1) << 20, [&] {
    LeafCounter c;
    c.VisitExpr(e);
  });
  EXPECT_NE(msg.find("expression nesting too deep"), std::string::npos) << msg;
  EXPECT_NE(msg.find("KiB stack"), std::string::npos) << msg;
}

TEST(StackGuard, LargeStackWalksDeepChains) {
  Var x("x", DataType::Int(32));
  PrimExpr e = LeftChain(x, 100000);
  int64_t leaves = 0;
  std::string msg = OnThread(kLargeStackBytes, [&] {
    LeafCounter c;
    c.VisitExpr(e);
    leaves = c.leaves;
    EXPECT_TRUE(StructuralEqual(e, e));
  });
  EXPECT_EQ(msg, "");
  EXPECT_EQ(leaves, 100001);
}

TEST(StackGuard, RetryOnLargeStackRecoversFromTheGuard) {
  Var x("x", DataType::Int(32));
  PrimExpr e = LeftChain(x, 100000);
  // On a 1 MiB thread the first attempt trips the guard; the retry succeeds.
  int64_t leaves = 0;
  std::string msg = OnThread(size_t(1) << 20, [&] {
    leaves = RetryOnLargeStack([&] {
      LeafCounter c;
      c.VisitExpr(e);
      return c.leaves;
    });
  });
  EXPECT_EQ(msg, "");
  EXPECT_EQ(leaves, 100001);
}

TEST(StackGuard, DeepChainIsFreedIteratively) {
  // Freeing a million-node chain on a 1 MiB stack must not overflow.
  std::string msg = OnThread(size_t(1) << 20, [] {
    Var x("x", DataType::Int(32));
    PrimExpr e = LeftChain(x, 1000000);
  });
  EXPECT_EQ(msg, "");
}

TEST(StackGuard, ShallowWorkIsUnaffected) {
  Var x("x", DataType::Int(32));
  arith::Analyzer ana;
  PrimExpr r = ana.Simplify(LeftChain(x, 99));
  EXPECT_TRUE(StructuralEqual(r, mul(x, IntImm(DataType::Int(32), 100))) ||
              StructuralEqual(r, mul(IntImm(DataType::Int(32), 100), x)));
}

}  // namespace
}  // namespace tessera

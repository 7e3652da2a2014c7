// Iterator-map detection: recognised forms (plain, split, fuse, offsets,
// predicates), rejected forms (non-affine, overlapping, not covering), and
// an exhaustive comparison against brute-force injectivity / box-coverage
// checks of the map over every loop point.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "arith/expr_string.h"
#include "arith/iter_map.h"
#include "test_arith_util.h"

namespace tessera {
namespace {

using namespace tir;
using arith::Analyzer;
using arith::DetectIterMap;
using arith::ExprToString;
using arith::IterMapLevel;
using arith::IterMapResult;
using arith::NormalizeIterMapToExpr;
using arith_test::Env;
using arith_test::Eval;
using arith_test::ForEachPoint;
using arith_test::VarDomain;

PrimExpr I(int64_t v) { return IntImm(DataType::Int(32), v); }

IterMapResult Detect(const Array<PrimExpr>& idx, const std::vector<VarDomain>& doms, IterMapLevel level,
                     PrimExpr pred = IntImm(DataType::Bool(), 1)) {
  Map<Var, Range> iters;
  for (const auto& d : doms) iters.Set(d.var, Range::FromMinExtent(I(d.lo), I(d.hi - d.lo + 1)));
  Analyzer a;
  return DetectIterMap(idx, iters, pred, level, &a);
}

std::string Joined(const IterMapResult& r) {
  std::string s;
  for (const auto& e : r->indices) s += (s.empty() ? "" : ", ") + ExprToString(NormalizeIterMapToExpr(e));
  return s;
}

TEST(ArithIterMap, RecognisedForms) {
  Var i("i"), j("j"), f("f"), i0("i_0"), i1("i_1");
  std::vector<VarDomain> ij{{i, 0, 7}, {j, 0, 3}};
  auto r = Detect({i, j}, ij, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 2u) << (r->errors.empty() ? "" : r->errors[0].str());
  EXPECT_EQ(Joined(r), "i, j");
  // fused index of a split loop
  r = Detect({Add(Mul(i, I(4)), j)}, ij, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 1u);
  EXPECT_EQ(Joined(r), "i * 4 + j");
  // a fused loop split back into two indices
  std::vector<VarDomain> fd{{f, 0, 31}};
  r = Detect({FloorDiv(f, I(4)), FloorMod(f, I(4))}, fd, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 2u) << (r->errors.empty() ? "" : r->errors[0].str());
  EXPECT_EQ(Joined(r), "f // 4, f % 4");
  // three-way split of a fused loop
  r = Detect({FloorDiv(f, I(8)), FloorMod(FloorDiv(f, I(2)), I(4)), FloorMod(f, I(2))}, fd, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 3u) << (r->errors.empty() ? "" : r->errors[0].str());
  // split + fuse of two split loops: (i_0*4 + i_1) re-split by 8
  std::vector<VarDomain> sp{{i0, 0, 3}, {i1, 0, 3}};
  PrimExpr fused = Add(Mul(i0, I(4)), i1);
  r = Detect({FloorDiv(fused, I(8)), FloorMod(fused, I(8))}, sp, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 2u) << (r->errors.empty() ? "" : r->errors[0].str());
  // constant offsets
  r = Detect({Add(i, I(3)), j}, ij, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 2u);
  EXPECT_EQ(ExprToString(r->indices[0]->base), "3");
  // non-zero loop minimum
  std::vector<VarDomain> off{{i, 2, 9}};
  r = Detect({i}, off, IterMapLevel::kBijective);
  ASSERT_EQ(r->indices.size(), 1u) << (r->errors.empty() ? "" : r->errors[0].str());
  // surjective: a coarser view of a loop
  r = Detect({FloorDiv(i, I(2))}, ij, IterMapLevel::kSurjective);
  EXPECT_EQ(r->indices.size(), 1u);
  r = Detect({FloorDiv(i, I(2))}, ij, IterMapLevel::kBijective);
  EXPECT_TRUE(r->indices.empty());
  // a predicate from a non-divisible split: i_0 * 4 + i_1 < 10
  std::vector<VarDomain> pad{{i0, 0, 2}, {i1, 0, 3}};
  r = Detect({Add(Mul(i0, I(4)), i1)}, pad, IterMapLevel::kBijective, LT(Add(Mul(i0, I(4)), i1), I(10)));
  ASSERT_EQ(r->indices.size(), 1u) << (r->errors.empty() ? "" : r->errors[0].str());
  EXPECT_EQ(ExprToString(r->indices[0]->args[0]->source->extent), "10");
}

TEST(ArithIterMap, RejectedForms) {
  Var i("i"), j("j");
  std::vector<VarDomain> ij{{i, 0, 7}, {j, 0, 3}};
  auto r = Detect({Mul(i, i)}, ij, IterMapLevel::kSurjective);
  EXPECT_TRUE(r->indices.empty());
  ASSERT_FALSE(r->errors.empty());
  EXPECT_NE(r->errors[0].str().find("not affine"), std::string::npos) << r->errors[0].str();
  r = Detect({Add(i, j)}, ij, IterMapLevel::kSurjective);  // overlapping
  EXPECT_TRUE(r->indices.empty());
  r = Detect({Add(i, j)}, ij, IterMapLevel::kBijective);
  EXPECT_TRUE(r->indices.empty());
  r = Detect({i, i}, ij, IterMapLevel::kSurjective);  // one loop used twice
  EXPECT_TRUE(r->indices.empty());
  r = Detect({i}, ij, IterMapLevel::kBijective);  // j unused
  EXPECT_TRUE(r->indices.empty());
  EXPECT_EQ(Detect({i}, ij, IterMapLevel::kSurjective)->indices.size(), 1u);
  std::vector<VarDomain> wide{{i, 0, 3}, {j, 0, 7}};
  r = Detect({Add(Mul(i, I(4)), j)}, wide, IterMapLevel::kSurjective);  // j runs past i's stride
  EXPECT_TRUE(r->indices.empty());
  r = Detect({FloorMod(i, I(3))}, ij, IterMapLevel::kSurjective);  // 3 does not divide 8
  EXPECT_TRUE(r->indices.empty());
  // No check: structure only
  r = Detect({i, i}, ij, IterMapLevel::kNoCheck);
  EXPECT_EQ(r->indices.size(), 2u);
}

// Brute-force properties of a map over the loop box.
struct MapFacts {
  bool injective = true;
  bool box = true;  // image == product of the per-index value sets
};

MapFacts BruteForce(const Array<PrimExpr>& idx, const std::vector<VarDomain>& doms) {
  std::set<std::vector<int64_t>> image;
  std::vector<std::set<int64_t>> per(idx.size());
  MapFacts f;
  size_t points = 0;
  ForEachPoint(doms, [&](Env& env) {
    std::vector<int64_t> out;
    for (size_t k = 0; k < idx.size(); ++k) {
      int64_t v = *Eval(idx[k], env);
      out.push_back(v);
      per[k].insert(v);
    }
    ++points;
    image.insert(out);
  });
  f.injective = image.size() == points;
  size_t prod = 1;
  for (const auto& s : per) prod *= s.size();
  f.box = prod == image.size();
  return f;
}

TEST(ArithIterMap, ExhaustiveAgainstBruteForce) {
  Var i("i"), j("j");
  int detected = 0, cases = 0;
  for (int64_t A : {1, 2, 3, 4, 6, 8}) {
    for (int64_t B : {1, 2, 4, 6}) {
      std::vector<VarDomain> doms{{i, 0, A - 1}, {j, 0, B - 1}};
      PrimExpr fused = Add(Mul(i, I(B)), j);
      std::vector<Array<PrimExpr>> candidates{
          {i, j}, {j, i}, {fused}, {Add(i, j)}, {Add(Mul(i, I(2)), j)}, {Add(Mul(j, I(A)), i)}, {i}, {j}, {i, i},
          {Mul(i, j)}, {Add(fused, I(5))}, {Sub(I(7), i)}};
      for (int64_t k : {1, 2, 3, 4, 8}) {
        candidates.push_back({FloorDiv(fused, I(k)), FloorMod(fused, I(k))});
        candidates.push_back({FloorMod(fused, I(k)), FloorDiv(fused, I(k))});
        candidates.push_back({FloorDiv(fused, I(k))});
        candidates.push_back({FloorMod(i, I(k)), j});
        candidates.push_back({FloorDiv(i, I(k)), FloorMod(i, I(k)), j});
        candidates.push_back({FloorDiv(Add(Mul(j, I(A)), i), I(k)), FloorMod(Add(Mul(j, I(A)), i), I(k))});
      }
      for (const auto& idx : candidates) {
        ++cases;
        MapFacts truth = BruteForce(idx, doms);
        for (IterMapLevel level : {IterMapLevel::kBijective, IterMapLevel::kSurjective}) {
          IterMapResult r = Detect(idx, doms, level);
          if (r->indices.empty()) {
            EXPECT_FALSE(r->errors.empty());
            continue;
          }
          ++detected;
          ASSERT_EQ(r->indices.size(), idx.size());
          std::string what;
          for (const auto& e : idx) what += ExprToString(e) + "; ";
          what += " A=" + std::to_string(A) + " B=" + std::to_string(B);
          // Sound: what is claimed holds.
          EXPECT_TRUE(truth.box) << what;
          if (level == IterMapLevel::kBijective) {
            EXPECT_TRUE(truth.injective) << what;
          }
          // The structured form has the same value as the index.
          ForEachPoint(doms, [&](Env& env) {
            for (size_t k = 0; k < idx.size(); ++k) {
              PrimExpr norm = NormalizeIterMapToExpr(r->indices[k]);
              ASSERT_EQ(*Eval(idx[k], env), *Eval(norm, env)) << what << " -> " << ExprToString(norm);
            }
          });
        }
        // Complete on the forms schedules produce.
        bool schedule_form = idx.size() >= 1 && truth.injective && truth.box;
        if (schedule_form && (idx.size() == 2 && idx[0].same_as(i) && idx[1].same_as(j))) {
          EXPECT_FALSE(Detect(idx, doms, IterMapLevel::kBijective)->indices.empty());
        }
      }
      // Completeness of the split/fuse forms when divisible.
      for (int64_t k : {1, 2, 4}) {
        if ((A * B) % k != 0) continue;
        Array<PrimExpr> idx{FloorDiv(fused, I(k)), FloorMod(fused, I(k))};
        EXPECT_FALSE(Detect(idx, doms, IterMapLevel::kBijective)->indices.empty())
            << "k=" << k << " A=" << A << " B=" << B;
      }
    }
  }
  EXPECT_GT(detected, 200);
  EXPECT_GT(cases, 500);
}

TEST(ArithIterMap, NormalizeAndSimplify) {
  Var f("f");
  Map<Var, Range> iters{{f, Range::FromMinExtent(I(0), I(32))}};
  Analyzer a;
  Array<PrimExpr> out = arith::IterMapSimplify({Add(Mul(FloorDiv(f, I(4)), I(4)), FloorMod(f, I(4)))}, iters,
                                               IntImm(DataType::Bool(), 1), IterMapLevel::kSurjective, &a);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ExprToString(out[0]), "f");
  EXPECT_EQ(ExprToString(NormalizeIterMapToExpr(f)), "f");
  EXPECT_THROW(NormalizeIterMapToExpr(PrimExpr()), ValueError);
}

}  // namespace
}  // namespace tessera

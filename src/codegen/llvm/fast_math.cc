// Fast float32 transcendentals as TIR arithmetic (see fast_math.h): each is
// a range reduction, a polynomial evaluated by Horner's rule and fix-ups for
// NaN, infinities and the ends of the range, all with selects so a vector
// call stays a vector computation. The polynomial coefficients of exp, log
// and tanh are Cephes's single-precision ones; erf's were fitted for Tessera
// (Chebyshev least squares on [0, 1] and, for erfc(x)exp(x^2), on [1, 4]).
#include "codegen/llvm/fast_math.h"

#include <cmath>
#include <initializer_list>

#include "ir/op.h"
#include "ir/transform.h"
#include "runtime/registry.h"
#include "tir/op.h"

namespace tessera {
namespace codegen {
namespace {

using tir::Select;

// Constants and helpers of one vector width.
struct F32 {
  int lanes;
  PrimExpr K(double v) const { return Splat(FloatImm(DataType::Float(32), v)); }
  PrimExpr I(int64_t v) const { return Splat(IntImm(DataType::Int(32), v)); }
  PrimExpr Splat(PrimExpr s) const { return lanes > 1 ? PrimExpr(tir::Broadcast(s, lanes)) : s; }
  DataType F() const { return DataType::Float(32, lanes); }
  DataType Int() const { return DataType::Int(32, lanes); }
  PrimExpr Horner(const PrimExpr& x, std::initializer_list<double> c) const {  // c: highest degree first
    PrimExpr acc;
    for (double v : c) acc = acc.defined() ? tir::add(tir::mul(acc, x), K(v)) : K(v);
    return acc;
  }
  PrimExpr Floor(PrimExpr x) const { return tir::CallIntrin(F(), "tir.floor", {std::move(x)}); }
  PrimExpr Abs(PrimExpr x) const { return tir::CallIntrin(F(), "tir.fabs", {std::move(x)}); }
  PrimExpr AsInt(PrimExpr x) const { return tir::CallIntrin(Int(), "tir.reinterpret", {std::move(x)}); }
  PrimExpr AsFloat(PrimExpr x) const { return tir::CallIntrin(F(), "tir.reinterpret", {std::move(x)}); }
  // 2^k for integer k in [-126, 127].
  PrimExpr Pow2(PrimExpr k) const { return AsFloat(tir::left_shift(tir::add(k, I(127)), I(23))); }
  // x itself where it is NaN, else `value`.
  PrimExpr KeepNaN(const PrimExpr& x, PrimExpr value) const { return Select(tir::not_equal(x, x), x, value); }
};

// Binds `value` to a fresh variable so the body can use it several times.
template <typename Body>
PrimExpr Bind(const char* name, PrimExpr value, Body body) {
  tir::Var v(name, value.dtype());
  return tir::Let(v, std::move(value), body(PrimExpr(v)));
}

PrimExpr ExpOf(const F32& f, const PrimExpr& x) {
  // x = n ln2 + r, |r| <= ln2/2; exp(r) by a degree-7 polynomial; 2^n applied
  // in two halves so results down to the subnormals (n = -149) and up to
  // FLT_MAX (n = 128) are exact powers of two.
  PrimExpr c = tir::min(tir::max(x, f.K(-104.0)), f.K(88.8));
  PrimExpr body = Bind("fexp_n", f.Floor(tir::add(tir::mul(c, f.K(1.44269504088896341)), f.K(0.5))), [&](PrimExpr n) {
    PrimExpr r = tir::sub(tir::sub(c, tir::mul(n, f.K(0.693359375))), tir::mul(n, f.K(-2.12194440e-4)));
    return Bind("fexp_r", r, [&](PrimExpr r) {
      PrimExpr p = f.Horner(r, {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2,
                                1.6666665459E-1, 5.0000001201E-1});
      PrimExpr y = tir::add(tir::add(tir::mul(tir::mul(p, r), r), r), f.K(1.0));
      return Bind("fexp_ni", tir::cast(f.Int(), n), [&](PrimExpr ni) {
        PrimExpr n1 = tir::right_shift(ni, f.I(1));
        return Bind("fexp_n1", n1, [&](PrimExpr n1) {
          return tir::mul(tir::mul(y, f.Pow2(n1)), f.Pow2(tir::sub(ni, n1)));
        });
      });
    });
  });
  PrimExpr out = Select(tir::greater(x, f.K(88.72283935546875)), f.K(INFINITY), body);
  out = Select(tir::less(x, f.K(-103.97283935546875)), f.K(0.0), out);
  return f.KeepNaN(x, out);
}

PrimExpr LogOf(const F32& f, const PrimExpr& x) {
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = f - f^2/2 + f^3 P(f),
  // f = m - 1; subnormal x are scaled by 2^23 first.
  PrimExpr sub = tir::less(x, f.K(1.17549435e-38));
  PrimExpr xs = Select(sub, tir::mul(x, f.K(8388608.0)), x);
  PrimExpr body = Bind("flog_bits", f.AsInt(xs), [&](PrimExpr bits) {
    PrimExpr e0 = tir::cast(f.F(), tir::sub(tir::bitwise_and(tir::right_shift(bits, f.I(23)), f.I(255)), f.I(126)));
    e0 = tir::sub(e0, Select(sub, f.K(23.0), f.K(0.0)));
    PrimExpr m = f.AsFloat(tir::bitwise_or(tir::bitwise_and(bits, f.I(0x7fffff)), f.I(0x3f000000)));
    return Bind("flog_m", m, [&](PrimExpr m) {
      PrimExpr small = tir::less(m, f.K(0.707106781186547524));
      PrimExpr e = Select(small, tir::sub(e0, f.K(1.0)), e0);
      PrimExpr fr = Select(small, tir::sub(tir::add(m, m), f.K(1.0)), tir::sub(m, f.K(1.0)));
      return Bind("flog_e", e, [&](PrimExpr e) {
        return Bind("flog_f", fr, [&](PrimExpr fr) {
          PrimExpr z = tir::mul(fr, fr);
          PrimExpr p = f.Horner(fr, {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                     1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                                     3.3333331174E-1});
          PrimExpr y = tir::mul(tir::mul(p, fr), z);
          y = tir::add(y, tir::mul(e, f.K(-2.12194440e-4)));
          y = tir::sub(y, tir::mul(z, f.K(0.5)));
          return tir::add(tir::add(fr, y), tir::mul(e, f.K(0.693359375)));
        });
      });
    });
  });
  PrimExpr out = Select(tir::equal(x, f.K(INFINITY)), x, body);
  out = Select(tir::equal(x, f.K(0.0)), f.K(-INFINITY), out);
  out = Select(tir::less(x, f.K(0.0)), f.K(NAN), out);
  return f.KeepNaN(x, out);
}

PrimExpr TanhOf(const F32& f, const PrimExpr& x) {
  // |x| < 0.625: x + x^3 P(x^2); else sign(x) (1 - 2 / (exp(2|x|) + 1)).
  PrimExpr a = f.Abs(x);
  PrimExpr z = tir::mul(x, x);
  PrimExpr small = tir::add(
      tir::mul(tir::mul(f.Horner(z, {-5.70498872745E-3, 2.06390887954E-2, -5.37397155531E-2, 1.33314422036E-1,
                                     -3.33332819422E-1}),
                        z),
               x),
      x);
  PrimExpr e = ExpOf(f, tir::mul(f.K(2.0), tir::min(a, f.K(10.0))));
  PrimExpr big = Bind("ftanh_b", tir::sub(f.K(1.0), tir::div(f.K(2.0), tir::add(e, f.K(1.0)))),
                      [&](PrimExpr b) { return Select(tir::less(x, f.K(0.0)), tir::neg(b), b); });
  return f.KeepNaN(x, Select(tir::less(a, f.K(0.625)), small, big));
}

PrimExpr ErfOf(const F32& f, const PrimExpr& x) {
  // |x| < 1: x P(x^2); 1 <= |x|: sign(x) (1 - exp(-x^2) Q(1/|x|)) with |x|
  // capped at 4 (erf(4) rounds to 1 in float32).
  PrimExpr small = tir::mul(x, f.Horner(tir::mul(x, x), {-0.0005654111737385392, 0.00492328405380249,
                                                          -0.02671639621257782, 0.11280365288257599,
                                                          -0.37612348794937134, 1.1283791065216064}));
  PrimExpr big = Bind("ferf_a", tir::min(f.Abs(x), f.K(4.0)), [&](PrimExpr a) {
    PrimExpr q = f.Horner(tir::div(f.K(1.0), a), {-0.00886930339038372, 0.02565707080066204, 0.02991912141442299,
                                                   -0.24921603500843048, 0.5022039413452148, -0.47395461797714233,
                                                   0.042608775198459625, 0.5589596629142761, 0.0002749496197793633});
    PrimExpr v = tir::sub(f.K(1.0), tir::mul(ExpOf(f, tir::neg(tir::mul(a, a))), q));
    return Bind("ferf_v", v, [&](PrimExpr v) { return Select(tir::less(x, f.K(0.0)), tir::neg(v), v); });
  });
  return f.KeepNaN(x, Select(tir::less(f.Abs(x), f.K(1.0)), small, big));
}

PrimExpr SigmoidOf(const F32& f, const PrimExpr& x) {
  return tir::div(f.K(1.0), tir::add(f.K(1.0), ExpOf(f, tir::neg(x))));
}

PrimExpr Apply(PrimExpr (*fn)(const F32&, const PrimExpr&), PrimExpr x) {
  TESSERA_ICHECK(x.dtype().is_float() && x.dtype().bits() == 32) << "fast math is float32 only, got " << x.dtype();
  F32 f{x.dtype().lanes()};
  return Bind("fm_x", std::move(x), [&](PrimExpr v) { return fn(f, v); });
}

bool FastMathEnabled() { return transform::PassContext::Current()->GetConfig<bool>(kFastMathOption, true); }

}  // namespace

PrimExpr FastExp(PrimExpr x) { return Apply(ExpOf, std::move(x)); }
PrimExpr FastLog(PrimExpr x) { return Apply(LogOf, std::move(x)); }
PrimExpr FastTanh(PrimExpr x) { return Apply(TanhOf, std::move(x)); }
PrimExpr FastErf(PrimExpr x) { return Apply(ErfOf, std::move(x)); }
PrimExpr FastSigmoid(PrimExpr x) { return Apply(SigmoidOf, std::move(x)); }

PackedFunc FastMathOr(const std::string& op, PackedFunc fallback) {
  PrimExpr (*fast)(PrimExpr) = op == "exp"    ? FastExp
                               : op == "log"  ? FastLog
                               : op == "tanh" ? FastTanh
                               : op == "erf"  ? FastErf
                                              : FastSigmoid;
  return PackedFunc::FromTyped([fast, fallback](PrimExpr e) -> PrimExpr {
    const auto* call = e.as<tir::CallNode>();
    if (call != nullptr && call->args.size() == 1 && call->dtype.is_float() && call->dtype.bits() == 32 &&
        call->args[0].dtype() == call->dtype && FastMathEnabled()) {
      return fast(call->args[0]);
    }
    return fallback(e).cast<PrimExpr>();
  });
}

TESSERA_REGISTER_PASS_CONFIG_OPTION(kFastMathOption, bool);

TESSERA_REGISTER_GLOBAL("tir.fast_math.enabled").set_body_typed([]() { return FastMathEnabled(); });

}  // namespace codegen
}  // namespace tessera

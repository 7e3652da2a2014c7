"""relax.transform.EliminateCommonSubexpr: a repeated pure binding becomes a
copy of the first one, within the scopes where that one is visible; checked
against hand-written expected modules and by running both modules."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R, tir as T  # noqa: F401

from _relax_numeric import assert_same_numbers


def _cse(mod, call_only=False):
    return relax.transform.EliminateCommonSubexpr(call_only)(mod)


def test_duplicate_in_dataflow_block_is_computed_once():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                lv0 = R.add(x, y)
                lv1 = R.add(x, y)
                gv = R.multiply(lv0, lv1)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                lv0 = R.add(x, y)
                lv1 = lv0
                gv = R.multiply(lv0, lv0)
                R.output(gv)
            return gv

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_duplicate_outside_dataflow():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = R.exp(x)
            c = R.add(a, b)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = a
            c = R.add(a, a)
            return c

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_dataflow_vars_are_not_reused_after_their_block():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                A = R.add(x, y)
                B = R.add(x, y)
                C = R.multiply(A, B)
                R.output(B, C)
            D = R.add(x, y)
            return (B, C, D)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                A = R.add(x, y)
                B = A
                C = R.multiply(A, A)
                R.output(B, C)
            # A is gone after the block; the output B carries its value.
            D = B
            return (B, C, B)

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_separate_dataflow_blocks_do_not_share():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.add(a, a)
                R.output(b)
            with R.dataflow():
                c = R.exp(x)
                d = R.add(c, b)
                R.output(d)
            return d

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Before)


def test_impure_calls_are_never_merged():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32")):
            a = R.call_packed("test.impure", x, sinfo_args=R.Tensor((4,), "float32"))
            b = R.call_packed("test.impure", x, sinfo_args=R.Tensor((4,), "float32"))
            c = R.add(a, b)
            return c

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Before)


def test_value_before_if_is_reused_in_branches_but_branches_do_not_share():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), cond: R.Tensor((), "bool")):
            a = R.exp(x)
            if cond:
                b = R.exp(x)
                c = R.log(x)
                s = R.add(b, c)
                r = s
            else:
                d = R.log(x)
                m = R.multiply(a, d)
                r = m
            e = R.log(x)
            out = R.add(r, e)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), cond: R.Tensor((), "bool")):
            a = R.exp(x)
            if cond:
                b = a
                c = R.log(x)
                s = R.add(a, c)
                r = s
            else:
                d = R.log(x)
                m = R.multiply(a, d)
                r = m
            e = R.log(x)
            out = R.add(r, e)
            return out

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Expected)


def test_call_only_leaves_tuples():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            t0 = (x, x)
            t1 = (x, x)
            a = R.exp(x)
            b = R.exp(x)
            return (t0, t1, a, b)

    @I.ir_module
    class CallsMerged:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            t0 = (x, x)
            t1 = (x, x)
            a = R.exp(x)
            b = a
            return (t0, t1, a, a)

    @I.ir_module
    class AllMerged:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            t0 = (x, x)
            t1 = t0
            a = R.exp(x)
            b = a
            return (t0, t0, a, a)

    tvm.ir.assert_structural_equal(_cse(Before, call_only=True), CallsMerged)
    tvm.ir.assert_structural_equal(_cse(Before), AllMerged)


def test_match_cast_duplicates():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                A1 = R.add(x, y)
                B1 = R.match_cast(A1, R.Tensor([2, 3], "float32"))
                A2 = R.add(x, y)
                B2 = R.match_cast(A2, R.Tensor([2, 3], "float32"))
                gv = R.multiply(B1, B2)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                A1 = R.add(x, y)
                B1 = R.match_cast(A1, R.Tensor([2, 3], "float32"))
                A2 = A1
                B2 = B1
                gv = R.multiply(B1, B1)
                R.output(gv)
            return gv

    after = _cse(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_match_cast_defining_symbolic_vars_is_kept():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(dtype="float32", ndim=2)):
            n = T.int64()
            m = T.int64()
            p = T.int64()
            q = T.int64()
            a = R.match_cast(x, R.Tensor((n, m), "float32"))
            b = R.match_cast(x, R.Tensor((p, q), "float32"))
            return (a, b)

    tvm.ir.assert_structural_equal(_cse(Before), Before)


def _with_local_function(merged):
    """main(x): a = exp(x); inner = fn(y) {b = exp(x); c = exp(x); d = b + c}; e = inner(x);
    f = inner(x); g = e + f; (a, g). `merged`: as EliminateCommonSubexpr leaves it."""
    t = relax.TensorStructInfo((4,), "float32")
    x, y = relax.Var("x", t), relax.Var("y", t)
    b, c, d = relax.Var("b", t), relax.Var("c", t), relax.Var("d", t)
    inner = relax.Function([y], relax.SeqExpr([relax.BindingBlock([
        relax.VarBinding(b, relax.op.exp(x)),
        relax.VarBinding(c, b if merged else relax.op.exp(x)),
        relax.VarBinding(d, relax.op.add(b, b if merged else c)),
    ])], d), t)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        a = bb.emit(relax.op.exp(x))
        fn = bb.emit(inner)
        e = bb.emit(relax.Call(fn, [x]))
        f = bb.emit(e if merged else relax.Call(fn, [x]))
        g = bb.emit(relax.op.add(e, e if merged else f))
        bb.emit_func_output(relax.Tuple([a, g]))
    return bb.get()


def test_local_function_starts_afresh():
    # Inside `inner`, exp(x) is not replaced by the enclosing function's `a`.
    after = _cse(_with_local_function(merged=False))
    tvm.ir.assert_structural_equal(after, _with_local_function(merged=True))


def test_seed004_log_twice_evaluates_log_once():
    @I.ir_module
    class TwoLogs:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                lv0 = R.log(x)
                lv1 = R.log(x)
                gv = R.add(lv0, lv1)
                R.output(gv)
            return gv

    after = _cse(TwoLogs)
    logs = [b for blk in after["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call) and b.value.op == tvm.ir.Op.get("relax.log")]
    assert len(logs) == 1
    (out,) = assert_same_numbers(TwoLogs, after)
    x = np.random.default_rng(0).uniform(0.5, 2.0, size=(4,)).astype("float32")
    np.testing.assert_allclose(out, 2 * np.log(x), rtol=1e-5)


def test_call_only_must_be_bool():
    with pytest.raises(TypeError, match="call_only"):
        relax.transform.EliminateCommonSubexpr("yes")

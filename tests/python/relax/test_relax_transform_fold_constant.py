"""relax.transform.FoldConstant: call_tir of PrimFuncs and (in dataflow
blocks) high-level ops whose inputs are all constants are evaluated at
compile time; checked against expected modules whose constants NumPy
computed, and by running the module before and after."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R, tir as T  # noqa: F401

from _relax_numeric import assert_same_numbers


def _bind(mod, func, params):
    """The module with only relax function `func` (renamed main) and its PrimFuncs, params bound."""
    funcs = {}
    for gv in mod.get_global_vars():
        f = mod[gv]
        if isinstance(f, relax.Function):
            if gv.name_hint == func:
                funcs[tvm.ir.GlobalVar("main")] = relax.Function(f.params, f.body, f.ret_struct_info, f.is_pure)
        else:
            funcs[gv] = f  # the calls hold this GlobalVar
    return relax.transform.BindParams("main", params)(tvm.IRModule(funcs))


def _fold(mod):
    return relax.transform.FoldConstant()(mod)


@I.ir_module
class AddOne:
    @T.prim_func
    def addone(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("addone"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @T.prim_func
    def sub(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("sub"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] - B[vi, vj]

    @R.function
    def one(c0: R.Tensor((4, 4), "float32")):
        cls = AddOne
        lv0 = R.call_tir(cls.addone, (c0,), out_sinfo=R.Tensor((4, 4), "float32"))
        return lv0

    @R.function
    def two_hops(c0: R.Tensor((4, 4), "float32")):
        cls = AddOne
        with R.dataflow():
            lv0 = R.call_tir(cls.addone, (c0,), out_sinfo=R.Tensor((4, 4), "float32"))
            gv = R.call_tir(cls.addone, (lv0,), out_sinfo=R.Tensor((4, 4), "float32"))
            R.output(gv)
        return gv

    @R.function
    def mixed(c0: R.Tensor((4, 4), "float32"), x: R.Tensor((4, 4), "float32")):
        cls = AddOne
        lv1 = R.call_tir(cls.addone, (c0,), out_sinfo=R.Tensor((4, 4), "float32"))
        lv2 = R.call_tir(cls.sub, (c0, lv1), out_sinfo=R.Tensor((4, 4), "float32"))
        lv3 = R.call_tir(cls.sub, (lv2, x), out_sinfo=R.Tensor((4, 4), "float32"))
        return lv3

    @R.function
    def returns(c: R.Tensor((4, 4), "float32")):
        return c

    @R.function
    def mixed_expected(c2: R.Tensor((4, 4), "float32"), x: R.Tensor((4, 4), "float32")):
        cls = AddOne
        lv3 = R.call_tir(cls.sub, (c2, x), out_sinfo=R.Tensor((4, 4), "float32"))
        return lv3


C0 = np.arange(16, dtype="float32").reshape(4, 4)


def test_call_tir_on_a_constant_is_evaluated():
    after = _fold(_bind(AddOne, "one", {"c0": C0}))
    tvm.ir.assert_structural_equal(after, _bind(AddOne, "returns", {"c": C0 + 1}))


def test_two_hops_and_dataflow_block_disappear():
    after = _fold(_bind(AddOne, "two_hops", {"c0": C0}))
    tvm.ir.assert_structural_equal(after, _bind(AddOne, "returns", {"c": C0 + 2}))


def test_only_constant_inputs_are_folded():
    before = _bind(AddOne, "mixed", {"c0": C0})
    after = _fold(before)
    tvm.ir.assert_structural_equal(after, _bind(AddOne, "mixed_expected", {"c2": C0 - (C0 + 1)}))
    assert_same_numbers(before, after)


def test_tuple_output():
    @I.ir_module
    class Split:
        @T.prim_func
        def split(A: T.Buffer((4, 4), "float32"), B: T.Buffer((2, 4), "float32"),
                  C: T.Buffer((2, 4), "float32")):
            for i, j in T.grid(2, 4):
                with T.block("upper"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj]
            for i, j in T.grid(2, 4):
                with T.block("lower"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = A[vi + 2, vj]

        @R.function
        def before(c0: R.Tensor((4, 4), "float32")):
            cls = Split
            lv0 = R.call_tir(cls.split, (c0,), out_sinfo=[R.Tensor((2, 4), "float32"), R.Tensor((2, 4), "float32")])
            return lv0

        @R.function
        def expected(c1: R.Tensor((2, 4), "float32"), c2: R.Tensor((2, 4), "float32")):
            lv0 = (c1, c2)
            return lv0

    after = _fold(_bind(Split, "before", {"c0": C0}))
    tvm.ir.assert_structural_equal(after, _bind(Split, "expected", {"c1": C0[:2], "c2": C0[2:]}))


@I.ir_module
class HighLevel:
    @R.function
    def ops(c0: R.Tensor((4, 4), "float32"), c1: R.Tensor((4, 4), "float32")):
        with R.dataflow():
            lv0 = R.add(c0, c1)
            lv1 = R.multiply(c0, lv0)
            gv = R.subtract(lv1, c1)
            R.output(gv)
        return gv

    @R.function
    def outside_dataflow(c0: R.Tensor((4, 4), "float32")):
        gv = R.add(c0, c0)
        return gv

    @R.function
    def returns(c: R.Tensor((4, 4), "float32")):
        return c

    @R.function
    def weights(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            gv = R.nn.relu(y)
            R.output(gv)
        return gv


def test_high_level_ops_in_dataflow_are_folded():
    c1 = np.ones((4, 4), "float32") * 3
    after = _fold(_bind(HighLevel, "ops", {"c0": C0, "c1": c1}))
    tvm.ir.assert_structural_equal(after, _bind(HighLevel, "returns", {"c": C0 * (C0 + c1) - c1}))


def test_high_level_ops_outside_dataflow_are_not_folded():
    before = _bind(HighLevel, "outside_dataflow", {"c0": C0})
    tvm.ir.assert_structural_equal(_fold(before), before)


def test_bound_weight_transpose_disappears():
    w = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    before = _bind(HighLevel, "weights", {"w": w})
    after = _fold(before)
    ops = [b.value.op.name for blk in after["main"].body.blocks for b in blk.bindings
           if isinstance(b.value, relax.Call)]
    assert ops == ["relax.matmul", "relax.nn.relu"]
    consts = [a for blk in after["main"].body.blocks for b in blk.bindings
              for a in getattr(b.value, "args", []) if isinstance(a, relax.Constant)]
    np.testing.assert_array_equal(consts[0].data.numpy(), w.T)
    (out,) = assert_same_numbers(before, after)
    x = np.random.default_rng(0).uniform(0.5, 2.0, size=(2, 4)).astype("float32")
    np.testing.assert_allclose(out, np.maximum(x @ w.T, 0), rtol=1e-5, atol=1e-5)


def test_non_constant_and_symbolic_calls_are_left():
    @I.ir_module
    class Sym:
        @T.prim_func
        def addone(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,))
            B = T.match_buffer(b, (n,))
            for i in range(n):
                with T.block("addone"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Sym
            lv0 = R.call_tir(cls.addone, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return lv0

    tvm.ir.assert_structural_equal(_fold(Sym), Sym)


def test_input_module_is_unchanged():
    before = _bind(AddOne, "one", {"c0": C0})
    text = before.script()
    _fold(before)
    assert before.script() == text


def test_shape_of_a_static_shape_is_folded():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 2), "float32")):
            with R.dataflow():
                s = R.shape_of(x)
                z = R.reshape(y, s)
                R.output(z)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 2), "float32")):
            with R.dataflow():
                z = R.reshape(y, R.shape([2, 3]))
                R.output(z)
            return z

    after = _fold(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)

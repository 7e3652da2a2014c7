"""relax.transform.LambdaLift: local functions become private module
functions; captured vars become trailing parameters passed at each call.
(TVMScript cannot write local functions: the inputs are built with the
BlockBuilder, the expected modules in TVMScript.)"""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R  # noqa: F401

import numpy as np

from _relax_numeric import run_main

T23 = relax.TensorStructInfo((2, 3), "float32")
RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((2, 3)).astype("float32"), RNG.standard_normal((2, 3)).astype("float32")


def _check_numbers(after, expected):
    """The lifted module run by the VM (the input, with local functions, cannot be
    printed for the printer check that relax.build's inputs go through)."""
    (got,) = run_main(after, [X, Y])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def _local(params, make_body, ret=T23):
    """A local relax.Function whose body binds make_body(*params) to `s` and returns it."""
    s = relax.Var("s", ret)
    return relax.Function(params, relax.SeqExpr([relax.BindingBlock([relax.VarBinding(s, make_body(*params))])], s),
                          ret)


def _main(build, extra_funcs=None):
    bb = relax.BlockBuilder()
    for name, func in (extra_funcs or {}).items():
        bb.add_func(func, name)
    x, y = relax.Var("x", T23), relax.Var("y", T23)
    with bb.function("main", [x, y]):
        bb.emit_func_output(build(bb, x, y))
    return bb.get()


def test_local_function_without_captures():
    def build(bb, x, y):
        inner = bb.emit(_local([relax.Var("a", T23), relax.Var("b", T23)], relax.op.add), "inner")
        return bb.emit(relax.Call(inner, [x, y]))

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            cls = Expected
            gv = cls.main_inner(x, y)
            return gv

        @R.function(private=True)
        def main_inner(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            s = R.add(a, b)
            return s

    before = _main(build)
    after = relax.transform.LambdaLift()(before)
    tvm.ir.assert_structural_equal(after, Expected)
    _check_numbers(after, X + Y)


def test_captured_var_becomes_a_trailing_parameter():
    def build(bb, x, y):
        f = bb.emit(_local([relax.Var("a", T23)], lambda a: relax.op.multiply(a, x)), "f")
        r = bb.emit(relax.Call(f, [y]))
        return bb.emit(relax.Call(f, [r]))

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            cls = Expected
            r = cls.main_f(y, x)
            gv = cls.main_f(r, x)
            return gv

        @R.function(private=True)
        def main_f(a: R.Tensor((2, 3), "float32"), x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            s = R.multiply(a, x)
            return s

    before = _main(build)
    after = relax.transform.LambdaLift()(before)
    tvm.ir.assert_structural_equal(after, Expected)
    _check_numbers(after, Y * X * X)


def test_nested_local_functions_pass_captures_along():
    def build(bb, x, y):
        c = relax.Var("c", T23)
        g_var = relax.Var("g", relax.FuncStructInfo([T23], T23))
        a = relax.Var("a", T23)
        g = _local([a], lambda a: relax.op.add(a, c))  # captures c (outer's parameter) ...
        s = relax.Var("s", T23)
        outer = relax.Function([c], relax.SeqExpr([relax.BindingBlock([
            relax.VarBinding(g_var, g),
            relax.VarBinding(s, relax.Call(g_var, [x])),  # ... and outer captures x
        ])], s), T23)
        o = bb.emit(outer, "outer")
        return bb.emit(relax.Call(o, [y]))

    before = _main(build)
    after = relax.transform.LambdaLift()(before)
    assert sorted(gv.name_hint for gv in after.get_global_vars()) == ["main", "main_g", "main_outer"]
    assert [p.name_hint for p in after["main_g"].params] == ["a", "c"]
    assert [p.name_hint for p in after["main_outer"].params] == ["c", "x"]
    assert relax.analysis.well_formed(after)
    _check_numbers(after, X + Y)


def test_lifted_name_avoids_existing_functions():
    existing = relax.Function([], relax.SeqExpr([], relax.Tuple([])), relax.TupleStructInfo([]))

    def build(bb, x, y):
        inner = bb.emit(_local([relax.Var("a", T23), relax.Var("b", T23)], relax.op.add), "inner")
        return bb.emit(relax.Call(inner, [x, y]))

    after = relax.transform.LambdaLift()(_main(build, {"main_inner": existing}))
    assert sorted(gv.name_hint for gv in after.get_global_vars()) == ["main", "main_inner", "main_inner_0"]


def test_capturing_function_used_as_value_is_refused():
    def build(bb, x, y):
        f = bb.emit(_local([relax.Var("a", T23)], lambda a: relax.op.multiply(a, x)), "f")
        return bb.emit(relax.Tuple([f, y]))

    bb = relax.BlockBuilder()
    x, y = relax.Var("x", T23), relax.Var("y", T23)
    with bb.function("main", [x, y]):
        bb.emit_func_output(build(bb, x, y))
    with pytest.raises(NotImplementedError, match="'f' in 'main' captures 'x'"):
        relax.transform.LambdaLift()(bb.get())


def test_module_without_local_functions_is_returned_as_is():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.exp(x)
            return y

    after = relax.transform.LambdaLift()(Before)
    assert after["main"].same_as(Before["main"])


def test_recursive_local_function_passes_its_capture_to_itself():
    i0 = relax.TensorStructInfo((), "int32")
    loop = relax.Var("loop", relax.FuncStructInfo([i0, T23], T23))
    i, s, x = relax.Var("i", i0), relax.Var("s", T23), relax.Var("x", T23)
    cond = relax.Var("cond", relax.TensorStructInfo((), "bool"))
    ni, ns, r1, r = relax.Var("ni", i0), relax.Var("ns", T23), relax.Var("r1", T23), relax.Var("r", T23)
    then = relax.SeqExpr([relax.BindingBlock([
        relax.VarBinding(ni, relax.op.add(i, relax.const(1, "int32"))),
        relax.VarBinding(ns, relax.op.add(s, x)),  # x: captured from main
        relax.VarBinding(r1, relax.Call(loop, [ni, ns])),
    ])], r1)
    body = relax.SeqExpr([relax.BindingBlock([
        relax.VarBinding(cond, relax.op.less(i, relax.const(3, "int32"))),
        relax.VarBinding(r, relax.If(cond, then, relax.SeqExpr([], s))),
    ])], r)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_normalized(relax.VarBinding(loop, relax.Function([i, s], body, T23)))
        bb.emit_func_output(bb.emit(relax.Call(loop, [relax.const(0, "int32"), x])))
    after = relax.transform.LambdaLift()(bb.get())
    assert [p.name_hint for p in after["main_loop"].params] == ["i", "s", "x"]
    assert relax.analysis.well_formed(after)
    (got,) = run_main(after, [X])
    np.testing.assert_allclose(got, 4 * X, rtol=1e-5)  # s = x, then three times s + x

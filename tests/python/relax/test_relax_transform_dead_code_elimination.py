"""relax.analysis.remove_all_unused and relax.transform.DeadCodeElimination:
unused side-effect-free bindings and unreachable functions disappear;
impure calls, used values and symbolic-dim definitions stay."""
import pytest

import tessera as tvm
from tessera import relax, tir


def _t(shape=(4,)):
    return relax.TensorStructInfo(shape, "float32")


def _func(with_dead):
    n = tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((n,)))
    y = relax.Var("y", relax.TensorStructInfo(ndim=1, dtype="float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            if with_dead:
                bb.emit(relax.op.shape_of(x))  # unused, pure
            lv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=_t((n,))))
            if with_dead:
                bb.emit(relax.Tuple([lv, x]))  # unused, pure
            out = bb.emit_output(lv)
        if with_dead:
            with bb.dataflow():  # a block of dead bindings only
                bb.emit(relax.op.shape_of(out))
                bb.emit_output(relax.Tuple([]))
        bb.emit(relax.Call(relax.ExternFunc("g"), [out], None, [relax.TupleStructInfo([])]))  # impure: kept
        bb.match_cast(y, _t((tir.Var("m", "int64"),)))  # defines a symbolic dim: kept
        bb.emit_func_output(out)
    return bb.get()["main"]


def test_remove_all_unused():
    after = relax.analysis.remove_all_unused(_func(with_dead=True))
    tvm.ir.assert_structural_equal(after, _func(with_dead=False))


def test_nothing_to_remove_keeps_the_function():
    func = _func(with_dead=False)
    assert relax.analysis.remove_all_unused(func).same_as(func)


def test_remove_all_unused_refuses_non_functions():
    with pytest.raises(TypeError, match="relax.Function"):
        relax.analysis.remove_all_unused(relax.Var("x", _t()))


def _module(with_dead):
    bb = relax.BlockBuilder()
    used_kernel = bb.add_func(tir.PrimFunc([], tir.Evaluate(0)), "used_kernel")
    if with_dead:
        bb.add_func(tir.PrimFunc([], tir.Evaluate(1)), "unused_kernel")
    p = relax.Var("p", _t())
    with bb.function("helper", [p], private=True):
        bb.emit_func_output(p)
    if with_dead:
        q = relax.Var("q", _t())
        with bb.function("unused_helper", [q], private=True):
            bb.emit_func_output(q)
    helper = bb.get().get_global_var("helper")
    x = relax.Var("x", _t())
    with bb.function("main", [x]):
        lv = bb.emit(relax.op.call_tir(used_kernel, (x,), _t()))
        r = bb.emit(relax.Call(helper, [lv]))
        if with_dead:
            bb.emit(relax.op.shape_of(r))
        bb.emit_func_output(r)
    return bb.get()


def test_dead_code_elimination_removes_unreachable_functions():
    after = relax.transform.DeadCodeElimination()(_module(with_dead=True))
    assert sorted(gv.name_hint for gv in after.get_global_vars()) == ["helper", "main", "used_kernel"]
    tvm.ir.assert_structural_equal(after, _module(with_dead=False))


def test_entry_functions_keep_private_functions():
    after = relax.transform.DeadCodeElimination(["unused_helper"])(_module(with_dead=True))
    assert "unused_helper" in [gv.name_hint for gv in after.get_global_vars()]
    with pytest.raises(ValueError, match="nonesuch"):
        relax.transform.DeadCodeElimination(["nonesuch"])(_module(with_dead=True))
    with pytest.raises(TypeError):
        relax.transform.DeadCodeElimination("main")


def test_dead_code_elimination_keeps_the_numbers():
    from tessera.script import ir as I, relax as R
    from _relax_numeric import assert_same_numbers

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Before
            with R.dataflow():
                dead = R.exp(x)
                live = R.log(x)
                R.output(live)
            unused_call = cls.helper(x)
            return live

        @R.function(private=True)
        def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = R.add(x, x)
            return y

    after = relax.transform.DeadCodeElimination()(Before)
    assert [gv.name_hint for gv in after.get_global_vars()] == ["main"]
    assert [b.var.name_hint for blk in after["main"].body.blocks for b in blk.bindings] == ["live"]
    assert_same_numbers(Before, after)


def test_extern_functions_are_kept():
    bb = relax.BlockBuilder()
    bb.add_func(relax.extern("my_extern"), "my_extern")
    before = bb.get()
    after = relax.transform.DeadCodeElimination()(before)
    assert [gv.name_hint for gv in after.get_global_vars()] == ["my_extern"]


def _unmarked_module(with_dead):
    """Hand-built functions without "global_symbol" (IRModule({...})): a caller
    "main", a callee "twice", and (dead) a PrimFunc nothing calls."""
    x = relax.Var("x", _t())
    twice = relax.Function([x], relax.op.add(x, x), _t())
    funcs = {"twice": twice}
    if with_dead:
        funcs["unused_kernel"] = tir.PrimFunc([], tir.Evaluate(0))
    mod = tvm.IRModule(funcs)
    y = relax.Var("y", _t())
    z = relax.Var("z", _t())
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(z, relax.Call(mod.get_global_var("twice"), [y]))])], z)
    mod["main"] = relax.Function([y], body, _t())
    return relax.transform.Normalize()(mod)


def test_module_without_visible_functions_keeps_its_relax_functions():
    """No Relax function has a "global_symbol" (relax.build exports them all):
    every Relax function is an entry; the unreachable PrimFunc still goes."""
    after = relax.transform.DeadCodeElimination()(_unmarked_module(with_dead=True))
    assert sorted(gv.name_hint for gv in after.get_global_vars()) == ["main", "twice"]
    tvm.ir.assert_structural_equal(after, _unmarked_module(with_dead=False))
    import numpy as np  # pylint: disable=import-outside-toplevel

    x = np.random.default_rng(0).standard_normal(4).astype("float32")
    vm = relax.VirtualMachine(relax.build(after, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), 2 * x, rtol=1e-6)
    np.testing.assert_allclose(vm["twice"](tvm.nd.array(x)).numpy(), 2 * x, rtol=1e-6)


def _pipeline_module():
    from tessera.script import ir as I, relax as R, tir as T  # pylint: disable=import-outside-toplevel

    @I.ir_module
    class Mod:
        @T.prim_func(private=True)
        def never_called(a: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("b"):
                    vi = T.axis.spatial(4, i)
                    a[vi] = T.float32(0)

        @R.function(private=True)
        def unused_helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = R.multiply(x, x)
            return y

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                dead = R.exp(x)
                live = R.add(x, x)
                R.output(live)
            return live

    return Mod


def test_build_pipeline_removes_unreachable_functions():
    """relax.build's DeadCodeElimination step drops the private function and the
    PrimFunc nobody calls (and the dead exp kernel); disabled, they stay."""
    import numpy as np  # pylint: disable=import-outside-toplevel

    def names(mod):
        return sorted(gv.name_hint for gv in mod.get_global_vars())

    lowered = relax.get_pipeline()(_pipeline_module())
    assert "unused_helper" not in names(lowered) and "never_called" not in names(lowered)
    assert not [n for n in names(lowered) if "exp" in n]
    with tvm.transform.PassContext(disabled_pass=["DeadCodeElimination"]):
        kept = relax.get_pipeline()(_pipeline_module())
    assert {"unused_helper", "never_called"} <= set(names(kept))
    x = np.random.default_rng(1).standard_normal(4).astype("float32")
    vm = relax.VirtualMachine(relax.build(_pipeline_module(), target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), x + x, rtol=1e-6)

def test_intermediate_dataflow_var_of_an_output_is_elided():
    # `lv = f(x); gv = lv` with lv used nowhere else: `gv = f(x)` (as TVM).
    x = relax.Var("x", _t())
    call = relax.op.call_pure_packed("f", x, sinfo_args=_t())
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(call)
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    after = relax.transform.DeadCodeElimination()(bb.get())

    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(call)
        bb.emit_func_output(gv)
    tvm.ir.assert_structural_equal(after, bb.get())


def test_intermediate_used_twice_stays():
    x = relax.Var("x", _t())
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=_t()))
            gv = bb.emit_output(lv)
            gv2 = bb.emit_output(relax.op.add(lv, gv))
        bb.emit_func_output(gv2)
    before = bb.get()
    tvm.ir.assert_structural_equal(relax.transform.DeadCodeElimination()(before), before)

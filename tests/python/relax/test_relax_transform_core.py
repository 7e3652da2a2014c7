"""Relax pass wrappers and core passes (issue [D]): function_pass /
dataflow_block_pass (functions and classes, mixing with TIR and module
passes in one Sequential), Normalize and BindParams, each checked against a
hand-written expected module built with the BlockBuilder."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.ir import Op


def tensor(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def mlp_module():
    """main(x: (n, 784), w0: (128, 784), b0: (128,)) -> env.linear(x, w0, b0)."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", tensor((n, 784)))
    w0 = relax.Var("w0", tensor((128, 784)))
    b0 = relax.Var("b0", tensor((128,)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w0, b0]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_dps_packed("env.linear", [x, w0, b0], tensor((n, 128))))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    return bb.get()


def expected_bound(w0=None, b0=None):
    """mlp_module with the given weights bound, written with constants directly."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", tensor((n, 784)))
    params = [x]
    w = relax.const(w0) if w0 is not None else relax.Var("w0", tensor((128, 784)))
    b = relax.const(b0) if b0 is not None else relax.Var("b0", tensor((128,)))
    params += [v for v in (w, b) if isinstance(v, relax.Var)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_dps_packed("env.linear", [x, w, b], tensor((n, 128))))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    return bb.get()


RNG = np.random.default_rng(0)
W0 = RNG.standard_normal((128, 784)).astype("float32")
B0 = RNG.standard_normal((128,)).astype("float32")


# ---- BindParams --------------------------------------------------------------------------------------


def test_bind_params_by_name_and_by_var():
    mod = mlp_module()
    bound = relax.transform.BindParams("main", {"w0": W0, "b0": tvm.nd.array(B0)})(mod)
    tvm.ir.assert_structural_equal(bound, expected_bound(W0, B0))
    assert [p.name_hint for p in bound["main"].params] == ["x"]
    assert [p.name_hint for p in mod["main"].params] == ["x", "w0", "b0"]  # the input is untouched
    w0_var = mod["main"].params[1]
    by_var = relax.transform.BindParams("main", {w0_var: W0, "b0": B0})(mod)
    tvm.ir.assert_structural_equal(by_var, expected_bound(W0, B0))
    assert relax.analysis.well_formed(bound)


def test_bind_params_subset_keeps_other_parameters():
    bound = relax.transform.BindParams("main", {"w0": W0})(mlp_module())
    assert [p.name_hint for p in bound["main"].params] == ["x", "b0"]
    tvm.ir.assert_structural_equal(bound, expected_bound(w0=W0))
    # The constant holds the values given.
    call = bound["main"].body.blocks[0].bindings[0].value
    np.testing.assert_array_equal(call.args[1].fields[1].data.numpy(), W0)


def test_bind_params_different_values_are_structurally_different():
    a = relax.transform.BindParams("main", {"w0": W0})(mlp_module())
    b = relax.transform.BindParams("main", {"w0": W0 + 1})(mlp_module())
    assert not tvm.ir.structural_equal(a, b)
    assert tvm.ir.structural_hash(a) != tvm.ir.structural_hash(b)


def test_bind_params_substitutes_symbolic_dims():
    m = tir.Var("m", "int64")
    x = relax.Var("x", tensor((m, 4)))
    w = relax.Var("w", tensor((m, 4)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        r = bb.emit(relax.op.call_pure_packed("f", x, w, sinfo_args=tensor((m,))))
        bb.emit_func_output(r)
    value = np.ones((3, 4), "float32")
    bound = relax.transform.BindParams("main", {"w": value})(bb.get())
    x2 = relax.Var("x", tensor((3, 4)))
    bb2 = relax.BlockBuilder()
    with bb2.function("main", [x2]):
        r2 = bb2.emit(relax.op.call_pure_packed("f", x2, relax.const(value), sinfo_args=tensor((3,))))
        bb2.emit_func_output(r2)
    tvm.ir.assert_structural_equal(bound, bb2.get())
    assert repr(bound["main"].ret_struct_info) == 'R.Tensor((3,), dtype="float32")'


@pytest.mark.parametrize("func_name, params, err, pattern", [
    ("main", {"w9": W0}, ValueError, r"function 'main' has no parameter named 'w9' \(parameters: x, w0, b0\)"),
    ("main", {"w0": W0[:, :783]}, ValueError, r"parameter 'w0' expects shape R.Tensor\(\(128, 784\).*got \(128, 783\)"),
    ("main", {"w0": W0[0]}, ValueError, r"parameter 'w0' expects 2 dims"),
    ("main", {"w0": W0.astype("float64")}, TypeError, r"parameter 'w0' expects dtype float32, got float64"),
    ("nope", {"w0": W0}, ValueError, r"the module has no function named 'nope'"),
    ("main", {"w0": [1, 2]}, TypeError, r"value for parameter 'w0' must be a tvm.nd.NDArray or a NumPy array"),
    ("main", {3: W0}, TypeError, r"keys must be parameter names or relax Vars"),
    ("main", {relax.Var("w0", tensor((128, 784))): W0}, ValueError, r"var 'w0' is not a parameter of function 'main'"),
])
def test_bind_params_errors_name_the_culprit(func_name, params, err, pattern):
    with pytest.raises(err, match=pattern):
        relax.transform.BindParams(func_name, params)(mlp_module())


def test_bind_params_refuses_a_prim_func():
    mod = mlp_module()

    @tvm.script.ir_module
    class Prim:  # pylint: disable=too-few-public-methods
        @tvm.script.tir.prim_func
        def f(a: tvm.script.tir.Buffer((4,), "float32")):
            tvm.script.tir.evaluate(0)

    mod["f"] = Prim["f"]
    with pytest.raises(TypeError, match="'f' is not a relax function"):
        relax.transform.BindParams("f", {"a": W0})(mod)


# ---- Normalize --------------------------------------------------------------------------------------


def test_normalize_pass_matches_builder_output():
    x = relax.Var("x", tensor((4,)))
    nested = relax.op.call_pure_packed("f", relax.op.call_pure_packed("g", x, sinfo_args=tensor((4,))),
                                       sinfo_args=tensor((2,)))
    raw = relax.Function([x], nested).with_attr("global_symbol", "main")
    mod = tvm.IRModule({"main": raw})
    out = relax.transform.Normalize()(mod)
    y = relax.Var("y", tensor((4,)))
    bb = relax.BlockBuilder()
    with bb.function("main", [y]):
        a = bb.emit(relax.op.call_pure_packed("g", y, sinfo_args=tensor((4,))))
        b = bb.emit(relax.op.call_pure_packed("f", a, sinfo_args=tensor((2,))))
        bb.emit_func_output(b)
    tvm.ir.assert_structural_equal(out, bb.get())
    assert relax.analysis.well_formed(out)
    assert relax.transform.Normalize().info.name == "Normalize"
    # Normalizing normalized IR changes nothing.
    assert relax.transform.Normalize()(out)["main"].same_as(out["main"])


# ---- pass wrappers ----------------------------------------------------------------------------------


def test_function_pass_function_and_class_forms():
    calls = []

    @relax.transform.function_pass(opt_level=0)
    def tag(func, mod, ctx):  # pylint: disable=unused-argument
        calls.append(func.attrs["global_symbol"])
        return func.with_attr("tagged", 1)

    @relax.transform.function_pass(opt_level=0, name="Untag")
    class Untag:  # pylint: disable=too-few-public-methods
        def transform_function(self, func, mod, ctx):  # pylint: disable=unused-argument
            return func.without_attr("tagged")

    mod = mlp_module()
    tagged = tag(mod)
    assert calls == ["main"] and tagged["main"].attrs["tagged"] == 1
    assert isinstance(tag, relax.transform.FunctionPass) and tag.info.name == "tag"
    untagged = Untag()(tagged)
    assert "tagged" not in untagged["main"].attrs and untagged.get_global_var("main")
    tvm.ir.assert_structural_equal(untagged, mod)


def test_function_pass_must_return_a_function():
    bad = relax.transform.function_pass(lambda f, m, c: None, opt_level=0, name="Bad")
    with pytest.raises(TypeError, match="function pass 'Bad' must return a relax.Function, got None"):
        bad(mlp_module())
    with pytest.raises(ValueError, match="provide opt_level"):
        relax.transform.function_pass(lambda f, m, c: f)


def test_dataflow_block_pass_drops_a_dead_binding():
    x = relax.Var("x", tensor((4,)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=tensor((4,))))
            bb.emit(relax.op.call_pure_packed("dead", x, sinfo_args=tensor((4,))))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    mod = bb.get()

    @relax.transform.dataflow_block_pass(opt_level=0)
    def drop_dead(block, mod, ctx):  # pylint: disable=unused-argument
        keep = [b for b in block.bindings
                if not (isinstance(b.value, relax.Call) and b.value.args[0].global_symbol == "dead")]
        return relax.DataflowBlock(keep)

    out = drop_dead(mod)
    y = relax.Var("y", tensor((4,)))
    bb2 = relax.BlockBuilder()
    with bb2.function("main", [y]):
        with bb2.dataflow():
            lv2 = bb2.emit(relax.op.call_pure_packed("f", y, sinfo_args=tensor((4,))))
            gv2 = bb2.emit_output(lv2)
        bb2.emit_func_output(gv2)
    tvm.ir.assert_structural_equal(out, bb2.get())
    assert isinstance(drop_dead, relax.transform.DataflowBlockPass)

    @relax.transform.dataflow_block_pass(opt_level=0)
    def drop_outputs(block, mod, ctx):  # pylint: disable=unused-argument
        return relax.DataflowBlock([b for b in block.bindings if isinstance(b.var, relax.DataflowVar)])

    with pytest.raises(ValueError, match="dataflow block pass 'drop_outputs' changed the output vars .* function 'main'"):
        drop_outputs(mod)


def test_relax_passes_mix_with_other_passes_in_a_sequential():
    order = []

    @relax.transform.function_pass(opt_level=0)
    def first(func, mod, ctx):  # pylint: disable=unused-argument
        order.append("relax")
        return func

    @tvm.transform.module_pass(opt_level=0)
    def second(mod, ctx):  # pylint: disable=unused-argument
        order.append("module")
        return mod

    seq = tvm.transform.Sequential([first, relax.transform.Normalize(), second,
                                    relax.transform.BindParams("main", {"w0": W0})])
    out = seq(mlp_module())
    assert order == ["relax", "module"]
    tvm.ir.assert_structural_equal(out, expected_bound(w0=W0))

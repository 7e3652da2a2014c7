"""relax.transform.FuseOps: call_tir bindings of a dataflow block grouped by
TVM's post-dominator algorithm into private {"Primitive": 1} functions, each
called where its last binding was. Before/after modules compared with
tvm.ir.assert_structural_equal (both annotated by AnnotateTIROpPattern, as
TVM's tests), plus numeric checks of the fused modules. C++:
src/relax/transform/fuse_ops.cc."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, topi, tir
from tessera.script import relax as R, ir as I


def _check(before, expected):
    after = relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(before))
    tvm.ir.assert_structural_equal(after, relax.transform.AnnotateTIROpPattern()(expected))


def _t(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def _run(mod, *arrays):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(a) for a in arrays])
    return [o.numpy() for o in out] if isinstance(out, (list, tuple)) else out.numpy()


def test_elementwise_chain_with_constant():
    def before():
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((10, 20)))
        with bb.function("main", [x]):
            with bb.dataflow():
                lv0 = bb.emit_te(topi.add, x, relax.const(1, "float32"))
                lv1 = bb.emit_te(topi.exp, lv0)
                gv = bb.emit_output(bb.call_te(topi.squeeze, lv1))
            bb.emit_func_output(gv)
        return bb.get()

    def expected():
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((10, 20)))
        p0 = relax.Var("p0", _t(()))
        with bb.function("fused_add_exp_squeeze", [x, p0], attrs={"Primitive": 1}, private=True):
            with bb.dataflow():
                lv0 = bb.emit_te(topi.add, x, p0)
                lv1 = bb.emit_te(topi.exp, lv0)
                gv = bb.emit_output(bb.call_te(topi.squeeze, lv1))
            bb.emit_func_output(gv)
        fused = bb.get().get_global_var("fused_add_exp_squeeze")
        x = relax.Var("x", _t((10, 20)))
        with bb.function("main", [x]):
            with bb.dataflow():
                gv = bb.emit_output(relax.Call(fused, [x, relax.const(1, "float32")]))
            bb.emit_func_output(gv)
        return bb.get()

    _check(before(), expected())


def _conv(data, weight, padding):
    return topi.nn.conv2d(data, weight, strides=1, padding=padding, dilation=1)


def _conv_params():
    return [relax.Var(n, _t(s)) for n, s in (("x", (1, 4, 8, 8)), ("w1", (4, 4, 3, 3)), ("w2", (4, 4, 1, 1)),
                                              ("w3", (4, 4, 3, 3)))]


def test_conv2d_with_epilogues_and_second_path():
    """conv2d fuses with the elementwise ops it post-dominates; the residual
    conv2d output used by two convolutions is not recomputed."""

    def before():
        bb = relax.BlockBuilder()
        x, w1, w2, w3 = _conv_params()
        with bb.function("main", [x, w1, w2, w3]):
            with bb.dataflow():
                lv0 = bb.emit_te(topi.add, x, relax.const(1, "float32"))
                lv1 = bb.emit_te(_conv, lv0, w1, 1, primfunc_name_hint="conv2d")
                lv2 = bb.emit_te(topi.add, relax.const(1, "float32"), lv1, primfunc_name_hint="add1")
                lv3 = bb.emit_te(topi.add, lv1, lv2, primfunc_name_hint="add2")
                lv4 = bb.emit_te(_conv, lv3, w2, 0, primfunc_name_hint="conv2d1")
                lv5 = bb.emit_te(_conv, lv3, w3, 1, primfunc_name_hint="conv2d")
                gv = bb.emit_output(bb.call_te(topi.add, lv4, lv5, primfunc_name_hint="add2"))
            bb.emit_func_output(gv)
        return bb.get()

    def expected():
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((1, 4, 8, 8)))
        w = relax.Var("w", _t((4, 4, 3, 3)))
        p0 = relax.Var("p0", _t(()))
        with bb.function("fused_conv2d_add1_add2", [x, w, p0], attrs={"Primitive": 1}, private=True):
            with bb.dataflow():
                lv0 = bb.emit_te(_conv, x, w, 1, primfunc_name_hint="conv2d")
                lv1 = bb.emit_te(topi.add, p0, lv0, primfunc_name_hint="add1")
                gv = bb.emit_output(bb.call_te(topi.add, lv0, lv1, primfunc_name_hint="add2"))
            bb.emit_func_output(gv)
        x = relax.Var("x", _t((1, 4, 8, 8)))
        w = relax.Var("w", _t((4, 4, 1, 1)))
        y = relax.Var("y", _t((1, 4, 8, 8)))
        with bb.function("fused_conv2d1_add2", [x, w, y], attrs={"Primitive": 1}, private=True):
            with bb.dataflow():
                lv0 = bb.emit_te(_conv, x, w, 0, primfunc_name_hint="conv2d1")
                gv = bb.emit_output(bb.call_te(topi.add, lv0, y, primfunc_name_hint="add2"))
            bb.emit_func_output(gv)
        mod = bb.get()
        f1, f2 = mod.get_global_var("fused_conv2d_add1_add2"), mod.get_global_var("fused_conv2d1_add2")
        x, w1, w2, w3 = _conv_params()
        with bb.function("main", [x, w1, w2, w3]):
            with bb.dataflow():
                lv0 = bb.emit_te(topi.add, x, relax.const(1, "float32"))
                lv1 = bb.emit(relax.Call(f1, [lv0, w1, relax.const(1, "float32")]))
                lv2 = bb.emit_te(_conv, lv1, w3, 1, primfunc_name_hint="conv2d")
                gv = bb.emit_output(relax.Call(f2, [lv1, w2, lv2]))
            bb.emit_func_output(gv)
        return bb.get()

    _check(before(), expected())
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype("float32") for s in [(1, 4, 8, 8), (4, 4, 3, 3), (4, 4, 1, 1), (4, 4, 3, 3)]]
    fused = relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(before()))
    np.testing.assert_allclose(_run(fused, *arrays), _run(before(), *arrays), rtol=1e-5, atol=1e-5)


def _mlp():
    @I.ir_module
    class MLP:
        @R.function
        def main(x: R.Tensor(("n", 16), "float32"), w0: R.Tensor((8, 16), "float32"), b0: R.Tensor((8,), "float32"),
                 w1: R.Tensor((4, 8), "float32"), b1: R.Tensor((4,), "float32")):
            with R.dataflow():
                lv0 = R.matmul(x, R.permute_dims(w0))
                lv1 = R.add(lv0, b0)
                lv2 = R.nn.relu(lv1)
                lv3 = R.matmul(lv2, R.permute_dims(w1))
                gv = R.add(lv3, b1)
                R.output(gv)
            return gv

    return MLP


def _callees(func):
    call_tir = tvm.ir.Op.get("relax.call_tir")
    out = []
    for block in func.body.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, relax.Call):
                if v.op == call_tir:
                    out.append(v.args[0].name_hint)
                elif isinstance(v.op, tvm.ir.GlobalVar):
                    out.append(v.op.name_hint)
    return out


def test_legalized_mlp_fuses_matmul_with_bias_and_relu():
    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(_mlp()))
    fused = relax.transform.FuseOps()(mod)
    assert _callees(fused["main"]) == ["transpose", "fused_matmul_add_relu", "transpose1", "fused_matmul1_add1"]
    for name, inner in (("fused_matmul_add_relu", ["matmul", "add", "relu"]), ("fused_matmul1_add1", ["matmul1", "add1"])):
        f = fused[name]
        assert int(f.attrs["Primitive"]) == 1 and "global_symbol" not in f.attrs
        assert _callees(f) == inner
        assert isinstance(f.body.blocks[0], relax.DataflowBlock)
    rng = np.random.default_rng(1)
    for batch in (1, 5):
        arrays = [rng.standard_normal(s).astype("float32") for s in [(batch, 16), (8, 16), (8,), (4, 8), (4,)]]
        np.testing.assert_allclose(_run(fused, *arrays), _run(_mlp(), *arrays), rtol=1e-5, atol=1e-5)


def test_opaque_calls_are_never_fused():
    """call_dps_packed and call_pure_packed stay outside every group and split the paths through them."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.call_dps_packed("my_dps", (a,), out_sinfo=R.Tensor((2, 3), "float32"))
                c = R.call_pure_packed("my_pure", b, sinfo_args=R.Tensor((2, 3), "float32"))
                d = R.exp(c)
                e = R.add(d, a)
                R.output(e)
            return e

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Before))
    fused = relax.transform.FuseOps()(mod)
    main = fused["main"]
    assert _callees(main) == ["exp", "fused_exp_add"]
    ops = [b.value.op.name for b in main.body.blocks[0].bindings
           if isinstance(b.value, relax.Call) and isinstance(b.value.op, tvm.ir.Op)]
    assert ops == ["relax.call_tir", "relax.call_dps_packed", "relax.call_pure_packed"]
    assert _callees(fused["fused_exp_add"]) == ["exp", "add"]


def test_binding_blocks_and_multi_consumer_values_stay():
    """Outside dataflow blocks nothing is fused; a value read by two outputs is not duplicated."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((4, 4)))
    with bb.function("main", [x]):
        lv0 = bb.emit_te(topi.exp, x)
        lv1 = bb.emit_te(topi.add, lv0, x)
        with bb.dataflow():
            e = bb.emit_te(topi.exp, lv1)
            s0 = bb.emit_output(bb.call_te(topi.sum, e, axis=0))
            s1 = bb.emit_output(bb.call_te(topi.sum, e, axis=1))
        bb.emit_func_output(relax.Tuple([s0, s1]))
    before = relax.transform.AnnotateTIROpPattern()(bb.get())
    tvm.ir.assert_structural_equal(relax.transform.FuseOps()(before), before)


def test_dead_group_is_dropped_and_identical_groups_share_a_function():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((4, 8)))
    y = relax.Var("y", _t((4, 8)))
    w = relax.Var("w", _t((8, 8)))
    with bb.function("main", [x, y, w]):
        with bb.dataflow():
            dead = bb.emit_te(topi.matmul, x, w)
            bb.emit_te(topi.nn.relu, dead)
            a = bb.emit_te(topi.nn.relu, bb.emit_te(topi.matmul, x, w))
            b = bb.emit_te(topi.nn.relu, bb.emit_te(topi.matmul, y, w))
            gv = bb.emit_output(bb.call_te(topi.concatenate, [a, b], axis=0))
        bb.emit_func_output(gv)
    fused = relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(bb.get()))
    assert _callees(fused["main"]) == ["fused_matmul_relu", "fused_matmul_relu", "concatenate"]
    assert sorted(gv.name_hint for gv, f in fused.functions.items() if isinstance(f, relax.Function)) == [
        "fused_matmul_relu", "main"]


def test_opt_level_zero_fuses_nothing():
    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(_mlp()))
    tvm.ir.assert_structural_equal(relax.transform.FuseOps(fuse_opt_level=0)(mod), mod)
    with tvm.transform.PassContext(opt_level=0):
        tvm.ir.assert_structural_equal(relax.transform.FuseOps()(mod), mod)
    # Without AnnotateTIROpPattern every kernel is opaque.
    plain = relax.transform.LegalizeOps()(_mlp())
    tvm.ir.assert_structural_equal(relax.transform.FuseOps()(plain), plain)
    with pytest.raises(TypeError, match="fuse_opt_level"):
        relax.transform.FuseOps("2")
    with pytest.raises(ValueError, match="fuse_opt_level"):
        relax.transform.FuseOps(-3)


def test_scheduled_kernels_stay_alone():
    """A PrimFunc marked "tir.is_scheduled" (tuned) is not fused; its elementwise consumers still are."""
    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(_mlp()))
    mod["matmul"] = mod["matmul"].with_attr("tir.is_scheduled", True)
    fused = relax.transform.FuseOps()(mod)
    assert _callees(fused["main"]) == ["transpose", "matmul", "fused_add_relu", "transpose1", "fused_matmul1_add1"]


def test_kernels_scheduled_by_hand_stay_alone():
    """A PrimFunc scheduled with tvm.tir.Schedule (a vectorized loop) is not fused into its
    consumer: a fused copy would drop the schedule (the course's MLP ran 5x slower that way).
    The same function unscheduled is fused."""
    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(_mlp()))
    assert not tvm.tir.analysis.is_scheduled(mod["matmul"])
    before = _callees(relax.transform.FuseOps()(mod)["main"])
    assert "matmul" not in before  # fused with its add/relu epilogue
    sch = tvm.tir.Schedule(mod["matmul"])
    block = sch.get_child_blocks(sch.get_block("root"))[0]
    loops = sch.get_loops(block)
    sch.vectorize(sch.split(loops[-2], [None, 4])[1])
    assert tvm.tir.analysis.is_scheduled(sch.mod["main"])
    mod["matmul"] = sch.mod["main"]
    fused = relax.transform.FuseOps()(mod)
    assert _callees(fused["main"])[:3] == ["transpose", "matmul", "fused_add_relu"]
    with pytest.raises(ValueError, match="PrimFunc"):
        tvm.tir.analysis.is_scheduled(mod)

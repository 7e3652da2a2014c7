"""relax.transform.LegalizeOps and BlockBuilder.call_te/emit_te: legalized
modules built and run on the VM against NumPy, emit_te against a hand-written
expected module, ops without a legalization left in place."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, te, topi
from tessera.script import relax as R, ir as I, tir as T


def _run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in args]).numpy()


def test_legalized_binary_and_unary_match_numpy():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                a = R.exp(x)
                b = R.multiply(a, y)
                c = R.subtract(b, R.sigmoid(y))
                d = R.maximum(c, R.negative(x))
                gv = R.divide(d, R.sqrt(R.abs(y)))
                R.output(gv)
            return gv

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3)).astype("float32")
    y = rng.uniform(0.5, 2, (3,)).astype("float32")
    c = np.exp(x) * y - 1 / (1 + np.exp(-y))
    expected = np.maximum(c, -x) / np.sqrt(np.abs(y))
    np.testing.assert_allclose(_run(Mod, x, y), expected, rtol=1e-5, atol=1e-5)


def test_identical_shapes_share_one_primfunc():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                a = R.add(x, y)
                gv = R.add(a, y)
                R.output(gv)
            return gv

    out = relax.transform.LegalizeOps()(Mod)
    prims = [gv for gv in out.get_global_vars() if isinstance(out[gv], tvm.tir.PrimFunc)]
    assert len(prims) == 1


def _shape_of_module():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Shape([4]):
            gv = R.shape_of(x)
            return gv

    return Mod


def test_op_without_legalization_stays():
    mod = _shape_of_module()
    out = relax.transform.LegalizeOps()(mod)
    tvm.ir.assert_structural_equal(out, mod)


def test_emit_te_matches_expected_module():
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit_te(topi.exp, x, primfunc_name_hint="exp")
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)

    @I.ir_module
    class Expected:
        @T.prim_func(private=True)
        def exp(x: T.Buffer((T.int64(4),), "float32"), T_exp: T.Buffer((T.int64(4),), "float32")):
            T.func_attr({"tir.noalias": True})
            for i0 in range(T.int64(4)):
                with T.block("T_exp"):
                    v_i0 = T.axis.spatial(T.int64(4), i0)
                    T.reads(x[v_i0])
                    T.writes(T_exp[v_i0])
                    T_exp[v_i0] = T.exp(x[v_i0])

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                lv = R.call_tir(Expected.exp, (x,), out_sinfo=R.Tensor((4,), "float32"))
                gv = lv
                R.output(gv)
            return gv

    tvm.ir.assert_structural_equal(bb.get(), Expected)


def test_call_te_refuses_non_tensor():
    bb = relax.BlockBuilder()
    # A literal ShapeExpr enters as its values (test_relax_call_te_arguments.py); a shape var does not.
    s = relax.Var("s", relax.ShapeStructInfo([2]))
    with pytest.raises(TypeError, match="call_te"):
        with bb.function("main", [s]):
            bb.call_te(topi.exp, s)


def test_legalization_is_an_op_attribute():
    assert callable(tvm.ir.Op.get("relax.add").get_attr("FLegalize"))
    assert tvm.ir.Op.get("relax.shape_of").get_attr("FLegalize") is None


def test_call_te_gives_each_primfunc_its_own_symbolic_vars():
    n = tvm.tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n, 4), "float32"))

    def first_rows(a, rows):
        return te.compute((rows, 4), lambda i, j: a[i, j] * 2.0, name="T_rows")

    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        lv = bb.emit_te(topi.exp, x)
        gv = bb.emit_te(first_rows, lv, n - 1)  # a PrimExpr argument naming n follows the copy
        bb.emit_func_output(gv)
    mod = bb.get()
    assert relax.analysis.well_formed(mod)
    ns = [mod[name].buffer_map[mod[name].params[0]].shape[0] for name in ("exp", "first_rows")]
    assert not ns[0].same_as(n) and not ns[1].same_as(n) and not ns[0].same_as(ns[1])
    out = mod["first_rows"].buffer_map[mod["first_rows"].params[1]].shape[0]
    assert tvm.ir.structural_equal(out, ns[1] - 1)
    ret = mod["main"].ret_struct_info.shape.values[0]
    assert isinstance(ret, tvm.tir.Sub) and ret.a.same_as(n)


def _add_exp_module():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                a = R.add(x, y)
                gv = R.exp(a)
                R.output(gv)
            return gv

    return Mod


def test_customize_legalize_map_replaces_the_registered_legalization():
    """TVM's LegalizeOps(customize_legalize_map): the given function is used for
    its op (here add as x - y, to tell it apart); other ops keep theirs."""
    seen = []

    def add_as_subtract(bb, call):
        seen.append(call.op.name)
        return bb.call_te(topi.subtract, call.args[0], call.args[1])

    out = relax.transform.LegalizeOps({"relax.add": add_as_subtract})(_add_exp_module())
    assert seen == ["relax.add"]
    names = sorted(gv.name_hint for gv, f in out.functions.items() if isinstance(f, tvm.tir.PrimFunc))
    assert names == ["exp", "subtract"]
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(4).astype("float32"), rng.standard_normal(4).astype("float32")
    np.testing.assert_allclose(_run(out, x, y), np.exp(x - y), rtol=1e-6)
    # An Op object works as a key too; the module given is unchanged.
    out2 = relax.transform.LegalizeOps({tvm.ir.Op.get("relax.add"): add_as_subtract})(_add_exp_module())
    tvm.ir.assert_structural_equal(out2, out)


def test_customize_legalize_map_for_an_op_without_legalization():
    """An op with no registered legalization (shape_of) is legalized by the map's function."""
    out = relax.transform.LegalizeOps({"relax.shape_of": lambda bb, call: relax.ShapeExpr([4])})(_shape_of_module())
    assert isinstance(out["main"].body.blocks[0].bindings[0].value, relax.ShapeExpr)


def test_customize_legalize_map_errors():
    with pytest.raises(TypeError, match="dict"):
        relax.transform.LegalizeOps([("relax.add", None)])
    with pytest.raises(TypeError, match="callable"):
        relax.transform.LegalizeOps({"relax.add": 3})
    with pytest.raises(ValueError, match="relax.nonesuch"):
        relax.transform.LegalizeOps({"relax.nonesuch": lambda bb, call: call})
    with pytest.raises(TypeError, match="enable_warning"):
        relax.transform.LegalizeOps(enable_warning="yes")
    bad = relax.transform.LegalizeOps({"relax.add": lambda bb, call: 3})
    with pytest.raises(TypeError, match="relax.add"):
        bad(_add_exp_module())


def test_enable_warning_names_ops_left_unlegalized(capfd):
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Shape([4]):
            a = R.shape_of(x)
            gv = R.shape_of(x)
            return gv

    relax.transform.LegalizeOps(enable_warning=True)(Mod)
    err = capfd.readouterr().err
    assert err.count("relax.shape_of") == 1, err
    relax.transform.LegalizeOps()(Mod)
    assert "relax.shape_of" not in capfd.readouterr().err


_registered = set()


def _custom_op(name, infer, legalize):
    """The op ``name`` registered from Python (once per process: op attributes
    cannot be removed) with struct-info inference and legalization."""
    if name not in _registered:
        for key, value in {"FInferStructInfo": infer, "FLegalize": legalize, "FPurity": True}.items():
            tvm.ir.register_op_attr(name, key, value)
        _registered.add(name)
    return tvm.ir.Op.get(name)


def test_legalization_giving_high_level_ops_is_legalized_again():
    """As TVM's test_recursive_legalization: the custom op legalizes to matmul +
    add, which are legalized in the same pass."""
    def infer(call, ctx):
        a, w, _ = call.args
        return relax.TensorStructInfo([a.struct_info.shape[0], w.struct_info.shape[1]], "float32")

    op = _custom_op("test_legalize_ops.matmul_bias_add", infer,
                    lambda bb, call: relax.op.add(relax.op.matmul(call.args[0], call.args[1]), call.args[2]))
    bb = relax.BlockBuilder()
    a = relax.Var("a", relax.TensorStructInfo((2, 3), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((3, 4), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((2, 4), "float32"))
    with bb.function("main", [a, w, b]):
        gv = bb.emit(relax.Call(op, [a, w, b]))
        bb.emit_func_output(gv)
    first = relax.transform.LegalizeOps()(bb.get())
    ops = {bd.value.op.name for blk in first["main"].body.blocks for bd in blk.bindings}
    assert ops == {"relax.call_tir"}, ops
    tvm.ir.assert_structural_equal(relax.transform.LegalizeOps()(first), first)
    rng = np.random.default_rng(0)
    av, wv, bv = (rng.standard_normal(s).astype("float32") for s in [(2, 3), (3, 4), (2, 4)])
    np.testing.assert_allclose(_run(first, av, wv, bv), av @ wv + bv, rtol=1e-5, atol=1e-5)


def test_legalization_that_never_ends_is_refused():
    """A legalization returning a new call of its own op is an error naming the op, not a hang."""
    name = "test_legalize_ops.forever"
    op = _custom_op(name, lambda call, ctx: call.args[0].struct_info,
                    lambda bb, call: relax.Call(call.op, list(call.args)))
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    with bb.function("main", [x]):
        gv = bb.emit(relax.Call(op, [x]))
        bb.emit_func_output(gv)
    with pytest.raises(ValueError, match=name):
        relax.transform.LegalizeOps()(bb.get())

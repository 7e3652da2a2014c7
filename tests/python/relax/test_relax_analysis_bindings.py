"""relax.analysis free_vars, bound_vars, all_vars, all_global_vars,
get_var2val, name_to_binding, udchain, post_order_visit,
computable_at_compile_time (src/relax/analysis/vars.cc, binding_maps.cc,
computable_at_compile_time.cc) and tvm.ir.Op.get, each against hand-written
expectations."""
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import ir as I, relax as R


def T(*shape):
    return relax.TensorStructInfo(shape, "float32")


def _names(vs):
    return [v.name_hint for v in vs]


def _func():
    """main(x, y): lv0 = add(x, y); lv1 = helper(lv0); gv = multiply(lv1, y), with an inner
    function whose body uses its own parameter p and the outer x."""
    x, y = relax.Var("x", T(4)), relax.Var("y", T(4))
    bb = relax.BlockBuilder()
    p = relax.Var("p", T(4))
    with bb.function("helper", [p]):
        h = bb.emit(relax.op.exp(p))
        bb.emit_func_output(h)
    helper = bb.get().get_global_var("helper")
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.add(x, y), "lv0")
            lv1 = bb.emit(relax.Call(helper, [lv0]), "lv1")
            gv = bb.emit_output(relax.op.multiply(lv1, y), "out")
        bb.emit_func_output(gv)
    mod = bb.get()
    return mod, mod["main"], (x, y)


def test_var_sets():
    mod, main, (x, y) = _func()
    assert relax.analysis.free_vars(main) == []
    assert _names(relax.analysis.bound_vars(main)) == ["x", "y", "lv0", "lv1", "out"]
    assert _names(relax.analysis.all_vars(main)) == ["x", "y", "lv0", "lv1", "out"]
    assert _names(relax.analysis.all_global_vars(main)) == ["helper"]
    body = main.body  # outside the function, the parameters are free
    assert [v.same_as(w) for v, w in zip(relax.analysis.free_vars(body), (x, y))] == [True, True]
    assert len(relax.analysis.free_vars(body)) == 2
    assert _names(relax.analysis.bound_vars(body)) == ["lv0", "lv1", "out"]
    call = main.body.blocks[0].bindings[2].value
    assert _names(relax.analysis.free_vars(call)) == ["lv1", "y"]
    assert relax.analysis.bound_vars(call) == [] and relax.analysis.all_global_vars(call) == []
    with pytest.raises(TypeError, match="free_vars expects a relax expression, got int"):
        relax.analysis.free_vars(3)


def test_get_var2val_and_name_to_binding():
    mod, main, _ = _func()
    bindings = main.body.blocks[0].bindings
    var2val = relax.analysis.get_var2val(main)
    assert _names(var2val.keys()) == ["lv0", "lv1", "out"]
    for b in bindings:
        assert var2val[b.var].same_as(b.value)
    whole = relax.analysis.get_var2val(mod)  # every Relax function of the module
    assert sorted(_names(whole.keys())) == ["gv", "lv0", "lv1", "out"]
    assert _names(relax.analysis.get_var2val(main.body.blocks[0]).keys()) == ["lv0", "lv1", "out"]
    with pytest.raises(TypeError, match="get_var2val expects"):
        relax.analysis.get_var2val("main")

    n2b = relax.analysis.name_to_binding(main)
    assert list(n2b) == ["lv0", "lv1", "out"]
    assert all(len(v) == 1 and v[0].same_as(b) for v, b in zip(n2b.values(), bindings))


def test_name_to_binding_groups_equal_names():
    x = relax.Var("x", T(2))
    t1, t2 = relax.Var("t", T(2)), relax.Var("t", T(2))
    b1 = relax.VarBinding(t1, relax.op.add(x, x))
    b2 = relax.VarBinding(t2, relax.op.multiply(t1, x))
    u = relax.Var("u", T(2))
    b3 = relax.VarBinding(u, relax.op.exp(t2))
    bb = relax.BlockBuilder()
    func = bb.normalize(relax.Function([x], relax.SeqExpr([relax.BindingBlock([b1, b2, b3])], u), T(2)))
    n2b = relax.analysis.name_to_binding(func)
    assert list(n2b) == ["t", "u"]
    assert [b.var.same_as(v) for b, v in zip(n2b["t"], (t1, t2))] == [True, True] and len(n2b["t"]) == 2
    assert len(n2b["u"]) == 1 and n2b["u"][0].var.same_as(u)


def test_udchain():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                lv0 = R.add(x, y)
                lv1 = R.multiply(lv0, lv0)
                gv = R.add(lv1, y)
                R.output(gv)
            return gv

    block = Mod["main"].body.blocks[0]
    chain = {k.name_hint: _names(v) for k, v in relax.analysis.udchain(block).items()}
    assert chain == {"lv0": ["lv1"], "x": ["lv0"], "y": ["lv0", "gv"], "lv1": ["gv"], "gv": []}
    with pytest.raises(TypeError, match="udchain expects a relax DataflowBlock"):
        relax.analysis.udchain(Mod["main"])


def test_post_order_visit():
    _, main, _ = _func()
    seen = []
    relax.analysis.post_order_visit(main.body.blocks[0].bindings[0].value, lambda e: seen.append(type(e).__name__))
    assert seen == ["Op", "Var", "Var", "Call"]  # children first: the op, the arguments, the call
    kinds = []
    relax.analysis.post_order_visit(main, lambda e: kinds.append(type(e).__name__))
    assert kinds[-1] == "Function" and kinds.count("Call") == 3 and kinds[-2] == "SeqExpr"
    with pytest.raises(TypeError, match="fvisit must be callable"):
        relax.analysis.post_order_visit(main, 3)


def test_computable_at_compile_time():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T(4))
    w = relax.Var("w", relax.TensorStructInfo((n,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w], attrs={"num_input": 1}):
        with bb.dataflow():
            c = bb.emit(relax.op.add(relax.const(1.0, "float32"), relax.const(2.0, "float32")), "c")
            wt = bb.emit(relax.op.exp(w), "wt")            # w is a weight (past num_input)
            shp = bb.emit(relax.ShapeExpr([n]), "shp")      # n is defined by w
            xw = bb.emit(relax.op.add(x, c), "xw")          # depends on the input x
            gv = bb.emit_output(relax.op.multiply(xw, xw), "gv")
        bb.emit_func_output(gv)
    func = bb.get()["main"]
    assert _names(relax.analysis.computable_at_compile_time(func)) == ["w", "c", "wt", "shp"]
    without_attr = func.without_attr("num_input")
    assert _names(relax.analysis.computable_at_compile_time(without_attr)) == ["c"]
    with pytest.raises(TypeError, match="expects a relax Function"):
        relax.analysis.computable_at_compile_time(func.body)


def test_op_get():
    add = tvm.ir.Op.get("relax.add")
    assert add.name == "relax.add" and add.same_as(tvm.ir.Op.get("relax.add"))
    assert add.get_attr("FPurity") is True
    assert tvm.ir.Op.get("relax.print").get_attr("FPurity") is False
    assert add.get_attr("NoSuchAttr") is None
    with pytest.raises(ValueError, match="'relax.nope' is not registered"):
        tvm.ir.Op.get("relax.nope")

"""relax.analysis.well_formed: one ill-formed function per rule, built with
the node constructors (bypassing the normalizer), each expected to be
reported with a message naming the function and the binding; the
well-formed counterparts built by the BlockBuilder pass."""
import logging

import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.ir import Op

T = relax.TensorStructInfo((2,), "float32")


def pure_call(name, *args, sinfo=T):
    call = relax.Call(Op.get("relax.call_pure_packed"), [relax.ExternFunc(name), *args], None, [sinfo])
    return call


def func(params, blocks, body, **kwargs):
    return relax.Function(params, relax.SeqExpr(blocks, body), **kwargs).with_attr("global_symbol", "main")


def errors(f, check_struct_info=False):
    return relax.analysis.well_formed_errors(f, check_struct_info)


def test_builder_output_is_well_formed(caplog):
    x = relax.Var("x", T)
    n = tir.Var("n", "int64")
    y = relax.Var("y", relax.TensorStructInfo(ndim=1, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit(pure_call("f", pure_call("g", x)))
            m = bb.match_cast(y, relax.TensorStructInfo((n,), "float32"))
            lv2 = bb.emit(relax.op.shape_of(m))
            gv = bb.emit_output(relax.Tuple([lv, lv2]))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert relax.analysis.well_formed(mod)
    assert relax.analysis.well_formed(mod["main"])
    assert not caplog.records


def test_dataflow_var_escaping_its_block():
    x = relax.Var("x", T)
    lv = relax.DataflowVar("lv", T)
    gv = relax.Var("gv", T)
    f = func([x], [relax.DataflowBlock([relax.VarBinding(lv, pure_call("f", x))]),
                   relax.BindingBlock([relax.VarBinding(gv, pure_call("g", lv))])], gv)
    assert errors(f) == ["function 'main', binding 'gv': dataflow var 'lv' is used outside its dataflow block"]
    f2 = func([x], [relax.DataflowBlock([relax.VarBinding(lv, pure_call("f", x))])], lv)
    assert errors(f2) == ["function 'main', result: dataflow var 'lv' is used outside its dataflow block"]


def test_dataflow_var_defined_outside_a_dataflow_block():
    x = relax.Var("x", T)
    lv = relax.DataflowVar("lv", T)
    f = func([x], [relax.BindingBlock([relax.VarBinding(lv, pure_call("f", x))])], x)
    assert "function 'main', binding 'lv': dataflow var 'lv' is defined outside a dataflow block" in errors(f)


def test_var_defined_twice():
    x = relax.Var("x", T)
    a = relax.Var("a", T)
    f = func([x], [relax.BindingBlock([relax.VarBinding(a, pure_call("f", x)), relax.VarBinding(a, pure_call("g", x))])], a)
    assert errors(f) == ["function 'main', binding 'a': var 'a' is defined more than once"]
    f2 = func([x, x], [], x)
    assert errors(f2) == ["function 'main', parameter 'x': var 'x' is defined more than once"]


def test_var_used_before_definition():
    x = relax.Var("x", T)
    a = relax.Var("a", T)
    b = relax.Var("b", T)
    f = func([x], [relax.BindingBlock([relax.VarBinding(b, pure_call("f", a)), relax.VarBinding(a, pure_call("g", x))])], b)
    assert errors(f) == ["function 'main', binding 'b': var 'a' is used before it is defined (or never defined)"]


def test_var_used_outside_its_if_branch():
    c = relax.Var("c", relax.TensorStructInfo((), "bool"))
    x = relax.Var("x", T)
    inner = relax.Var("inner", T)
    r = relax.Var("r", T)
    out = relax.Var("out", T)
    branch = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(inner, pure_call("f", x))])], inner)
    f = func([c, x], [relax.BindingBlock([relax.VarBinding(r, relax.If(c, branch, relax.SeqExpr([], x))),
                                          relax.VarBinding(out, pure_call("g", inner))])], out)
    assert errors(f) == ["function 'main', binding 'out': var 'inner' is used outside the scope that defines it"]


def test_symbolic_dims_bound_before_use():
    n = tir.Var("n", "int64")
    m = tir.Var("m", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n,), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((m,), "float32"))
    s = relax.Var("s", relax.ShapeStructInfo(ndim=1))
    f = func([x], [relax.BindingBlock([relax.VarBinding(y, pure_call("f", x, sinfo=relax.TensorStructInfo((m,), "float32"))),
                                       relax.VarBinding(s, relax.ShapeExpr([m]))])], x)
    errs = errors(f)
    assert "function 'main', binding 'y': symbolic var 'm' in struct info R.Tensor((m,), dtype=\"float32\") is used " \
           "before it is defined" in errs
    assert "function 'main', binding 's': symbolic var 'm' is used before it is defined" in errs
    # A match_cast defines m for what follows.
    z = relax.Var("z", relax.TensorStructInfo((m,), "float32"))
    y2 = relax.Var("y2", relax.TensorStructInfo((m,), "float32"))
    ok = func([x], [relax.BindingBlock([relax.MatchCast(z, x, relax.TensorStructInfo((m,), "float32")),
                                        relax.VarBinding(y2, pure_call("f", z, sinfo=relax.TensorStructInfo((m,), "float32")))])], x)
    assert errors(ok) == []


def test_pure_function_free_of_impure_calls():
    x = relax.Var("x", T)
    p = relax.Var("p", relax.TupleStructInfo([]))
    impure = relax.Call(Op.get("relax.print"), [relax.StringImm("{}"), x])
    f = func([x], [relax.BindingBlock([relax.VarBinding(p, impure)])], x)
    assert errors(f) == ["function 'main', binding 'p': impure call of operator 'relax.print' in a pure function "
                         "(mark it impure or set relax.force_pure)"]
    assert errors(func([x], [relax.BindingBlock([relax.VarBinding(p, impure)])], x, is_pure=False)) == []
    assert errors(f.with_attr("relax.force_pure", True)) == []
    # Never inside a dataflow block, even in an impure function.
    pd = relax.DataflowVar("pd", relax.TupleStructInfo([]))
    f3 = func([x], [relax.DataflowBlock([relax.VarBinding(pd, impure)])], x, is_pure=False)
    assert errors(f3) == ["function 'main', binding 'pd': impure call of operator 'relax.print' inside a dataflow block"]


def test_call_of_impure_function_value():
    x = relax.Var("x", T)
    g = relax.Var("g", relax.FuncStructInfo([T], T, purity=False))
    r = relax.Var("r", T)
    f = func([x, g], [relax.BindingBlock([relax.VarBinding(r, relax.Call(g, [x]))])], r)
    assert errors(f) == ["function 'main', binding 'r': impure call of impure function 'g' in a pure function "
                         "(mark it impure or set relax.force_pure)"]


def test_a_normal_form_required():
    x = relax.Var("x", T)
    r = relax.Var("r", T)
    f = func([x], [relax.BindingBlock([relax.VarBinding(r, pure_call("f", pure_call("g", x)))])], r)
    assert errors(f) == ["function 'main', binding 'r': argument 1 is a nested relax.Call (not in A-normal form)"]
    f2 = relax.Function([x], pure_call("f", x)).with_attr("global_symbol", "main")
    assert errors(f2) == ["function 'main': the function body is not a SeqExpr (not normalized)"]


def test_struct_info_required_when_asked():
    x = relax.Var("x", T)
    r = relax.Var("r")
    f = func([x], [relax.BindingBlock([relax.VarBinding(r, pure_call("f", x))])], r)
    errs = errors(f, check_struct_info=True)
    assert "function 'main', binding 'r': relax.Call has no struct info (the IR was not normalized)" in errs
    assert "function 'main', binding 'r': var 'r' has no struct info" in errs
    assert errors(f, check_struct_info=False) == []


def test_global_var_must_be_in_module(caplog):
    x = relax.Var("x", T)
    r = relax.Var("r", T)
    missing = tvm.ir.GlobalVar("missing")
    call = relax.Call(Op.get("relax.call_tir"), [missing, relax.Tuple([x])], None, [T])
    mod = tvm.IRModule({"main": func([x], [relax.BindingBlock([relax.VarBinding(r, call)])], r)})
    with caplog.at_level(logging.WARNING, logger="tvm.relax.analysis"):
        assert not relax.analysis.well_formed(mod, check_struct_info=False)
    assert "function 'main', binding 'r': GlobalVar 'missing' is not a function of the module" in caplog.text


def test_well_formed_rejects_other_objects():
    with pytest.raises(TypeError, match="expected an IRModule or a relax Function"):
        relax.analysis.well_formed(relax.Var("x", T))

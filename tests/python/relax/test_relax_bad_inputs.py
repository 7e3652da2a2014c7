"""Bad inputs to the Relax core never crash: long binding chains and deep
nesting (in a subprocess, where a crash would show as a signal), None
passed to every Relax constructor and BlockBuilder entry point through the
FFI, and JSON with missing fields. Each failure is a TVMError subclass
naming the culprit."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir

T = relax.TensorStructInfo((4,), "float32")


def run_isolated(code, timeout=300):
    """Runs ``code`` in a fresh interpreter; returns (returncode, stdout+stderr)."""
    python_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": python_dir})
    return proc.returncode, proc.stdout + proc.stderr


def test_long_binding_chain_builds_checks_and_compares():
    x = relax.Var("x", T)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            v = x
            for _ in range(20000):
                v = bb.emit(relax.op.call_pure_packed("f", v, sinfo_args=T))
            gv = bb.emit_output(v)
        bb.emit_func_output(gv)
    mod = bb.get()
    assert len(mod["main"].body.blocks[0].bindings) == 20001
    assert relax.analysis.well_formed(mod)
    tvm.ir.assert_structural_equal(mod, tvm.ir.load_json(tvm.ir.save_json(mod)))
    assert relax.transform.Normalize()(mod)["main"].same_as(mod["main"])


def test_deeply_nested_call_is_normalized_or_refused_without_crash():
    code = """
        import tessera as tvm
        from tessera import relax
        T = relax.TensorStructInfo((4,), "float32")
        x = relax.Var("x", T)
        e = x
        for _ in range(30000):
            e = relax.op.call_pure_packed("f", e, sinfo_args=T)
        bb = relax.BlockBuilder()
        try:
            with bb.function("main", [x]):
                out = bb.emit(e)
                bb.emit_func_output(out)
            n = len(bb.get()["main"].body.blocks[0].bindings)
            assert n == 30000, n
            assert relax.analysis.well_formed(bb.get())
            print("normalized", n)
        except RecursionError as err:
            assert isinstance(err, tvm.error.TVMError), type(err)
            print("refused", err)
    """
    rc, out = run_isolated(code)
    assert rc == 0, out
    assert "normalized 30000" in out or "refused" in out, out


def test_deeply_nested_tuple_without_crash():
    code = """
        import tessera as tvm
        from tessera import relax
        x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
        e = x
        for _ in range(200000):
            e = relax.Tuple([e])
        # The tuple's struct info is as deep as the tuple: the function
        # constructor may refuse it; the checker and hashing of the
        # expression itself must answer or refuse, never crash.
        try:
            relax.Function([x], relax.SeqExpr([], e))
            print("function ok")
        except RecursionError as err:
            assert isinstance(err, tvm.error.TVMError)
            print("function refused")
        for what, call in [("hash", lambda: tvm.ir.structural_hash(e)),
                           ("equal", lambda: tvm.ir.structural_equal(e, e)),
                           ("json", lambda: tvm.ir.save_json(e))]:
            try:
                call()
                print(what, "ok")
            except RecursionError as err:
                assert isinstance(err, tvm.error.TVMError)
                print(what, "refused")
    """
    rc, out = run_isolated(code)
    assert rc == 0, out
    assert "function" in out and "hash" in out and "equal" in out and "json" in out, out


# Every Relax global function of the core, called with None in each position.
_CORE_GLOBALS = [
    ("relax.ShapeExpr", 1), ("relax.Var", 2), ("relax.DataflowVar", 2), ("relax.Constant", 2), ("relax.Tuple", 1),
    ("relax.TupleGetItem", 2), ("relax.Call", 4), ("relax.PrimValue", 1), ("relax.StringImm", 1),
    ("relax.DataTypeImm", 1), ("relax.ExternFunc", 2), ("relax.VarBinding", 2), ("relax.MatchCast", 3),
    ("relax.BindingBlock", 1), ("relax.DataflowBlock", 1), ("relax.SeqExpr", 2), ("relax.If", 3),
    ("relax.Function", 5), ("relax.ExprStructInfo", 1), ("relax.PrimStructInfo", 2), ("relax.ShapeStructInfo", 2),
    ("relax.TensorStructInfo", 3), ("relax.TupleStructInfo", 1), ("relax.FuncStructInfo", 3),
    ("relax.FuncStructInfoOpaqueFunc", 2), ("relax.StructInfoIsBaseOf", 2), ("relax.StructInfoText", 1),
    ("relax.analysis.StructInfoBaseCheck", 2), ("relax.analysis.StructInfoLCA", 2),
    ("relax.analysis.WellFormedErrors", 2), ("relax.BlockBuilderEmit", 3), ("relax.BlockBuilderEmitMatchCast", 4),
    ("relax.BlockBuilderEmitOutput", 3), ("relax.BlockBuilderEmitNormalized", 2), ("relax.BlockBuilderNormalize", 2),
    ("relax.BlockBuilderNormalizeArgument", 2), ("relax.BlockBuilderAddFunction", 3),
    ("relax.BlockBuilderUpdateFunction", 3), ("relax.BlockBuilderEndBlock", 1), ("relax.BlockBuilderEndScope", 1),
    ("relax.BlockBuilderLookupBinding", 2), ("relax.transform.BindParams", 2), ("relax.FunctionBindParams", 2),
    ("relax.transform.MakeFunctionPass", 2), ("relax.transform.MakeDataflowBlockPass", 2),
]


def test_none_through_the_ffi_is_a_clean_error():
    code = f"""
        import tessera as tvm
        from tessera import relax
        names = {_CORE_GLOBALS!r}
        x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
        good = {{"relax.BlockBuilder": relax.BlockBuilder()}}
        for name, arity in names:
            f = tvm.get_global_func(name)
            for pos in range(arity):
                # A builder (so the None reaches the other arguments) where the function takes one first.
                args = [None] * arity
                if name.startswith("relax.BlockBuilder") and pos > 0:
                    args[0] = relax.BlockBuilder()
                try:
                    f(*args)
                except tvm.error.TVMError:
                    pass
        print("swept", len(names))
    """
    rc, out = run_isolated(code)
    assert rc == 0, out
    assert f"swept {len(_CORE_GLOBALS)}" in out


def _json_of_main():
    x = relax.Var("x", T)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        v = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=T))
        bb.emit_func_output(v)
    return json.loads(tvm.ir.save_json(bb.get()["main"]))


@pytest.mark.parametrize("type_key, field, pattern", [
    ("relax.expr.Call", "op", r"relax.expr.Call\): relax.Call.op is missing"),
    ("relax.expr.SeqExpr", "body", r"relax.SeqExpr.body is missing"),
    ("relax.expr.VarBinding", "value", r"relax.VarBinding.value is missing"),
    ("relax.expr.Function", "body", r"relax.Function.body is missing"),
    ("relax.FuncStructInfo", "ret", r"relax.FuncStructInfo.ret is missing"),
])
def test_json_with_a_missing_field_is_refused(type_key, field, pattern):
    data = _json_of_main()
    node = next(n for n in data["nodes"] if n.get("type_key") == type_key)
    node["fields"][field] = None
    with pytest.raises(ValueError, match=pattern):
        tvm.ir.load_json(json.dumps(data))


def test_wrong_types_through_the_python_api():
    bb = relax.BlockBuilder()
    x = relax.Var("x", T)
    with pytest.raises(TypeError, match="match_cast: struct_info must be a StructInfo"):
        bb.match_cast(x, (4,))
    with pytest.raises(TypeError, match="add_func: expected a function"):
        bb.add_func(x, "f")
    with pytest.raises(TypeError, match="update_func: gv must be a GlobalVar"):
        bb.update_func("main", relax.Function([x], relax.SeqExpr([], x)))
    with pytest.raises(TypeError, match=r"out_sinfo\[0\] must be a TensorStructInfo, got int"):
        relax.op.call_tir(tvm.ir.GlobalVar("f"), [x], (4,))
    with pytest.raises(TypeError, match="gvar must be a GlobalVar"):
        relax.op.call_tir("f", [x], T)
    with pytest.raises(TypeError, match="func must be a str or an ExternFunc"):
        relax.op.call_dps_packed(3, [x], T)
    with pytest.raises(TypeError, match="BindParams: params must be a dict"):
        relax.transform.BindParams("main", [np.ones(4)])
    with pytest.raises(TypeError, match="PrimValue: value must be"):
        relax.PrimValue("3")


def test_block_builder_scope_errors_are_tvm_errors_naming_the_function():
    """Leaving bb.function() without emit_func_output, or calling it twice, raises a
    TVMError (a RuntimeError, as TVM) that names the problem; wrong argument types
    are TypeErrors that are also TVMErrors."""
    import tessera as tvm
    from tessera import relax
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    bb = relax.BlockBuilder()
    with pytest.raises(tvm.error.TVMError, match=r"bb.function\('f'\) ended without emit_func_output") as info:
        with bb.function("f", [x]):
            bb.emit(relax.op.add(x, x))
    assert isinstance(info.value, RuntimeError)
    bb = relax.BlockBuilder()
    with pytest.raises(RuntimeError, match="exactly once"):
        with bb.function("g", [x]):
            y = bb.emit(relax.op.add(x, x))
            bb.emit_func_output(y)
            bb.emit_func_output(y)
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match="expected a relax Expr") as info:
        with bb.function("h", [x]):
            bb.emit(3)
    assert isinstance(info.value, tvm.error.TVMError)

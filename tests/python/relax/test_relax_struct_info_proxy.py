"""R.Tensor / R.Shape / R.Tuple / R.Object / R.Prim / R.Callable in plain
Python (TVM's StructInfoProxy): each becomes the struct info it describes,
compared with the struct info built directly (the oracle); they stay inert in
TVMScript annotations; string dimensions are refused outside TVMScript."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import relax as R


def _eq(a, b):
    tvm.ir.assert_structural_equal(a, b)


def test_proxies_become_their_struct_info():
    n = tvm.tir.Var("n", "int64")
    _eq(R.Tensor((2, 3), "float32").as_struct_info(), relax.TensorStructInfo([2, 3], "float32"))
    _eq(R.Tensor((n, 4), "float16").as_struct_info(), relax.TensorStructInfo([n, 4], "float16"))
    _eq(R.Tensor("int8", ndim=2).as_struct_info(), relax.TensorStructInfo(dtype="int8", ndim=2))
    _eq(R.Tensor(ndim=3).as_struct_info(), relax.TensorStructInfo(dtype=None, ndim=3))
    _eq(R.Tensor(()).as_struct_info(), relax.TensorStructInfo([], None))
    _eq(R.Shape([1, n]).as_struct_info(), relax.ShapeStructInfo([1, n]))
    _eq(R.Shape(ndim=2).as_struct_info(), relax.ShapeStructInfo(ndim=2))
    _eq(R.Object().as_struct_info(), relax.ObjectStructInfo())
    _eq(R.Prim("int64").as_struct_info(), relax.PrimStructInfo("int64"))
    _eq(R.Prim(value=n).as_struct_info(), relax.PrimStructInfo(value=n))
    _eq(R.Tuple(R.Tensor((2,), "int32"), R.Object).as_struct_info(),
        relax.TupleStructInfo([relax.TensorStructInfo([2], "int32"), relax.ObjectStructInfo()]))
    _eq(R.Tuple([R.Shape(ndim=1)]).as_struct_info(), relax.TupleStructInfo([relax.ShapeStructInfo(ndim=1)]))
    _eq(R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32")).as_struct_info(),
        relax.FuncStructInfo([relax.TensorStructInfo([2], "float32")], relax.TensorStructInfo([2], "float32")))


def test_relax_constructors_accept_proxies():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    _eq(x.struct_info, relax.TensorStructInfo([2, 3], "float32"))
    dv = relax.DataflowVar("d", R.Tuple(R.Tensor((2,), "float32"), R.Object))
    assert isinstance(dv.struct_info, relax.TupleStructInfo)
    sinfo = relax.TupleStructInfo([R.Tensor((1,), "int64"), R.Shape(ndim=2)])
    assert isinstance(sinfo.fields[0], relax.TensorStructInfo) and isinstance(sinfo.fields[1], relax.ShapeStructInfo)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.match_cast(x, R.Tensor((2, 3), "float32"))
        bb.emit_func_output(y)
    _eq(bb.get()["main"].ret_struct_info, relax.TensorStructInfo([2, 3], "float32"))
    # A C++ function taking a struct info converts a proxy through asobject().
    call = relax.op.call_tir(tvm.ir.GlobalVar("f"), [x], R.Tensor((2, 3), "float32"))
    _eq(call.sinfo_args[0], relax.TensorStructInfo([2, 3], "float32"))


def test_string_dims_only_in_tvmscript():
    with pytest.raises(ValueError, match="only allowed in TVMScript"):
        relax.Var("x", R.Tensor((1, "m"), "float32"))
    with pytest.raises(ValueError, match="only allowed in TVMScript"):
        R.Shape(["n"]).as_struct_info()
    assert R.Tensor((1, "m", "n"), "float32").get_symbolic_vars() == {"m", "n"}
    with pytest.raises(TypeError, match="struct info"):
        R.Tuple(R.Tensor((1,), "float32"), 3).as_struct_info()
    with pytest.raises(ValueError, match="shape must be"):
        R.Tensor(5, "float32").as_struct_info()


def test_annotations_stay_inert_and_python_values_resolve_in_scripts():
    # A struct info defined in Python and used as an annotation inside TVMScript.
    sinfo = R.Tensor((4,), "float32")
    text = '''
@R.function
def main(x: sinfo) -> sinfo:
    return x
'''
    f = tvm.script.from_source(text, extra_vars={"sinfo": sinfo}) if "extra_vars" in \
        tvm.script.from_source.__code__.co_varnames else None
    if f is not None:
        _eq(f.params[0].struct_info, relax.TensorStructInfo([4], "float32"))
    # The parser's own annotations with string dims are unaffected (read from the source).
    mod = tvm.script.from_source('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, "m"), "float32")) -> R.Tensor((1, "m"), "float32"):
        return x
''')
    assert mod["main"].params[0].struct_info.ndim == 2


def test_tvm_script_parser_module_paths():
    from tessera.script.parser import ir as I2, relax as R2, tir as T2  # noqa: N812
    import tessera.script.parser.relax.entry as entry
    from tessera.script import ir as I, tir as T
    assert R2 is R and T2 is T and I2 is I
    assert isinstance(R.Tensor((2,), "float32"), entry.StructInfoProxy)


def test_parser_module_path_is_reachable_as_an_attribute():
    # TVM's tests write `tvm.script.parser.relax.entry.StructInfoProxy` after
    # a bare `import tvm`: the attribute path works without importing the
    # submodule (fresh interpreter, so no other test imported it first).
    import os
    import subprocess
    import sys

    code = ("import tessera, sys; from tessera.script import relax as R; "
            "P = tessera.script.parser.relax.entry.StructInfoProxy; "
            "sys.exit(0 if isinstance(R.Tensor((2,), 'float32'), P) else 3)")
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]

"""Arguments of the TVM-compatible API outside the schedule (tvm.build, the
runtime Module, Buffer, BufferStore, Allocate) that Tessera cannot honour are
refused with an error naming them, never accepted and ignored; the ones it
honours are checked against NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func


def add_one():
    A, B = buf("A", (8,)), buf("B", (8,))
    return func([A, B], loops([8], lambda i: tir.BufferStore(B, A[i] + 1.0, [i])), name="add_one")


def run(lib):
    a = np.arange(8, dtype="float32")
    b = tvm.nd.empty((8,), "float32")
    lib["add_one"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)


def test_build_accepts_the_target_itself_as_host():
    run(tvm.build(add_one(), target="llvm", target_host="llvm"))
    run(tvm.build(add_one(), target="llvm", args=None, runtime=None, binds=None))


@pytest.mark.parametrize("kwargs, error, text", [
    ({"target_host": "llvm -opt-level=1"}, ValueError, "host 'llvm -opt-level=1' differs"),
    ({"binds": {}}, NotImplementedError, r"tvm.build\(binds=...\)"),
    ({"runtime": "cpp"}, NotImplementedError, r"tvm.build\(runtime=...\)"),
    ({"optimize": True}, TypeError, "unexpected keyword argument 'optimize'"),
])
def test_build_refuses_arguments_it_cannot_honour(kwargs, error, text):
    with pytest.raises(error, match=text):
        tvm.build(add_one(), target="llvm", **kwargs)


def test_module_refuses_unsupported_options(tmp_path):
    lib = tvm.build(add_one(), target="llvm")
    with pytest.raises(NotImplementedError, match="cooldown_interval_ms=5"):
        lib.time_evaluator("add_one", tvm.cpu(), cooldown_interval_ms=5)
    with pytest.raises(NotImplementedError, match="f_preproc='l2_cache_flush'"):
        lib.time_evaluator("add_one", tvm.cpu(), f_preproc="l2_cache_flush")
    with pytest.raises(NotImplementedError, match="fcompile"):
        lib.export_library(str(tmp_path / "a.so"), fcompile=lambda *a: None)
    with pytest.raises(NotImplementedError, match="options"):
        lib.export_library(str(tmp_path / "a.so"), options=["-O3"])
    path = tmp_path / "b.so"
    lib.export_library(str(path))
    run(tvm.runtime.load_module(str(path), "so"))
    with pytest.raises(NotImplementedError, match="fmt='tar'"):
        tvm.runtime.load_module(str(path), fmt="tar")


def test_buffer_and_statement_options_are_refused():
    A = buf("A", (8,))
    assert str(A.vload([2], "float32")) == str(A[2])  # a scalar load of the buffer's own dtype
    with pytest.raises(NotImplementedError, match="vload"):
        A.vload([0], "float32x4")
    with pytest.raises(NotImplementedError, match="content_lanes"):
        A.access_ptr("r", content_lanes=4)
    with pytest.raises(NotImplementedError, match="buffer_type='auto_broadcast'"):
        tir.decl_buffer((8,), "float32", "X", buffer_type="auto_broadcast")
    with pytest.raises(NotImplementedError, match="axis_separators"):
        tir.decl_buffer((8, 8), "float32", "X", axis_separators=[1])
    with pytest.raises(NotImplementedError, match="predicate"):
        tir.BufferStore(A, tir.const(1.0, "float32"), [0], predicate=tir.const(True, "bool"))
    with pytest.raises(NotImplementedError, match="annotations"):
        tir.Allocate(A.data, "float32", [8], True, tir.Evaluate(0), annotations={"k": 1})


def test_script_honours_or_refuses_tvm_printer_options(capsys):
    f = add_one()
    assert f.script(indent_spaces=4, show_meta=False, tir_prefix="T") == f.script()
    two = f.script(indent_spaces=2)
    assert two != f.script() and "\n  " in two and two.replace("\n  ", "\n    ") != two
    assert "@tir.prim_func" in f.script(tir_prefix="tir")
    # show_meta is honoured: a PrimFunc has no metadata, so the text is the same.
    assert f.script(show_meta=True) == f.script()
    # verbose_expr=True is accepted (TVM's default printer already shows what it adds for TIR).
    assert f.script(verbose_expr=True) == f.script()
    with pytest.raises(TypeError, match="'colour'"):
        f.script(colour=True)
    with pytest.raises(NotImplementedError, match="style"):
        f.show(style="light")
    f.show(black_format=None)
    assert "def add_one" in capsys.readouterr().out


def test_ir_constructor_options_are_refused():
    f = add_one()
    with pytest.raises(NotImplementedError, match="ret_type"):
        tir.PrimFunc(list(f.params), f.body, ret_type="int32")
    with pytest.raises(NotImplementedError, match="type_definitions"):
        tvm.IRModule({}, type_definitions={"T": 1})
    with pytest.raises(NotImplementedError, match="type_defs"):
        tvm.IRModule.from_expr(f, type_defs={"T": 1})
    with pytest.raises(NotImplementedError, match="type_annot"):
        tvm.ir.GlobalVar("g", type_annot=1)
    x = tir.Var("x", "int32")
    ana = tvm.arith.Analyzer()
    assert ana.can_prove(x * 0 == 0, strength=tvm.arith.ProofStrength.DEFAULT)
    with pytest.raises(NotImplementedError, match="strength"):
        ana.can_prove(x * 0 == 0, strength=tvm.arith.ProofStrength.SYMBOLIC_BOUND)


def test_ndarray_refuses_a_copy_free_numpy_view():
    arr = tvm.nd.array(np.arange(4, dtype="float32"))
    np.testing.assert_array_equal(arr.__array__(copy=True), np.arange(4))
    with pytest.raises(ValueError, match="without a copy"):
        arr.__array__(copy=False)

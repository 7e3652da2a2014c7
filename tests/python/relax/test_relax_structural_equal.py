"""Structural equality and hashing of Relax IR: the same semantics as TIR —
relax vars and symbolic dims are mapped where they are defined (function
parameters, bindings, match_cast, FuncStructInfo parameters), free vars
compare by identity, constants by content, names never matter."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir


def tensor(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def equal(a, b):
    same = tvm.ir.structural_equal(a, b)
    if same:
        assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    return same


def match_cast_func(fresh):
    """main(x: (n, k)) { y = match_cast(x, (m, 3)); return y } with m fresh or the parameter's n."""
    n = tir.Var("n", "int64")
    k = tir.Var("k", "int64")
    x = relax.Var("x", tensor((n, k)))
    m = tir.Var("m", "int64") if fresh else n
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.match_cast(x, tensor((m, 3)))
        bb.emit_func_output(y)
    return bb.get()["main"]


def test_match_cast_defines_its_fresh_symbolic_vars():
    assert equal(match_cast_func(True), match_cast_func(True))
    assert equal(match_cast_func(False), match_cast_func(False))
    assert not tvm.ir.structural_equal(match_cast_func(True), match_cast_func(False))
    assert tvm.ir.structural_hash(match_cast_func(True)) != tvm.ir.structural_hash(match_cast_func(False))


def test_names_do_not_matter_but_var_kinds_do():
    def block_func(dataflow, name):
        x = relax.Var("x" + name, tensor((2,)))
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            if dataflow:
                with bb.dataflow():
                    lv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=tensor((2,))), "a" + name)
                    gv = bb.emit_output(lv)
            else:
                gv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=tensor((2,))), "a" + name)
            bb.emit_func_output(gv)
        return bb.get()["main"]
    assert equal(block_func(True, "1"), block_func(True, "2"))
    assert not tvm.ir.structural_equal(block_func(True, "1"), block_func(False, "1"))


def test_func_struct_info_parameters_define_their_dims():
    def sig(a, b):
        return relax.FuncStructInfo([tensor((a,))], tensor((b,)))
    n, k = tir.Var("n", "int64"), tir.Var("k", "int64")
    assert equal(sig(n, n), sig(k, k))
    assert not tvm.ir.structural_equal(sig(n, n), sig(k, 3))


def test_free_vars_and_map_free_vars():
    x, y = relax.Var("x", tensor((2,))), relax.Var("y", tensor((2,)))
    call = lambda v: relax.op.call_pure_packed("f", v, sinfo_args=tensor((2,)))
    assert equal(call(x), call(x))
    assert not tvm.ir.structural_equal(call(x), call(y))
    assert tvm.ir.structural_equal(call(x), call(y), map_free_vars=True)
    # ... but a var's struct info still has to match.
    z = relax.Var("z", tensor((3,)))
    assert not tvm.ir.structural_equal(call(x), call(z), map_free_vars=True)


def test_constants_compare_by_content():
    a = relax.const(np.arange(4, dtype="float32"))
    b = relax.const(np.arange(4, dtype="float32"))
    c = relax.const(np.arange(1, 5, dtype="float32"))
    d = relax.const(np.arange(4, dtype="int32"))
    assert equal(a, b)
    assert not tvm.ir.structural_equal(a, c)
    assert not tvm.ir.structural_equal(a, d)
    assert tvm.ir.structural_hash(a) != tvm.ir.structural_hash(c)


def test_if_and_tuples_compare_structurally():
    def func(swap):
        c = relax.Var("c", relax.TensorStructInfo((), "bool"))
        x = relax.Var("x", tensor((2,)))
        y = relax.Var("y", tensor((2,)))
        bb = relax.BlockBuilder()
        with bb.function("main", [c, x, y]):
            r = bb.emit(relax.If(c, y if swap else x, x if swap else y))
            t = bb.emit(relax.Tuple([r, x]))
            bb.emit_func_output(t)
        return bb.get()["main"]
    assert equal(func(False), func(False))
    assert not tvm.ir.structural_equal(func(False), func(True))


def test_assert_structural_equal_reports_a_path():
    a = match_cast_func(True)
    b = match_cast_func(False)
    with pytest.raises(ValueError) as info:
        tvm.ir.assert_structural_equal(a, b)
    assert "struct_info" in str(info.value)

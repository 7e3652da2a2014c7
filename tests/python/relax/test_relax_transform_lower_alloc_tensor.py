"""relax.transform.LowerAllocTensor: each remaining R.builtin.alloc_tensor
becomes its own uint8 storage plus a tensor view of it."""
import pytest

import tessera as tvm
from tessera import relax, tir


def _module(shape, dtype, lowered, nbytes=None):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, dtype))
    with bb.function("main", [x], attrs={"relax.force_pure": True}):
        if lowered:
            s = bb.emit(relax.op.memory.alloc_storage(relax.ShapeExpr([nbytes]), 0, "global", "uint8"))
            t = bb.emit(relax.op.memory.alloc_tensor(s, 0, relax.ShapeExpr(list(shape)), dtype))
        else:
            t = bb.emit(relax.op.builtin.alloc_tensor(relax.ShapeExpr(list(shape)), dtype, 0, "global"))
        bb.emit_func_output(t)
    return bb.get()


@pytest.mark.parametrize("shape,dtype,nbytes", [((2, 3), "float32", 24), ((5,), "float16", 10), ((), "int64", 8)])
def test_static_shapes(shape, dtype, nbytes):
    after = relax.transform.LowerAllocTensor()(_module(shape, dtype, False))
    tvm.ir.assert_structural_equal(after, _module(shape, dtype, True, nbytes))


def test_symbolic_shape_size_is_symbolic():
    n = tir.Var("n", "int64")
    after = relax.transform.LowerAllocTensor()(_module((n, 3), "float32", False))
    storage = after["main"].body.blocks[0].bindings[0].value
    assert storage.op == tvm.ir.Op.get("relax.memory.alloc_storage")
    assert tvm.arith.Analyzer().can_prove_equal(storage.args[0].values[0], n * 12)


def test_three_argument_form_defaults_to_global_scope():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x], attrs={"relax.force_pure": True}):
        t = bb.emit(relax.op.builtin.alloc_tensor(relax.ShapeExpr([4]), "float32", 0))
        bb.emit_func_output(t)
    after = relax.transform.LowerAllocTensor()(bb.get())
    tvm.ir.assert_structural_equal(after, _module((4,), "float32", True, 16))

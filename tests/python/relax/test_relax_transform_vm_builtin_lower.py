"""relax.transform.VMBuiltinLower: memory ops become R.vm.* ops and runtime
ops vm.builtin.* packed calls; a leftover R.builtin.alloc_tensor is refused."""
import pytest

import tessera as tvm
from tessera import relax, tir


def _t(shape):
    return relax.TensorStructInfo(shape, "float32")


def test_memory_ops_become_vm_ops():
    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((4,)))
        with bb.function("main", [x], attrs={"relax.force_pure": True}):
            if lowered:
                s = bb.emit(relax.op.vm.alloc_storage(relax.ShapeExpr([16]), 0, "uint8", "global"))
                t = bb.emit(relax.op.vm.alloc_tensor(s, 0, relax.ShapeExpr([4]), "float32"))
                bb.emit(relax.op.vm.kill_object(t))
                bb.emit(relax.op.vm.kill_object(s))
            else:
                s = bb.emit(relax.op.memory.alloc_storage(relax.ShapeExpr([16]), 0, "global", "float32"))
                t = bb.emit(relax.op.memory.alloc_tensor(s, 0, relax.ShapeExpr([4]), "float32"))
                bb.emit(relax.op.memory.kill_tensor(t))
                bb.emit(relax.op.memory.kill_storage(s))
            bb.emit_func_output(x)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.VMBuiltinLower()(build(False)), build(True))


def test_call_tir_dyn_and_shape_of_become_packed_calls():
    n = tir.Var("n", "int64")

    def build(lowered):
        bb = relax.BlockBuilder()
        gv = bb.add_func(tvm.tir.PrimFunc([], tvm.tir.Evaluate(0)), "f")
        x = relax.Var("x", _t((n,)))
        y = relax.Var("y", _t((n,)))
        with bb.function("main", [x, y], attrs={"relax.force_pure": True}):
            if lowered:
                bb.emit(relax.Call(relax.ExternFunc("vm.builtin.call_tir_dyn"), [gv, x, y, relax.ShapeExpr([n])],
                                   None, [relax.TupleStructInfo([])]))
                s = bb.emit(relax.Call(relax.ExternFunc("vm.builtin.shape_of"), [x], None,
                                       [relax.ShapeStructInfo([n])]))
            else:
                bb.emit(relax.op.vm.call_tir_dyn(gv, [x, y, relax.ShapeExpr([n])]))
                s = bb.emit(relax.op.shape_of(x))
            bb.emit_func_output(s)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.VMBuiltinLower()(build(False)), build(True))


def test_leftover_builtin_alloc_tensor_is_refused():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((4,)))
    with bb.function("main", [x], attrs={"relax.force_pure": True}):
        t = bb.emit(relax.op.builtin.alloc_tensor(relax.ShapeExpr([4]), "float32", 0, "global"), "leftover")
        bb.emit_func_output(t)
    with pytest.raises(ValueError, match="leftover.*LowerAllocTensor"):
        relax.transform.VMBuiltinLower()(bb.get())

"""relax.transform.CallTIRRewrite: call_tir / call_dps_packed become an
explicit R.builtin.alloc_tensor per output plus a call of the callee with the
outputs appended; checked against hand-built expected modules."""
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import tir as T


@T.prim_func
def exp2x3(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32")):
    for i, j in T.grid(2, 3):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.exp(A[vi, vj])


@T.prim_func
def split2x3(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32"), C: T.Buffer((2, 3), "float32")):
    for i, j in T.grid(2, 3):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
            C[vi, vj] = A[vi, vj]


def _t(shape=(2, 3), dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def _alloc(shape, dtype="float32"):
    return relax.op.builtin.alloc_tensor(relax.ShapeExpr(list(shape)), dtype, 0, "global")


def test_call_tir_single_output():
    def before():
        bb = relax.BlockBuilder()
        gv = bb.add_func(exp2x3, "exp")
        x = relax.Var("x", _t())
        with bb.function("main", [x]):
            lv = bb.emit(relax.op.call_tir(gv, (x,), _t()))
            bb.emit_func_output(lv)
        return bb.get()

    def expected():
        bb = relax.BlockBuilder()
        gv = bb.add_func(exp2x3, "exp")
        x = relax.Var("x", _t())
        with bb.function("main", [x]):
            alloc = bb.emit(_alloc((2, 3)))
            bb.emit(relax.Call(gv, [x, alloc]))
            lv = bb.emit(alloc)
            bb.emit_func_output(lv)
        return bb.get()

    after = relax.transform.CallTIRRewrite()(before())
    tvm.ir.assert_structural_equal(after, expected())
    # The allocated shape is the declared output shape.
    call = after["main"].body.blocks[0].bindings[0].value
    assert call.op == tvm.ir.Op.get("relax.builtin.alloc_tensor")
    assert [int(v) for v in call.args[0].values] == [2, 3]


def test_call_tir_in_dataflow_block_stays_in_it():
    def build(rewritten):
        bb = relax.BlockBuilder()
        gv = bb.add_func(exp2x3, "exp")
        x = relax.Var("x", _t())
        with bb.function("main", [x]):
            with bb.dataflow():
                if rewritten:
                    alloc = bb.emit(_alloc((2, 3)))
                    bb.emit(relax.Call(gv, [x, alloc]))
                    lv = bb.emit(alloc)
                else:
                    lv = bb.emit(relax.op.call_tir(gv, (x,), _t()))
                out = bb.emit_output(lv)
            bb.emit_func_output(out)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.CallTIRRewrite()(build(False)), build(True))


def test_call_tir_tuple_output():
    def build(rewritten):
        bb = relax.BlockBuilder()
        gv = bb.add_func(split2x3, "split")
        x = relax.Var("x", _t())
        with bb.function("main", [x]):
            if rewritten:
                a0 = bb.emit(_alloc((2, 3)))
                a1 = bb.emit(_alloc((2, 3)))
                bb.emit(relax.Call(gv, [x, a0, a1]))
                lv = bb.emit(relax.Tuple([a0, a1]))
            else:
                lv = bb.emit(relax.op.call_tir(gv, (x,), [_t(), _t()]))
            bb.emit_func_output(lv)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.CallTIRRewrite()(build(False)), build(True))


def test_call_dps_packed():
    def build(rewritten):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t())
        with bb.function("main", [x]):
            if rewritten:
                alloc = bb.emit(_alloc((2, 3)))
                bb.emit(relax.Call(relax.ExternFunc("test.op.identity"), [x, alloc]))
                lv = bb.emit(alloc)
            else:
                lv = bb.emit(relax.op.call_dps_packed("test.op.identity", (x,), _t()))
            bb.emit_func_output(lv)
        return bb.get()

    after = relax.transform.CallTIRRewrite()(build(False))
    tvm.ir.assert_structural_equal(after, build(True))
    assert after["main"].body.blocks[0].bindings[1].value.op.global_symbol == "test.op.identity"


def test_symbolic_shape_and_tir_vars():
    n = tir.Var("n", "int64")

    def build(rewritten):
        bb = relax.BlockBuilder()
        gv = bb.add_func(exp2x3, "exp")
        x = relax.Var("x", _t((n, 3)))
        with bb.function("main", [x]):
            if rewritten:
                alloc = bb.emit(_alloc((n, 3)))
                bb.emit(relax.op.vm.call_tir_dyn(gv, [x, alloc, relax.ShapeExpr([n])]))
                lv = bb.emit(alloc)
            else:
                lv = bb.emit(relax.op.call_tir(gv, (x,), _t((n, 3)), tir_vars=relax.ShapeExpr([n])))
            bb.emit_func_output(lv)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.CallTIRRewrite()(build(False)), build(True))


def test_shape_held_by_a_var_is_allocated_from_the_var():
    def build(rewritten):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t())
        s = relax.Var("s", relax.ShapeStructInfo([2, 3]))
        with bb.function("main", [x, s]):
            out = relax.TensorStructInfo(s, "float32")
            if rewritten:
                alloc = bb.emit(relax.op.builtin.alloc_tensor(s, "float32", 0, "global"))
                bb.emit(relax.Call(relax.ExternFunc("test.op.identity"), [x, alloc]))
                lv = bb.emit(alloc)
            else:
                lv = bb.emit(relax.op.call_dps_packed("test.op.identity", (x,), out))
            bb.emit_func_output(lv)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.CallTIRRewrite()(build(False)), build(True))


def test_other_calls_are_untouched():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t())
    with bb.function("main", [x]):
        lv = bb.emit(relax.op.shape_of(x))
        bb.emit_func_output(lv)
    mod = bb.get()
    assert relax.transform.CallTIRRewrite()(mod)["main"].same_as(mod["main"])

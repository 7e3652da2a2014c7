"""relax.transform.RemovePurityChecking: pure functions get
"relax.force_pure" and R.call_pure_packed becomes a plain packed call."""
import tessera as tvm
from tessera import relax


def _t():
    return relax.TensorStructInfo((2,), "float32")


def _module(lowered, pure=True):
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t())
    attrs = {"relax.force_pure": True} if lowered and pure else None
    with bb.function("main", [x], attrs=attrs, pure=pure):
        if lowered:
            y = bb.emit(relax.Call(relax.ExternFunc("vm.builtin.copy"), [x], None, [_t()]))
        else:
            y = bb.emit(relax.op.call_pure_packed("vm.builtin.copy", x, sinfo_args=_t()))
        bb.emit_func_output(y)
    return bb.get()


def test_pure_function_forced_and_call_pure_packed_unwrapped():
    after = relax.transform.RemovePurityChecking()(_module(False))
    tvm.ir.assert_structural_equal(after, _module(True))
    assert after["main"].attrs["relax.force_pure"]
    call = after["main"].body.blocks[0].bindings[0].value
    assert isinstance(call.op, relax.ExternFunc) and call.op.global_symbol == "vm.builtin.copy"


def test_impure_function_gets_no_attribute():
    after = relax.transform.RemovePurityChecking()(_module(False, pure=False))
    tvm.ir.assert_structural_equal(after, _module(True, pure=False))
    assert "relax.force_pure" not in (after["main"].attrs or {})


def test_nested_pure_function_is_forced_too():
    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t())
        y = relax.Var("y", _t())
        inner_attrs = {"relax.force_pure": True} if lowered else None
        inner = relax.Function([y], relax.SeqExpr([], y), _t(), attrs=inner_attrs)
        with bb.function("main", [x], attrs={"relax.force_pure": True} if lowered else None):
            f = bb.emit(inner, "inner")
            r = bb.emit(relax.Call(f, [x]))
            bb.emit_func_output(r)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.RemovePurityChecking()(build(False)), build(True))

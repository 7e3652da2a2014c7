"""relax.op.assert_op / R.assert_op: an impure call (condition, format, *format_args) of void
struct info; TVMScript and the Python constructor build the same call, the condition must be a
boolean scalar, and CSE keeps repeated asserts."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R


def test_script_and_constructor_agree_and_cse_keeps_repeats():
    @I.ir_module
    class Mod:
        @R.function(pure=False)
        def foo(x: R.Tensor((), "bool"), y: R.Tensor((2,), "float32")):
            a1 = R.assert_op(x, y, format="bad {}")
            a2 = R.assert_op(x, y, format="bad {}")
            return y

    b = Mod["foo"].body.blocks[0].bindings
    x, y = Mod["foo"].params
    tvm.ir.assert_structural_equal(b[0].value, relax.op.assert_op(x, y, format="bad {}"))
    assert b[0].value.args[1].value == "bad {}"
    assert isinstance(b[0].var.struct_info, relax.TupleStructInfo) and len(b[0].var.struct_info.fields) == 0
    after = relax.transform.EliminateCommonSubexpr()(Mod)
    tvm.ir.assert_structural_equal(after, Mod)


def test_condition_must_be_a_boolean_scalar():
    y = relax.Var("y", R.Tensor((2,), "float32"))
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match="condition"):
        bb.normalize(relax.op.assert_op(y))

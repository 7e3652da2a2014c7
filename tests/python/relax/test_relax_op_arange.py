"""relax.op.arange / R.arange: struct info (length ceil((end - start) / step) for constant
operands, rank 1 otherwise), TVMScript and the Python constructor agree, CSE merges repeats.
Lengths checked against NumPy's arange."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import ir as I, relax as R


@pytest.mark.parametrize("args", [(0, 160, 1), (3, 10, 2), (10, 0, -3), (5, 5, 1), (0.0, 1.0, 0.3)])
def test_length_matches_numpy(args):
    dtype = "float32" if isinstance(args[0], float) else "int64"
    call = relax.BlockBuilder().normalize(relax.op.arange(*args, dtype=dtype))
    sinfo = call.struct_info
    assert sinfo.dtype == dtype
    assert [int(d) for d in sinfo.shape.values] == [len(np.arange(*args))]


def test_symbolic_end_gives_rank_one_and_zero_step_raises():
    n = tir.Var("n", "int64")
    sinfo = relax.BlockBuilder().normalize(relax.op.arange(0, relax.PrimValue(n), 1, dtype="int64")).struct_info
    assert sinfo.ndim == 1 and sinfo.dtype == "int64"
    with pytest.raises(ValueError, match="step"):
        relax.BlockBuilder().normalize(relax.op.arange(0, 4, 0, dtype="int64"))


def test_script_form_and_cse():
    @I.ir_module
    class Before:
        @R.function
        def foo(x: R.Tensor((160,), "float32")):
            with R.dataflow():
                a = R.arange(R.prim_value(0), R.prim_value(160), R.prim_value(1), dtype="float32")
                b = R.arange(R.prim_value(0), R.prim_value(160), R.prim_value(1), dtype="float32")
                c = R.add(x, a)
                out = R.add(c, b)
                R.output(out)
            return out

    a = Before["foo"].body.blocks[0].bindings[0].value
    tvm.ir.assert_structural_equal(a, relax.op.arange(0, 160, 1, dtype="float32"))
    after = relax.transform.EliminateCommonSubexpr()(Before)
    last = after["foo"].body.blocks[0].bindings[-1].value
    assert last.args[1].same_as(after["foo"].body.blocks[0].bindings[0].var)

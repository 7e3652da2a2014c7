"""relax.op.astype (src/relax/op/datatype.cc, relax/op/datatype.py): casts
against NumPy through relax.build + VM, struct info, errors, round trip."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import infer, rand, roundtrip, run, tensor


@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float16", "float32"), ("float32", "int32"),
                                     ("int32", "float32"), ("int64", "int32"), ("int32", "int64")])
@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_astype_matches_numpy(src, dst, shape):
    a = rand(shape, src, low=-20, high=20)
    out = run(lambda x: relax.op.astype(x, dst), a)
    assert out.dtype == np.dtype(dst)
    np.testing.assert_array_equal(out, a.astype(dst))


def test_struct_info_and_errors():
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.astype(tensor((n, 2)), "float16")),
                                   relax.TensorStructInfo((n, 2), "float16"))
    s = infer(relax.op.astype(tensor(None), "int8"))
    assert s.ndim == -1 and s.dtype == "int8"
    with pytest.raises(ValueError, match=r"relax.astype: attribute 'dtype' is not a dtype: 'flot32'"):
        infer(relax.op.astype(tensor((2,)), "flot32"))
    with pytest.raises(TypeError, match=r"relax.astype: operand 'x'"):
        relax.op.astype(3, "float32")


def test_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            gv = R.astype(x, "float16")
            return gv

    assert 'R.astype(x, dtype="float16")' in roundtrip(Mod)

"""relax.collapse_sum_like / collapse_sum_to (src/relax/op/collapse_sum.cc,
python/tessera/relax/op/collapse_sum.py): the target's shape (a shape var
kept), the broadcast check naming op and operands, and results against
NumPy (the sum over the broadcast axes) through relax.build."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir

from relax_op_helpers import infer, rand, run, tensor


def test_struct_info():
    a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.collapse_sum_like(tensor((2, 3, 4)), tensor((3, 4), name="y"))),
                                   relax.TensorStructInfo((3, 4), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.collapse_sum_to(tensor((3, 4, b + a)), (1, a + b))),
                                   relax.TensorStructInfo((1, a + b), "float32"))
    s = relax.Var("s", relax.ShapeStructInfo(ndim=2))
    tvm.ir.assert_structural_equal(infer(relax.op.collapse_sum_to(tensor((3, a, b)), s)),
                                   relax.TensorStructInfo(s, "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.collapse_sum_like(tensor((2, 3)), tensor(None, name="y"))),
                                   relax.TensorStructInfo(dtype="float32", ndim=-1))


@pytest.mark.parametrize("make", [
    lambda: relax.op.collapse_sum_to(tensor((3, 4, 5)), (4, 4, 5)),
    lambda: relax.op.collapse_sum_like(tensor((3, tir.Var("a", "int64"), 5)),
                                       tensor((3, tir.Var("b", "int64"), 5), name="y")),
    lambda: relax.op.collapse_sum_to(tensor((4, 5)), (1, 4, 5)),
])
def test_not_broadcastable_is_refused(make):
    with pytest.raises(ValueError, match=r"relax.collapse_sum_(like|to): the target shape"):
        infer(make())


@pytest.mark.parametrize("shape,target", [((2, 3, 4), (3, 4)), ((2, 3, 4), (1, 4)), ((2, 3, 4), (2, 1, 4)),
                                          ((3, 4), (3, 4)), ((2, 3), (1,))])
def test_against_numpy(shape, target):
    a = rand(shape, seed=4)
    lead = len(shape) - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, t in enumerate(target) if t == 1 and shape[lead + i] != 1)
    ref = a.sum(axis=axes, keepdims=True).reshape(target) if axes else a.reshape(target)
    np.testing.assert_allclose(run(lambda x: relax.op.collapse_sum_to(x, target), a), ref, rtol=1e-5)
    b = np.zeros(target, "float32")
    np.testing.assert_allclose(run(relax.op.collapse_sum_like, a, b), ref, rtol=1e-5)

"""Value assertions of ``tvm.testing``: array closeness (NumPy's, with TVM's
tighter default tolerances) and equality of integer expressions."""
import numpy as np
from ..error import TVMValueError


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """Asserts |actual - desired| <= atol + rtol * |desired| elementwise and equal
    shapes; NDArrays are converted with ``.numpy()``."""
    actual = actual.numpy() if hasattr(actual, "numpy") else actual
    desired = desired.numpy() if hasattr(desired, "numpy") else desired
    actual, desired = np.asanyarray(actual), np.asanyarray(desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)


def assert_prim_expr_equal(lhs, rhs):
    """Asserts two integer expressions are equal (ints accepted), after simplification."""
    from .. import arith, tir  # pylint: disable=import-outside-toplevel

    analyzer = arith.Analyzer()
    diff = analyzer.simplify(tir.Sub(_as_expr(lhs, rhs), _as_expr(rhs, lhs)))
    if not (isinstance(diff, tir.IntImm) and diff.value == 0):
        raise TVMValueError(f"{lhs} and {rhs} are not equal (difference simplifies to {diff})")


def _as_expr(value, other):
    from .. import tir  # pylint: disable=import-outside-toplevel

    if isinstance(value, int):
        dtype = getattr(other, "dtype", "int32")
        return tir.IntImm(dtype, value)
    return value

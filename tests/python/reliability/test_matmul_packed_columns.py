"""topi.matmul_packed called by hand with a `columns` count its packed panels do not hold
(the weight's N before padding: 97..128 for 4 panels of 32) raises a ValueError naming
`columns` instead of reading past the packed tile; the counts it holds compute a @ w
(NumPy oracle)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi


def _packed(n):
    A = te.placeholder((8, 16), name="A")
    W = te.placeholder((16, n), name="W")
    return A, W, topi.matmul_pack_weight(W, 32)


@pytest.mark.parametrize("columns", [0, -3, 64, 96, 129, 1024])
def test_columns_outside_the_last_panel_are_refused(columns):
    A, _, packed = _packed(100)
    with pytest.raises(ValueError, match="columns"):
        topi.matmul_packed(A, packed, columns=columns)


@pytest.mark.parametrize("columns", [97, 100, 128])
def test_columns_inside_the_last_panel_compute_the_product(columns):
    A, W, packed = _packed(columns)
    out = topi.matmul_packed(A, packed, columns=columns)
    lib = tvm.build(te.create_prim_func([A, W, out]), target="llvm")
    rng = np.random.default_rng(columns)
    a, w = rng.standard_normal((8, 16)).astype("float32"), rng.standard_normal((16, columns)).astype("float32")
    got = tvm.nd.array(np.zeros((8, columns), "float32"))
    lib(tvm.nd.array(a), tvm.nd.array(w), got)
    np.testing.assert_allclose(got.numpy(), a @ w, rtol=1e-5, atol=1e-5)

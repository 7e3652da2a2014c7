"""LLVM codegen of vector loads and stores whose index is a ramp of constant
stride other than 1 (a tile read across its rows, a deinterleaved copy):
each lane's address is the scalar base plus a constant, not a lane taken out
of a vector of indices (which cost the packed conv2d's write-back about
four instructions per element). NumPy oracle."""
import re

import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def strided(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in T.vectorized(16):
        B[i * 3] = A[i * 4 + 1] + T.float32(1)


@T.prim_func
def reversed_rows(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for r in range(16):
        for c in T.vectorized(8):
            B[r, c] = A[7 - c, r]  # stride -16 along c


@pytest.mark.parametrize("func,shapes", [(strided, ((64,), (64,))), (reversed_rows, ((8, 16), (16, 8)))])
def test_strided_vectors_match_numpy_without_index_vectors(func, shapes):
    lib = tvm.build(tvm.IRModule({"main": func}), target="llvm")
    ll = lib.get_source("ll")
    assert not re.search(r"extractelement <\d+ x i(32|64)>", ll)  # no lane of an index vector
    a = np.random.default_rng(0).standard_normal(shapes[0]).astype("float32")
    b = tvm.nd.array(np.zeros(shapes[1], "float32"))
    lib["main"](tvm.nd.array(a), b)
    if func is strided:
        expected = np.zeros(64, "float32")
        expected[0:48:3] = a[1:64:4] + 1
    else:
        expected = a[::-1, :].T
    np.testing.assert_allclose(b.numpy(), expected, rtol=1e-6)

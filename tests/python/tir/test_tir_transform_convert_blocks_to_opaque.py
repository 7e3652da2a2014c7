"""tir.transform.ConvertBlocksToOpaque alone: block iteration variables are
replaced by their bindings everywhere (body, read/write regions); blocks
keep no iter_vars."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, find_nodes, run, run_pass


@T.prim_func
def before(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(4, 4):
        with T.block("b"):
            vi = T.axis.spatial(16, i * 4 + j)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] + T.float32(1)


@T.prim_func
def expected(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(4, 4):
        with T.block("b"):
            T.reads(A[i * 4 + j])
            T.writes(B[i * 4 + j])
            B[i * 4 + j] = A[i * 4 + j] + T.float32(1)


@T.prim_func
def with_init(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 4):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_blocks_become_opaque():
    after = check(tvm.tir.transform.ConvertBlocksToOpaque(), before, expected)
    assert all(len(b.iter_vars) == 0 for b in find_nodes(after, tvm.tir.Block))
    assert all(len(r.iter_values) == 0 for r in find_nodes(after, tvm.tir.BlockRealize))


def test_opaque_program_computes_the_same():
    a = np.random.rand(16).astype("float32")
    (_, b) = run(run_pass(tvm.tir.transform.ConvertBlocksToOpaque(), before), a, np.zeros(16, "float32"))
    np.testing.assert_allclose(b, a + 1)


def test_init_must_be_lowered_first():
    with pytest.raises(ValueError, match="block sum.*LowerInitBlock"):
        run_pass(tvm.tir.transform.ConvertBlocksToOpaque(), with_init)
    after = run_pass(tvm.transform.Sequential([tvm.tir.transform.LowerInitBlock(),
                                               tvm.tir.transform.ConvertBlocksToOpaque()]), with_init)
    assert "vk" not in after.script()

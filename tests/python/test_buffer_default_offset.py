"""A buffer's default elem_offset takes the index dtype (the first
dimension's, int64 for a zero-dimensional buffer), as in TVM; rfactor of a
zero-dimensional output keeps it on the rf buffer (TVM's
test_reduction_rfactor_zero_dim), checked against a hand-written module and
NumPy."""
import numpy as np

import tessera as tvm
from tessera.script import tir as T


def test_default_elem_offset_takes_the_index_dtype():
    # As TVM: the first dimension's dtype, int64 for a zero-dimensional buffer.
    assert tvm.tir.decl_buffer((), "float32").elem_offset.dtype == "int64"
    assert tvm.tir.decl_buffer((4,), "float32").elem_offset.dtype == "int32"
    assert tvm.tir.decl_buffer((tvm.tir.IntImm("int64", 4),), "float32").elem_offset.dtype == "int64"


@T.prim_func
def _rowsum_zero_dim(A: T.Buffer((128,), "float32"), B: T.Buffer((), "float32")):
    for k0 in range(128):
        with T.block("B"):
            k = T.axis.reduce(128, k0)
            with T.init():
                B[()] = T.float32(0)
            B[()] = B[()] + A[k]


@T.prim_func
def _rowsum_zero_dim_rfactor(A: T.Buffer((128,), "float32"), B: T.Buffer((), "float32")):
    B_rf = T.alloc_buffer((128,), elem_offset=T.int64(0))
    for i in range(128):
        with T.block("B_rf"):
            vi0 = T.axis.spatial(128, i)
            B_rf[vi0] = A[vi0]
    for i in range(128):
        with T.block("B"):
            vi0_1 = T.axis.reduce(128, i)
            with T.init():
                B[()] = T.float32(0)
            B[()] = B[()] + B_rf[vi0_1]


def test_rfactor_of_a_zero_dim_output():
    sch = tvm.tir.Schedule(_rowsum_zero_dim, debug_mask="all")
    (k,) = sch.get_loops("B")
    sch.rfactor(k, 0)
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   _rowsum_zero_dim_rfactor.with_attr("global_symbol", "x"))
    a = np.random.rand(128).astype("float32")
    b = tvm.nd.array(np.zeros((), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(), rtol=1e-5)

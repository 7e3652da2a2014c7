"""compute_inline re-infers the consumer's regions with the function's
buffers visible, so an opaque use (T.tvm_access_ptr of buf.data) stays a
read of buf, as TVM; checked against a hand-written expected module."""
import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def with_access_ptr(table: T.Buffer((64,), "int8"), x: T.Buffer((8,), "float32"), y: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("t"):
            vi = T.axis.spatial(8, i)
            t[vi] = x[vi] * T.float32(2)
    for i in range(8):
        with T.block("y"):
            vi = T.axis.spatial(8, i)
            T.reads(table[0:64], t[vi])
            T.writes(y[vi])
            T.evaluate(T.tvm_access_ptr(T.type_annotation("int8"), table.data, 0, 64, 1))
            y[vi] = t[vi] + T.float32(1)


@T.prim_func
def with_access_ptr_inlined(table: T.Buffer((64,), "int8"), x: T.Buffer((8,), "float32"), y: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("y"):
            vi = T.axis.spatial(8, i)
            T.reads(table[0:64], x[vi])
            T.writes(y[vi])
            T.evaluate(T.tvm_access_ptr(T.type_annotation("int8"), table.data, 0, 64, 1))
            y[vi] = x[vi] * T.float32(2) + T.float32(1)


def test_opaque_access_kept_in_regions_after_inline():
    sch = tvm.tir.Schedule(with_access_ptr)
    sch.compute_inline(sch.get_block("t"))
    tvm.ir.assert_structural_equal(sch.mod["main"], with_access_ptr_inlined.with_attr("global_symbol", "with_access_ptr"))

"""decompose_reduction keeps the block's annotations on the init block too
(as TVM), checked against a hand-written expected module."""
import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def rowsum(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.block_attr({"note": 1})
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rowsum_decomposed(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B_init"):
            vi = T.axis.spatial(8, i)
            T.reads()
            T.writes(B[vi])
            T.block_attr({"note": 1})
            B[vi] = T.float32(0)
        for k in range(8):
            with T.block("B_update"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi], A[vi, vk])
                T.writes(B[vi])
                T.block_attr({"note": 1})
                B[vi] = B[vi] + A[vi, vk]


def test_init_block_keeps_annotations():
    sch = tvm.tir.Schedule(rowsum)
    block = sch.get_block("B")
    sch.decompose_reduction(block, sch.get_loops(block)[1])
    tvm.ir.assert_structural_equal(sch.mod["main"], rowsum_decomposed.with_attr("global_symbol", "rowsum"))

"""sgemm 1024^3 scheduled with tvm.tir.Schedule primitives, from the course's
matmul: multi-level tiling; cache_read of a 16-wide column panel of B,
computed once per panel (compact copy: B "packing"); cache_write of an
MR x 16 register tile; decomposed reduction; vectorize, unroll, parallel."""
import tessera as tvm
from tessera.script import tir as T


@tvm.script.ir_module
class Matmul:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"),
             C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(1024, 1024, 1024):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def schedule(mr=4, nr=16, kc=256):
    sch = tvm.tir.Schedule(Matmul)
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, mr])
    j0, j1 = sch.split(j, [None, nr])
    k0, k1 = sch.split(k, [None, kc])
    sch.reorder(j0, i0, k0, k1, i1, j1)
    packed = sch.cache_read(block, 1, "global")     # B panel, copied once per j0
    sch.compute_at(packed, j0)
    acc = sch.cache_write(block, 0, "local")         # the MR x NR accumulator tile
    sch.reverse_compute_at(acc, i0)
    sch.decompose_reduction(block, k0)
    sch.vectorize(j1)
    sch.unroll(i1)
    sch.parallel(j0)
    sch.vectorize(sch.get_loops(acc)[-1])
    sch.vectorize(sch.get_loops(packed)[-1])
    return sch

"""decompose_reduction keeps the block's annotations on the init block too
(as TVM), and the copied loops keep their kind, thread binding (a thread
IterVar of their own) and annotations; checked against hand-written expected
modules and, for the CPU form, NumPy."""
import numpy as np

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


@T.prim_func
def rowsum_bound(A: T.Buffer((32, 16), "float32"), B: T.Buffer((32,), "float32")):
    for t in T.thread_binding(32, thread="threadIdx.x", annotations={"hint": 2}):
        for r in range(16):
            with T.block("B"):
                vi, vr = T.axis.remap("SR", [t, r])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] += A[vi, vr]


@T.prim_func
def rowsum_bound_decomposed(A: T.Buffer((32, 16), "float32"), B: T.Buffer((32,), "float32")):
    for t_init in T.thread_binding(32, thread="threadIdx.x", annotations={"hint": 2}):
        with T.block("B_init"):
            vi = T.axis.remap("S", [t_init])
            B[vi] = T.float32(0)
    for t in T.thread_binding(32, thread="threadIdx.x", annotations={"hint": 2}):
        for r in range(16):
            with T.block("B"):
                vi, vr = T.axis.remap("SR", [t, r])
                B[vi] += A[vi, vr]


def test_copied_loops_keep_thread_binding_and_annotations():
    sch = tvm.tir.Schedule(rowsum_bound, debug_mask="all")
    t, _ = sch.get_loops("B")
    sch.decompose_reduction("B", t)
    tvm.ir.assert_structural_equal(sch.mod["main"], rowsum_bound_decomposed.with_attr("global_symbol", "rowsum_bound"))
    init_loop, update_loop = sch.mod["main"].body.block.body
    # each thread loop has its own thread IterVar, as parsed loops do
    assert not init_loop.thread_binding.var.same_as(update_loop.thread_binding.var)
    assert init_loop.thread_binding.thread_tag == "threadIdx.x"


def test_copied_parallel_loop_runs():
    sch = tvm.tir.Schedule(rowsum)
    block = sch.get_block("B")
    i, k = sch.get_loops(block)
    sch.parallel(i)
    sch.annotate(i, "pragma_note", 1)
    sch.decompose_reduction(block, i)  # the init gets a copy of loop i
    init_loop, update_loop = sch.mod["main"].body.block.body
    assert init_loop.loop_var.name == "i_init" and init_loop.kind == update_loop.kind
    assert init_loop.kind == tvm.tir.ForKind.PARALLEL
    assert int(init_loop.annotations["pragma_note"]) == 1
    f = tvm.build(sch.mod, target="llvm")
    a = np.random.rand(8, 8).astype("float32")
    b = tvm.nd.array(np.full(8, 7, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5)

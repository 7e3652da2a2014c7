"""tir.transform.ThreadSync (src/tir/transform/thread_sync.cc): barriers only where threads of a block could see
each other's shared-memory accesses out of order, never inside a branch on the thread index. Checked on TIR
written by hand, on the course's cooperative-fetch window sum (chapter 6, stage 3) through the pipeline, and on
a shared-memory tiled matmul."""
import pytest

import tessera as tvm
from tessera.script import tir as T

from .test_cuda_codegen import _Ch6, device_kernels, window_sum_kernel


def _sync(func, scope="shared"):
    mod = tvm.tir.transform.ThreadSync(scope)(tvm.IRModule({"main": func}))
    return mod["main"]


def _is_sync(stmt):
    return (isinstance(stmt, tvm.tir.Evaluate) and isinstance(stmt.value, tvm.tir.Call)
            and stmt.value.op.name == "tir.tvm_storage_sync")


def _events(func):
    """The kernel flattened to a list of events in program order: "sync", "W <buffer>[index]", "R <buffer>" and
    "if"/"endif" around branches."""
    out = []

    def walk(s):
        if isinstance(s, tvm.tir.SeqStmt):
            for x in s.seq:
                walk(x)
        elif isinstance(s, (tvm.tir.For, tvm.tir.Allocate, tvm.tir.DeclBuffer, tvm.tir.LetStmt, tvm.tir.AttrStmt)):
            walk(s.body)
        elif isinstance(s, tvm.tir.IfThenElse):
            out.append("if")
            walk(s.then_case)
            out.append("endif")
        elif _is_sync(s):
            out.append("sync")
        elif isinstance(s, tvm.tir.BufferStore):
            loads = []
            tvm.tir.stmt_functor.post_order_visit(
                s.value, lambda n: loads.append(n.buffer.name) if isinstance(n, tvm.tir.BufferLoad) else None)
            out.append("W " + s.buffer.name + (" <- " + ",".join(sorted(set(loads))) if loads else ""))

    walk(func.body)
    return out


def test_window_sum_hand_written():
    ev = _events(_sync(window_sum_kernel))
    assert ev == ["if", "W A_shared_1 <- A_1", "endif", "sync", "W B_1 <- A_shared_1"]


def test_window_sum_cooperative_fetch_through_pipeline():
    sch = _Ch6.schedule_window_sum(tvm.tir.Schedule(_Ch6.make_window_sum()), stage=3)
    kernels = device_kernels(sch.mod)
    (kernel,) = [f for _, f in kernels.functions.items()]
    ev = _events(kernel)
    # The fetch (two copies of the loop after partitioning, the second guarded), one barrier, then the sum.
    assert ev.count("sync") == 1
    assert ev.index("sync") == len(ev) - 2 and ev[-1].startswith("W B") and "A_shared" in ev[-1]
    assert all(e.startswith("W A_shared") or e in ("if", "endif") for e in ev[:-2])


def test_no_barrier_when_each_thread_reads_its_own_element():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        A = T.Buffer((64,), data=a)
        B = T.Buffer((64,), data=b)
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            S = T.allocate([32], "float32", "shared")
            S_1 = T.Buffer((32,), data=S, scope="shared")
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                S_1[tx] = A[bx * 32 + tx]
                B[bx * 32 + tx] = S_1[tx] * T.float32(2)

    assert "sync" not in _events(_sync(f))


def test_barrier_outside_branches_on_the_thread_index():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        A = T.Buffer((32,), data=a)
        B = T.Buffer((32,), data=b)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.allocate([32], "float32", "shared")
            S_1 = T.Buffer((32,), data=S, scope="shared")
            if tx < 16:
                S_1[tx] = A[tx]
            S_1[tx + 0] = S_1[tx] + T.float32(0)
            if tx < 8:
                B[tx] = S_1[tx + 16]

    ev = _events(_sync(f))
    # The write under `tx < 16` and the read under `tx < 8` of another thread's element: the barrier sits between
    # the branches, at the level of the whole block.
    assert ev == ["if", "W S_1 <- A", "endif", "W S_1 <- S_1", "sync", "if", "W B <- S_1", "endif"]


def test_loop_write_after_read_across_iterations():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        A = T.Buffer((128,), data=a)
        B = T.Buffer((128,), data=b)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.allocate([32], "float32", "shared")
            S_1 = T.Buffer((32,), data=S, scope="shared")
            for k in range(4):
                S_1[tx] = A[k * 32 + tx]
                B[k * 32 + tx] = S_1[31 - tx]

    ev = _events(_sync(f))
    assert ev == ["W S_1 <- A", "sync", "W B <- S_1", "sync"]


@T.prim_func
def tiled_matmul(a: T.handle, b: T.handle, c: T.handle):
    A = T.Buffer((4096,), data=a)
    B = T.Buffer((4096,), data=b)
    C = T.Buffer((4096,), data=c)
    for by in T.thread_binding(4, thread="blockIdx.y"):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            As = T.allocate([256], "float32", "shared")
            As_1 = T.Buffer((256,), data=As, scope="shared")
            Bs = T.allocate([256], "float32", "shared")
            Bs_1 = T.Buffer((256,), data=Bs, scope="shared")
            for ty in T.thread_binding(16, thread="threadIdx.y"):
                for tx in T.thread_binding(16, thread="threadIdx.x"):
                    acc = T.allocate([1], "float32", "local")
                    acc_1 = T.Buffer((1,), data=acc, scope="local")
                    acc_1[0] = T.float32(0)
                    for k0 in range(4):
                        As_1[ty * 16 + tx] = A[(by * 16 + ty) * 64 + k0 * 16 + tx]
                        Bs_1[ty * 16 + tx] = B[(k0 * 16 + ty) * 64 + bx * 16 + tx]
                        for k1 in range(16):
                            acc_1[0] = acc_1[0] + As_1[ty * 16 + k1] * Bs_1[k1 * 16 + tx]
                    C[(by * 16 + ty) * 64 + bx * 16 + tx] = acc_1[0]


def test_tiled_matmul():
    ev = _events(_sync(tiled_matmul))
    assert ev == ["W acc_1", "W As_1 <- A", "W Bs_1 <- B", "sync", "W acc_1 <- As_1,Bs_1,acc_1", "sync",
                  "W C <- acc_1"]
    # Already placed barriers are kept, and none is added twice.
    assert _events(_sync(_sync(tiled_matmul))) == ev


def test_scope_filter():
    # "local" buffers never need barriers; ThreadSync("shared.dyn") leaves "shared" buffers alone.
    assert "sync" not in _events(_sync(tiled_matmul, "shared.dyn"))
    assert "sync" not in _events(_sync(tiled_matmul, "local"))


def test_bad_scope_arguments():
    with pytest.raises(ValueError, match="storage_scope"):
        tvm.tir.transform.ThreadSync("global")
    with pytest.raises(TypeError, match="storage_scope must be a str"):
        tvm.tir.transform.ThreadSync(3)


def test_data_dependent_branch_and_divergent_loop_get_no_barrier_inside():
    @T.prim_func
    def f(a: T.handle, b: T.handle, n: T.int32):
        A = T.Buffer((32,), data=a)
        B = T.Buffer((32,), data=b)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.allocate([32], "float32", "shared")
            S_1 = T.Buffer((32,), data=S, scope="shared")
            if A[tx] > T.float32(0):  # data differs per thread: divergent
                S_1[tx] = A[tx]
                B[tx] = S_1[31 - tx]
            for k in range(tx):  # a trip count per thread: divergent
                S_1[tx] = A[k]
                B[tx] = S_1[31 - tx]
            for k in range(n):  # uniform but maybe empty: no barrier carried past it
                T.tvm_storage_sync("shared")
                S_1[tx] = A[k]
            B[tx] = S_1[31 - tx]

    ev = _events(_sync(f))
    assert ev[:4] == ["if", "W S_1 <- A", "W B <- S_1", "endif"]  # nothing inside the data-dependent branch
    # Between the branch (reads S) and the divergent loop (writes S): at block level; nothing inside the loop.
    assert ev[4:7] == ["sync", "W S_1 <- A", "W B <- S_1"]
    # The uniform loop keeps its barrier (no second one: the next iteration starts with it); the final read
    # still gets one, since the loop may run no iteration.
    assert ev[7:] == ["sync", "W S_1 <- A", "sync", "W B <- S_1"]


def test_barrier_inside_a_branch_uniform_in_the_block():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        A = T.Buffer((64,), data=a)
        B = T.Buffer((64,), data=b)
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            S = T.allocate([32], "float32", "shared")
            S_1 = T.Buffer((32,), data=S, scope="shared")
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                if bx == 1:  # the same for every thread of a block
                    S_1[tx] = A[bx * 32 + tx]
                    B[bx * 32 + tx] = S_1[31 - tx]

    assert _events(_sync(f)) == ["if", "W S_1 <- A", "sync", "W B <- S_1", "endif"]

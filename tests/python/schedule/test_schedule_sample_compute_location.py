"""sample_compute_location with TVM's candidates (CollectComputeLocation):
"inline" (-2) when compute_inline would succeed, "root" (-1), then the
first consumer's loops down to the consumers' common loop, skipping unit
loops, spatial loops after a reduction loop and trailing reduction loops;
decisions are loop positions, and a replayed decision that is no longer a
candidate falls back to the one before. The oracle for the candidate set is
the list TVM v0.18 gives for its tiled conv2d test program (8 candidates),
written out here; the handles "root"/"inline" name no loop and are refused
(checked in a subprocess: this crashed before)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T


@T.prim_func
def producer_consumer(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def matmul_relu(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    A2 = T.alloc_buffer((16, 8))
    for i, k in T.grid(16, 8):
        with T.block("A2"):
            vi, vk = T.axis.remap("SS", [i, k])
            A2[vi, vk] = A[vi, vk] * T.float32(2)
    for i, j0, one, k, j1 in T.grid(16, 4, 1, 8, 4):
        with T.block("D"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(16, j0 * 4 + j1)
            vk = T.axis.reduce(8, k)
            with T.init():
                D[vi, vj] = T.float32(0)
            D[vi, vj] = D[vi, vj] + A2[vi, vk] * B[vk, vj]


def _mod(func):
    return tvm.IRModule({"main": func.with_attr("global_symbol", "main")})


def _candidates(func, block):
    """Every decision sample_compute_location can give (by replaying each)."""
    sch = tir.Schedule(func, seed=1)
    seen = set()
    for _ in range(200):
        sch.sample_compute_location(block)
        seen.add(int(sch.trace.decisions[sch.trace.insts[-1]]))
    return sorted(seen)


def test_tvms_candidate_rules():
    # B: inline, root, C's i loop (0) and j loop (1).
    assert _candidates(producer_consumer, "B") == [-2, -1, 0, 1]
    # A2: inline, root, then D's loops i (0) and j0 (1); the unit loop (2)
    # is skipped; k (3, reduction) is kept since a spatial loop (j1) follows
    # it, and j1 (4) is cut: a spatial loop after a reduction loop.
    assert _candidates(matmul_relu, "A2") == [-2, -1, 0, 1, 3]


@pytest.mark.parametrize("decision", [-2, -1, 0, 1])
def test_each_decision_computes_the_same(decision):
    sch = tir.Schedule(_mod(producer_consumer))
    loc = sch.sample_compute_location("B", decision=decision)
    sch.compute_at(sch.get_block("B"), loc)
    a = np.random.rand(8, 8).astype("float32")
    c = tvm.nd.empty((8, 8), "float32")
    tvm.build(sch.mod, target="llvm -bound-check")["main"](tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
    text = sch.mod.script()
    assert ('with T.block("B")' in text) == (decision != -2)


def test_stale_decision_falls_back_to_the_candidate_before():
    # 3 is no loop position of C's nest (2 loops): the last candidate (1) is taken.
    sch = tir.Schedule(producer_consumer)
    sch.sample_compute_location("B", decision=3)
    assert int(sch.trace.decisions[sch.trace.insts[-1]]) == 1
    # -2 where B cannot be inlined (it is an output block here): root.
    sch = tir.Schedule(matmul_relu)
    sch.sample_compute_location("D", decision=-2)
    assert int(sch.trace.decisions[sch.trace.insts[-1]]) == -1


def test_root_and_inline_handles_name_no_loop():
    here = os.path.dirname(os.path.abspath(__file__))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {here!r})
        from tessera import tir
        import test_schedule_sample_compute_location as m
        for d in (-2, -1):
            sch = tir.Schedule(m.producer_consumer)
            loc = sch.sample_compute_location("B", decision=d)
            for call in (lambda: sch.get(loc), lambda: sch.split(loc, [2, None]), lambda: sch.parallel(loc)):
                try:
                    call()
                except tir.ScheduleError as e:
                    assert "location sampled by sample_compute_location" in str(e), str(e)
                else:
                    raise AssertionError("accepted")
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr

"""Property test of the schedule primitives: random short sequences of
primitives with random arguments on a family of small programs either
succeed and still compute what NumPy computes, or raise ScheduleError and
leave the module unchanged (the very same object)."""
import os
import random

import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func, block

CASES = int(os.environ.get("TESSERA_SCHEDULE_FUZZ_CASES", "500"))


def elementwise():
    A, B = buf("A", (12, 20)), buf("B", (12, 20))
    body = loops([12, 20], lambda i, j: block("B", [("vi", 12, "S"), ("vj", 20, "S")], [i, j],
                                              lambda vi, vj: tir.BufferStore(B, A[vi, vj] * 2.0 + 1.0, [vi, vj])))
    f = func([A, B], body)
    return f, [(12, 20)], [(12, 20)], lambda a: [a * 2 + 1]


def matmul():
    A, B, C = buf("A", (16, 8)), buf("B", (8, 12)), buf("C", (16, 12))
    body = loops([16, 12, 8], lambda i, j, k: block(
        "C", [("vi", 16, "S"), ("vj", 12, "S"), ("vk", 8, "R")], [i, j, k],
        lambda vi, vj, vk: tir.BufferStore(C, C[vi, vj] + A[vi, vk] * B[vk, vj], [vi, vj]),
        init=lambda vi, vj, vk: tir.BufferStore(C, tir.const(0.0, "float32"), [vi, vj])))
    f = func([A, B, C], body)
    return f, [(16, 8), (8, 12)], [(16, 12)], lambda a, b: [a @ b]


def two_stage():
    A, B, C = buf("A", (10, 6)), buf("B", (10, 6)), buf("C", (10, 6))
    s1 = loops([10, 6], lambda i, j: block("B", [("vi", 10, "S"), ("vj", 6, "S")], [i, j],
                                           lambda vi, vj: tir.BufferStore(B, A[vi, vj] * 3.0, [vi, vj])))
    s2 = loops([10, 6], lambda i, j: block("C", [("vi", 10, "S"), ("vj", 6, "S")], [i, j],
                                           lambda vi, vj: tir.BufferStore(C, B[vi, vj] + 1.0, [vi, vj])))
    f = func([A, C], tir.stmt_seq(s1, s2), allocs=[B])
    return f, [(10, 6)], [(10, 6)], lambda a: [a * 3 + 1]


PROGRAMS = [elementwise, matmul, two_stage]


def random_step(sch, rng):
    """Applies one random primitive with random arguments."""
    blocks = [b for b in ("B", "C", "C_init", "C_update", "A_global", "B_local", "C_local", "A_local", "C_global",
                          "C_rf", "B_rf")]
    names = []
    for b in blocks:
        try:
            names.append((b, sch.get_block(b)))
        except tvm.tir.ScheduleError:
            pass
    if not names:  # every block the harness knows was renamed away
        return "none"
    name, blk = rng.choice(names)
    lps = sch.get_loops(blk)
    op = rng.choice(["split", "fuse", "reorder", "parallel", "vectorize", "unroll", "compute_at",
                     "reverse_compute_at", "compute_inline", "reverse_compute_inline", "cache_read", "cache_write",
                     "decompose_reduction", "transform_layout", "sample_compute_location", "rfactor", "storage_align"])
    if op == "split" and lps:
        loop = rng.choice(lps)
        f = [rng.choice([None, 1, 2, 3, 4, 5, 7]) for _ in range(rng.choice([2, 3]))]
        sch.split(loop, factors=f)
    elif op == "fuse" and len(lps) >= 2:
        k = rng.randrange(len(lps) - 1)
        sch.fuse(lps[k], lps[k + 1])
    elif op == "reorder" and len(lps) >= 2:
        chosen = rng.sample(lps, rng.randrange(2, len(lps) + 1))
        sch.reorder(*chosen)
    elif op in ("parallel", "vectorize", "unroll") and lps:
        getattr(sch, op)(rng.choice(lps))
    elif op in ("compute_at", "reverse_compute_at"):
        _, other = rng.choice(names)
        other_loops = sch.get_loops(other)
        if other_loops:
            getattr(sch, op)(blk, rng.choice(other_loops))
    elif op in ("compute_inline", "reverse_compute_inline"):
        getattr(sch, op)(blk)
    elif op in ("cache_read", "cache_write"):
        getattr(sch, op)(blk, rng.randrange(2), rng.choice(["global", "local"]))
    elif op == "transform_layout":
        perm = rng.choice([lambda i, j: (j, i), lambda i, j: (i // 2, j, i % 2), lambda i, j: (i, j)])
        sch.transform_layout(blk, (rng.choice(["read", "write"]), 0), perm)
    elif op == "rfactor" and lps:
        sch.rfactor(rng.choice(lps), rng.choice([0, 1, -1]))
    elif op == "storage_align":
        sch.storage_align(blk, 0, rng.choice([0, 1]), rng.choice([4, 8, 32]), rng.choice([0, 1, 2]))
    elif op == "sample_compute_location":
        sch.compute_at(blk, sch.sample_compute_location(blk))
    elif op == "decompose_reduction" and lps:
        sch.decompose_reduction(blk, rng.choice(lps))
    return op


@pytest.mark.parametrize("case", range(CASES))
def test_random_schedules_preserve_results_or_fail_cleanly(case):
    rng = random.Random(case)
    make = PROGRAMS[case % len(PROGRAMS)]
    f, in_shapes, out_shapes, ref = make()
    sch = tvm.tir.Schedule(f, seed=case)
    for _ in range(rng.randrange(1, 6)):
        before = sch.mod
        try:
            random_step(sch, rng)
        except tvm.tir.ScheduleError as err:
            assert sch.mod.same_as(before), f"a failed primitive changed the module: {err}\n{sch.trace}"
    np_rng = np.random.default_rng(case)
    inputs = [np_rng.standard_normal(s).astype("float32") for s in in_shapes]
    # Bound checks: a wrong schedule raises instead of corrupting memory.
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    outs = [tvm.nd.empty(s, "float32") for s in out_shapes]
    lib["main"](*[tvm.nd.array(x) for x in inputs], *outs)
    for got, want in zip(outs, ref(*inputs)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)

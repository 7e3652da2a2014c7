"""Cross-thread reductions over a thread count that is not whole warps (LowerThreadAllreduce's
PartialWarps, src/tir/transform/lower_thread_allreduce.cc): one row per thread block, any
count of threads from 1 to 1024. Compile-only here: the lowered CUDA C (masked shuffles whose
mask names exactly the warp's threads, the combine guarded where the source lane is past the
last thread, at most two barriers) compiled by NVRTC for sm_80 and sm_90 for every count
1..64 and some larger odd ones; a Python model of the lowering checked against the sum for
every count 1..1024. On a GPU (skipped here): every count against NumPy for sum, max and min."""
import re

import numpy as np
import pytest

import tessera as tvm

from .test_cuda_allreduce import bound_row_reduce, compile_all, cuda_source, rows_on_threads_y
from .test_cuda_codegen import requires_nvrtc

COUNTS = list(range(1, 65)) + [95, 97, 127, 255, 257, 513, 999, 1023]


def _is_whole_warps(n):
    return n % 32 == 0 or (n < 32 and n & (n - 1) == 0)


@pytest.mark.parametrize("n", [n for n in COUNTS if not _is_whole_warps(n)])
def test_partial_warps_lowered_to_masked_shuffles(n):
    src = cuda_source(bound_row_reduce(2, n))
    warps = (n + 31) // 32
    last = n - (warps - 1) * 32
    assert "__activemask()" not in src and "red_buf0[" + str(n) not in src  # not the shared-memory tree
    masks = {int(m) for m in re.findall(r"\(\(uint32_t\)(\d+)ULL\)", src)}
    assert (1 << last) - 1 in masks, masks  # the partial warp's exact mask
    assert src.count("__syncthreads()") == (0 if warps == 1 else 2)
    if warps > 1:
        assert f"__shared__ float red_buf0[{warps}];" in src and "__shared__ float red_total0[1];" in src


def test_several_rows_straddling_warps_keep_the_tree():
    """Rows of 20 threads, 4 per block: a row's threads straddle two warps, shuffles cannot reach them."""
    src = cuda_source(rows_on_threads_y(8, 20, 4))
    assert "__shfl" not in src and "red_buf0[80]" in src




def _model(values, warp=32):
    """The lowering's algorithm in Python (an unreadable lane gives NaN): every thread's result."""
    n = len(values)
    warps, last = (n + warp - 1) // warp, n - ((n + warp - 1) // warp - 1) * warp

    def pow2ceil(v):
        p = 1
        while p < v:
            p *= 2
        return p

    def steps(count, v):
        off = pow2ceil(count) // 2
        while off >= 1:
            new = list(v)
            for t in range(n):
                lane, w = (t % warp if warps > 1 else t), t // warp
                active = last if w == warps - 1 else warp
                src = w * warp + lane + off
                got = v[t] if lane + off >= warp else (v[src] if src < n else float("nan"))
                if lane + off < active:
                    new[t] = v[t] + got
            v, off = new, off // 2
        return v

    v = steps(min(n, warp), list(values))
    if warps > 1:
        partial = [v[w * warp] for w in range(warps)]
        v = steps(warps, [partial[t % warp] if t % warp < warps else 0.0 for t in range(n)])
    return [v[0]] * n


def test_model_of_the_lowering_sums_every_count():
    for n in range(1, 1025):
        values = [float((i * 7919) % 13 - 6) for i in range(n)]
        assert _model(values) == [sum(values)] * n, n


@requires_nvrtc
@pytest.mark.parametrize("n", COUNTS)
def test_every_count_compiles_with_nvrtc(n):
    compile_all(cuda_source(bound_row_reduce(2, n, "max" if n % 3 == 0 else "sum")))


# ---- on a GPU (skipped without one) ------------------------------------------------------

@pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_every_count_on_gpu_matches_numpy(op):
    rng = np.random.default_rng(0)
    dev = tvm.cuda(0)
    for n in COUNTS if op == "sum" else [1, 3, 7, 31, 33, 63, 97, 1023]:  # (few builds: the GPU run is short)
        a = rng.uniform(-1, 1, size=(5, n)).astype("float32")
        out = tvm.nd.empty((5,), "float32", dev)
        tvm.build(bound_row_reduce(5, n, op), target="cuda")["main"](tvm.nd.array(a, dev), out)
        want = {"sum": a.sum(1), "max": a.max(1), "min": a.min(1)}[op]
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=f"{op} over {n} threads")

"""The thread pool's long polls (src/runtime/thread_pool.cc): a worker that
has finished its share keeps polling while the caller runs the loop's last
chunk, so back-to-back loops (a model's kernels) find it awake instead of
paying a wake-up; the pool's counters (runtime.ParallelPoolStats) count the
sleeps; results match NumPy with long polls on and off."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def uneven_rows(A: T.Buffer((3, 65536), "float32"), B: T.Buffer((3, 65536), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.parallel(3):
        for j in range(65536):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(0.5) + T.float32(vi)


def _stats(reset=True):
    launches, worker, caller, preempted, long_polls, long_slept = tvm.get_global_func("runtime.ParallelPoolStats")(reset)
    return {"launches": launches, "worker_sleeps": worker, "caller_sleeps": caller, "preempted": preempted,
            "long_polls": long_polls, "long_polls_slept": long_slept}


def _sleeps_per_loop(long_poll, loops=40):
    """Worker sleeps per loop of 3 x 300 us iterations on 2 threads: the caller
    runs iteration 0, then takes 2 from the worker's share while the worker
    runs 1, so the worker waits ~300 us for the caller's last chunk."""
    set_long_poll = tvm.get_global_func("runtime.SetParallelLongPoll")
    run = tvm.get_global_func("testing.parallel_for_threads")
    old = set_long_poll(long_poll)
    try:
        run(3, 2, 300)
        _stats()
        for _ in range(loops):
            run(3, 2, 300)
        s = _stats()
    finally:
        set_long_poll(old)
    return s["worker_sleeps"] / loops, s


def test_counters_count_parallel_loops():
    run = tvm.get_global_func("testing.parallel_for_threads")
    _stats()
    for _ in range(5):
        run(4, 2, 1)
    run(4, 1, 1)  # one thread: not a pool launch
    s = _stats(reset=False)
    assert s["launches"] == 5, s
    assert _stats()["launches"] == 5 and _stats()["launches"] == 0  # reset after reading


def test_long_polls_keep_the_worker_awake_between_loops():
    set_long_poll = tvm.get_global_func("runtime.SetParallelLongPoll")
    assert set_long_poll(True) is True  # on by default
    long_sleeps, s_long = _sleeps_per_loop(True)
    short_sleeps, s_short = _sleeps_per_loop(False)
    print(f"worker sleeps per loop: long polls {long_sleeps:.2f} {s_long}, short {short_sleeps:.2f} {s_short}")
    assert s_short["long_polls"] == 0 and s_short["preempted"] == 0
    # With long polls on, each loop's caller and worker either poll long or, when the
    # OS switched them out since their last poll, back off to short polls (counted as
    # preempted). How many long polls end asleep depends on the machine's load, so it
    # is reported (benchmarks/thread_scaling.py) rather than asserted here.
    assert s_long["long_polls"] + s_long["preempted"] > 0, s_long
    assert s_long["long_polls_slept"] <= s_long["long_polls"], s_long


def test_results_match_numpy_with_long_polls_on_and_off():
    set_long_poll = tvm.get_global_func("runtime.SetParallelLongPoll")
    f = tvm.build(tvm.IRModule({"main": uneven_rows.with_attr("global_symbol", "main")}),
                  target="llvm -num-cores=2")["main"]
    a = np.random.default_rng(0).standard_normal((3, 65536)).astype("float32")
    expected = a * 0.5 + np.arange(3, dtype="float32")[:, None]
    old = set_long_poll(True)
    try:
        for on in (True, False, True):
            set_long_poll(on)
            for _ in range(20):
                b = tvm.nd.array(np.zeros_like(a))
                f(tvm.nd.array(a), b)
                np.testing.assert_allclose(b.numpy(), expected, rtol=1e-6)
    finally:
        set_long_poll(old)

"""Trace replay throughput: the tuner replays thousands of schedule traces,
so this times `Trace.apply_to_schedule` of a realistic 30-instruction matmul
schedule (samples, splits, reorder, cache_write, reverse_compute_at,
decompose_reduction, parallel, vectorize, unroll) onto a fresh Schedule,
1,000 times. `python benchmarks/trace_replay.py [--repeat N] [--rounds R]`."""
import argparse
import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(__file__), "..", "python"))  # PYTHONPATH wins
import tessera as tvm  # noqa: E402
from tessera.script import tir as T  # noqa: E402


@tvm.script.ir_module
class MatmulRelu:
    @T.prim_func
    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"),
             D: T.Buffer((256, 256), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        C = T.alloc_buffer((256, 256), "float32")
        for i, j, k in T.grid(256, 256, 256):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(256, 256):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0))


def record_trace(seed=7):
    """Schedules MatmulRelu once and returns the trace (30 instructions)."""
    sch = tvm.tir.Schedule(MatmulRelu, seed=seed)
    c = sch.get_block("C")                                        # 1
    d = sch.get_block("D")                                        # 2
    i, j, k = sch.get_loops(c)                                    # 3
    ti = sch.sample_perfect_tile(i, n=3, max_innermost_factor=8)  # 4
    tj = sch.sample_perfect_tile(j, n=3, max_innermost_factor=16) # 5
    tk = sch.sample_perfect_tile(k, n=2, max_innermost_factor=64) # 6
    i0, i1, i2 = sch.split(i, factors=ti)                         # 7
    j0, j1, j2 = sch.split(j, factors=tj)                         # 8
    k0, k1 = sch.split(k, factors=tk)                             # 9
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)                   # 10
    acc = sch.cache_write(c, 0, "local")                          # 11
    sch.reverse_compute_at(acc, j1)                               # 12
    sch.decompose_reduction(c, k0)                                # 13
    fused = sch.fuse(i0, j0)                                      # 14
    sch.parallel(fused)                                           # 15
    sch.annotate(c, "meta_schedule.tiling_structure", "SSRSRS")   # 16
    sch.vectorize(j2)                                             # 17
    sch.unroll(i2)                                                # 18
    acc_loops = sch.get_loops(acc)                                # 19
    sch.vectorize(acc_loops[-1])                                  # 20
    sch.annotate(fused, "pragma_auto_unroll_max_step", 64)        # 21
    vec = sch.sample_categorical([8, 16, 32], [0.2, 0.4, 0.4])    # 22
    d_loops = sch.get_loops(d)                                    # 23
    d0, d1 = sch.split(d_loops[1], factors=[None, vec])           # 24
    sch.vectorize(d1)                                             # 25
    dp = sch.fuse(d_loops[0], d0)                                 # 26
    sch.parallel(dp)                                              # 27
    sch.get_producers(d)                                          # 28
    sch.get_consumers(acc)                                        # 29
    sch.get_child_blocks(fused)                                   # 30
    return sch


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1000, help="replays per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (the best is reported)")
    args = parser.parse_args()
    sch = record_trace()
    trace = sch.trace
    n_inst = len(trace.insts)
    # Sanity: a replay reproduces the recorded module.
    check = tvm.tir.Schedule(MatmulRelu)
    trace.apply_to_schedule(check)
    tvm.ir.assert_structural_equal(check.mod, sch.mod)
    best = float("inf")
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            trace.apply_to_schedule(tvm.tir.Schedule(MatmulRelu))
        best = min(best, time.perf_counter() - t0)
    print(f"trace_replay: {n_inst} instructions x {args.repeat} replays: {best:.3f} s "
          f"({best / args.repeat * 1e3:.3f} ms per replay, best of {args.rounds})")


if __name__ == "__main__":
    main()

"""Fuzz target (f): relax.build of random small graphs (tests/python/
relax_random_graph.py: elementwise, broadcasting, reductions, layout changes,
matmul, softmax, chosen by the fuzzer's bytes), run by the VM and compared
with NumPy. Every generated graph is valid, so any exception while building or
running, and any numeric difference, is a finding.
Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_relax_build.py"""
import os
import sys

import numpy as np

import fuzz_common as fc

sys.path.insert(0, os.path.join(fc.HERE, "..", "python"))
import relax_random_graph as rg  # noqa: E402


def body(fdp):
    def choose(n):
        return fdp.ConsumeIntInRange(0, n - 1) if n > 1 else 0

    mod, inputs, expected, ops = rg.random_graph(choose)
    try:
        got = rg.run_graph(mod, inputs)
    except Exception as e:  # noqa: BLE001
        first = str(e).splitlines()[0][:200] if str(e) else ""
        raise fc.Finding(f"relax.build/run: {type(e).__name__}: {first} [ops {'-'.join(ops)}]") from e
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
        err = np.max(np.abs(got - expected)) if got.shape == expected.shape else "shape"
        raise fc.Finding(f"wrong result: {ops[-1]}: shapes {got.shape} vs {expected.shape}, max error {err} "
                       f"[ops {'-'.join(ops)}]")


if __name__ == "__main__":
    fc.main("relax_build", body)

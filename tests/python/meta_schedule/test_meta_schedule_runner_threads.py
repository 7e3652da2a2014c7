"""Candidates are measured through exported libraries (LocalBuilder -> load_module in the
runner's worker): a parallel candidate built for "llvm --num-cores=N" runs its parallel
loops on at most N threads there too (the -num-cores recorded in the library caps the
thread pool), not on every core of the machine. Checked in a fresh process by the
number of OS threads after the call (the pool starts workers on demand)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera as tvm
from tessera.meta_schedule.builder import BuilderInput, LocalBuilder
from tessera.script import tir as T


@T.prim_func
def scale_rows(A: T.Buffer((64, 4096), "float32"), B: T.Buffer((64, 4096), "float32")):
    T.func_attr({"tir.noalias": True, "global_symbol": "main"})
    for i in T.parallel(64):
        for j in range(4096):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)


_PROBE = """
import sys, numpy as np, tessera as tvm
lib = tvm.runtime.load_module(sys.argv[1])
a = np.ones((64, 4096), "float32")
b = tvm.nd.array(np.zeros_like(a))
base = int([l for l in open("/proc/self/status") if l.startswith("Threads:")][0].split()[1])
for _ in range(20):
    lib["main"](tvm.nd.array(a), b)
assert np.allclose(b.numpy(), 3.0)
now = int([l for l in open("/proc/self/status") if l.startswith("Threads:")][0].split()[1])
print(now - base)
"""


def _extra_threads(artifact):
    env = dict(os.environ)
    env.pop("TESSERA_NUM_THREADS", None)
    env.pop("TVM_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", _PROBE, artifact], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    return int(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc thread counts")
def test_exported_candidate_honours_num_cores(tmp_path):
    builder = LocalBuilder(max_workers=1, artifact_dir=str(tmp_path))
    try:
        mod = tvm.IRModule({"main": scale_rows})
        one, three = builder.build([BuilderInput(mod, "llvm --num-cores=1"), BuilderInput(mod, "llvm --num-cores=3")])
    finally:
        builder.close()
    assert one.error_msg is None and three.error_msg is None
    assert _extra_threads(one.artifact_path) == 0      # serial: no pool worker started
    assert _extra_threads(three.artifact_path) == 2    # the caller + 2 workers, whatever the machine's cores

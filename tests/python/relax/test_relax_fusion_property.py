"""Property test of relax.build's default pipeline: random small Relax graphs
(tests/python/relax_random_graph.py: elementwise, broadcasting binary ops with
constant or input operands, reductions, permute_dims, matmul, softmax,
reshape) give NumPy's numbers with fusion (the default) and without it
(PassContext(disabled_pass=["FuseOps"])), and fusion actually happens: the
fused executable launches fewer kernels (counted by vm.profile) in most
graphs with several ops."""
import random

import numpy as np

import tessera as tvm
from tessera import relax

from relax_random_graph import random_graph


def _kernels(mod, inputs, disabled):
    with tvm.transform.PassContext(disabled_pass=disabled):
        ex = relax.build(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    args = [tvm.nd.array(a) for a in inputs]
    out = vm["main"](*args).numpy()
    report = vm.profile("main", *args)
    launches = sum(r["Count"] for r in report.calls if not r["Name"].startswith("vm.builtin."))
    return out, launches


def test_random_graphs_match_numpy_with_and_without_fusion():
    rng = random.Random(2026)
    fused_fewer = multi_op = 0
    for case in range(30):
        mod, inputs, expected, ops = random_graph(lambda n: rng.randrange(n) if n > 1 else 0, max_ops=6)
        fused, n_fused = _kernels(mod, inputs, [])
        unfused, n_unfused = _kernels(mod, inputs, ["FuseOps"])
        for got in (fused, unfused):
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=f"case {case}: {ops}")
        assert n_fused <= n_unfused, (case, ops, n_fused, n_unfused)
        if n_unfused >= 2:
            multi_op += 1
            fused_fewer += n_fused < n_unfused
    assert multi_op >= 10, multi_op
    assert fused_fewer >= multi_op // 2, (fused_fewer, multi_op)

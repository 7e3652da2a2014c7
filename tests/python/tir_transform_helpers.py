"""Shared checks of the per-pass tests (test_tir_transform_*.py): run one
pass alone on a one-function module, compare with the expected function,
and run programs against NumPy."""
import numpy as np

import tessera as tvm


def run_pass(pass_, func):
    """The PrimFunc `main` after running `pass_` alone on a module holding `func`."""
    return pass_(tvm.IRModule({"main": func}))["main"]


def check(pass_, before, expected):
    """`pass_` turns `before` into `expected` (structurally), and it did change something."""
    after = run_pass(pass_, before)
    tvm.ir.assert_structural_equal(after.with_attr("global_symbol", "main"), expected.with_attr("global_symbol", "main"))
    assert not tvm.ir.structural_equal(before, after), "the pass left the function unchanged"
    return after


def run(func, *arrays):
    """Builds `func` (for the CPU) and runs it on copies of `arrays`; returns the outputs as NumPy arrays."""
    rt = tvm.build(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target="llvm")
    nd = [tvm.nd.array(np.array(a)) for a in arrays]
    rt["main"](*nd)
    return [a.numpy() for a in nd]


def find_nodes(func, node_type):
    """All nodes of `node_type` in the body of `func`, in post order."""
    found = []
    tvm.tir.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, node_type) else None)
    return found

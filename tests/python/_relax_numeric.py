"""Numeric check shared by the Relax graph-rewrite tests: a module and its
rewritten form, built with relax.build (llvm) and run by the VM on the same
random inputs, give the same outputs."""
import numpy as np

import tessera as tvm
from tessera import relax


def _random_input(sinfo, rng):
    shape = [int(d) for d in sinfo.shape.values]
    if sinfo.dtype.startswith("float"):
        return rng.uniform(0.5, 2.0, size=shape).astype(sinfo.dtype)
    return rng.integers(1, 5, size=shape).astype(sinfo.dtype)


def _flatten(value):
    if isinstance(value, tvm.nd.NDArray):
        return [value.numpy()]
    return [a for v in value for a in _flatten(v)]


def run_main(mod, inputs, func="main"):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return _flatten(vm[func](*[tvm.nd.array(a) for a in inputs]))


def assert_same_numbers(before, after, func="main", seed=0):
    """Runs `func` of both modules on one set of random inputs (static tensor
    parameters) and compares every output."""
    rng = np.random.default_rng(seed)
    inputs = [_random_input(p.struct_info, rng) for p in before[func].params]
    expected = run_main(before, inputs, func)
    got = run_main(after, inputs, func)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    return got

"""Helpers for the Relax operator tests (test_relax_op_*.py): struct-info
inference of one call, a one-op function built through relax.build (which
legalizes it) and run on the VM, and the TVMScript round trip of a module."""
import numpy as np
import tessera as tvm
from tessera import relax


def tensor(shape, dtype="float32", name="x"):
    """A relax Var of tensor struct info (shape None: unknown shape with ndim -1)."""
    if shape is None:
        return relax.Var(name, relax.TensorStructInfo(dtype=dtype, ndim=-1))
    return relax.Var(name, relax.TensorStructInfo(shape, dtype))


def infer(call):
    """The struct info the normalizer infers for ``call``."""
    return relax.BlockBuilder().normalize(call).struct_info_


def build_module(make_call, *arrays):
    """IRModule whose main(x0, x1, ...) returns make_call(x0, x1, ...)."""
    params = [relax.Var(f"x{i}", relax.TensorStructInfo(a.shape, str(a.dtype))) for i, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(make_call(*params))
        bb.emit_func_output(out)
    return bb.get()


def run(make_call, *arrays):
    """Builds main (relax.build legalizes the op) and runs it on the VM: numpy array(s)."""
    mod = build_module(make_call, *arrays)
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    res = vm["main"](*[tvm.nd.array(a) for a in arrays])
    if isinstance(res, (list, tuple)) or hasattr(res, "__len__") and not hasattr(res, "numpy"):
        return [r.numpy() for r in res]
    return res.numpy()


def roundtrip(mod):
    """Prints mod, parses it back, asserts structural equality; returns the text."""
    text = mod.script()
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)
    return text


def rand(shape, dtype="float32", seed=0, low=-2.0, high=2.0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        return rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    if dtype == "bool":
        return rng.random(size=shape) < 0.5
    return rng.uniform(low, high, size=shape).astype(dtype)

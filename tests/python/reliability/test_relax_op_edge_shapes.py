"""Relax ops on edge shapes and values (issue K2, items 8-9): strided_slice
with huge steps (extents computed without overflow), reshape/flatten of
zero-size tensors, split into one part or at no points, reductions of a 0-d
tensor. Each is valid input with NumPy's result; built and run through
relax.build in a subprocess and compared with NumPy."""
import pytest

from .harness import run_case

PRELUDE = """
import numpy as np
import tessera as tvm
from tessera import relax

def run(make, *arrays):
    params = [relax.Var(f"x{i}", relax.TensorStructInfo(a.shape, str(a.dtype))) for i, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        out = bb.emit(make(*params))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    res = vm["main"](*[tvm.nd.array(a) for a in arrays])
    if hasattr(res, "numpy"):
        return res.numpy()
    return [r.numpy() for r in res]

def infer(call):
    return relax.BlockBuilder().normalize(call).struct_info_
"""


def run(code, timeout=120):
    res = run_case(PRELUDE + code, timeout=timeout)
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("begin,end,step", [(0, 10, 2**63 - 1), (9, -11, -(2**63 - 1)), (0, 10, 2**62),
                                            (-(2**63), 2**63 - 1, 3), (2**63 - 1, -(2**63), -(2**63 - 1)),
                                            (3, 2**63 - 1, 2**63 - 1), (-(2**63), 2**63 - 1, 2**63 - 1)])
def test_strided_slice_huge_steps(begin, end, step):
    run(f"""
a = np.arange(10, dtype="float32")
expect = a[{begin}:{end}:{step}]
call = relax.op.strided_slice(relax.Var("x", relax.TensorStructInfo((10,), "float32")), [0], [{begin}], [{end}], [{step}])
sinfo = infer(call)
assert [int(d) for d in sinfo.shape.values] == list(expect.shape), (sinfo, expect.shape)
out = run(lambda x: relax.op.strided_slice(x, [0], [{begin}], [{end}], [{step}]), a)
np.testing.assert_array_equal(out, expect)
print("OK")
""")


@pytest.mark.parametrize("shape,new_shape", [((0, 3), (3, 0)), ((0,), (0, 5)), ((2, 0, 4), (0, 8)),
                                             ((0, 3), (-1, 3)), ((4, 0), (0,))])
def test_reshape_and_flatten_of_zero_size(shape, new_shape):
    run(f"""
a = np.zeros({shape}, "float32")
out = run(lambda x: relax.op.reshape(x, {new_shape}), a)
assert out.shape == np.reshape(a, {new_shape}).shape, out.shape
out = run(lambda x: relax.op.flatten(x), a)
assert out.shape == (0,), out.shape
print("OK")
""")


def test_split_into_one_part_or_at_no_points():
    run("""
a = np.arange(12, dtype="float32").reshape(3, 4)
for arg, axis in ((1, 0), ([], 0), (1, 1), ([], 1), ([2], 1)):
    out = run(lambda x: relax.op.split(x, arg, axis), a)
    expect = np.split(a, arg, axis)
    assert len(out) == len(expect), (arg, axis, len(out))
    for o, e in zip(out, expect):
        np.testing.assert_array_equal(o, e)
print("OK")
""")


@pytest.mark.parametrize("op", ["sum", "max", "min", "mean", "prod"])
def test_reductions_of_a_0d_tensor(op):
    run(f"""
a = np.array(2.5, "float32")
for axis, keepdims in ((None, False), (None, True), ([], False)):
    out = run(lambda x: getattr(relax.op, {op!r})(x, axis, keepdims), a)
    expect = getattr(np, {op!r})(a, axis=None if axis is None else tuple(axis), keepdims=keepdims)
    assert out.shape == np.shape(expect), (axis, keepdims, out.shape)
    np.testing.assert_allclose(out, expect)
print("OK")
""")

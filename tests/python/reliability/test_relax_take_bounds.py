"""relax.op.take never reads out of bounds (issue K2, item 1): constant
indices outside the axis are refused when the module is built (the error
names the op, the index and the axis extent); indices only known at run time
are clamped in the default mode (TVM's "clip"), compared with NumPy's
take(mode="clip"); an empty axis with indices to take is an error naming
the op in every mode (no division by zero for "wrap")."""
import pytest

from .harness import expect_error, run_case

PRELUDE = """
import numpy as np
import tessera as tvm
from tessera import relax

def build_take(shape, idx, axis=0, mode=None, const_idx=False):
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    params = [x]
    if const_idx:
        i = relax.const(np.asarray(idx, "int64"), "int64")
    else:
        i = relax.Var("i", relax.TensorStructInfo(np.shape(idx), "int64"))
        params.append(i)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        kw = {} if mode is None else {"mode": mode}
        y = bb.emit(relax.op.take(x, i, axis, **kw))
        bb.emit_func_output(y)
    return relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
"""


@pytest.mark.parametrize("index", [10**12, 5, -(10**12), 2**62])
def test_constant_index_out_of_range_is_refused_at_build(index):
    expect_error(PRELUDE + f"""
build_take((5, 3), [0, {index}], const_idx=True)
""", "ValueError", f"relax.take: index {index} is out of range for axis 0 of extent 5")


def test_constant_indices_in_range_match_numpy():
    res = run_case(PRELUDE + """
a = np.arange(15, dtype="float32").reshape(5, 3)
vm = build_take((5, 3), [[4, 0], [2, 2]], axis=0, const_idx=True)
np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), np.take(a, [[4, 0], [2, 2]], axis=0))
vm = build_take((5, 3), [2, 0], axis=1, const_idx=True)
np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), np.take(a, [2, 0], axis=1))
print("OK")
""")
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_runtime_indices_are_clamped_in_the_default_mode():
    res = run_case(PRELUDE + """
a = np.arange(15, dtype="float32").reshape(5, 3)
idx = np.array([10**12, -1, 3, -(10**12), 5, 2**62], "int64")
vm = build_take((5, 3), idx, axis=0)
for axis in (0,):
    out = vm["main"](tvm.nd.array(a), tvm.nd.array(idx)).numpy()
    np.testing.assert_array_equal(out, np.take(a, idx, axis=0, mode="clip"))
vm = build_take((5, 3), idx, axis=1)
np.testing.assert_array_equal(vm["main"](tvm.nd.array(a), tvm.nd.array(idx)).numpy(),
                              np.take(a, idx, axis=1, mode="clip"))
print("OK")
""")
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("mode", [None, "fast", "clip", "wrap"])
def test_empty_axis_with_indices_is_an_error(mode):
    expect_error(PRELUDE + f"""
build_take((0, 3), np.array([0, 1], "int64"), axis=0, mode={mode!r})
""", "ValueError", "relax.take: cannot take 2 element(s) from axis 0 of extent 0")


def test_empty_axis_with_no_indices_is_empty():
    res = run_case(PRELUDE + """
a = np.zeros((0, 3), "float32")
idx = np.zeros((0,), "int64")
for mode in ("fast", "clip", "wrap"):
    vm = build_take((0, 3), idx, axis=0, mode=mode)
    out = vm["main"](tvm.nd.array(a), tvm.nd.array(idx)).numpy()
    assert out.shape == (0, 3), out.shape
print("OK")
""")
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_symbolic_extent_is_clamped_and_an_empty_axis_reads_nothing():
    res = run_case(PRELUDE + """
from tessera import tir
n = tir.Var("n", "int64")
idx = np.array([10**12, -1, 2], "int64")
vm = build_take((n, 3), idx, axis=0)
for rows in (5, 1, 0):
    a = np.arange(rows * 3, dtype="float32").reshape(rows, 3)
    out = vm["main"](tvm.nd.array(a), tvm.nd.array(idx)).numpy()
    expect = np.take(a, idx, axis=0, mode="clip") if rows else np.zeros((3, 3), "float32")
    np.testing.assert_array_equal(out, expect)
print("OK")
""")
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()

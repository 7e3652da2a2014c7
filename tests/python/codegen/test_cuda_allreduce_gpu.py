"""Cross-thread reductions on a GPU against NumPy: row sums of 1 to 4096 elements (warp shuffles, the shared tree,
an in-thread reduction first), max/min, two reductions in one kernel, and softmax / layer_norm / sum / mean / max
through relax.build(target="cuda") with the default schedule's thread block per row. Skipped without a CUDA device;
written for the lead's GPU run (nothing here has run on a GPU while writing it)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R

from .test_cuda_allreduce import bound_row_reduce, max_and_sum

pytestmark = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
RNG = np.random.default_rng(0)


def _run(mod, inputs, out_shapes, name="main"):
    dev = tvm.cuda(0)
    rt = tvm.build(mod, target="cuda")
    nd = [tvm.nd.array(x, dev) for x in inputs] + [tvm.nd.empty(s, "float32", dev) for s in out_shapes]
    rt[name](*nd)
    return [o.numpy() for o in nd[len(inputs):]]


# (row length, threads on the row: None = all of it on threadIdx.x)
@pytest.mark.parametrize("n,threads", [(1, None), (31, None), (32, None), (33, None), (1000, None), (4096, 256),
                                       (4096, 1024), (1000, 96)])
def test_row_sum(n, threads):
    a = RNG.uniform(-1, 1, size=(7, n)).astype("float32")
    (out,) = _run(bound_row_reduce(7, n, "sum", threads), [a], [(7,)])
    np.testing.assert_allclose(out, a.sum(1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("n", [31, 64, 1000])
def test_row_max_min(op, n):
    a = RNG.uniform(-1, 1, size=(5, n)).astype("float32")
    a[2] = -np.inf if op == "max" else np.inf  # a row of the identity: the padding must not show
    (out,) = _run(bound_row_reduce(5, n, op), [a], [(5,)])
    big = np.finfo("float32").max  # te.max / te.min start from the lowest / highest finite value (as TVM's)
    want = np.maximum(a.max(1), -big) if op == "max" else np.minimum(a.min(1), big)
    np.testing.assert_array_equal(out, want)


def test_two_reductions_in_one_kernel():
    a = RNG.uniform(-1, 1, size=(4, 128)).astype("float32")
    m, s = _run(tvm.IRModule({"main": max_and_sum}), [a], [(4,), (4,)], name="max_and_sum")
    np.testing.assert_allclose(m, np.maximum(a.max(1), -3.0e38), rtol=1e-6)
    np.testing.assert_allclose(s, 1 + a.sum(1), rtol=1e-4, atol=1e-4)


@I.ir_module
class Rows:
    @R.function
    def softmax(x: R.Tensor((16, 4096), "float32")):
        return R.nn.softmax(x, axis=-1)

    @R.function
    def layer_norm(x: R.Tensor((16, 4096), "float32"), g: R.Tensor((4096,), "float32"), b: R.Tensor((4096,), "float32")):
        return R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1e-5)

    @R.function
    def row_sum(x: R.Tensor((16, 4096), "float32")):
        return R.sum(x, axis=-1)

    @R.function
    def row_mean(x: R.Tensor((16, 4096), "float32")):
        return R.mean(x, axis=-1)

    @R.function
    def row_max(x: R.Tensor((16, 4096), "float32")):
        return R.max(x, axis=-1)


def test_relax_rows_on_the_gpu():
    x = RNG.uniform(-4, 4, size=(16, 4096)).astype("float32")
    g, b = RNG.uniform(-1, 1, size=4096).astype("float32"), RNG.uniform(-1, 1, size=4096).astype("float32")
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(relax.build(Rows, target="cuda"), dev)
    e = np.exp(x - x.max(1, keepdims=True))
    expected = {
        "softmax": ([x], e / e.sum(1, keepdims=True)),
        "layer_norm": ([x, g, b], (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * g + b),
        "row_sum": ([x], x.sum(1)),
        "row_mean": ([x], x.mean(1)),
        "row_max": ([x], x.max(1)),
    }
    for name, (args, want) in expected.items():
        got = vm[name](*[tvm.nd.array(a, dev) for a in args]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3, err_msg=name)


@pytest.mark.parametrize("n,ty,axes", [(64, 4, ("threadIdx.x", "threadIdx.y")), (8, 4, ("threadIdx.x", "threadIdx.y")),
                                       (48, 4, ("threadIdx.x", "threadIdx.y")), (32, 3, ("threadIdx.x", "threadIdx.y")),
                                       (64, 4, ("threadIdx.y", "threadIdx.x"))])
def test_several_rows_per_block(n, ty, axes):
    from .test_cuda_allreduce import rows_on_threads_y  # pylint: disable=import-outside-toplevel

    a = RNG.uniform(-1, 1, size=(12, n)).astype("float32")
    (out,) = _run(rows_on_threads_y(12, n, ty, *axes), [a], [(12,)])
    np.testing.assert_allclose(out, a.sum(1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["softmax", "layer_norm", "sum", "mean", "max"])
def test_default_schedule_rows(name):
    from .test_cuda_allreduce import gpu_schedule, row_functions  # pylint: disable=import-outside-toplevel

    func, inputs, expected = row_functions(8, 1000)[name]
    (out,) = _run(gpu_schedule(func), inputs, [expected.shape])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_default_schedule_argmax(name):
    from .test_cuda_allreduce import arg_functions, gpu_schedule  # pylint: disable=import-outside-toplevel

    func, inputs, expected = arg_functions(8, 1000)[name]
    dev = tvm.cuda(0)
    rt = tvm.build(gpu_schedule(func), target="cuda")
    out = tvm.nd.empty(expected.shape, "int64", dev)
    rt["main"](tvm.nd.array(inputs[0], dev), out)
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("dtype,op", [("int32", "sum"), ("float16", "max"), ("float64", "sum"), ("int64", "max")])
def test_dtypes(dtype, op):
    a = RNG.integers(-100, 100, size=(4, 100)).astype(dtype)
    dev = tvm.cuda(0)
    rt = tvm.build(bound_row_reduce(4, 100, op, threads=64, dtype=dtype), target="cuda")
    out = tvm.nd.empty((4,), dtype, dev)
    rt["main"](tvm.nd.array(a, dev), out)
    np.testing.assert_array_equal(out.numpy(), getattr(a, op)(1))

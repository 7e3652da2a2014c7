"""CUDA end to end on a GPU (skipped without one): kernels built by tvm.build(target="cuda") with the C and
the default host run on tvm.cuda(0) and match NumPy (vector add with and without a dividing split, a scalar
parameter, the course's window sum through shared memory, a matmul with shared-memory tiles); tvm.cuda arrays
round-trip; DLPack with PyTorch CUDA tensors is zero-copy both ways; time_evaluator synchronizes the GPU;
export_library embeds the kernels and load_module runs them; launch limits raise ValueError naming the kernel;
launches from a second thread work."""
import threading

import numpy as np
import pytest

import tessera as tvm
from cuda_test_kernels import (double_dynamic_scheduled, matmul_shared_scheduled, mixed_scalars_scheduled,
                               scale_add_scheduled,
                               two_kernels_scheduled, vecadd_scheduled,
                               window_sum_scheduled)

pytestmark = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
_HAS_LLVM = tvm.get_global_func("target.build.llvm", allow_missing=True) is not None
HOSTS = ["c"] + (["llvm"] if _HAS_LLVM else [])
RNG = np.random.default_rng(7)


def _gpu(x):
    return tvm.nd.array(x, tvm.cuda(0))


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("n", [1024, 1000])
def test_vecadd(host, n):
    rt = tvm.build(vecadd_scheduled(n), target=tvm.target.Target("cuda", host=host))
    a, b = RNG.uniform(size=n).astype("float32"), RNG.uniform(size=n).astype("float32")
    c = _gpu(np.zeros(n, "float32"))
    rt["main"](_gpu(a), _gpu(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)


def test_vecadd_default_target_string():
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    a, b = RNG.uniform(size=1024).astype("float32"), RNG.uniform(size=1024).astype("float32")
    c = tvm.nd.empty((1024,), "float32", tvm.cuda(0))
    rt["main"](_gpu(a), _gpu(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)


def test_scalar_parameter():
    rt = tvm.build(scale_add_scheduled(), target="cuda")
    a, b = RNG.uniform(size=256).astype("float32"), RNG.uniform(size=256).astype("float32")
    c = _gpu(np.zeros(256, "float32"))
    rt["main"](_gpu(a), _gpu(b), c, 2.5)
    np.testing.assert_allclose(c.numpy(), a * 2.5 + b, rtol=1e-6)


@pytest.mark.parametrize("host", HOSTS)
def test_symbolic_length(host):
    rt = tvm.build(double_dynamic_scheduled(), target=tvm.target.Target("cuda", host=host))
    for n in (1, 64, 1000):
        a = RNG.uniform(size=n).astype("float32")
        b = _gpu(np.zeros(n, "float32"))
        rt["main"](_gpu(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)


@pytest.mark.parametrize("host", HOSTS)
def test_two_kernels_share_a_device_buffer(host):
    rt = tvm.build(two_kernels_scheduled(), target=tvm.target.Target("cuda", host=host))
    a = RNG.uniform(size=256).astype("float32")
    c = _gpu(np.zeros(256, "float32"))
    for _ in range(3):  # allocated and freed per call
        rt["main"](_gpu(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


@pytest.mark.parametrize("host", HOSTS)
def test_scalar_parameters_of_every_width(host):
    rt = tvm.build(mixed_scalars_scheduled(), target=tvm.target.Target("cuda", host=host))
    a = RNG.uniform(size=128).astype("float32")
    for flag in (True, False):
        c = _gpu(np.zeros(128, "float32"))
        rt["main"](_gpu(a), c, -3, 1.5, flag, 0.25, 1 << 20)
        expected = a * 1.5 - 3 + (0.25 if flag else 0.0) + (1 << 20)
        np.testing.assert_allclose(c.numpy(), expected.astype("float32"), rtol=1e-6)


def test_window_sum_through_shared_memory():
    rt = tvm.build(window_sum_scheduled(), target="cuda")
    assert "__shared__" in rt.imported_modules[0].get_source()
    a = RNG.uniform(size=1027).astype("float32")
    b = _gpu(np.zeros(1024, "float32"))
    rt["main"](_gpu(a), b)
    np.testing.assert_allclose(b.numpy(), a[:-2] + a[1:-1] + a[2:], rtol=1e-5)


@pytest.mark.parametrize("host", HOSTS)
def test_matmul_with_shared_memory_tiles(host):
    n = 256
    rt = tvm.build(matmul_shared_scheduled(n), target=tvm.target.Target("cuda", host=host))
    a, b = RNG.uniform(size=(n, n)).astype("float32"), RNG.uniform(size=(n, n)).astype("float32")
    c = _gpu(np.zeros((n, n), "float32"))
    rt["main"](_gpu(a), _gpu(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_arrays_round_trip_and_copy():
    x = RNG.uniform(size=(3, 5)).astype("float32")
    g = _gpu(x)
    assert g.device == tvm.cuda(0) and g.shape == (3, 5)
    np.testing.assert_array_equal(g.numpy(), x)
    g2 = g.copyto(tvm.cuda(0))
    np.testing.assert_array_equal(g2.numpy(), x)
    np.testing.assert_array_equal(g.copyto(tvm.cpu(0)).numpy(), x)
    h = tvm.nd.empty((3, 5), "float32", tvm.cuda(0))
    h.copyfrom(x * 2)
    np.testing.assert_array_equal(h.numpy(), x * 2)


def test_direct_kernel_call():
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    kernel = rt.imported_modules[0]["main_kernel"]
    a, b = RNG.uniform(size=1024).astype("float32"), RNG.uniform(size=1024).astype("float32")
    arrays = {"A": _gpu(a), "B": _gpu(b), "C": _gpu(np.zeros(1024, "float32"))}
    # The kernel's parameters are the buffers in the order the kernel first uses them.
    kernel(arrays["C"], arrays["A"], arrays["B"], 8, 128)
    np.testing.assert_allclose(arrays["C"].numpy(), a + b, rtol=1e-6)


def test_too_many_threads_per_block_is_a_value_error_naming_the_kernel():
    kernel = tvm.build(vecadd_scheduled(), target="cuda").imported_modules[0]["main_kernel"]
    x = _gpu(np.zeros(1024, "float32"))
    with pytest.raises(ValueError, match="CUDA kernel main_kernel launches blocks of .* threads per block"):
        kernel(x, x, x, 1, 4096)


def test_time_evaluator_on_the_gpu():
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    dev = tvm.cuda(0)
    args = [_gpu(np.ones(1024, "float32")) for _ in range(3)]
    result = rt.time_evaluator("main", dev, number=5, repeat=3)(*args)
    assert len(result.results) == 3 and all(0 < t < 1 for t in result.results)
    np.testing.assert_allclose(args[2].numpy(), 2.0)


def test_export_library_and_load_module_run(tmp_path):
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    path = str(tmp_path / "vecadd_cuda.so")
    rt.export_library(path)
    loaded = tvm.runtime.load_module(path)
    a, b = RNG.uniform(size=1024).astype("float32"), RNG.uniform(size=1024).astype("float32")
    c = _gpu(np.zeros(1024, "float32"))
    loaded["main"](_gpu(a), _gpu(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)


def test_launch_from_another_thread():
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    a = RNG.uniform(size=1024).astype("float32")
    out = {}

    def work():
        c = _gpu(np.zeros(1024, "float32"))
        rt["main"](_gpu(a), _gpu(a), c)
        out["c"] = c.numpy()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    np.testing.assert_allclose(out["c"], 2 * a, rtol=1e-6)


def test_dlpack_with_torch_cuda_is_zero_copy_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    ta = torch.rand(1024, device="cuda")
    tb = torch.rand(1024, device="cuda")
    tc = torch.zeros(1024, device="cuda")
    a, b, c = (tvm.nd.from_dlpack(t) for t in (ta, tb, tc))
    assert a.device == tvm.cuda(0) and a.data_ptr == ta.data_ptr() and c.data_ptr == tc.data_ptr()
    rt["main"](a, b, c)
    torch.cuda.synchronize()
    torch.testing.assert_close(tc, ta + tb)  # written through the shared memory
    back = torch.from_dlpack(c)
    assert back.device.type == "cuda" and back.data_ptr() == tc.data_ptr()
    g = _gpu(np.arange(8, dtype="float32"))
    tg = torch.from_dlpack(g)
    assert tg.data_ptr() == g.data_ptr
    np.testing.assert_array_equal(tg.cpu().numpy(), np.arange(8, dtype="float32"))

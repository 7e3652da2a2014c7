"""relax.build(mod, target="cuda"): the VM on the host (target "llvm" or "c"),
kernels on the GPU with the "cuda" kind's default schedule (DefaultGPUSchedule)
for the untuned PrimFuncs, tensors on tvm.cuda(0).

Without a GPU (CI): the pipeline for "cuda" runs and leaves every PrimFunc
bound to blockIdx/threadIdx with no global intermediate inside a kernel, and
each GPU-scheduled kernel of the course's MLP and of an imported small CNN
computes what its unscheduled form computes (run on the CPU with the thread
loops made serial). relax.build itself is compiled when the CUDA backend is
registered (target.build.cuda). With a GPU (the lead's H200 run): the MLP, the
CNN and a ResNet-18 basic block against NumPy / PyTorch."""
import re

import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R

from gpu_schedule_helpers import blocks_all_bound, cuda_source, serial

requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
requires_cuda_backend = pytest.mark.skipif(tvm.get_global_func("target.build.cuda", allow_missing=True) is None,
                                           reason="the CUDA backend (target.build.cuda) is not in this build")


@I.ir_module
class MLP:
    # The course's chapter 3/4 MLP: matmul + relu + matmul (with biases).
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((784, 128), "float32"), b0: R.Tensor((128,), "float32"),
             w1: R.Tensor((128, 10), "float32"), b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            out = R.add(lv3, b1)
            R.output(out)
        return out


@I.ir_module
class BatchedMLP:
    # Tile-dividing shapes: the matmul rule (shared-memory tiles) applies.
    @R.function
    def main(x: R.Tensor((64, 128), "float32"), w0: R.Tensor((128, 128), "float32"), w1: R.Tensor((128, 64), "float32")):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.nn.relu(lv0)
            out = R.matmul(lv1, w1)
            R.output(out)
        return out


@I.ir_module
class DynamicBatchMLP:
    # A symbolic batch: the kernels' extents and the host's grid depend on n.
    @R.function
    def main(x: R.Tensor(("n", 784), "float32"), w0: R.Tensor((784, 128), "float32"),
             w1: R.Tensor((128, 10), "float32")):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.nn.relu(lv0)
            out = R.nn.softmax(R.matmul(lv1, w1))
            R.output(out)
        return out


def _dynamic_mlp_numpy(x, w0, w1):
    y = np.maximum(x @ w0, 0) @ w1
    e = np.exp(y - y.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _mlp_params(rng):
    return [rng.uniform(-0.1, 0.1, size=s).astype("float32") for s in [(784, 128), (128,), (128, 10), (10,)]]


def _mlp_numpy(x, w0, b0, w1, b1):
    return np.maximum(x @ w0 + b0, 0) @ w1 + b1


def _cnn():
    torch = pytest.importorskip("torch")

    class CNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(8)
            self.pool = torch.nn.AdaptiveAvgPool2d(1)
            self.fc = torch.nn.Linear(8, 10)

        def forward(self, x):
            x = torch.relu(self.bn(self.conv(x)))
            x = torch.nn.functional.max_pool2d(x, 2)
            x = self.pool(x).flatten(1)
            return torch.softmax(self.fc(x), dim=-1)

    torch.manual_seed(0)
    return CNN().eval(), torch.randn(2, 3, 16, 16)


def _import(model, example):
    torch = pytest.importorskip("torch")
    from tessera.relax.frontend.torch import from_exported_program

    with torch.no_grad():
        return from_exported_program(torch.export.export(model, (example,)), keep_params_as_input=False)


def _prim_funcs(mod):
    return {gv.name_hint: f for gv, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc)}


def _lowered_for_cuda(mod, schedule=True):
    disabled = [] if schedule else ["DefaultCPUSchedule"]
    # (in the target's scope, as relax.build runs it: conv2d legalizes to the GPU's plain NCHW form)
    with tvm.target.Target("cuda"), tvm.transform.PassContext(disabled_pass=disabled):
        return relax.get_pipeline("default_build", target="cuda")(mod)


def _cnn_mod():
    model, example = _cnn()
    return _import(model, example)


@pytest.mark.parametrize("make", [lambda: MLP, lambda: BatchedMLP, lambda: DynamicBatchMLP, _cnn_mod],
                         ids=["mlp", "batched_mlp", "dynamic_batch_mlp", "cnn"])
def test_pipeline_binds_every_kernel(make):
    lowered = _lowered_for_cuda(make())
    funcs = _prim_funcs(lowered)
    assert funcs
    for name, func in funcs.items():
        if "tir.is_host_func" in func.attrs:
            continue  # a VM shape function runs on the host
        assert func.attrs["tir.is_scheduled"], name
        mod = tvm.IRModule({"main": func})
        assert blocks_all_bound(mod) == [], (name, func.script())
        # No intermediate in global memory inside a kernel (it would need a device workspace).
        assert 'T.alloc_buffer' not in func.script() or all(
            'scope="local"' in line or 'scope="shared"' in line
            for line in func.script().splitlines() if "T.alloc_buffer" in line), func.script()


def test_batched_mlp_matmuls_use_shared_memory():
    funcs = _prim_funcs(_lowered_for_cuda(BatchedMLP))
    matmuls = {n: f for n, f in funcs.items() if "matmul" in n}
    assert matmuls and all('scope="shared"' in f.script() for f in matmuls.values()), list(funcs)


def _random_args(func, rng, symbolic_value=5):
    """Random inputs for `func`'s buffers, every symbolic dimension `symbolic_value`."""
    args = []
    for p in func.params:
        if p not in func.buffer_map:
            args.append(symbolic_value)  # a scalar shape parameter
            continue
        buf = func.buffer_map[p]
        shape = [int(s) if isinstance(s, tvm.tir.IntImm) else symbolic_value for s in buf.shape]
        args.append(rng.uniform(-1, 1, size=shape).astype(buf.dtype))
    return args


@pytest.mark.parametrize("make", [lambda: MLP, lambda: BatchedMLP, lambda: DynamicBatchMLP, _cnn_mod],
                         ids=["mlp", "batched_mlp", "dynamic_batch_mlp", "cnn"])
def test_gpu_schedules_compute_what_the_kernels_compute(make):
    """Each kernel, GPU-scheduled and run serially on the CPU, matches its unscheduled form."""
    rng = np.random.default_rng(0)
    plain = _prim_funcs(_lowered_for_cuda(make(), schedule=False))
    for name, func in plain.items():
        if "tir.is_host_func" in func.attrs:
            continue  # a VM shape function: host code, no schedule
        func = func.with_attr("global_symbol", "main")
        scheduled = tvm.tir.transform.DefaultGPUSchedule("cuda")(tvm.IRModule({"main": func}))
        args = _random_args(func, rng)
        outs = []
        for mod in (tvm.IRModule({"main": func.with_attr("tir.is_scheduled", True)}), serial(scheduled)):
            nd = [tvm.nd.array(a) if isinstance(a, np.ndarray) else a for a in args]
            tvm.build(mod, target="llvm")["main"](*nd)
            outs.append([a.numpy() for a in nd if not isinstance(a, int)])
        for want, got in zip(*outs):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=name)


def _with_bn_statistics(model):
    """Random running statistics in every BatchNorm (fresh ones are the identity)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
    return model.eval()


def _resnet18():
    """ResNet-18 (tests/python/torch_resnet.py), random weights, one 224x224 image."""
    torch = pytest.importorskip("torch")
    from torch_resnet import ResNet18

    torch.manual_seed(0)
    return _with_bn_statistics(ResNet18(classes=1000)), torch.randn(1, 3, 224, 224)


def _basic_block():
    """ResNet-18's second-stage entry block (stride 2, 1x1 downsample), random weights."""
    torch = pytest.importorskip("torch")
    from torch_resnet import BasicBlock

    torch.manual_seed(0)
    return _with_bn_statistics(BasicBlock(64, 128, 2)), torch.randn(1, 64, 56, 56)


def _cuda_source(ex):
    return cuda_source(ex)


@requires_cuda_backend
@pytest.mark.parametrize("make", [lambda: MLP, lambda: BatchedMLP, lambda: DynamicBatchMLP, _cnn_mod,
                                  lambda: _import(*_basic_block())],
                         ids=["mlp", "batched_mlp", "dynamic_batch_mlp", "cnn", "resnet18_block"])
def test_relax_build_cuda_compiles(make):
    """The whole relax.build for "cuda" on a machine without a GPU: every kernel
    is generated and compiled by NVRTC; the host module imports the CUDA module."""
    ex = relax.build(make(), target="cuda")
    src = _cuda_source(ex)
    kernels = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', src)
    assert kernels and all(k.endswith("_kernel") or "_kernel" in k for k in kernels), src[:2000]
    # every kernel the host calls is in the source
    assert "main" in str(ex)


@requires_cuda_backend
@pytest.mark.parametrize("make", [lambda: MLP, lambda: DynamicBatchMLP], ids=["mlp", "dynamic_batch_mlp"])
def test_relax_build_cuda_with_c_host(make):
    """The GPU machine has no LLVM: the VM's host code through target "c"."""
    ex = relax.build(make(), target=tvm.target.Target("cuda", host="c"))
    assert ex.mod.imported_modules[0].type_key == "c"
    assert "__global__" in _cuda_source(ex)


@requires_cuda_backend
def test_batched_mlp_source_uses_shared_memory():
    src = _cuda_source(relax.build(BatchedMLP, target="cuda"))
    assert "__shared__" in src and "__syncthreads()" in src


# --------------------------------------------------------------------------
# On a GPU (skipped without one)
# --------------------------------------------------------------------------


@requires_cuda
def test_mlp_on_gpu_matches_numpy():
    rng = np.random.default_rng(0)
    params = _mlp_params(rng)
    x = rng.uniform(size=(1, 784)).astype("float32")
    ex = relax.build(MLP, target="cuda")
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(ex, dev)
    out = vm["main"](*[tvm.nd.array(a, dev) for a in [x] + params])
    assert out.device == dev
    np.testing.assert_allclose(out.numpy(), _mlp_numpy(x, *params), rtol=1e-4, atol=1e-4)


@requires_cuda
def test_mlp_with_bound_params_uploads_constants_once():
    rng = np.random.default_rng(1)
    w0, b0, w1, b1 = _mlp_params(rng)
    ex = relax.build(MLP, target="cuda", params={"w0": w0, "b0": b0, "w1": w1, "b1": b1})
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(ex, dev)
    for seed in range(2):
        x = np.random.default_rng(seed).uniform(size=(1, 784)).astype("float32")
        out = vm["main"](tvm.nd.array(x, dev))
        np.testing.assert_allclose(out.numpy(), _mlp_numpy(x, w0, b0, w1, b1), rtol=1e-4, atol=1e-4)


@requires_cuda
def test_dynamic_batch_mlp_on_gpu_matches_numpy():
    rng = np.random.default_rng(3)
    w0, w1 = rng.uniform(-0.1, 0.1, size=(784, 128)).astype("float32"), rng.uniform(-1, 1, size=(128, 10)).astype("float32")
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(relax.build(DynamicBatchMLP, target="cuda"), dev)
    for n in (1, 7, 300):
        x = rng.uniform(size=(n, 784)).astype("float32")
        out = vm["main"](tvm.nd.array(x, dev), tvm.nd.array(w0, dev), tvm.nd.array(w1, dev))
        np.testing.assert_allclose(out.numpy(), _dynamic_mlp_numpy(x, w0, w1), rtol=1e-4, atol=1e-5)


@requires_cuda
def test_batched_mlp_on_gpu_matches_numpy():
    rng = np.random.default_rng(2)
    x, w0, w1 = (rng.uniform(-1, 1, size=s).astype("float32") for s in [(64, 128), (128, 128), (128, 64)])
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(relax.build(BatchedMLP, target="cuda"), dev)
    out = vm["main"](*[tvm.nd.array(a, dev) for a in (x, w0, w1)])
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ w0, 0) @ w1, rtol=1e-4, atol=1e-3)


def _run_torch_model(model, example, rtol, atol, target="cuda", dev=None):
    torch = pytest.importorskip("torch")
    mod = _import(model, example)
    dev = dev if dev is not None else tvm.cuda(0)
    vm = relax.VirtualMachine(relax.build(mod, target=target), dev)
    out = vm["main"](tvm.nd.array(example.numpy(), dev))
    if not hasattr(out, "numpy"):  # from_exported_program returns a tuple
        (out,) = out
    assert out.device == dev
    with torch.no_grad():
        want = model(example).numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=rtol, atol=atol)


def _run_torch_model_on_gpu(model, example, rtol, atol):
    _run_torch_model(model, example, rtol, atol)


def test_imported_cnn_harness_on_cpu():
    """The GPU tests' harness itself, on the CPU (the same model through llvm)."""
    model, example = _cnn()
    _run_torch_model(model, example, 1e-4, 1e-4, target="llvm", dev=tvm.cpu())


@requires_cuda
def test_imported_cnn_on_gpu_matches_pytorch():
    model, example = _cnn()
    _run_torch_model_on_gpu(model, example, rtol=1e-4, atol=1e-4)


@requires_cuda
def test_imported_resnet18_on_gpu_matches_pytorch():
    model, example = _resnet18()
    _run_torch_model_on_gpu(model, example, rtol=1e-3, atol=1e-3)


@requires_cuda
def test_resnet18_basic_block_on_gpu_matches_pytorch():
    block, example = _basic_block()
    _run_torch_model_on_gpu(block, example, rtol=1e-3, atol=1e-3)

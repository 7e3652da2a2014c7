"""relax.nn.conv2d for a GPU: the "cuda" target legalizes it to the plain NCHW
convolution (topi.nn.group_conv2d_nchw), not the CPU's packed-weight kernel
(relax/vm_build.py cpu_layout_allowed: the one per-target choice), so that the
GPU default schedule's conv rule gets it; an imported ResNet-18 builds with
relax.build(mod, "cuda") (NVRTC compiles every kernel; no GPU needed); on a GPU
(skipped here) a small CNN with grouped and depthwise convolutions against PyTorch."""
import re
import time

import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R

from .test_cuda_relax_build import _cuda_source, _import, _resnet18, requires_cuda, requires_cuda_backend


@I.ir_module
class Conv:
    @R.function
    def main(x: R.Tensor((1, 16, 14, 14), "float32"), w: R.Tensor((32, 16, 3, 3), "float32")):
        with R.dataflow():
            out = R.nn.conv2d(x, w, strides=1, padding=1)
            R.output(out)
        return out


def _conv_blocks(mod):
    names = []
    for _, f in mod.functions.items():
        if isinstance(f, tvm.tir.PrimFunc):
            tvm.tir.post_order_visit(f.body, lambda n: names.append(n.name_hint) if isinstance(n, tvm.tir.Block) else None)
    return names


@pytest.mark.parametrize("target, packed", [("cuda", False), ("llvm", True), (None, True)])
def test_conv2d_legalization_per_target(target, packed):
    if target is None:
        mod = relax.transform.LegalizeOps()(Conv)  # no target: as before (the CPU's packed kernel)
    else:
        with tvm.target.Target(target):
            mod = relax.transform.LegalizeOps()(Conv)
    names = _conv_blocks(mod)
    assert ("conv2d_nchw_packed" in names) == packed, names
    assert ("conv2d_nchw" in names) != packed, names


def test_pass_context_config_still_forces_the_layout():
    with tvm.target.Target("cuda"), tvm.transform.PassContext(config={"relax.conv2d_packed": True}):
        assert "conv2d_nchw_packed" in _conv_blocks(relax.transform.LegalizeOps()(Conv))
    with tvm.transform.PassContext(config={"relax.conv2d_packed": False}):
        assert "conv2d_nchw_packed" not in _conv_blocks(relax.transform.LegalizeOps()(Conv))


def _kernels(src):
    """{kernel name: its source} of a CUDA translation unit."""
    parts = re.split(r'(?=extern "C" __global__)', src)
    out = {}
    for part in parts[1:]:
        name = re.match(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', part).group(1)
        out[name] = part
    return out


@requires_cuda_backend
def test_relax_build_cuda_conv_kernel_uses_shared_memory():
    src = _cuda_source(relax.build(Conv, target="cuda"))
    (kernel,) = [k for n, k in _kernels(src).items() if "conv2d" in n]
    assert "conv2d_nchw_packed" not in kernel and "weight_pack" not in src
    assert kernel.count("__shared__") == 2 and "__syncthreads();" in kernel
    assert re.search(r"float conv2d_nchw_local\[\d+\];", kernel), kernel


@requires_cuda_backend
def test_imported_resnet18_builds_for_cuda():
    """relax.build(ResNet-18, "cuda") on a machine without a GPU: every conv (stem 7x7 s2,
    3x3 s1/s2, 1x1 s2 downsample, with its bias / residual / relu epilogue) is one kernel
    with the shared-memory conv schedule, and NVRTC compiled the whole module."""
    mod = _import(*_resnet18())
    start = time.perf_counter()
    ex = relax.build(mod, target="cuda")
    seconds = time.perf_counter() - start
    kernels = _kernels(_cuda_source(ex))
    convs = {n: k for n, k in kernels.items() if "conv2d" in n}
    assert len(convs) >= 12, list(kernels)
    for name, kernel in convs.items():
        assert kernel.count("__shared__") == 2 and "__syncthreads();" in kernel, name
        assert "blockIdx.z" in kernel and "threadIdx.z" in kernel, name
        assert "int64_t" not in kernel, name  # Relax's int64 indices narrowed (NarrowIndexType)
    assert seconds < 60, seconds


# ---- on a GPU (skipped without one) ------------------------------------------------------


def _grouped_cnn():
    torch = pytest.importorskip("torch")

    class CNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = torch.nn.Conv2d(3, 16, 7, 2, 3)
            self.grouped = torch.nn.Conv2d(16, 32, 3, 2, 1, groups=4)
            self.depthwise = torch.nn.Conv2d(32, 32, 3, 1, 2, dilation=2, groups=32)
            self.point = torch.nn.Conv2d(32, 24, 1)

        def forward(self, x):
            x = torch.relu(self.stem(x))
            x = torch.nn.functional.max_pool2d(x, 3, 2, 1)
            x = torch.relu(self.grouped(x))
            return self.point(torch.relu(self.depthwise(x)))

    torch.manual_seed(0)
    return CNN().eval(), torch.randn(2, 3, 40, 40)


def test_grouped_cnn_harness_on_cpu():
    """The GPU test's harness itself, on the CPU."""
    _run(*_grouped_cnn(), target="llvm", dev=tvm.cpu())


def _run(model, example, target, dev):
    torch = pytest.importorskip("torch")
    vm = relax.VirtualMachine(relax.build(_import(model, example), target=target), dev)
    out = vm["main"](tvm.nd.array(example.numpy(), dev))
    if not hasattr(out, "numpy"):
        (out,) = out
    with torch.no_grad():
        want = model(example).numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)


@requires_cuda
def test_grouped_cnn_on_gpu_matches_pytorch():
    _run(*_grouped_cnn(), target="cuda", dev=tvm.cuda(0))

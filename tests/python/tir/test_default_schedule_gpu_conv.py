"""DefaultGPUSchedule's convolution rule (src/tir/transform/default_schedule_gpu_conv.cc)
on topi.nn.group_conv2d_nchw: an output tile per thread block (blockIdx.z/y/x), threads
over output channels x rows x columns (threadIdx.z/y/x), a few output channels per
thread in "local", the input window (the pad stage) and the weights in "shared" per
step of input channels. Checked without a GPU: the loop structure, the schedule run
serially on the CPU against a NumPy convolution, and NVRTC compiling the CUDA C of
ResNet-18's / MobileNet's conv shapes for sm_80 and sm_90. On a GPU (skipped here):
the kernels against NumPy."""
import re

import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi
from tessera.contrib import nvcc

from gpu_schedule_helpers import blocks_all_bound, serial, thread_tags

_NVRTC = nvcc.nvrtc_info()
requires_nvrtc = pytest.mark.skipif(not _NVRTC["available"], reason=f"NVRTC not available: {_NVRTC['why']}")
requires_cuda_backend = pytest.mark.skipif(tvm.get_global_func("target.build.cuda", allow_missing=True) is None,
                                           reason="the CUDA backend (target.build.cuda) is not in this build")
requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
ARCHS = ["sm_80", "sm_90"]


def conv_numpy(x, w, stride, pad, dilation=1, groups=1):
    """The oracle: out[n, k, y, x] = sum over k's group channels and the window."""
    n, c, h, wd = x.shape
    k, cpg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - (kh - 1) * dilation - 1) // stride + 1
    ow = (wd + 2 * pad - (kw - 1) * dilation - 1) // stride + 1
    out = np.zeros((n, k, oh, ow), "float64")
    opg = k // groups
    for g in range(groups):
        xs = xp[:, g * cpg:(g + 1) * cpg]
        for ry in range(kh):
            for rx in range(kw):
                win = xs[:, :, ry * dilation:ry * dilation + stride * (oh - 1) + 1:stride,
                         rx * dilation:rx * dilation + stride * (ow - 1) + 1:stride]
                out[:, g * opg:(g + 1) * opg] += np.einsum("nchw,kc->nkhw", win, w[g * opg:(g + 1) * opg, :, ry, rx])
    return out.astype("float32")


def conv_func(n, c, h, w, k, kernel, stride, pad, dilation=1, groups=1):
    X = te.placeholder((n, c, h, w), name="X")
    W = te.placeholder((k, c // groups, kernel, kernel), name="W")
    out = topi.nn.group_conv2d_nchw(X, W, stride, pad, dilation, groups)
    return te.create_prim_func([X, W, out]), [int(d) for d in out.shape]


def scheduled(func):
    return tvm.tir.transform.DefaultGPUSchedule("cuda")(tvm.IRModule({"main": func}))


# (n, c, h, w, k, kernel, stride, pad, dilation, groups): small versions of the shapes the rule meets
SMALL = {
    "3x3_s1": (1, 16, 14, 14, 32, 3, 1, 1, 1, 1),
    "3x3_s2": (1, 16, 15, 15, 32, 3, 2, 1, 1, 1),
    "1x1_s2": (1, 16, 14, 14, 32, 1, 2, 0, 1, 1),
    "7x7_s2": (1, 3, 32, 32, 16, 7, 2, 3, 1, 1),
    "7x7_out_odd": (1, 32, 7, 7, 64, 3, 1, 1, 1, 1),
    "depthwise": (1, 32, 14, 14, 32, 3, 1, 1, 1, 32),
    "depthwise_s2": (1, 24, 15, 15, 24, 3, 2, 1, 1, 24),
    "groups_4": (2, 16, 9, 9, 16, 3, 2, 1, 1, 4),
    "dilation_2": (1, 8, 12, 12, 16, 3, 1, 2, 2, 1),
    "batch_3_no_pad": (3, 6, 10, 10, 8, 3, 1, 0, 1, 1),
}


@pytest.mark.parametrize("case", list(SMALL), ids=list(SMALL))
def test_conv_rule_loop_structure(case):
    func, _ = conv_func(*SMALL[case])
    mod = scheduled(func)
    assert blocks_all_bound(mod) == []
    tags = thread_tags(mod)
    for tag in ("blockIdx.z", "blockIdx.y", "blockIdx.x", "threadIdx.z", "threadIdx.y", "threadIdx.x"):
        assert tag in tags, (case, tags)
    script = mod["main"].script()
    # the window (pad stage or a cache of the input) and the weights in shared memory, the accumulators local
    assert script.count('scope="shared"') == 2, script
    assert script.count('scope="local"') == 1, script
    # the reduction is split: a step of input channels (staging), then channels, then the window unrolled
    assert re.search(r"for rc_0 in range\(\d+\):", script) and re.search(r"for rc_1 in range", script), script
    assert re.search(r"for ry in T.unroll", script) and re.search(r"for rx in T.unroll", script), script
    extents = {t: int(e) for e, t in re.findall(r"for \w+ in T.thread_binding\((\d+), thread=\"threadIdx.(\w)\"\)",
                                              script)}
    assert np.prod(list(extents.values())) <= 256, extents


def _run_against_numpy(shape, dev, seed=0, weight_scale=1.0, tol=1e-4):
    """Builds the scheduled conv of `shape` (serially on the CPU, or for the GPU) and compares it to NumPy."""
    n, c, h, w, k, kernel, stride, pad, dilation, groups = shape
    func, oshape = conv_func(*shape)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, c, h, w)).astype("float32")
    wt = rng.uniform(-weight_scale, weight_scale, (k, c // groups, kernel, kernel)).astype("float32")
    out = tvm.nd.array(np.zeros(oshape, "float32"), dev)
    mod, target = (scheduled(func), "cuda") if dev.device_type != tvm.cpu().device_type else (serial(scheduled(func)), "llvm")
    tvm.build(mod, target=target)["main"](tvm.nd.array(x, dev), tvm.nd.array(wt, dev), out)
    np.testing.assert_allclose(out.numpy(), conv_numpy(x, wt, stride, pad, dilation, groups), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", list(SMALL), ids=list(SMALL))
def test_conv_rule_matches_numpy(case):
    """The GPU schedule, run serially on the CPU (thread loops made serial), against NumPy."""
    _run_against_numpy(SMALL[case], tvm.cpu())


def test_symbolic_batch_keeps_one_thread_per_output():
    """Extents the rule cannot tile (a symbolic batch): the one-thread-per-output schedule, still correct."""
    n = te.var("n")
    X = te.placeholder((n, 4, 8, 8), name="X")
    W = te.placeholder((8, 4, 3, 3), name="W")
    func = te.create_prim_func([X, W, topi.nn.conv2d_nchw(X, W, 1, 1, 1)])
    mod = scheduled(func)
    assert blocks_all_bound(mod) == [] and 'scope="shared"' not in mod["main"].script()


def test_tiny_output_image_is_left_to_other_rules():
    """A 1x1 output image (a GEMV in disguise) would leave a thread block nearly empty: not tiled here."""
    func, _ = conv_func(1, 64, 3, 3, 128, 3, 1, 0)
    mod = scheduled(func)
    assert blocks_all_bound(mod) == [] and "threadIdx.z" not in thread_tags(mod)


def test_thread_count_follows_the_target():
    func, _ = conv_func(*SMALL["3x3_s1"])
    mod = tvm.tir.transform.DefaultGPUSchedule(tvm.target.Target("cuda -max_num_threads=32"))(
        tvm.IRModule({"main": func}))
    script = mod["main"].script()
    extents = {t: int(e) for e, t in re.findall(r"T.thread_binding\((\d+), thread=\"threadIdx.(\w)\"\)", script)}
    assert 'scope="shared"' in script and np.prod(list(extents.values())) <= 32, extents


@requires_nvrtc
@requires_cuda_backend
def test_float16_conv_compiles_with_nvrtc():
    X = te.placeholder((1, 32, 28, 28), "float16", name="X")
    W = te.placeholder((64, 32, 3, 3), "float16", name="W")
    func = te.create_prim_func([X, W, topi.nn.conv2d_nchw(X, W, 1, 1, 1)])
    mod = scheduled(func)
    assert mod["main"].script().count('scope="shared"') == 2
    src = _cuda_source(mod)
    assert "__shared__ half" in src
    for arch in ARCHS:
        nvcc.compile_cuda(src, target_format="ptx", arch=arch)


# ResNet-18's conv shapes (batch 1, 224x224) and a MobileNetV2 depthwise one, at full size
RESNET18 = {
    "stem_7x7_s2": (1, 3, 224, 224, 64, 7, 2, 3, 1, 1),
    "3x3_s1_56": (1, 64, 56, 56, 64, 3, 1, 1, 1, 1),
    "3x3_s2_56": (1, 64, 56, 56, 128, 3, 2, 1, 1, 1),
    "1x1_s2_56": (1, 64, 56, 56, 128, 1, 2, 0, 1, 1),
    "3x3_s1_28": (1, 128, 28, 28, 128, 3, 1, 1, 1, 1),
    "3x3_s1_14": (1, 256, 14, 14, 256, 3, 1, 1, 1, 1),
    "3x3_s1_7": (1, 512, 7, 7, 512, 3, 1, 1, 1, 1),
    "depthwise_3x3_112": (1, 32, 112, 112, 32, 3, 1, 1, 1, 32),
}


def _cuda_source(mod):
    return tvm.build(mod, target="cuda").imported_modules[0].get_source()


@requires_nvrtc
@requires_cuda_backend
@pytest.mark.parametrize("case", list(RESNET18), ids=list(RESNET18))
def test_resnet18_conv_shapes_compile_with_nvrtc(case):
    func, _ = conv_func(*RESNET18[case])
    src = _cuda_source(scheduled(func))
    assert src.count("__global__") == 1
    shared = [int(s) for s in re.findall(r"__shared__ float \w+\[(\d+)\];", src)]
    assert len(shared) == 2 and 4 * sum(shared) <= 48 * 1024, shared  # under the static shared-memory limit
    assert "__syncthreads();" in src
    bounds = int(re.search(r"__launch_bounds__\((\d+)\)", src).group(1))
    assert 32 <= bounds <= 256, bounds
    for arch in ARCHS:
        ptx = nvcc.compile_cuda(src, target_format="ptx", arch=arch)
        assert b".visible .entry main_kernel(" in bytes(ptx)


# ---- on a GPU (skipped without one) ------------------------------------------------------


@requires_cuda
@pytest.mark.parametrize("case", ["3x3_s1", "3x3_s2", "7x7_s2", "depthwise_s2", "groups_4", "dilation_2"])
def test_conv_rule_on_gpu_matches_numpy(case):
    _run_against_numpy(SMALL[case], tvm.cuda(0), seed=1)


@requires_cuda
@pytest.mark.parametrize("case", ["3x3_s1_56", "stem_7x7_s2", "3x3_s1_7"])
def test_resnet18_conv_on_gpu_matches_numpy(case):
    _run_against_numpy(RESNET18[case], tvm.cuda(0), seed=2, weight_scale=0.1, tol=1e-3)

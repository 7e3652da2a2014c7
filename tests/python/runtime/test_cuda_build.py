"""tvm.build for CUDA without a GPU (target.build.cuda, src/codegen/cuda/build_cuda.cc): the host module
(llvm or c) imports a CUDA module holding the CUDA C and the NVRTC output; the host code launches through
TesseraLaunchKernel; the host function takes arrays on the GPU only; export_library embeds the CUDA
module. Bad input (unbound loops, CPU arrays, launching without a GPU) is in
tests/python/reliability/test_cuda_launch_errors.py; running kernels in test_cuda_gpu.py."""

import numpy as np
import pytest

import tessera as tvm
from tessera.contrib import nvcc
from cuda_test_kernels import (double_dynamic_scheduled, matmul_shared_scheduled, mixed_scalars_scheduled,
                               scale_add_scheduled,
                               two_kernels_scheduled, vecadd_scheduled, window_sum_scheduled)

_info = nvcc.nvrtc_info()
pytestmark = pytest.mark.skipif(not _info["available"], reason=f"NVRTC not available: {_info['why']}")
_HAS_LLVM = tvm.get_global_func("target.build.llvm", allow_missing=True) is not None


def _hosts():
    return ["c"] + (["llvm"] if _HAS_LLVM else [])


@pytest.mark.parametrize("host", _hosts())
def test_build_gives_a_host_module_importing_the_cuda_module(host):
    rt = tvm.build(vecadd_scheduled(), target=tvm.target.Target("cuda", host=host))
    assert rt.type_key == host and rt.list_functions() == ["main"]
    (dev_mod,) = rt.imported_modules
    assert dev_mod.type_key == "cuda" and dev_mod.list_functions() == ["main_kernel"]
    src = dev_mod.get_source()
    assert 'extern "C" __global__' in src and "main_kernel(" in src and "threadIdx.x" in src
    if not tvm.cuda(0).exist:  # PTX for sm_80 when neither -arch nor a GPU says otherwise
        assert ".visible .entry main_kernel(" in dev_mod.get_source("ptx")
    if host == "c":
        host_src = rt.get_source()
        assert 'TesseraLaunchKernel("main_kernel", (int64_t)(((int32_t)8LL))' in host_src
    # rt["main_kernel"] (through the imports) is the kernel itself.
    assert "main_kernel" in rt


def test_default_host_and_arch_option():
    rt = tvm.build(vecadd_scheduled(), target="cuda")
    assert rt.type_key == ("llvm" if _HAS_LLVM else "c")
    assert rt.imported_modules[0].type_key == "cuda"
    if not tvm.cuda(0).exist:
        rt90 = tvm.build(vecadd_scheduled(), target="cuda -arch=sm_90")
        assert ".target sm_90" in rt90.imported_modules[0].get_source("ptx")


def test_symbolic_length_launch_extent_is_computed_by_the_host():
    rt = tvm.build(double_dynamic_scheduled(), target=tvm.target.Target("cuda", host="c"))
    host_src = rt.get_source()
    launch = host_src[host_src.index('TesseraLaunchKernel("main_kernel"'):]
    assert "(n + ((int64_t)63LL))" in launch.split(";")[0]  # gx = ceil(n / 64), from the bound shape variable
    assert "main_kernel(int64_t n, float* __restrict__ B, float* __restrict__ A)" in rt.imported_modules[0].get_source()


@pytest.mark.parametrize("host", _hosts())
def test_buffer_shared_by_two_kernels_is_allocated_on_the_device(host):
    rt = tvm.build(two_kernels_scheduled(), target=tvm.target.Target("cuda", host=host))
    assert rt.imported_modules[0].list_functions() == ["main_kernel", "main_kernel1"]
    if host == "c":
        src = rt.get_source()
        assert "B = TesseraDeviceWorkspaceAlloc(((int64_t)1024LL));" in src and "TesseraDeviceWorkspaceFree(B)" in src
        assert "float B[256]" not in src  # never host memory


def test_scalar_kernel_arguments_are_passed_as_stored():
    # cuLaunchKernel copies each argument by the kernel parameter's size: the host's locals must match it.
    rt = tvm.build(mixed_scalars_scheduled(), target=tvm.target.Target("cuda", host="c"))
    assert "main_kernel(float* __restrict__ C, float* __restrict__ A, half h, int8_t s8, bool flag, double d, " \
           "int64_t n)" in rt.imported_modules[0].get_source()
    host = rt.get_source()
    for local in ("_Float16 karg_2 = h;", "int8_t karg_3 = s8;", "int8_t karg_4 = ((int8_t)(flag));",
                  "double karg_5 = d;", "int64_t karg_6 = n;"):
        assert local in host, local
    if _HAS_LLVM:
        tvm.build(mixed_scalars_scheduled(), target=tvm.target.Target("cuda", host="llvm"))


def test_shared_memory_kernel_and_scalar_parameter_build():
    src = tvm.build(window_sum_scheduled(), target="cuda").imported_modules[0].get_source()
    assert "__shared__" in src and "__syncthreads()" in src
    src = tvm.build(matmul_shared_scheduled(), target="cuda").imported_modules[0].get_source()
    assert src.count("__shared__ float") == 2 and "__launch_bounds__(64)" in src
    src = tvm.build(scale_add_scheduled(), target=tvm.target.Target("cuda", host="c")).imported_modules[0].get_source()
    assert "float alpha" in src


@pytest.mark.parametrize("host", _hosts())
def test_export_library_embeds_the_cuda_module(host, tmp_path):
    rt = tvm.build(vecadd_scheduled(), target=tvm.target.Target("cuda", host=host))
    path = str(tmp_path / "vecadd.so")
    rt.export_library(path)
    loaded = tvm.runtime.load_module(path)
    (dev_mod,) = loaded.imported_modules
    assert dev_mod.type_key == "cuda" and dev_mod.list_functions() == ["main_kernel"]
    assert dev_mod.get_source() == rt.imported_modules[0].get_source()
    # The loaded host function still takes arrays on the GPU only.
    a = tvm.nd.array(np.ones(1024, "float32"))
    with pytest.raises(ValueError, match="runs on cuda"):
        loaded["main"](a, a, a)

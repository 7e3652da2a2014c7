"""NVRTC through tvm.contrib.nvcc.compile_cuda (src/codegen/cuda/nvrtc.cc): PTX and cubin for sm_80/sm_90,
compile errors quoting NVRTC's log and the source line, bad arch/format. Compile-only: no GPU needed."""
import pytest

import tessera as tvm
from tessera.contrib import nvcc

_info = nvcc.nvrtc_info()
pytestmark = pytest.mark.skipif(not _info["available"], reason=f"NVRTC not available: {_info['why']}")

_SRC = """#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void k(float* __restrict__ a, half* __restrict__ h, __nv_bfloat16* b) {
  a[threadIdx.x] = __half2float(h[threadIdx.x]) + __bfloat162float(b[threadIdx.x]);
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptx(arch):
    ptx = nvcc.compile_cuda(_SRC, target_format="ptx", arch=arch)
    assert isinstance(ptx, bytearray)
    text = ptx.decode()
    assert f".target {arch}" in text and ".visible .entry k(" in text


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cubin_is_elf(arch, tmp_path):
    out = tmp_path / "k.cubin"
    cubin = nvcc.compile_cuda(_SRC, target_format="cubin", arch=arch, path_target=str(out))
    assert bytes(cubin[:4]) == b"\x7fELF" and out.read_bytes() == bytes(cubin)


def test_arch_spellings_and_options():
    for arch in ("80", "8.0", "compute_80", "-arch=sm_80"):
        assert ".target sm_80" in nvcc.compile_cuda(_SRC, arch=arch).decode()
    assert nvcc.compile_cuda(_SRC, arch="sm_80", options="--use_fast_math -lineinfo")


def test_compile_error_quotes_log_and_line():
    src = 'extern "C" __global__ void k(float* a) {\n  a[0] = undefined_name;\n}\n'
    with pytest.raises(ValueError, match=r"(?s)undefined_name.*is undefined.*offending line .*:2:\s+a\[0\] = undefined_name"):
        nvcc.compile_cuda(src, arch="sm_80")


def test_bad_format_and_arch():
    with pytest.raises(ValueError, match="target_format"):
        nvcc.compile_cuda(_SRC, target_format="fatbin", arch="sm_80")
    with pytest.raises(ValueError, match="unrecognised CUDA architecture"):
        nvcc.compile_cuda(_SRC, arch="ampere")
    with pytest.raises(ValueError, match="does not support architecture"):
        nvcc.compile_cuda(_SRC, arch="sm_10")


def test_arch_from_target():
    with tvm.target.Target("cuda -arch=sm_90"):
        assert nvcc.get_target_compute_version() == "9.0"
        assert ".target sm_90" in nvcc.compile_cuda(_SRC).decode()
    assert nvcc.have_fp16("8.0") and nvcc.have_bf16("8.0") and not nvcc.have_bf16("7.5")
    assert nvcc.have_tensorcore("7.0")


@pytest.mark.parametrize("arch, version", [("sm_90", "9.0"), ("sm_90a", "9.0"), ("compute_80", "8.0"),
                                           ("9.0", "9.0"), ("86", "8.6"), ("sm_100f", "10.0")])
def test_compute_version_every_arch_form(arch, version):
    # One parser (codegen.ParseCUDAArch) for every -arch form; "-arch=9.0" used to give "9..0".
    assert nvcc.get_target_compute_version(tvm.target.Target(f"cuda -arch={arch}")) == version


def test_compute_version_bad_arch_names_it():
    with pytest.raises(ValueError, match='unrecognised CUDA architecture "ampere"'):
        nvcc.get_target_compute_version(tvm.target.Target("cuda -arch=ampere"))

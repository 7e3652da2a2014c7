"""The -arch of a "cuda" target is read by one parser (ParseCUDAArch, src/codegen/cuda/nvrtc.cc) for both
the CUDA build's choice of architecture (build_cuda.cc) and NVRTC's options: every accepted spelling
gives the same PTX target, an older architecture than NVRTC supports is raised to the oldest it has,
and a malformed one is a ValueError naming it (compile only: no GPU needed)."""
import re

import pytest

import tessera as tvm
from tessera.contrib import nvcc
from cuda_test_kernels import vecadd_scheduled

_info = nvcc.nvrtc_info()
pytestmark = [pytest.mark.skipif(not _info["available"], reason=f"NVRTC not available: {_info['why']}"),
              pytest.mark.skipif(tvm.cuda(0).exist, reason="with a GPU present the build compiles for it")]


def _ptx(arch):
    return tvm.build(vecadd_scheduled(), target=f"cuda -arch={arch}").imported_modules[0].get_source("ptx")


@pytest.mark.parametrize("arch", ["sm_90", "compute_90", "90", "9.0"])
def test_arch_spellings_agree(arch):
    assert ".target sm_90" in _ptx(arch)


def test_arch_older_than_nvrtc_supports_is_raised():
    # (CUDA 12's NVRTC starts at sm_50, CUDA 13's at sm_75; none compiles for sm_35)
    ptx = _ptx("sm_35")
    target = int(re.search(r"\.target sm_(\d+)", ptx).group(1))
    assert target >= 50, target


@pytest.mark.parametrize("arch", ["sm_x0", "sm_", "hopper", "sm_9.0"])
def test_malformed_arch_is_a_value_error_naming_it(arch):
    with pytest.raises(ValueError, match=arch.replace(".", r"\.")):
        _ptx(arch)

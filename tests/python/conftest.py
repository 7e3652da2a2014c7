"""Shared pytest setup for the Python tests: makes ``python/`` importable,
provides the ``requires_gpu`` marker (skip unless ``tvm.cuda(0).exist``) and
enables the printer fixed-point check on every IR the tests build
(fixed_point_plugin.py)."""
import os
import sys

import pytest

_PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
if _PYTHON_DIR not in sys.path:
    sys.path.insert(0, _PYTHON_DIR)

# missing_backend: a test needing a backend this build leaves out (LLVM) skips, saying so.
pytest_plugins = ["fixed_point_plugin", "tessera.testing.missing_backend"]


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_gpu: skip unless a CUDA device is usable (tvm.cuda(0).exist)")
    config.addinivalue_line("markers", "llvm: needs the LLVM backend (tvm.testing.requires_llvm; TESSERA_USE_LLVM)")
    config.addinivalue_line("markers", "x86_vnni: needs a CPU with AVX512-VNNI (tvm.testing.requires_x86_vnni)")
    config.addinivalue_line("markers", "x86_avx512: needs a CPU with AVX512-BW (tvm.testing.requires_x86_avx512)")


def pytest_runtest_setup(item):
    if item.get_closest_marker("requires_gpu") is not None:
        import tessera as tvm  # pylint: disable=import-outside-toplevel

        if not tvm.cuda(0).exist:
            pytest.skip("needs a CUDA GPU (tvm.cuda(0).exist is False)")

"""tvm.build for CUDA without a GPU (target.build.cuda, src/codegen/cuda/build_cuda.cc): the host module
(llvm or c) imports a CUDA module holding the CUDA C and the NVRTC output; the host code launches through
TesseraLaunchKernel; the host function takes arrays on the GPU only; export_library embeds the CUDA
module. Launching needs a GPU: here the launch path is driven with fake CUDA arrays (DLPack capsules
claiming cuda(0)) and must end in a clear RuntimeError, never a crash (in a subprocess)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as tvm
from tessera.contrib import nvcc
from cuda_test_kernels import scale_add_scheduled, vecadd_mod, vecadd_scheduled, window_sum_scheduled

_info = nvcc.nvrtc_info()
pytestmark = pytest.mark.skipif(not _info["available"], reason=f"NVRTC not available: {_info['why']}")
_HAS_LLVM = tvm.get_global_func("target.build.llvm", allow_missing=True) is not None
_PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))
_TESTS_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


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


def test_shared_memory_kernel_and_scalar_parameter_build():
    src = tvm.build(window_sum_scheduled(), target="cuda").imported_modules[0].get_source()
    assert "__shared__" in src and "__syncthreads()" in src
    src = tvm.build(scale_add_scheduled(), target=tvm.target.Target("cuda", host="c")).imported_modules[0].get_source()
    assert "float alpha" in src


def test_unbound_function_is_refused_by_name():
    with pytest.raises(ValueError, match=r"main .*accesses buffer . outside any loop bound to a GPU thread.*forget to bind"):
        tvm.build(vecadd_mod(), target="cuda")


def test_cpu_arrays_are_refused_for_a_cuda_function():
    rt = tvm.build(vecadd_scheduled(), target=tvm.target.Target("cuda", host="c"))
    a = tvm.nd.array(np.ones(1024, "float32"))
    with pytest.raises(ValueError, match="main: argument A is on cpu.0. but this function runs on cuda"):
        rt["main"](a, a, a)


def _run(code):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([_PYTHON_DIR, _TESTS_DIR, env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          env=env, check=False)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.skipif(tvm.cuda(0).exist, reason="checks the behaviour without a GPU")
@pytest.mark.parametrize("host", _hosts())
def test_launch_without_a_gpu_raises_runtime_error_naming_the_kernel(host):
    out = _run(f"""
        import tessera as tvm
        from cuda_test_kernels import fake_cuda_array, vecadd_scheduled
        assert not tvm.cuda(0).exist
        rt = tvm.build(vecadd_scheduled(), target=tvm.target.Target("cuda", host="{host}"))
        a = fake_cuda_array(1024)
        path = "{{}}/lib.so".format(__import__("tempfile").mkdtemp())
        rt.export_library(path)
        loaded = tvm.runtime.load_module(path)
        for call in (lambda: rt["main"](a, a, a), lambda: rt.imported_modules[0]["main_kernel"](a, a, a, 8, 128),
                     lambda: loaded["main"](a, a, a)):
            try:
                call()
            except RuntimeError as e:
                assert "CUDA kernel main_kernel" in str(e), e
                print("OK", e)
            else:
                raise SystemExit("no error")
        try:
            tvm.nd.empty((4,), "float32", tvm.cuda(0))
        except RuntimeError as e:
            print("OK", e)
        """)
    assert out.count("OK") == 4, out


def test_direct_kernel_call_checks_its_arguments():
    k = tvm.build(vecadd_scheduled(), target="cuda").imported_modules[0]["main_kernel"]
    with pytest.raises(TypeError, match=r"main_kernel expects 5 arguments \(3 kernel arguments, then the extents of "
                                        r"blockIdx.x, threadIdx.x\) but got 3"):
        k(1, 2, 3)
    a = tvm.nd.array(np.ones(4, "float32"))
    with pytest.raises(ValueError, match="main_kernel: argument 0 is on cpu.0. but the kernel runs on a CUDA device"):
        k(a, a, a, 1, 1)


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

"""Bad input to CUDA code generation (codegen.CodeGenCUDASource, NVRTC): each case runs in a subprocess under a
memory cap and a time limit (harness.py) and must raise the named error class with a message naming the culprit
(kernel, buffer, limit, source line); never a crash, a hang or CUDA C that NVRTC rejects without saying why."""
import pytest

from tessera.contrib import nvcc

from .test_codegen_reliability import expect_error

SOURCE = """
src_of = tvm.get_global_func("codegen.CodeGenCUDASource")
def source(func, target="cuda"):
    return src_of(tvm.IRModule({"k": func.with_attr("global_symbol", "k")}), tvm.target.Target(target))
"""


def test_too_many_threads_per_block():
    expect_error(SOURCE + """
@T.prim_func
def f(a: T.handle):
    A = T.Buffer((4096,), data=a)
    for ty in T.thread_binding(64, thread="threadIdx.y"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[ty * 32 + tx] = T.float32(0)
source(f)
""", "ValueError", "a kernel of k uses 2048 threads per block, more than 1024")


@pytest.mark.parametrize("tag,extent,limit", [("blockIdx.y", 70000, 65535), ("threadIdx.z", 128, 64)])
def test_cuda_limit_per_launch_dimension(tag, extent, limit):
    expect_error(SOURCE + f"""
@T.prim_func
def f(a: T.handle):
    A = T.Buffer((16,), data=a)
    for b in T.thread_binding({extent}, thread="{tag}"):
        A[0] = T.float32(0)
source(f)
""", "ValueError", f"the launch extent of {tag} is {extent}; CUDA allows 1 to {limit}")


def test_target_limit_on_shared_memory():
    expect_error(SOURCE + """
@T.prim_func
def f(a: T.handle):
    A = T.Buffer((128,), data=a)
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S = T.allocate([16384], "float32", "shared")
        S_1 = T.Buffer((16384,), data=S, scope="shared")
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S_1[tx] = A[tx]
            A[tx] = S_1[tx]
source(f, "cuda -max_shared_memory_per_block=49152")
""", "ValueError", "allocates 65536 bytes of shared memory, more than 49152")


def test_global_allocation_inside_a_kernel():
    expect_error(SOURCE + """
@T.prim_func
def f(a: T.handle):
    A = T.Buffer((128,), data=a)
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        G = T.allocate([128], "float32", "global")
        G_1 = T.Buffer((128,), data=G)
        G_1[tx] = A[tx]
        A[tx] = G_1[tx]
source(f)
""", "ValueError", "cannot compile kernel k for target 'cuda': buffer G is allocated in global memory inside the kernel")


@pytest.mark.parametrize("dtype,error,match", [
    ("int4", "NotImplementedError", "values of dtype int4"),
    ("float16x4", "ValueError", "buffer X has dtype float16x4; buffer elements must be scalars"),
])
def test_unsupported_dtype(dtype, error, match):
    expect_error(SOURCE + f"""
b = tvm.tir.decl_buffer((16,), "{dtype}", "X")
tx = tvm.tir.Var("tx", "int32")
store = tvm.tir.BufferStore(b, tvm.tir.BufferLoad(b, [tx]), [tx])
iv = tvm.tir.IterVar(tvm.ir.Range(0, 16), tx, 1, "threadIdx.x")
f = tvm.tir.PrimFunc([b.data], tvm.tir.For(tx, 0, 16, tvm.tir.ForKind.THREAD_BINDING, store, thread_binding=iv))
source(f)
""", error, match)


def test_symbolic_static_shared_memory():
    expect_error(SOURCE + """
@T.prim_func
def f(a: T.handle, n: T.int32):
    A = T.Buffer((128,), data=a)
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        S = T.allocate([n], "float32", "shared")
        S_1 = T.Buffer((n,), data=S, scope="shared")
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S_1[tx] = A[tx]
source(f)
""", "ValueError", 'shared buffer S of k has a non-constant size (a symbolic size needs scope "shared.dyn")')


def test_shared_buffer_passed_into_the_kernel():
    expect_error(SOURCE + """
@T.prim_func
def f(s: T.handle, a: T.handle):
    S = T.Buffer((128,), data=s, scope="shared")
    A = T.Buffer((128,), data=a)
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        S[tx] = A[tx]
source(f)
""", "ValueError", 'buffer s has scope "shared" but is allocated outside the kernel')


def test_local_buffer_too_large():
    expect_error(SOURCE + """
@T.prim_func
def f(a: T.handle):
    A = T.Buffer((128,), data=a)
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        L = T.allocate([1048576], "float32", "local")
        L_1 = T.Buffer((1048576,), data=L, scope="local")
        L_1[tx] = A[tx]
        A[tx] = L_1[tx]
source(f)
""", "ValueError", "local buffer L needs 4194304 bytes per thread, more than CUDA's 524288")


def test_different_symbolic_launch_extents():
    expect_error(SOURCE + """
@T.prim_func
def f(a: T.handle, n: T.int32, m: T.int32):
    A = T.Buffer((n,), data=a)
    for bx in T.thread_binding(n, thread="blockIdx.x"):
        A[bx] = T.float32(0)
    for bx in T.thread_binding(m, thread="blockIdx.x"):
        A[bx] = T.float32(1)
source(f)
""", "ValueError", "kernel of k: loops bound to blockIdx.x have different extents")


@pytest.mark.skipif(not nvcc.have_nvrtc(), reason="NVRTC not available")
def test_nvrtc_error_quotes_the_generated_line():
    expect_error(SOURCE + """
from tessera.contrib import nvcc
@T.prim_func
def f(a: T.handle):
    A = T.Buffer((128,), data=a)
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        A[tx] = T.call_extern("float32", "no_such_device_function", A[tx])
nvcc.compile_cuda(source(f), arch="sm_80")
""", "ValueError", 'identifier "no_such_device_function" is undefined')


def test_nvrtc_missing_is_a_runtime_error_naming_the_fix(tmp_path):
    # A regular package named nvidia shadows PyPI's namespace package: no NVRTC is registered, and none is found
    # in a CUDA_HOME that does not exist (skipped where a system toolkit provides one anyway).
    import glob

    if glob.glob("/usr/local/cuda/lib64/libnvrtc.so*"):
        pytest.skip("a CUDA toolkit's NVRTC is installed in /usr/local/cuda")
    fake = tmp_path / "nvidia"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    from .harness import run_case

    code = f"""
import sys
sys.path.insert(0, {str(tmp_path)!r})
import os
os.environ["CUDA_HOME"] = {str(tmp_path / "no_cuda")!r}
os.environ.pop("TESSERA_NVRTC_LIBRARY", None)
import tessera as tvm
from tessera.contrib import nvcc
assert not nvcc.have_nvrtc(), nvcc.nvrtc_info()
try:
    nvcc.compile_cuda('extern "C" __global__ void k() {{}}', arch="sm_80")
except RuntimeError as e:
    assert "NVRTC (libnvrtc.so) was not found" in str(e) and "nvidia-cuda-nvrtc-cu12" in str(e), e
    print("RAISED-AS-EXPECTED")
"""
    res = run_case(code)
    assert not res.crashed and res.returncode == 0 and "RAISED-AS-EXPECTED" in res.stdout, res.describe()

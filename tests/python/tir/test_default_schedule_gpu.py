"""tir.transform.DefaultGPUSchedule (the "cuda" kind's default schedule for
untuned kernels, as TVM's dlight rules): every block of a TOPI function ends
bound to blockIdx/threadIdx, the rule expected for its shape applies (one thread
per row for softmax/layer_norm, shared-memory tiles with a local register tile
for matmul/dense/batch_matmul, one thread per output otherwise), hand-scheduled
functions are left alone, and the schedule computes what the function computed:
checked on the CPU with the thread-bound loops made serial (each block and
thread in turn), against NumPy. No GPU is needed; the GPU runs are in
tests/python/relax/test_cuda_default_schedule.py
(and compile-only there when the CUDA backend is built in)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi
from tessera.script import tir as T
from gpu_schedule_helpers import blocks_all_bound, serial, thread_tags, topi_cases

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.uniform(-1, 1, size=shape).astype("float32")


def gpu_schedule(func, target="cuda"):
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    return tvm.tir.transform.DefaultGPUSchedule(target)(mod)


def check(func, arrays, expected, *, shared=None, local=None):
    mod = gpu_schedule(func)
    assert mod["main"].attrs["tir.is_scheduled"]
    assert blocks_all_bound(mod) == [], mod.script()
    tags = thread_tags(mod)
    assert "blockIdx.x" in tags and "threadIdx.x" in tags, mod.script()
    text = mod.script()
    if shared is not None:
        assert ('scope="shared"' in text) == shared, text
    if local is not None:
        assert ('scope="local"' in text) == local, text
    rt = tvm.build(serial(mod), target="llvm")
    nd = [tvm.nd.array(a) for a in arrays]
    rt["main"](*nd)
    np.testing.assert_allclose(nd[-1].numpy(), expected, rtol=1e-4, atol=1e-4)
    return mod


def test_elementwise_one_thread_per_element():
    a, b = _rand(64, 100), _rand(64, 100)
    A, B = te.placeholder((64, 100), name="A"), te.placeholder((64, 100), name="B")
    mod = check(te.create_prim_func([A, B, topi.exp(topi.add(A, B))]), [a, b, np.zeros((64, 100), "float32")],
                np.exp(a + b), shared=False)
    loops = [n for n in _loops(mod) if n.kind == tvm.tir.ForKind.THREAD_BINDING]
    # (4 consecutive elements per thread in a vectorized loop: 128-bit accesses, codegen/test_cuda_vector_access.py)
    assert [(l.thread_binding.thread_tag, int(l.extent)) for l in loops] == [("blockIdx.x", 7), ("threadIdx.x", 256)]
    assert [int(l.extent) for l in _loops(mod) if l.kind == tvm.tir.ForKind.VECTORIZED] == [4]


def _loops(mod):
    found = []
    tvm.tir.post_order_visit(mod["main"].body, lambda n: found.append(n) if isinstance(n, tvm.tir.For) else None)
    return found[::-1]


def test_thread_count_follows_the_target():
    A = te.placeholder((4096,), name="A")
    mod = gpu_schedule(te.create_prim_func([A, topi.exp(A)]), tvm.target.Target("cuda -max_num_threads=128"))
    extents = {l.thread_binding.thread_tag: int(l.extent) for l in _loops(mod) if l.kind == tvm.tir.ForKind.THREAD_BINDING}
    assert extents == {"blockIdx.x": 8, "threadIdx.x": 128}  # 4 elements per thread (vectorized)


def test_non_dividing_elementwise_is_guarded():
    a = _rand(1001)  # (not a multiple of 4: one element per thread)
    A = te.placeholder((1001,), name="A")
    mod = check(te.create_prim_func([A, topi.exp(A)]), [a, np.zeros(1001, "float32")], np.exp(a))
    assert "T.where" in mod.script()


def test_softmax_one_thread_per_row():
    a = _rand(64, 100)
    A = te.placeholder((64, 100), name="A")
    e = np.exp(a - a.max(1, keepdims=True))
    mod = check(te.create_prim_func([A, topi.nn.softmax(A)]), [a, np.zeros((64, 100), "float32")],
                e / e.sum(1, keepdims=True), shared=False, local=True)
    tags = thread_tags(mod)
    assert sorted(tags) == ["blockIdx.x", "threadIdx.x"]  # one kernel: rows over threads


def test_layer_norm():
    a, g, b = _rand(32, 64), _rand(64), _rand(64)
    A, G, Bt = te.placeholder((32, 64), name="A"), te.placeholder((64,), name="G"), te.placeholder((64,), name="B")
    out = topi.nn.layer_norm(A, G, Bt, axis=[1], epsilon=1e-5)
    mean = a.mean(1, keepdims=True)
    var = a.var(1, keepdims=True)
    check(te.create_prim_func([A, G, Bt, out]), [a, g, b, np.zeros((32, 64), "float32")],
          (a - mean) / np.sqrt(var + 1e-5) * g + b)


def test_row_sum_and_full_sum():
    a = _rand(16, 50)
    A = te.placeholder((16, 50), name="A")
    check(te.create_prim_func([A, topi.sum(A, axis=1)]), [a, np.zeros(16, "float32")], a.sum(1))
    check(te.create_prim_func([A, topi.sum(A)]), [a, np.zeros((), "float32")], a.sum())


def test_matmul_shared_tiles_and_register_tile():
    x, w = _rand(128, 64), _rand(64, 128)
    X, W = te.placeholder((128, 64), name="X"), te.placeholder((64, 128), name="W")
    mod = check(te.create_prim_func([X, W, topi.matmul(X, W)]), [x, w, np.zeros((128, 128), "float32")], x @ w,
                shared=True, local=True)
    assert {"blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"} <= set(thread_tags(mod))
    # After lowering: per k step a 64x8 tile of X and an 8x64 tile of W in shared
    # memory, a 4x4 accumulator per thread.
    lowered = tvm.lower(mod)["main"]
    sizes = {}
    tvm.tir.post_order_visit(lowered.body, lambda n: sizes.__setitem__(n.buffer.name, (n.buffer.scope(), int(n.buffer.shape[0])))
                             if isinstance(n, tvm.tir.BufferStore) and n.buffer.scope() != "global" else None)
    assert sizes == {"X_shared": ("shared", 512), "W_shared": ("shared", 512), "T_matmul_local": ("local", 16)}, sizes


def test_dense_relu_epilogue_in_the_thread():
    x, w = _rand(128, 64), _rand(128, 64)
    X, Wt = te.placeholder((128, 64), name="X"), te.placeholder((128, 64), name="W")
    mod = check(te.create_prim_func([X, Wt, topi.nn.relu(topi.nn.dense(X, Wt))]), [x, w, np.zeros((128, 128), "float32")],
                np.maximum(x @ w.T, 0), shared=True)
    # The relu runs in the matmul's kernel over each thread's 4x4 tile.
    relu = [n for n in _loops(mod) if n.kind == tvm.tir.ForKind.SERIAL and int(n.extent) == 128]
    assert relu == [], mod.script()


def test_batch_matmul_batch_on_blockidx_z():
    x, y = _rand(3, 64, 32), _rand(3, 64, 32)
    X, Y = te.placeholder((3, 64, 32), name="X"), te.placeholder((3, 64, 32), name="Y")
    mod = check(te.create_prim_func([X, Y, topi.nn.batch_matmul(X, Y)]), [x, y, np.zeros((3, 64, 64), "float32")],
                x @ y.transpose(0, 2, 1), shared=True)
    assert "blockIdx.z" in thread_tags(mod)


def test_gemv_shape_one_thread_per_output():
    x, w = _rand(1, 64), _rand(10, 64)
    X, Wt = te.placeholder((1, 64), name="X"), te.placeholder((10, 64), name="W")
    check(te.create_prim_func([X, Wt, topi.nn.dense(X, Wt)]), [x, w, np.zeros((1, 10), "float32")], x @ w.T,
          shared=False)


def test_conv2d_thread_per_output():
    torch = pytest.importorskip("torch")
    x, w = _rand(1, 3, 10, 10), _rand(4, 3, 3, 3)
    X, W = te.placeholder((1, 3, 10, 10), name="X"), te.placeholder((4, 3, 3, 3), name="W")
    out = topi.nn.relu(topi.nn.conv2d_nchw(X, W, 1, 1, 1))
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1)).numpy()
    check(te.create_prim_func([X, W, out]), [x, w, np.zeros((1, 4, 10, 10), "float32")], ref)


@T.prim_func
def scalar_store(A: T.Buffer((1,), "float32")):
    with T.block("root"):
        with T.block("s"):
            A[0] = T.float32(3)


def test_scalar_block_single_thread():
    check(scalar_store, [np.zeros(1, "float32")], np.full(1, 3, "float32"))


@T.prim_func
def hand_bound(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in T.thread_binding(64, thread="threadIdx.x"):
        with T.block("b"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] * T.float32(2)


def test_hand_scheduled_function_is_left_alone():
    mod = tvm.IRModule({"main": hand_bound})
    out = tvm.tir.transform.DefaultGPUSchedule("cuda")(mod)
    tvm.ir.assert_structural_equal(out["main"], hand_bound)


def test_cpu_target_refused():
    with pytest.raises(ValueError, match="not a GPU target"):
        tvm.tir.transform.DefaultGPUSchedule("llvm")


def test_cuda_kind_default_schedule_attr():
    assert tvm.target.Target("cuda").kind.get_attr("tir.default_schedule") == "tir.DefaultGPUScheduleFunc"


def test_softmax_rows_not_dividing_the_threads():
    """300 rows over 256 threads: the row loop is guarded, and after lowering each
    thread's max and sum are one register each (the guard does not widen them)."""
    a = _rand(300, 37)
    A = te.placeholder((300, 37), name="A")
    e = np.exp(a - a.max(1, keepdims=True))
    mod = check(te.create_prim_func([A, topi.nn.softmax(A)]), [a, np.zeros((300, 37), "float32")],
                e / e.sum(1, keepdims=True), local=True)
    sizes = {}
    tvm.tir.post_order_visit(tvm.lower(mod)["main"].body, lambda n: sizes.__setitem__(n.buffer.name, int(n.buffer.shape[0]))
                             if isinstance(n, tvm.tir.BufferStore) and n.buffer.scope() == "local" else None)
    assert sizes == {"T_softmax_maxelem": 1, "T_softmax_expsum": 1}, sizes


@pytest.mark.parametrize("case", topi_cases(), ids=[c[0] for c in topi_cases()])
def test_gpu_test_cases_run_serially(case):
    """The kernels tests/python/relax/test_cuda_default_schedule.py runs on the GPU, here serially."""
    _, func, arrays, expected = case
    check(func, [a.copy() for a in arrays], expected)

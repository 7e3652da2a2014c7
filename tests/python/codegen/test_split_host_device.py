"""tir.transform.SplitHostDevice (after BindTarget): thread-bound loop
nests are outlined into kernel PrimFuncs launched from the host
(tir.tessera_launch_kernel with the launch extents); CPU targets
refuse them by name; functions without them, or without a target, are left
alone. MakePackedAPI's argument layout is checked against a hand-written
FunctionInfo."""
import json

import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, func, loops



def split(mod, target):
    return tvm.transform.Sequential([tir.transform.BindTarget(target), tir.transform.SplitHostDevice()])(mod)

lower = tvm.get_global_func("codegen.LowerPrimFunc")


def _thread_loop(A, n_var, outer):
    tx = tir.Var("tx", "int32")
    thread = tir.IterVar(None, tir.Var("threadIdx_x", "int32"), tir.IterVar.ThreadIndex, "threadIdx.x")
    store = tir.BufferStore(A, tir.Cast("float32", n_var) + tir.Cast("float32", outer), [outer * 4 + tx])
    return tir.For(tx, 0, 4, tir.ForKind.THREAD_BINDING, store, thread_binding=thread)


def _gpu_func():
    A = buf("A", (16,))
    n = tir.Var("n", "int32")
    i = tir.Var("i", "int32")
    inner = _thread_loop(A, n, i)
    body = tir.For(i, 0, 4, tir.ForKind.SERIAL, inner)
    f = func([A, n], body, name="gpu_main")
    return lower(f), A, n, i


def test_thread_loops_become_a_kernel_called_from_the_host():
    f, A, n, i = _gpu_func()
    mod = tvm.IRModule({"gpu_main": f})
    out = split(mod, tvm.target.Target("cuda"))
    names = sorted(gv.name_hint for gv in out.get_global_vars())
    assert names == ["gpu_main", "gpu_main_kernel"]
    kernel = out["gpu_main_kernel"]
    host = out["gpu_main"]
    # The kernel reads the buffer's data pointer, the scalar n and the host loop variable i.
    assert len(kernel.params) == 3
    for expected in (A.data, n, i):
        assert any(p.same_as(expected) for p in kernel.params), expected
    assert kernel.attrs["target"].kind.name == "cuda"
    assert kernel.attrs["global_symbol"] == "gpu_main_kernel"
    assert int(kernel.attrs["calling_conv"]) == 2 and bool(kernel.attrs["tir.is_global_func"])
    assert isinstance(kernel.body, tir.For) and kernel.body.kind == tir.ForKind.THREAD_BINDING
    # The host keeps its serial loop, whose body is now the launch.
    assert isinstance(host.body, tir.For) and host.body.kind == tir.ForKind.SERIAL
    # The launch: tir.tessera_launch_kernel(symbol, gx, gy, gz, bx, by, bz, dyn_shmem, kernel args...).
    call = host.body.body.value
    assert isinstance(call, tir.Call) and call.op.name == "tir.tessera_launch_kernel"
    assert call.args[0].value == "gpu_main_kernel"
    assert [int(a) for a in call.args[1:8]] == [1, 1, 1, 4, 1, 1, 0]
    assert len(call.args) == 11 and all(a.same_as(p) for a, p in zip(call.args[8:], kernel.params))
    # The kernel records its launch configuration; the host function takes arrays on the GPU (kDLCUDA).
    assert list(kernel.attrs["tessera.launch_tags"]) == ["threadIdx.x"]
    assert [int(e) for e in kernel.attrs["tessera.launch_extents"]] == [4]
    assert int(kernel.attrs["tessera.dyn_shmem"]) == 0
    assert int(host.attrs["tessera.device_type"]) == 2
    # The input module is untouched.
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["gpu_main"]


def test_cpu_targets_refuse_thread_loops_by_name_and_leave_plain_functions():
    f, _, _, _ = _gpu_func()
    with pytest.raises(ValueError, match=r"gpu_main for target 'llvm': loop tx is bound to threadIdx.x"):
        split(tvm.IRModule({"gpu_main": f}), tvm.target.Target("llvm"))
    A, B = buf("A", (4,)), buf("B", (4,))
    plain = lower(func([A, B], loops([4], lambda i: tir.BufferStore(B, A[i], [i]))))
    out = split(tvm.IRModule({"main": plain}), tvm.target.Target("cuda"))
    assert [gv.name_hint for gv in out.get_global_vars()] == ["main"]
    assert out["main"].body.same_as(plain.body)
    # Without a target attribute nothing is split.
    gpu, _, _, _ = _gpu_func()
    untouched = tir.transform.SplitHostDevice()(tvm.IRModule({"gpu_main": gpu}))
    assert [gv.name_hint for gv in untouched.get_global_vars()] == ["gpu_main"]
    assert untouched["gpu_main"].same_as(gpu)


def test_make_packed_api_layout():
    m = tir.Var("m", "int32")
    A, B = buf("A", (m, 4)), buf("B", (m,), "int8")
    alpha = tir.Var("alpha", "float32")
    f = func([A, alpha, B], loops([4], lambda i: tir.BufferStore(B, tir.Cast("int8", alpha), [i])), name="packed")
    info = json.loads(tvm.get_global_func("codegen.MakePackedAPIInfo")("packed", f))
    assert info == {"name": "packed", "sym_vars": ["m"], "params": [
        {"name": "A", "buffer": True, "dtype": "float32", "shape": [{"sym": 0}, 4], "align": 64},
        {"name": "alpha", "buffer": False, "dtype": "float32", "shape": []},
        {"name": "B", "buffer": True, "dtype": "int8", "shape": [{"sym": 0}], "align": 64}]}
    with pytest.raises(NotImplementedError, match="bad.*dimension 0 of parameter C is an expression"):
        C = buf("C", (m * 2,))
        tvm.get_global_func("codegen.MakePackedAPIInfo")("bad", func([C], tir.Evaluate(0), name="bad"))

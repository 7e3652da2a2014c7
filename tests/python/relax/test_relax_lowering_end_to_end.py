"""The lowering passes end to end: the course's MLP (chapter 5's form, where
memory planning makes relu and dense1 write into dead intermediates'
storage) built by relax.build with the default pipeline and run by the VM
matches NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import tir as T


@T.prim_func
def dense(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"), Z: T.Buffer((1, 128), "float32")):
    for i, j, k in T.grid(1, 128, 784):
        with T.block("Z"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Z[vi, vj] = T.float32(0)
            Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

@T.prim_func
def add(X: T.Buffer((1, 128), "float32"), B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
    for i, j in T.grid(1, 128):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = X[vi, vj] + B[vj]

@T.prim_func
def relu(X: T.Buffer((1, 128), "float32"), Z: T.Buffer((1, 128), "float32")):
    for i, j in T.grid(1, 128):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = T.max(X[vi, vj], T.float32(0))

@T.prim_func
def dense1(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"), Z: T.Buffer((1, 10), "float32")):
    for i, j, k in T.grid(1, 10, 128):
        with T.block("Z"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Z[vi, vj] = T.float32(0)
            Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

@T.prim_func
def add1(X: T.Buffer((1, 10), "float32"), B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
    for i, j in T.grid(1, 10):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = X[vi, vj] + B[vj]


def _t(*shape):
    return relax.TensorStructInfo(shape, "float32")


def _mlp():
    bb = relax.BlockBuilder()
    g = {n: bb.add_func(f, n) for n, f in [("dense", dense), ("add", add), ("relu", relu), ("dense1", dense1),
                                           ("add1", add1)]}
    params = [relax.Var(n, _t(*s)) for n, s in [("x", (1, 784)), ("w0", (128, 784)), ("b0", (128,)),
                                                 ("w1", (10, 128)), ("b1", (10,))]]
    x, w0, b0, w1, b1 = params
    with bb.function("main", params):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.call_tir(g["dense"], (x, w0), _t(1, 128)))
            lv1 = bb.emit(relax.op.call_tir(g["add"], (lv0, b0), _t(1, 128)))
            lv2 = bb.emit(relax.op.call_tir(g["relu"], (lv1,), _t(1, 128)))
            lv3 = bb.emit(relax.op.call_tir(g["dense1"], (lv2, w1), _t(1, 10)))
            out = bb.emit_output(relax.op.call_tir(g["add1"], (lv3, b1), _t(1, 10)))
        bb.emit_func_output(out)
    return bb.get()


def test_planned_mlp_matches_numpy():
    try:
        build, vm_cls = relax.build, relax.VirtualMachine
    except (AttributeError, NotImplementedError):
        pytest.skip("relax.build / relax.VirtualMachine are not in this build")
    mod = _mlp()
    with tvm.transform.PassContext(disabled_pass=["FuseOps"]):  # the five kernels unfused: four intermediates
        lowered = relax.get_pipeline()(mod)
    storages = [b for blk in lowered["main"].body.blocks for b in blk.bindings
                if isinstance(b.value, relax.Call) and b.value.op == tvm.ir.Op.get("relax.vm.alloc_storage")]
    assert len(storages) == 3  # two shared storages for four intermediates, one for the output
    vm = vm_cls(build(mod, target="llvm"), tvm.cpu())
    rng = np.random.default_rng(0)
    for _ in range(3):  # the same storages are reused call after call
        a = [rng.standard_normal(s).astype("float32") for s in [(1, 784), (128, 784), (128,), (10, 128), (10,)]]
        res = vm["main"](*[tvm.nd.array(v) for v in a]).numpy()
        ref = np.maximum(a[0] @ a[1].T + a[2], 0) @ a[3].T + a[4]
        np.testing.assert_allclose(res, ref, rtol=1e-4, atol=1e-4)

"""VMCodegen + relax.build on Relax functions already in lowered form (built
with BlockBuilder: VM allocation ops, calls of TIR functions, registered
Python functions, If, tuples, closures, constants), run end to end by the VM
and compared with NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.ir import Op
from tessera.script import tir as T

F32x4 = relax.TensorStructInfo((4,), "float32")


@T.prim_func
def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)


def _scale3(x):
    return tvm.nd.array(x.numpy() * 3)


def _tir_then_python_module():
    """main(x) = scale3(add_one(x)): a TIR kernel into VM-allocated storage,
    then a registered Python function returning a new array."""
    tvm.register_func("test.vm_py.scale3", _scale3, override=True)
    bb = relax.BlockBuilder()
    gv_add = bb.add_func(add_one, "add_one")
    x = relax.Var("x", F32x4)
    with bb.function("main", [x], pure=False):
        storage = bb.emit(relax.op.vm.alloc_storage(relax.ShapeExpr([16]), 0, "uint8"))
        y = bb.emit(relax.op.vm.alloc_tensor(storage, 0, relax.ShapeExpr([4]), "float32"))
        bb.emit(relax.Call(gv_add, [x, y]))
        z = bb.emit(relax.Call(relax.ExternFunc("test.vm_py.scale3"), [y], sinfo_args=[F32x4]))
        bb.emit_func_output(z)
    return bb.get()


def test_tir_and_registered_python_function_end_to_end():
    ex = relax.build(_tir_then_python_module(), target="llvm", relax_pipeline=None)
    assert "add_one" in ex.as_text() and "test.vm_py.scale3" in ex.as_text()
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.array([0.5, -1.0, 2.0, 7.25], "float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), (x + 1) * 3)
    # aliases
    assert relax.vm.build is relax.build
    ex2 = tvm.compile(_tir_then_python_module(), target="llvm", relax_pipeline=None)
    np.testing.assert_allclose(relax.VirtualMachine(ex2, tvm.cpu())["main"](tvm.nd.array(x)).numpy(), (x + 1) * 3)
    lib = tvm.compile(add_one, target="llvm")  # TIR only: tvm.build
    out = tvm.nd.empty((4,), "float32")
    lib["add_one"](tvm.nd.array(x), out)
    np.testing.assert_allclose(out.numpy(), x + 1)


def test_if_constants_tuples_and_vm_to_vm_calls():
    calls = []
    tvm.register_func("test.vm_py.tag", lambda t: calls.append(t) or 0, override=True)
    bb = relax.BlockBuilder()
    a = relax.Var("a", F32x4)
    b = relax.Var("b", F32x4)
    with bb.function("combine", [a, b], pure=False):
        s = bb.emit(relax.Call(relax.ExternFunc("test.vm.add"), [a, b], sinfo_args=[F32x4]))
        bb.emit_func_output(relax.Tuple([s, a]))
    gv_combine = bb.get().get_global_var("combine")
    c = relax.Var("c", relax.TensorStructInfo((), "bool"))
    x = relax.Var("x", F32x4)
    w = relax.const(np.array([1, 2, 3, 4], "float32"))
    then_v = relax.Var("t", F32x4)
    with bb.function("main", [c, x], pure=False):
        bb_then = relax.SeqExpr([relax.BindingBlock([
            relax.VarBinding(relax.Var("u", relax.ObjectStructInfo()),
                             relax.Call(relax.ExternFunc("test.vm_py.tag"), [relax.StringImm("then")],
                                        sinfo_args=[relax.ObjectStructInfo()])),
            relax.VarBinding(then_v, relax.Call(relax.ExternFunc("test.vm.add"), [x, w], sinfo_args=[F32x4]))])],
            then_v)
        else_v = relax.Var("e", F32x4)
        bb_else = relax.SeqExpr([relax.BindingBlock([
            relax.VarBinding(relax.Var("u2", relax.ObjectStructInfo()),
                             relax.Call(relax.ExternFunc("test.vm_py.tag"), [relax.StringImm("else")],
                                        sinfo_args=[relax.ObjectStructInfo()])),
            relax.VarBinding(else_v, relax.Call(relax.ExternFunc("test.vm.mul"), [x, w], sinfo_args=[F32x4]))])],
            else_v)
        r = bb.emit(relax.If(c, bb_then, bb_else))
        tup = bb.emit(relax.Call(gv_combine, [r, x]))
        first = bb.emit(relax.TupleGetItem(tup, 0))
        bb.emit_func_output(relax.Tuple([first, relax.ShapeExpr([2, 3]), relax.PrimValue(7)]))
    ex = relax.build(bb.get(), relax_pipeline=None)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    xv = np.array([1, 1, 2, 3], "float32")
    out = vm["main"](tvm.nd.array(np.array(True)), tvm.nd.array(xv))
    np.testing.assert_allclose(out[0].numpy(), (xv + w.data.numpy()) + xv)
    assert out[1] == (2, 3) and out[2] == 7
    assert calls == ["then"]
    out = vm["main"](tvm.nd.array(np.array(False)), tvm.nd.array(xv))
    np.testing.assert_allclose(out[0].numpy(), (xv * w.data.numpy()) + xv)
    assert calls == ["then", "else"]


def test_calling_a_closure_parameter():
    bb = relax.BlockBuilder()
    f = relax.Var("f", relax.ObjectStructInfo())
    x = relax.Var("x", F32x4)
    with bb.function("main", [f, x], pure=False):
        y = bb.emit(relax.Call(f, [x, x], sinfo_args=[F32x4]))
        bb.emit_func_output(y)
    vm = relax.VirtualMachine(relax.build(bb.get(), relax_pipeline=None), tvm.cpu())
    xv = np.arange(4, dtype="float32")
    res = vm["main"](tvm.get_global_func("test.vm.mul"), tvm.nd.array(xv))
    np.testing.assert_allclose(res.numpy(), xv * xv)


def test_unlowered_call_tir_is_refused_with_its_name():
    bb = relax.BlockBuilder()
    gv_add = bb.add_func(add_one, "add_one")
    x = relax.Var("x", F32x4)
    with bb.function("main", [x]):
        y = bb.emit(relax.op.call_tir(gv_add, [x], F32x4))
        bb.emit_func_output(y)
    with pytest.raises(ValueError, match=r"function main: the call of relax.call_tir was not lowered"):
        relax.build(bb.get(), relax_pipeline=None)


def test_build_arguments_are_checked():
    mod = _tir_then_python_module()
    with pytest.raises(NotImplementedError, match=r"exec_mode"):
        relax.build(mod, exec_mode="compiled")
    with pytest.raises(NotImplementedError, match=r"CPU"):  # a device kind without a default schedule
        relax.build(mod, target="nvptx", relax_pipeline=None)
    with pytest.raises((ValueError, NotImplementedError), match=r"pipeline"):
        relax.build(mod, relax_pipeline="nope")


def test_exported_build_result_runs_after_load(tmp_path):
    ex = relax.build(_tir_then_python_module(), relax_pipeline=None)
    path = str(tmp_path / "relax_model.so")
    ex.export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    x = np.array([1, 2, 3, 4], "float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), (x + 1) * 3)


# ---- through the lowering passes (CallTIRRewrite, StaticPlanBlockMemory, VMShapeLower, ...) ----

@T.prim_func
def add_vec(x: T.handle, y: T.handle, z: T.handle):
    n = T.int64()
    X = T.match_buffer(x, (n,), "float32")
    Y = T.match_buffer(y, (n,), "float32")
    Z = T.match_buffer(z, (n,), "float32")
    for i in range(n):
        with T.block("Z"):
            vi = T.axis.remap("S", [i])
            Z[vi] = X[vi] + Y[vi]


def _lowering_pipeline():
    """relax.get_pipeline() when all its passes are registered; else the same
    lowering passes without Normalize (the builder already normalized)."""
    try:
        return relax.get_pipeline()
    except ValueError as err:
        if "relax.transform.Normalize" not in str(err):
            raise
    t = relax.transform
    return tvm.transform.Sequential([t.ToNonDataflow(), t.RemovePurityChecking(), t.CallTIRRewrite(),
                                     t.StaticPlanBlockMemory(), t.LowerAllocTensor(), t.VMBuiltinLower(),
                                     t.VMShapeLower(), t.AttachGlobalSymbol()], name="relax.build_pipeline")


def _times3(x, out):
    out.copyfrom(x.numpy() * 3)


def test_call_tir_and_call_dps_packed_through_the_pipeline():
    tvm.register_func("test.vm_py.times3", _times3, override=True)
    bb = relax.BlockBuilder()
    gv = bb.add_func(add_one, "add_one")
    x = relax.Var("x", F32x4)
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_tir(gv, [x], F32x4))
            lv2 = bb.emit(relax.op.call_dps_packed("test.vm_py.times3", [lv], F32x4))
            out = bb.emit_output(lv2)
        bb.emit_func_output(out)
    ex = relax.build(bb.get(), "llvm", relax_pipeline=_lowering_pipeline())
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for seed in range(3):
        xv = np.random.default_rng(seed).standard_normal(4).astype("float32")
        np.testing.assert_allclose(vm["main"](tvm.nd.array(xv)).numpy(), (xv + 1) * 3, rtol=1e-6)
    with pytest.raises(ValueError, match=r"param=x.*expected 4 but got 5"):
        vm["main"](tvm.nd.array(np.zeros(5, "float32")))
    with pytest.raises(TypeError, match=r"param=x.*expected dtype float32 but got float64"):
        vm["main"](tvm.nd.array(np.zeros(4, "float64")))
    with pytest.raises(TypeError, match=r"main\(\) takes 1 argument but 2 were given"):
        vm["main"](tvm.nd.array(np.zeros(4, "float32")), 1)


def test_symbolic_shapes_are_checked_and_computed():
    n = tvm.tir.Var("n", "int64")
    sinfo = relax.TensorStructInfo([n], "float32")
    bb = relax.BlockBuilder()
    gv = bb.add_func(add_vec, "add_vec")
    x, y = relax.Var("x", sinfo), relax.Var("y", sinfo)
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_tir(gv, [x, y], sinfo))
            out = bb.emit_output(lv)
        bb.emit_func_output(out)
    ex = relax.build(bb.get(), "llvm", relax_pipeline=_lowering_pipeline())
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for size in (1, 7, 64):
        a = np.arange(size, dtype="float32")
        b = np.full(size, 0.5, "float32")
        np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(b)).numpy(), a + b)
    with pytest.raises(ValueError, match=r"param=y.*expected 3 .*but got 4"):
        vm["main"](tvm.nd.array(np.zeros(3, "float32")), tvm.nd.array(np.zeros(4, "float32")))


@T.prim_func
def add4(X: T.Buffer((4,), "float32"), Y: T.Buffer((4,), "float32"), Z: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("Z"):
            vi = T.axis.remap("S", [i])
            Z[vi] = X[vi] + Y[vi]


def test_default_pipeline_with_bound_params():
    bb = relax.BlockBuilder()
    gv = bb.add_func(add4, "add4")
    x, w = relax.Var("x", F32x4), relax.Var("w", F32x4)
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_tir(gv, [x, w], F32x4))
            out = bb.emit_output(lv)
        bb.emit_func_output(out)
    mod = bb.get()
    wv = np.array([10, 20, 30, 40], "float32")
    xv = np.array([1, 2, 3, 4], "float32")
    full = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())  # default pipeline
    np.testing.assert_allclose(full["main"](tvm.nd.array(xv), tvm.nd.array(wv)).numpy(), xv + wv)
    bound = relax.VirtualMachine(relax.build(mod, target="llvm", params={"w": wv}), tvm.cpu())
    np.testing.assert_allclose(bound["main"](tvm.nd.array(xv)).numpy(), xv + wv)
    with pytest.raises(TypeError, match=r"main\(\) takes 1 argument but 2 were given"):
        bound["main"](tvm.nd.array(xv), tvm.nd.array(wv))

"""tvm.relax.testing (nn modules through the current BlockBuilder,
check_saved_func, the VM shape-builtin opcodes) and tvm.topi.testing's
strided_slice_python: an nn.Sequential MLP built, compiled and run against
NumPy; a saved closure agreeing with the direct call; the opcodes driving
vm.builtin.match_shape as the runtime reads them."""
import numpy as np
import pytest
import tessera as tvm
import tessera.topi.testing
from tessera import relax, tir, topi
from tessera.relax.testing import nn
from tessera.relax.testing.runtime_builtin import MakeShapeCode, MatchShapeCode
from tessera.relax.testing.vm import check_saved_func


def _mlp_module():
    n = tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3, bias=False), nn.LogSoftmax())
    with bb.function("main"):
        data = nn.Placeholder((n, 4), name="data")
        out = model(data)
        params = [data] + model.parameters()
        bb.emit_func_output(out, params=params)
    return bb.get(), model


def test_nn_sequential_mlp_against_numpy():
    mod, model = _mlp_module()
    assert [p.name_hint for p in model.parameters()] == ["linear_weight", "linear_bias", "linear_weight"]
    params = nn.init_params(mod)
    assert [p.shape for p in params] == [(4, 8), (8,), (8, 3)]
    x = np.random.default_rng(1).standard_normal((5, 4)).astype("float32")
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.nd.array(x), *params).numpy()
    w1, b1, w2 = (p.numpy() for p in params)
    h = np.maximum(x @ w1 + b1, 0) @ w2
    ref = h - np.log(np.exp(h - h.max(1, keepdims=True)).sum(1, keepdims=True)) - h.max(1, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_placeholder_needs_a_shape_list_and_a_builder():
    with pytest.raises(TypeError, match="shape must be a list or tuple"):
        nn.Placeholder(3)
    with pytest.raises(ValueError, match="needs a current BlockBuilder"):
        nn.emit(relax.const(1.0))


def _vm_of(op):
    """A VM running main(x) = op(x, x) for x of shape (2, 3)."""
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(op(x, x)))
    return relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())


def test_check_saved_func():
    vm = _vm_of(relax.op.add)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(check_saved_func(vm, "main", tvm.nd.array(a)).numpy(), a + a)


def test_shape_builtin_opcodes_match_the_runtime():
    # match_shape(shape, heap, ndim, [code, value]*ndim, err_ctx) and make_shape(heap, ndim, [code, value]*ndim).
    match_shape = tvm.get_global_func("vm.builtin.match_shape")
    make_shape = tvm.get_global_func("vm.builtin.make_shape")
    heap = tvm.nd.array(np.zeros(2, "int64"))
    shape = tvm.runtime.ShapeTuple([4, 7])
    match_shape(shape, heap, 2, int(MatchShapeCode.ASSERT_EQUAL_TO_IMM), 4, int(MatchShapeCode.STORE_TO_HEAP), 1,
                "test")
    match_shape(shape, heap, 2, int(MatchShapeCode.NO_OP), 0, int(MatchShapeCode.ASSERT_EQUAL_TO_LOAD), 1, "test")
    made = make_shape(heap, 2, int(MakeShapeCode.LOAD_SHAPE), 1, int(MakeShapeCode.USE_IMM), 5)
    assert list(made) == [7, 5]
    with pytest.raises(ValueError, match="expected 3 but got 4"):
        match_shape(shape, heap, 2, int(MatchShapeCode.ASSERT_EQUAL_TO_IMM), 3, int(MatchShapeCode.NO_OP), 0, "test")


@pytest.mark.parametrize("begin,end,strides", [([0, 2, 4, 4], [5, 5, 7, 8], [1, 1, 2, 3]),
                                               ([0, 2, 10, 14], [0, 5, 1, 1], [1, 1, -1, -2]),
                                               ([1, 0, 0, 0], [3, 9, 10, 10], [1, 3, 1, 4])])
def test_strided_slice_python_against_topi(begin, end, strides):
    x = np.random.default_rng(2).standard_normal((8, 9, 10, 10)).astype("float32")
    ref = tvm.topi.testing.strided_slice_python(x, begin, end, strides)
    data = tvm.te.placeholder((8, 9, 10, 10), "float32", "data")
    out = topi.strided_slice(data, begin, end, strides)
    func = tvm.build(tvm.te.create_prim_func([data, out]), target="llvm")
    res = tvm.nd.empty(ref.shape, "float32")
    func(tvm.nd.array(x), res)
    np.testing.assert_array_equal(res.numpy(), ref)


def test_registered_test_vm_functions_through_the_vm():
    from tessera.script import ir as I, relax as R  # pylint: disable=import-outside-toplevel

    @I.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @R.function(pure=False)
        def main(x: R.Tensor((3, 4), "float32")):
            y = R.builtin.alloc_tensor(R.shape([3, 8]), R.dtype("float32"), R.prim_value(0))
            _ = R.call_packed("test.vm.tile", x, y, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
            z = R.call_packed("test.vm.subtract_one", y, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
            return z

    vm = relax.VirtualMachine(relax.build(Module, target="llvm"), tvm.cpu())
    a = np.arange(12, dtype="float32").reshape(3, 4)
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), np.tile(a, (1, 2)) - 1)
    assert tvm.get_global_func("test.vm.check_if_defined")(tvm.nd.array(a)) is True
    assert tvm.get_global_func("test.vm.equal_zero")(tvm.nd.array(np.zeros(3, "float32"))).numpy()


def test_time_evaluator_of_a_saved_closure():
    vm = _vm_of(relax.op.multiply)
    a = np.ones((2, 3), "float32")
    vm.save_function("main", "saved_main", tvm.nd.array(a))
    result = vm.time_evaluator("saved_main", tvm.cpu(), number=2)()
    assert result.mean > 0

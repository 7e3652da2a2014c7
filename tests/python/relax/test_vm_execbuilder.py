"""The VM on hand-written bytecode (relax.ExecBuilder): calls of registered
functions, If (only the taken branch runs), Goto loops, closures, storage,
shapes, stateful calls and timing; NumPy is the oracle."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax


def _arrays(n=4, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    return [tvm.nd.array(rng.random(n).astype(dtype)) for _ in range(2)]


def test_call_registered_function():
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    np.testing.assert_allclose(vm["func0"](a, b).numpy(), a.numpy() + b.numpy())


def test_multiple_functions_and_vm_to_vm_call():
    ib = relax.ExecBuilder()
    ib.declare_function("mul2", relax.exec_builder.VMFuncKind.VM_FUNC)
    with ib.function("main", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_call("mul2", args=[ib.r(2), ib.r(1)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    with ib.function("mul2", num_inputs=2):
        ib.emit_call("test.vm.mul", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    np.testing.assert_allclose(vm["main"](a, b).numpy(), (a.numpy() + b.numpy()) * b.numpy())
    np.testing.assert_allclose(vm["mul2"](a, b).numpy(), a.numpy() * b.numpy())


def test_checker_rejects_read_before_write():
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(2)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with pytest.raises(ValueError, match=r"func0.*%2 is read before it is written"):
        ib.get()


def test_negative_immediate():
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=1):
        ib.emit_call("test.vm.add_scalar", args=[ib.imm(-3), ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    assert vm["func0"](1) == -2
    assert vm["func0"](-3) == -6


def test_constant_cache():
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=1):
        assert ib.convert_constant("str0") == ib.convert_constant("str0")
        s0 = ib.convert_constant(tvm.runtime.container.ShapeTuple([1, 2]))
        assert s0 == ib.convert_constant(tvm.runtime.ShapeTuple([1, 2]))
        assert s0 != ib.convert_constant(tvm.runtime.ShapeTuple([1, 3]))
        y0 = ib.convert_constant(tvm.nd.array(np.array([1, 2, 3]).astype("int32")))
        assert y0 == ib.convert_constant(tvm.nd.array(np.array([1, 2, 3]).astype("int32")))
        assert y0 != ib.convert_constant(tvm.nd.array(np.array([1, 2, 4]).astype("int32")))
        ib.emit_ret(ib.r(0))
    ib.get()


def test_formalize_renumbers_registers():
    ib0, ib1 = relax.ExecBuilder(), relax.ExecBuilder()
    with ib0.function("func0", num_inputs=2):
        ib0.emit_call("test.vm.add", args=[ib0.r(0), ib0.r(1)], dst=ib0.r(100))
        ib0.emit_call("test.vm.mul", args=[ib0.r(1), ib0.r(100)], dst=ib0.r(50))
        ib0.emit_ret(ib0.r(50))
    with ib1.function("func0", num_inputs=2):
        ib1.emit_call("test.vm.add", args=[ib1.r(0), ib1.r(1)], dst=ib1.r(2))
        ib1.emit_call("test.vm.mul", args=[ib1.r(1), ib1.r(2)], dst=ib1.r(3))
        ib1.emit_ret(ib1.r(3))
    assert ib0.get().as_text() == ib1.get().as_text()
    assert "test.vm.mul" in ib1.get().as_text()


def test_operands_scalar_and_device():
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_call("test.vm.add_scalar", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("func1", num_inputs=1):
        ib.emit_call("test.vm.get_device_id", args=[ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    assert vm["func0"](2, 3) == 5
    assert vm["func1"](tvm.cpu(3)) == 3


def test_shape_of_constant_tensor():
    arr = tvm.nd.array(np.random.rand(32, 16))
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=0):
        ib.emit_call("vm.builtin.shape_of", args=[arr], dst=ib.r(0))
        ib.emit_ret(ib.r(0))
    res = relax.VirtualMachine(ib.get(), tvm.cpu())["main"]()
    assert isinstance(res, tvm.runtime.ShapeTuple)
    assert res == (32, 16) and list(res) == [32, 16]


def _storage_program(storage_elems, tensor_shape, dtype="float32", offset=0):
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=0):
        ib.emit_call("vm.builtin.alloc_storage",
                     args=[ib.vm_state(), (storage_elems,), ib.convert_constant(0), tvm.DataType(dtype),
                           ib.convert_constant("global")], dst=ib.r(1))
        ib.emit_call("vm.builtin.alloc_tensor", args=[ib.r(1), ib.imm(offset), tensor_shape, tvm.DataType(dtype)],
                     dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    return relax.VirtualMachine(ib.get(), tvm.cpu())


def test_storage_and_tensor_view():
    res = _storage_program(24, (4, 6))["main"]()
    assert res.device == tvm.cpu()
    assert res.shape == (4, 6) and res.dtype == "float32"
    res.copyfrom(np.arange(24, dtype="float32").reshape(4, 6))
    np.testing.assert_array_equal(res.numpy().ravel(), np.arange(24))


def test_tensor_not_fitting_storage_is_refused():
    with pytest.raises(ValueError, match=r"does not fit in a storage of 96 bytes"):
        _storage_program(24, (5, 6))["main"]()
    with pytest.raises(ValueError, match=r"offset 2 is not a multiple"):
        _storage_program(24, (2,), offset=2)["main"]()


def test_returned_tensors_are_not_reused():
    vm = _storage_program(24, (4, 6))
    first = vm["main"]()
    first.copyfrom(np.ones((4, 6), "float32"))
    second = vm["main"]()
    second.copyfrom(np.zeros((4, 6), "float32"))
    np.testing.assert_array_equal(first.numpy(), np.ones((4, 6)))  # still alive: not handed out twice


def test_goto_skips():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_goto(2)
        ib.emit_call("test.vm.mul", args=[ib.r(2), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    np.testing.assert_allclose(vm["main"](a, b).numpy(), a.numpy() + b.numpy())


def test_if_runs_only_the_taken_branch():
    calls = []
    tvm.register_func("test.vm_py.then", lambda x: calls.append("then") or x, override=True)
    tvm.register_func("test.vm_py.else", lambda x: calls.append("else") or x, override=True)
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=3):
        ib.emit_if(ib.r(0), 4)
        ib.emit_call("test.vm_py.then", args=[ib.r(1)], dst=ib.r(3))
        ib.emit_call("test.vm.add", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_goto(3)
        ib.emit_call("test.vm_py.else", args=[ib.r(1)], dst=ib.r(3))
        ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    np.testing.assert_allclose(vm["main"](0, a, b).numpy(), a.numpy() * b.numpy())
    assert calls == ["else"]
    np.testing.assert_allclose(vm["main"](1, a, b).numpy(), a.numpy() + b.numpy())
    assert calls == ["else", "then"]
    np.testing.assert_allclose(vm["main"](True, a, b).numpy(), a.numpy() + b.numpy())


def test_if_on_tensor_condition_through_read_if_cond():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=3):
        ib.emit_call("vm.builtin.read_if_cond", args=[ib.r(0)], dst=ib.r(3))
        ib.emit_if(ib.r(3), 3)
        ib.emit_call("test.vm.add", args=[ib.r(1), ib.r(2)], dst=ib.r(4))
        ib.emit_goto(2)
        ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(2)], dst=ib.r(4))
        ib.emit_ret(ib.r(4))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    np.testing.assert_allclose(vm["main"](tvm.nd.array(np.array(True)), a, b).numpy(), a.numpy() + b.numpy())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(np.array(0, "int32")), a, b).numpy(), a.numpy() * b.numpy())


def test_if_on_non_integer_condition_raises():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_if(ib.r(0), 2)
        ib.emit_goto(1)
        ib.emit_ret(ib.r(0))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    with pytest.raises(TypeError, match=r"condition of If"):
        vm["main"](tvm.nd.array(np.zeros(2)))


def test_goto_loop_counts_to_n():
    # i = 0; while i < n: i = i + 1; return i  (loop with a backward Goto)
    tvm.register_func("test.vm_py.less", lambda x, y: x < y, override=True)
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("test.vm.add_scalar", args=[ib.imm(0), ib.imm(0)], dst=ib.r(1))
        ib.emit_call("test.vm_py.less", args=[ib.r(1), ib.r(0)], dst=ib.r(2))  # pc 1
        ib.emit_if(ib.r(2), 3)
        ib.emit_call("test.vm.add_scalar", args=[ib.r(1), ib.imm(1)], dst=ib.r(1))
        ib.emit_goto(-3)
        ib.emit_ret(ib.r(1))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    assert vm["main"](10) == 10
    assert vm["main"](0) == 0


def test_closures_bind_trailing_arguments():
    ib = relax.ExecBuilder()
    with ib.function("lifted_func_1", num_inputs=4):
        ib.emit_call("test.vm.mul", args=[ib.r(0), ib.r(1)], dst=ib.r(4))  # x * y (call-time arguments)
        ib.emit_call("test.vm.add", args=[ib.r(4), ib.r(2)], dst=ib.r(5))  # + w (bound)
        ib.emit_call("test.vm.mul", args=[ib.r(5), ib.r(3)], dst=ib.r(6))  # * z (bound)
        ib.emit_ret(ib.r(6))
    with ib.function("main", num_inputs=2):
        ib.emit_call("vm.builtin.make_closure", args=[ib.f("lifted_func_1"), ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("apply", num_inputs=3):
        ib.emit_call("vm.builtin.invoke_closure", args=[ib.vm_state(), ib.r(0), ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    w, z = _arrays(seed=1)
    x, y = _arrays(seed=2)
    expected = (x.numpy() * y.numpy() + w.numpy()) * z.numpy()
    clo = vm["main"](w, z)
    np.testing.assert_allclose(vm.invoke_closure(clo, x, y).numpy(), expected)
    np.testing.assert_allclose(vm["apply"](clo, x, y).numpy(), expected)


def test_tuples():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("vm.builtin.make_tuple", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_call("vm.builtin.tuple_getitem", args=[ib.r(2), ib.imm(1)], dst=ib.r(3))
        ib.emit_call("vm.builtin.make_tuple", args=[ib.r(3), ib.r(2)], dst=ib.r(4))
        ib.emit_ret(ib.r(4))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    out = vm["main"](a, b)
    assert len(out) == 2 and out[0].same_as(b) and out[1][0].same_as(a)
    vm.set_input("main", a, b)
    vm.invoke_stateful("main")
    outs = vm.get_outputs("main")
    assert isinstance(outs, tuple) and outs[0].same_as(b) and outs[1][1].same_as(b)


def test_registered_python_function_gets_zero_copy_arrays():
    seen = {}

    def fill(x, out):
        seen["ptr"] = out.numpy  # touch the object
        out.copyfrom(x.numpy() * 2 + 1)

    tvm.register_func("test.vm_py.fill", fill, override=True)
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("test.vm_py.fill", args=[ib.r(0), ib.r(1)])
        ib.emit_ret(ib.r(1))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    x = tvm.nd.array(np.arange(6, dtype="float32"))
    out = tvm.nd.empty((6,), "float32")
    res = vm["main"](x, out)
    assert res.same_as(out)  # the very array, written in place
    np.testing.assert_array_equal(out.numpy(), np.arange(6) * 2 + 1)


def test_set_input_invoke_stateful_get_outputs():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=2, param_names=["x", "y"]):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    vm.set_input("main", a, y=b)
    vm.invoke_stateful("main")
    np.testing.assert_allclose(vm.get_outputs("main").numpy(), a.numpy() + b.numpy())
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'z'"):
        vm.set_input("main", a, z=b)
    fresh = relax.VirtualMachine(ib.get(), tvm.cpu())
    with pytest.raises(ValueError, match=r"set_input"):
        fresh.invoke_stateful("main")
    with pytest.raises(ValueError, match=r"invoke_stateful"):
        fresh.get_outputs("main")


def test_save_function_and_time_evaluator():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, b = _arrays()
    vm.save_function("main", "main_saved", a, b)
    np.testing.assert_allclose(vm["main_saved"]().numpy(), a.numpy() + b.numpy())
    res = vm.time_evaluator("main", tvm.cpu(), number=5, repeat=2)(a, b)
    assert len(res.results) == 2 and res.mean > 0
    vm.set_input("main", a, b)
    res = vm.time_evaluator("main", tvm.cpu(), number=5)()
    assert res.mean > 0
    np.testing.assert_allclose(vm.get_outputs("main").numpy(), a.numpy() + b.numpy())


def test_storage_is_reused_across_calls():
    # an intermediate tensor from planned storage, consumed before return
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("vm.builtin.alloc_storage", args=[ib.vm_state(), (32,), ib.convert_constant(0),
                                                       tvm.DataType("uint8"), ib.convert_constant("global")],
                     dst=ib.r(1))
        ib.emit_call("vm.builtin.alloc_tensor", args=[ib.r(1), ib.imm(0), (4,), tvm.DataType("float64")], dst=ib.r(2))
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(0)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    a, _ = _arrays()
    for _ in range(10):
        np.testing.assert_allclose(vm["main"](a).numpy(), 2 * a.numpy())
    assert tvm.get_global_func("vm.StoragePoolSize")(vm.module) == 1

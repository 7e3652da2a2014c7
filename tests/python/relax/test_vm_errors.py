"""Errors of the VM: missing functions, exceptions of registered functions,
argument counts, the run-time checks on parameters (shape, ndim, dtype,
kind, symbolic dims) and bad bytecode. Each names the culprit."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

CTX_X = 'ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((1, "n"), dtype="float32"))'
CTX_Y = 'ErrorContext(fn=main, loc=param[1], param=y, annotation=R.Tensor(("n",), dtype="float32"))'


def _vm(build):
    ib = relax.ExecBuilder()
    build(ib)
    return relax.VirtualMachine(ib.get(), tvm.cpu())


def test_unregistered_function_named_at_first_call():
    def build(ib):
        with ib.function("main", num_inputs=1):
            ib.emit_call("test.vm_py.nowhere_to_be_found", args=[ib.r(0)], dst=ib.r(1))
            ib.emit_ret(ib.r(1))

    vm = _vm(build)
    with pytest.raises(ValueError, match=r"main calls 'test.vm_py.nowhere_to_be_found'.*register"):
        vm["main"](1)
    # registered later: found at the next call
    tvm.register_func("test.vm_py.nowhere_to_be_found", lambda x: x + 41, override=True)
    try:
        assert vm["main"](1) == 42
    finally:
        tvm._ffi.registry.remove_global_func("test.vm_py.nowhere_to_be_found")


def test_exception_in_registered_function_propagates():
    class MyError(KeyError):
        pass

    def bad(x):
        raise MyError("bad input 7")

    def worse(x):
        raise ZeroDivisionError("division by the answer")

    tvm.register_func("test.vm_py.bad", bad, override=True)
    tvm.register_func("test.vm_py.worse", worse, override=True)

    def build(ib):
        with ib.function("main", num_inputs=1):
            ib.emit_call("test.vm_py.bad", args=[ib.r(0)], dst=ib.r(1))
            ib.emit_ret(ib.r(1))
        with ib.function("other", num_inputs=1):
            ib.emit_call("test.vm_py.worse", args=[ib.r(0)], dst=ib.r(1))
            ib.emit_ret(ib.r(1))

    vm = _vm(build)
    with pytest.raises(MyError, match="bad input 7"):
        vm["main"](1)
    with pytest.raises(ZeroDivisionError, match="division by the answer"):
        vm["other"](1)
    # the VM is usable after a failed call
    tvm.register_func("test.vm_py.bad", lambda x: x * 2, override=True)
    vm2 = _vm(build)
    assert vm2["main"](4) == 8


def test_wrong_argument_count_names_function_and_counts():
    def build(ib):
        with ib.function("main", num_inputs=2):
            ib.emit_call("test.vm.add_scalar", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
            ib.emit_ret(ib.r(2))

    vm = _vm(build)
    with pytest.raises(TypeError, match=r"main\(\) takes 2 arguments but 3 were given"):
        vm["main"](1, 2, 3)
    with pytest.raises(TypeError, match=r"main\(\) takes 2 arguments but 1 was given"):
        vm["main"](1)
    assert vm["main"](1, 2) == 3


def _checked_program(ib):
    # main(x: R.Tensor((1, "n"), "float32"), y: R.Tensor(("n",), "float32")) -> shape (n, 1)
    with ib.function("main", num_inputs=2, param_names=["x", "y"]):
        ib.emit_call("vm.builtin.alloc_shape_heap", args=[ib.vm_state(), ib.imm(1)], dst=ib.r(2))
        ib.emit_call("vm.builtin.check_tensor_info", args=[ib.r(0), ib.imm(2), tvm.DataType("float32"),
                                                          ib.convert_constant(CTX_X)])
        ib.emit_call("vm.builtin.check_tensor_info", args=[ib.r(1), ib.imm(1), tvm.DataType("float32"),
                                                          ib.convert_constant(CTX_Y)])
        ib.emit_call("vm.builtin.match_shape", args=[ib.r(0), ib.r(2), ib.imm(2), ib.imm(1), ib.imm(1), ib.imm(2),
                                                    ib.imm(0), ib.convert_constant(CTX_X)])
        ib.emit_call("vm.builtin.match_shape", args=[ib.r(1), ib.r(2), ib.imm(1), ib.imm(3), ib.imm(0),
                                                    ib.convert_constant(CTX_Y)])
        ib.emit_call("vm.builtin.make_shape", args=[ib.r(2), ib.imm(2), ib.imm(1), ib.imm(0), ib.imm(0), ib.imm(1)],
                     dst=ib.r(3))
        ib.emit_ret(ib.r(3))


def test_shape_checks_pass_and_compute_shape():
    vm = _vm(_checked_program)
    x = tvm.nd.array(np.zeros((1, 5), "float32"))
    y = tvm.nd.array(np.zeros((5,), "float32"))
    assert vm["main"](x, y) == (5, 1)


@pytest.mark.parametrize(
    "x_shape,x_dtype,y_shape,err,pattern",
    [
        ((2, 5), "float32", (5,), ValueError, r"param=x.*dimension 0: expected 1 but got 2"),
        ((1, 5, 1), "float32", (5,), ValueError, r"param=x.*expected a tensor of 2 dimensions but got 3"),
        ((1, 5), "float64", (5,), TypeError, r"param=x.*expected dtype float32 but got float64"),
        ((1, 5), "float32", (6,), ValueError, r"param=y.*dimension 0: expected 5 .*but got 6"),
        ((1, 5), "float32", (5,), None, None),
    ],
)
def test_shape_checks_name_parameter_expected_and_actual(x_shape, x_dtype, y_shape, err, pattern):
    vm = _vm(_checked_program)
    x = tvm.nd.array(np.zeros(x_shape, x_dtype))
    y = tvm.nd.array(np.zeros(y_shape, "float32"))
    if err is None:
        assert vm["main"](x, y) == (5, 1)
        return
    with pytest.raises(err, match=pattern):
        vm["main"](x, y)
    assert isinstance(pytest.raises(err, vm["main"], x, y).value, tvm.error.TVMError)
    # the VM still works after the failure
    assert vm["main"](tvm.nd.array(np.zeros((1, 3), "float32")), tvm.nd.array(np.zeros(3, "float32"))) == (3, 1)


def test_kind_checks():
    def build(ib):
        with ib.function("main", num_inputs=1, param_names=["x"]):
            ib.emit_call("vm.builtin.check_tensor_info", args=[ib.r(0), ib.imm(-1), tvm.DataType("float32"),
                                                              ib.convert_constant(CTX_X)])
            ib.emit_ret(ib.r(0))
        with ib.function("tup", num_inputs=1, param_names=["t"]):
            ib.emit_call("vm.builtin.check_tuple_info", args=[ib.r(0), ib.imm(2), ib.convert_constant("ctx of t")])
            ib.emit_ret(ib.r(0))
        with ib.function("shp", num_inputs=1, param_names=["s"]):
            ib.emit_call("vm.builtin.check_shape_info", args=[ib.r(0), ib.imm(2), ib.convert_constant("ctx of s")])
            ib.emit_ret(ib.r(0))
        with ib.function("prim", num_inputs=1, param_names=["p"]):
            ib.emit_call("vm.builtin.check_prim_value_info", args=[ib.r(0), tvm.DataType("int64"),
                                                                  ib.convert_constant("ctx of p")])
            ib.emit_ret(ib.r(0))

    vm = _vm(build)
    with pytest.raises(TypeError, match=r"param=x.*expected a tensor \(R.Tensor\) but got R.Shape"):
        vm["main"](tvm.runtime.ShapeTuple([1, 2]))
    a = tvm.nd.array(np.zeros(2, "float32"))
    with pytest.raises(ValueError, match=r"ctx of t: expected a tuple of 2 fields but got 3"):
        vm["tup"]([a, a, a])
    with pytest.raises(TypeError, match=r"ctx of t: expected a tuple"):
        vm["tup"](a)
    with pytest.raises(ValueError, match=r"ctx of s: expected a shape of 2 dimensions but got 3"):
        vm["shp"](tvm.runtime.ShapeTuple([1, 2, 3]))
    assert vm["shp"](tvm.runtime.ShapeTuple([1, 2])) == [1, 2]
    with pytest.raises(TypeError, match=r"ctx of p: expected a value of dtype int64 but got float"):
        vm["prim"](1.5)
    assert vm["prim"](7) == 7


def test_unbounded_recursion_raises_instead_of_crashing():
    def build(ib):
        ib.declare_function("main", relax.exec_builder.VMFuncKind.VM_FUNC)
        with ib.function("main", num_inputs=1):
            ib.emit_call("main", args=[ib.r(0)], dst=ib.r(1))
            ib.emit_ret(ib.r(1))

    vm = _vm(build)
    with pytest.raises(RecursionError, match=r"VM call depth"):
        vm["main"](1)


def test_builder_misuse():
    ib = relax.ExecBuilder()
    with pytest.raises(ValueError, match=r"function scope"):
        ib.emit_ret(ib.r(0))
    with pytest.raises(ValueError, match=r"no function named nope"):
        ib.f("nope")
    with ib.function("main", num_inputs=1):
        with pytest.raises(TypeError, match=r"not an operand"):
            ib.emit_call("test.vm.add", args=[1.5])
        with pytest.raises(ValueError, match=r"destination of a call must be a register"):
            ib.emit_call("test.vm.add", args=[], dst=ib.vm_state())
        ib.emit_goto(5)  # leaves the function: caught by get()
    with pytest.raises(ValueError, match=r"main.*jump by 5 leaves the function"):
        ib.get()
    ib2 = relax.ExecBuilder()
    with ib2.function("f", num_inputs=0):
        ib2.emit_call("test.vm.noop", args=[])
    with pytest.raises(ValueError, match=r"does not end with ret or goto"):
        ib2.get()


def test_virtual_machine_argument_errors():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=0):
        ib.emit_call("vm.builtin.null_value", args=[], dst=ib.r(0))
        ib.emit_ret(ib.r(0))
    ex = ib.get()
    with pytest.raises(TypeError, match=r"Executable or a runtime Module"):
        relax.VirtualMachine(42, tvm.cpu())
    with pytest.raises(TypeError, match=r"Device"):
        relax.VirtualMachine(ex, "cpu")
    with pytest.raises(tvm.error.TVMError, match=r"profile=True"):
        relax.VirtualMachine(ex, tvm.cpu()).profile("main")
    assert relax.VirtualMachine(ex, tvm.cpu())["main"]() is None
    with pytest.raises(AttributeError, match=r"no function 'nope'"):
        relax.VirtualMachine(ex, tvm.cpu())["nope"]


def test_ctrl_c_in_a_packed_function_stops_the_vm_call():
    # SIGINT while a registered function runs inside a VM call: the call raises
    # KeyboardInterrupt right after that function returns and runs nothing more;
    # afterwards SIGINT is Python's again and the VM runs normally.
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import os, signal
        import tessera as tvm
        from tessera import relax
        calls = []
        @tvm.register_func("test.vm_sigint.step", override=True)
        def step(x):
            calls.append(x)
            if x == 1:
                os.kill(os.getpid(), signal.SIGINT)
            return x
        ib = relax.ExecBuilder()
        with ib.function("main", num_inputs=0):
            ib.emit_call("test.vm_sigint.step", args=[ib.imm(1)], dst=ib.r(0))
            ib.emit_call("test.vm_sigint.step", args=[ib.imm(2)], dst=ib.r(1))
            ib.emit_ret(ib.r(1))
        vm = relax.VirtualMachine(ib.get(), tvm.cpu())
        try:
            vm["main"]()
        except KeyboardInterrupt as e:
            assert "main" in str(e), e
        else:
            raise SystemExit("no KeyboardInterrupt")
        assert calls == [1], calls
        calls.clear()
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
        except KeyboardInterrupt:
            pass
        else:
            raise SystemExit("SIGINT outside the VM did not reach Python")
        print("done")
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "done" in res.stdout, res.stdout + res.stderr

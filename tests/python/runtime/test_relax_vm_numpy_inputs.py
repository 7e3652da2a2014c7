"""VirtualMachine.set_input / save_function take NumPy arrays (converted to NDArrays,
as TVM's VirtualMachine does, which TVM's frontend tests rely on); a direct call
still asks for tvm.nd.array."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax


def _vm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([3], "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            gv = bb.emit_output(bb.emit(relax.op.add(x, y)))
        bb.emit_func_output(gv)
    return relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())


def test_set_input_and_save_function_accept_numpy():
    vm = _vm()
    x, y = np.arange(6, dtype="float32").reshape(2, 3), np.ones(3, "float32")
    vm.set_input("main", x, y=y)
    vm.invoke_stateful("main")
    np.testing.assert_array_equal(vm.get_outputs("main").numpy(), x + y)
    vm.save_function("main", "saved", x, y)
    np.testing.assert_array_equal(vm["saved"]().numpy(), x + y)


def test_direct_call_still_needs_ndarrays():
    with pytest.raises(TypeError, match="tvm.nd.array"):
        _vm()["main"](np.ones((2, 3), "float32"), np.ones(3, "float32"))

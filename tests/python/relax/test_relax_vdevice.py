"""TensorStructInfo's virtual device (tvm.ir.VDevice): the field, its
structural equality, the base check and LCA, erasure keeping it, and its
propagation from the tensor arguments of an operator to the result
(block_builder.cc, struct_info.cc); a module of vdevice tensors builds and
runs, checked against NumPy."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.ir import VDevice
from tessera.relax.analysis import BaseCheckResult as BR
from tessera.script import relax as R

from relax_op_helpers import infer, tensor

LLVM = VDevice("llvm")
CUDA0 = VDevice("cuda", 0)


def on(shape, dtype="float32", vdev=LLVM, name="x"):
    return relax.Var(name, relax.TensorStructInfo(shape, dtype, vdev))


def test_field_and_equality():
    s = relax.TensorStructInfo((2, 3), "float32", LLVM)
    assert s.vdevice == LLVM
    assert relax.TensorStructInfo((2, 3), "float32").vdevice is None
    assert relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=CUDA0).vdevice == CUDA0
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((2, 3), "float32", VDevice("llvm")))
    assert not tvm.ir.structural_equal(s, relax.TensorStructInfo((2, 3), "float32"))
    assert not tvm.ir.structural_equal(s, relax.TensorStructInfo((2, 3), "float32", CUDA0))
    # R.Tensor in plain Python carries it too (positionally or by keyword).
    assert R.Tensor((2, 3), "float32", LLVM).vdevice == LLVM
    assert R.Tensor("float32", ndim=2, vdevice=CUDA0).vdevice == CUDA0


def test_base_check_and_lca():
    bcheck = relax.analysis.struct_info_base_check
    a = relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=LLVM)
    b = relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=CUDA0)
    plain = relax.TensorStructInfo(ndim=2, dtype="float32")
    assert bcheck(a, b) == BR.FAIL_L0
    assert bcheck(CUDA0_sinfo(0), CUDA0_sinfo(2)) == BR.FAIL_L0
    assert bcheck(CUDA0_sinfo(0), relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=VDevice("cuda", 0, ""))) \
        == BR.FAIL_L0
    assert bcheck(a, plain) == BR.FAIL_L1  # not known to be on the device
    assert bcheck(plain, a) == BR.PASS
    assert bcheck(a, relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=VDevice("llvm"))) == BR.PASS
    lca = relax.analysis.struct_info_lca
    tvm.ir.assert_structural_equal(lca(a, b), plain)
    tvm.ir.assert_structural_equal(lca(plain, a), plain)
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(
        lca(relax.TensorStructInfo([n, 2], "int32", LLVM), relax.TensorStructInfo([3, 2], "int32", LLVM)),
        relax.TensorStructInfo(ndim=2, dtype="int32", vdevice=LLVM))


def CUDA0_sinfo(dev_id):  # pylint: disable=invalid-name
    return relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=VDevice("cuda", dev_id))


def test_erase_keeps_vdevice():
    n = tir.Var("n", "int64")
    s = relax.TensorStructInfo([n, 4], "float32", LLVM)
    erased = relax.analysis.erase_to_well_defined(s)
    tvm.ir.assert_structural_equal(erased, relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=LLVM))


def test_operators_propagate_vdevice():
    x, y = on((2, 3)), on((2, 3), name="y")
    tvm.ir.assert_structural_equal(infer(relax.op.add(x, y)), relax.TensorStructInfo((2, 3), "float32", LLVM))
    # One operand on a device, the other unsaid: the result is on that device.
    tvm.ir.assert_structural_equal(infer(relax.op.multiply(x, tensor((1, 3), name="z"))),
                                   relax.TensorStructInfo((2, 3), "float32", LLVM))
    tvm.ir.assert_structural_equal(infer(relax.op.exp(x)), relax.TensorStructInfo((2, 3), "float32", LLVM))
    tvm.ir.assert_structural_equal(infer(relax.op.less(x, y)), relax.TensorStructInfo((2, 3), "bool", LLVM))
    tvm.ir.assert_structural_equal(infer(relax.op.concat([x, y], axis=0)),
                                   relax.TensorStructInfo((4, 3), "float32", LLVM))
    parts = infer(relax.op.split(x, 3, axis=1))
    assert all(f.vdevice == LLVM for f in parts.fields)
    # Without devices nothing changes.
    assert infer(relax.op.add(tensor((2, 3)), tensor((2, 3), name="y"))).vdevice is None


def test_operands_on_different_devices_are_refused():
    with pytest.raises(TypeError, match=r"relax.add.*different virtual devices.*llvm:0:global.*cuda:0:global"):
        relax.BlockBuilder().normalize(relax.op.add(on((2, 3)), on((2, 3), vdev=CUDA0, name="y")))


def test_vdevice_named_by_string_is_refused():
    with pytest.raises(NotImplementedError, match="global_infos"):
        relax.TensorStructInfo((2, 3), "float32", "llvm:0")
    with pytest.raises(TypeError, match="vdevice must be a tvm.ir.VDevice"):
        relax.TensorStructInfo((2, 3), "float32", 3)


def test_build_and_run_on_llvm_vdevice():
    x, y = on((2, 3)), on((2, 3), name="y")
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.multiply(relax.op.add(x, y), y))
        bb.emit_func_output(out)
    mod = bb.get()
    assert mod["main"].ret_struct_info.vdevice == LLVM
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(b)).numpy(), (a + b) * b, rtol=1e-6)


def test_printed_with_its_vdevice():
    assert relax.TensorStructInfo((2, 3), "float32", LLVM).script() == \
        'R.Tensor((2, 3), dtype="float32", vdevice="llvm:0")'
    text = relax.TensorStructInfo(ndim=2, dtype="float32", vdevice=VDevice("cuda", 1, "shared")).script()
    assert text == 'R.Tensor(dtype="float32", ndim=2, vdevice="cuda:1:shared")'

"""tvm.ir.VDevice (python/tessera/ir/global_info.py, an IR object) and tvm.ir.DummyGlobalInfo: a value with target,
vdevice_id and memory_scope, equal by those; bad arguments are errors naming
the parameter; a relax tensor struct info carries one."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import relax as R


def test_fields_and_equality():
    v = tvm.ir.VDevice("llvm")
    assert (str(v.target.kind.name), v.vdevice_id, v.memory_scope) == ("llvm", 0, "global")
    assert v == tvm.ir.VDevice(tvm.target.Target("llvm"), 0, "global")
    assert v != tvm.ir.VDevice("llvm", 1)
    assert len({v, tvm.ir.VDevice("llvm")}) == 1
    assert tvm.ir.VDevice().target is None


def test_bad_arguments():
    with pytest.raises(TypeError, match="VDevice: target must be a Target"):
        tvm.ir.VDevice(3)
    with pytest.raises(ValueError, match="VDevice: vdevice_id must be a non-negative int, got -1"):
        tvm.ir.VDevice("llvm", -1)
    with pytest.raises(TypeError, match="VDevice: memory_scope must be a str"):
        tvm.ir.VDevice("llvm", 0, None)


def test_tensor_on_a_virtual_device():
    # A TensorStructInfo carries a VDevice (tests/python/relax/test_relax_vdevice.py); one named by a
    # string refers to module global_infos, which Tessera's IRModule does not store: refused.
    x = relax.Var("x", R.Tensor((2, 3), "float32", tvm.ir.VDevice("llvm")))
    assert x.struct_info.vdevice == tvm.ir.VDevice("llvm")
    with pytest.raises(NotImplementedError, match="global_infos"):
        relax.TensorStructInfo((2, 3), "float32", "llvm")


def test_dummy_global_info_values():
    # tvm.ir.DummyGlobalInfo (python/tessera/ir/global_info.py): fieldless, so all equal.
    a, b = tvm.ir.DummyGlobalInfo(), tvm.ir.DummyGlobalInfo()
    assert a == b and hash(a) == hash(b) and isinstance(a, tvm.ir.GlobalInfo)
    assert a != tvm.ir.VDevice("llvm")

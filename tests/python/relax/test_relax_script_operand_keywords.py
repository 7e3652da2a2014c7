"""TVMScript calls of operators whose operands have names (R.vm.alloc_storage, R.vm.alloc_tensor,
R.memory.*, R.builtin.alloc_tensor): operands given by keyword, defaults filled in, plain Python
values converted per operand (int -> PrimValue, str -> DataTypeImm), as TVM's Python constructors do.
Compared against the same calls built by the Python op constructors."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import relax as R


def _bindings(mod):
    return mod["foo"].body.blocks[0].bindings


def test_vm_alloc_keywords_and_default_scope():
    @tvm.script.ir_module
    class Mod:
        @R.function(pure=False)
        def foo() -> R.Tensor((32, 64), "int32"):
            obj: R.Object = R.vm.alloc_storage(R.shape([8192]), runtime_device_index=0, dtype="uint8")
            a: R.Tensor((32, 64), "int32") = R.vm.alloc_tensor(obj, offset=0, shape=R.shape([32, 64]), dtype="int32")
            return a

    b = _bindings(Mod)
    want_storage = relax.op.vm.alloc_storage(relax.ShapeExpr([8192]), 0, "uint8")
    tvm.ir.assert_structural_equal(b[0].value.args, want_storage.args)
    want_tensor = relax.op.vm.alloc_tensor(b[0].var, 0, relax.ShapeExpr([32, 64]), "int32")
    tvm.ir.assert_structural_equal(b[1].value.args, want_tensor.args, map_free_vars=True)
    assert b[0].value.args[3].value == "global"


def test_positional_and_keyword_mix_equals_all_positional():
    @tvm.script.ir_module
    class Mod:
        @R.function(pure=False)
        def foo() -> R.Tensor((4,), "float32"):
            a: R.Tensor((4,), "float32") = R.builtin.alloc_tensor(R.shape([4]), "float32", runtime_device_index=0)
            return a

    (bind,) = _bindings(Mod)
    want = relax.op.builtin.alloc_tensor(relax.ShapeExpr([4]), "float32", 0)
    tvm.ir.assert_structural_equal(bind.value.args[:3], want.args[:3])
    assert bind.value.args[3].value == "global"


def _parse_storage(call_src):
    src = f'''
from tessera.script import ir as I, relax as R
@I.ir_module
class Mod:
    @R.function(pure=False)
    def foo():
        obj: R.Object = {call_src}
        return obj
'''
    return tvm.script.from_source(src)


@pytest.mark.parametrize("call_src, needle", [
    ('R.vm.alloc_storage(R.shape([8]), runtime_device_index=0, dtyp="uint8")', "unexpected keyword argument 'dtyp'"),
    ('R.vm.alloc_storage(R.shape([8]), runtime_device_index=0)', "missing required argument 'dtype'"),
    ('R.vm.alloc_storage(R.shape([8]), 0, "uint8", size=R.shape([8]))', "multiple values for argument 'size'"),
])
def test_bad_operand_keywords_name_the_argument(call_src, needle):
    with pytest.raises(tvm.error.TVMError, match=needle):
        _parse_storage(call_src)

"""relax.transform.AttachGlobalSymbol: every function is named by its
"global_symbol" attribute."""
import pytest

import tessera as tvm
from tessera import relax


def _module():
    bb = relax.BlockBuilder()
    bb.add_func(tvm.tir.PrimFunc([], tvm.tir.Evaluate(0)), "kernel")
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(x)
    return bb.get()


def test_every_function_gets_its_name():
    mod = _module()
    after = relax.transform.AttachGlobalSymbol()(mod)
    for gv, func in after.functions.items():
        assert func.attrs["global_symbol"] == gv.name_hint
    # The attribute is all that changed; the input is left alone.
    tvm.ir.assert_structural_equal(after["kernel"], mod["kernel"].with_attr("global_symbol", "kernel"))
    tvm.ir.assert_structural_equal(after["main"], mod["main"].with_attr("global_symbol", "main"))
    assert mod["kernel"].attrs is None or "global_symbol" not in mod["kernel"].attrs


def test_system_lib_prefix_is_refused():
    mod = _module().with_attr("system_lib_prefix", "lib_")
    with pytest.raises(NotImplementedError, match="system_lib_prefix"):
        relax.transform.AttachGlobalSymbol()(mod)

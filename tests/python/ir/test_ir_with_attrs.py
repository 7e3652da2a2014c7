"""BaseFunc.with_attrs / IRModule.with_attrs (python/tessera/ir/function.py,
module.py): every attribute of a dict set on a copy, the original unchanged;
a non-dict or a non-str name is a TypeError naming the method."""
import pytest

import tessera as tvm
from tessera import relax


def _func():
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    return relax.Function([x], x)


def test_function_with_attrs_sets_each_attribute_on_a_copy():
    f = _func()
    g = f.with_attrs({"global_symbol": "foo", "relax.force_pure": True})
    assert dict(g.attrs) == {"global_symbol": "foo", "relax.force_pure": True}
    assert "global_symbol" not in f.attrs
    tvm.ir.assert_structural_equal(g, f.with_attr("global_symbol", "foo").with_attr("relax.force_pure", True))


def test_module_with_attrs_sets_each_attribute_on_a_copy():
    mod = tvm.IRModule({"main": _func()})
    out = mod.with_attrs({"device_num": 1, "name": "m"})
    assert dict(out.attrs) == {"device_num": 1, "name": "m"}
    assert not mod.attrs


@pytest.mark.parametrize("obj", [_func(), tvm.IRModule({"main": _func()})])
def test_with_attrs_bad_inputs(obj):
    with pytest.raises(TypeError, match="with_attrs expects a dict of attributes, got list"):
        obj.with_attrs([("a", 1)])
    with pytest.raises(TypeError, match="with_attrs: attribute names must be str, got int"):
        obj.with_attrs({1: "a"})

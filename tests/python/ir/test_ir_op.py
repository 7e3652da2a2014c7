"""IR bases ready for Relax, seen from Python: operators and their attributes
(tvm.ir.Op.get / get_attr / list_op_names), RelaxExpr as the base of
GlobalVar, Op and functions, and node fields registered once being readable
as attributes."""
import pytest

import tessera as tvm
from tessera.script import tir as T


def test_op_get_and_attributes():
    op = tvm.ir.Op.get("tir.exp")
    assert op.name == "tir.exp"
    assert op.get_attr("TCallEffectKind") == 0
    assert op.get_attr("NoSuchAttribute") is None
    assert op.same_as(tvm.ir.Op.get("tir.exp"))


def test_op_get_unknown_raises_naming_it():
    with pytest.raises(ValueError, match="relax.no_such_op"):
        tvm.ir.Op.get("relax.no_such_op")


def test_list_op_names():
    names = list(tvm.ir.Op.list_op_names())
    assert "tir.exp" in names
    assert names == sorted(names)
    for name in names[:20]:
        assert tvm.ir.Op.get(name).name == name


def test_relax_expr_is_the_base_of_graph_level_nodes():
    gv = tvm.ir.GlobalVar("main")
    assert isinstance(gv, tvm.ir.RelaxExpr)
    assert isinstance(tvm.ir.Op.get("tir.exp"), tvm.ir.RelaxExpr)
    assert tvm.ir.RelayExpr is tvm.ir.RelaxExpr
    assert gv.struct_info_ is None

    @T.prim_func
    def f(a: T.Buffer((4,), "float32")):
        a[0] = T.float32(1)

    assert isinstance(f, tvm.ir.BaseFunc) and isinstance(f, tvm.ir.RelaxExpr)
    assert not isinstance(tvm.tir.IntImm("int32", 1), tvm.ir.RelaxExpr)


def test_registered_fields_are_python_attributes():
    i = tvm.tir.Var("i", "int32")
    loop = tvm.tir.For(i, 0, 8, tvm.tir.ForKind.SERIAL, tvm.tir.Evaluate(0))
    assert loop.loop_var.same_as(i)
    assert int(loop.kind) == 0
    assert "loop_var" in dir(loop) and "span" in dir(loop)
    buf = tvm.tir.decl_buffer((4,), "float32", name="A", scope="shared")
    assert buf.scope() == "shared"  # the method, not shadowed by the field
    with pytest.raises(AttributeError):
        _ = loop.no_such_field

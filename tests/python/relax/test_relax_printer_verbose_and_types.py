"""script(verbose_expr=True) (the free variables' definitions before the
expression, which Tessera's printer writes for Relax nodes; refused for bare
TIR expressions, whose printer does not) and the TVMScript form of the Relax
types (ShapeType, ObjectType, DynTensorType, PackedFuncType, TupleType,
FuncType) that TVM prints; tvm.relax.call_tir and friends at package level."""
import pytest
import tessera as tvm
from tessera import relax, tir


def test_verbose_expr_on_relax_nodes():
    x = tir.Var("x", "int64")
    a = relax.Var("a", relax.TensorStructInfo([1, x, 3], "float32"))
    text = a.script(verbose_expr=True)
    assert text.splitlines() == ["x = T.int64()", 'a: R.Tensor((1, x, 3), dtype="float32")', "a"]
    assert relax.Tuple([a]).script(verbose_expr=True) == relax.Tuple([a]).script()
    assert relax.ShapeStructInfo([1, x]).script(verbose_expr=True).splitlines() == ["x = T.int64()",
                                                                                    "R.Shape([1, x])"]


def test_verbose_expr_on_tir_expressions_is_refused():
    x = tir.Var("x", "int32")
    with pytest.raises(NotImplementedError, match="verbose_expr"):
        (x + 1).script(verbose_expr=True)
    assert (x + 1).script(verbose_expr=False) == "x + 1"


def test_relax_types_print_as_tvmscript():
    assert relax.ShapeType(ndim=3).script() == "R.Shape(ndim=3)"
    assert relax.ObjectType().script() == "R.Object"
    assert relax.DynTensorType().script() == 'R.Tensor(ndim=-1, dtype="float32")'
    assert relax.DynTensorType(ndim=2, dtype=None).script() == 'R.Tensor(ndim=2, dtype="")'
    assert relax.PackedFuncType().script(verbose_expr=True) == "R.PackedFunc"
    tup = relax.TupleType([relax.ShapeType(ndim=3), relax.ObjectType()])
    assert tup._relax_script() == "R.Tuple(R.Shape(ndim=3), R.Object)"  # pylint: disable=protected-access
    fn = relax.FuncType([relax.ObjectType(), relax.ShapeType(ndim=3)], relax.DynTensorType(ndim=3))
    assert fn._relax_script() == (  # pylint: disable=protected-access
        'R.Callable((R.Object, R.Shape(ndim=3)), R.Tensor(ndim=3, dtype="float32"))')
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        relax.ObjectType().script(colour=1)


def test_call_tir_at_package_level():
    assert relax.call_tir is relax.op.call_tir
    assert relax.call_dps_packed is relax.op.call_dps_packed
    assert relax.call_pure_packed is relax.op.call_pure_packed

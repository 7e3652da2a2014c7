"""TVM's struct-info API around the Relax types: tvm.ir.VDevice, the relax
types (ObjectType, ShapeType, DynTensorType, TupleType, FuncType,
PackedFuncType) and get_static_type / Expr.checked_type, the symbolic
variables of a struct info (tir_vars_in_struct_info,
definable_tir_vars_in_struct_info), erase_to_well_defined, get_shape_of, and
struct info equality as structural equality."""
import pytest
import tessera as tvm
from tessera import relax as rx, tir


def test_vdevice_fields_and_structural_equality():
    a = tvm.ir.VDevice("llvm", 0, "global")
    assert a.vdevice_id == 0 and a.memory_scope == "global" and str(a.target.kind.name) == "llvm"
    tvm.ir.assert_structural_equal(a, tvm.ir.VDevice("llvm", 0, "global"))
    assert not tvm.ir.structural_equal(a, tvm.ir.VDevice("llvm", 1, "global"))
    with pytest.raises(ValueError, match=r"VDevice: vdevice_id must be a non-negative int, got -1"):
        tvm.ir.VDevice("llvm", -1)
    assert rx.TensorStructInfo((2,), "float32", a).vdevice == a  # carried (test_relax_vdevice.py)


def test_types_structural_equality():
    tvm.ir.assert_structural_equal(rx.ShapeType(), rx.ShapeType())
    assert not tvm.ir.structural_equal(rx.ShapeType(2), rx.ShapeType(3))
    tvm.ir.assert_structural_equal(rx.DynTensorType(3, "int32"), rx.TensorType(3, "int32"))
    assert not tvm.ir.structural_equal(rx.DynTensorType(3, "int32"), rx.DynTensorType(3, "float32"))
    assert rx.DynTensorType(2, "int8").ndim == 2 and rx.ShapeType(4).ndim == 4


def test_get_static_type():
    n = tir.Var("n", "int64")
    ga = rx.analysis.get_static_type
    tvm.ir.assert_structural_equal(ga(rx.ObjectStructInfo()), rx.ObjectType())
    tvm.ir.assert_structural_equal(ga(rx.PrimStructInfo("float32")), tvm.ir.PrimType("float32"))
    tvm.ir.assert_structural_equal(ga(rx.ShapeStructInfo([1, n, 3])), rx.ShapeType(3))
    t = rx.TensorStructInfo((n, 2), "int64")
    tup = rx.TupleStructInfo([t, rx.TupleStructInfo([rx.ObjectStructInfo()]), rx.ShapeStructInfo(ndim=2)])
    tvm.ir.assert_structural_equal(
        ga(tup), rx.TupleType([rx.DynTensorType(2, "int64"), rx.TupleType([rx.ObjectType()]), rx.ShapeType(2)]))
    f = rx.FuncStructInfo([t], rx.TensorStructInfo(ndim=1, dtype="float32"))
    tvm.ir.assert_structural_equal(ga(f), rx.FuncType([rx.DynTensorType(2, "int64")], rx.DynTensorType(1, "float32")))
    tvm.ir.assert_structural_equal(ga(rx.FuncStructInfo.opaque_func()), rx.PackedFuncType())
    with pytest.raises(TypeError, match=r"get_static_type: expected a StructInfo"):
        ga(3)


def test_checked_type_of_a_normalized_expression():
    x = rx.Var("x", rx.TensorStructInfo((2, 3), "float32"))
    tvm.ir.assert_structural_equal(x.checked_type, rx.DynTensorType(2, "float32"))


def test_tir_vars_and_definable_vars():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    s = rx.TupleStructInfo([rx.TensorStructInfo((n, m + 1), "float32"), rx.PrimStructInfo(value=n * 2)])
    assert [v.name for v in rx.analysis.tir_vars_in_struct_info(s)] == ["n", "m"]
    assert [v.name for v in rx.analysis.definable_tir_vars_in_struct_info(s)] == ["n"]
    assert rx.analysis.tir_vars_in_struct_info(rx.ObjectStructInfo()) == []


def test_erase_to_well_defined():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    s = rx.TensorStructInfo((n, m), "float32")
    tvm.ir.assert_structural_equal(rx.analysis.erase_to_well_defined(s), rx.TensorStructInfo(ndim=2, dtype="float32"))
    k = tir.Var("k", "int64")
    got = rx.analysis.erase_to_well_defined(s, {n: k, m: tir.IntImm("int64", 4)})
    tvm.ir.assert_structural_equal(got, rx.TensorStructInfo((k, 4), "float32"))
    got = rx.analysis.erase_to_well_defined(rx.ShapeStructInfo([n, 2]), {m: k})
    tvm.ir.assert_structural_equal(got, rx.ShapeStructInfo(ndim=2))


def test_get_shape_of():
    n = tir.Var("n", "int64")
    x = rx.Var("x", rx.TensorStructInfo((n, 3), "float32"))
    tvm.ir.assert_structural_equal(rx.get_shape_of(x), rx.ShapeExpr([n, 3]))
    y = rx.Var("y", rx.TensorStructInfo(ndim=2, dtype="float32"))
    assert rx.get_shape_of(y).op == tvm.ir.Op.get("relax.shape_of")
    with pytest.raises(TypeError, match=r"get_shape_of: expected a tensor"):
        rx.get_shape_of(rx.Var("s", rx.ShapeStructInfo(ndim=1)))


def test_struct_info_equality_is_structural():
    n = tir.Var("n", "int64")
    assert rx.TensorStructInfo((n, 2), "float32") == rx.TensorStructInfo((n, 2), "float32")
    assert rx.TensorStructInfo((3, 2), "float32") != rx.TensorStructInfo((3, 2), "int32")
    assert rx.ShapeStructInfo([1, 2]) == rx.ShapeStructInfo([1, 2])


def test_erase_to_well_defined_simplifies_and_var_map():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    s = rx.ShapeStructInfo([1, n + 1, m])
    tvm.ir.assert_structural_equal(rx.analysis.erase_to_well_defined(s, {n: 2, m: m + 1}),
                                   rx.ShapeStructInfo([1, 3, m + 1]))
    shape = rx.Var("shape", rx.ShapeStructInfo(ndim=2))
    t = rx.TensorStructInfo(shape, "float32")
    tvm.ir.assert_structural_equal(rx.analysis.erase_to_well_defined(t), rx.TensorStructInfo(ndim=2, dtype="float32"))
    tvm.ir.assert_structural_equal(rx.analysis.erase_to_well_defined(t, None, {shape: rx.ShapeExpr([1, 2])}),
                                   rx.TensorStructInfo((1, 2), "float32"))


def test_collect_non_negative_expressions_and_base_check_result():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    f = rx.FuncStructInfo([rx.TensorStructInfo((4, n, m - 2), "float32"), rx.ShapeStructInfo([n, m]),
                           rx.PrimStructInfo(value=m)], rx.ObjectStructInfo())
    got = rx.analysis.collect_non_negative_expressions(f)
    tvm.ir.assert_structural_equal(got, [n, m - 2, m])
    assert rx.analysis.collect_non_negative_expressions(rx.PrimStructInfo(value=n)) == []
    BR = rx.analysis.BaseCheckResult
    assert rx.analysis.struct_info_base_check(rx.ObjectStructInfo(), rx.PrimStructInfo("int32")) == BR.PASS
    assert rx.analysis.struct_info_base_check(rx.PrimStructInfo("int32"), rx.PrimStructInfo("float32")) == BR.FAIL_L0


def test_defined_and_free_symbolic_vars():
    n, m, k = tir.Var("n", "int64"), tir.Var("m", "int64"), tir.Var("k", "int64")
    bb = rx.BlockBuilder()
    x = rx.Var("x", rx.TensorStructInfo([m, m + n], "float32"))
    with bb.function("main", [x]):
        bb.match_cast(x, rx.TensorStructInfo([m, k], "float32"))
        bb.emit_func_output(rx.const(1))
    func = bb.get()["main"]
    assert {v.name for v in rx.analysis.defined_symbolic_vars(func)} == {"m", "k"}
    assert {v.name for v in rx.analysis.free_symbolic_vars(func)} == {"n"}


def test_empty_dtype_is_unknown():
    n = tir.Var("n", "int64")
    s = rx.TensorStructInfo((n, 2), dtype="")
    assert s.dtype == "" and s.ndim == 2
    tvm.ir.assert_structural_equal(s, rx.TensorStructInfo((n, 2), dtype=None))


def test_types_compare_structurally_with_eq():
    assert rx.ShapeType() == rx.ShapeType() and rx.ShapeType(2) != rx.ShapeType(3)
    assert rx.DynTensorType(3, "int32") == rx.DynTensorType(3, "int32")
    assert len({rx.ObjectType(), rx.ObjectType()}) == 1

"""Relax IR core (issue [D]): node construction, struct info, the
BlockBuilder's normalizer (A-normal form, inference, symbolic-dim
unification), op inference errors, structural equality of Relax
(alpha-equivalence), JSON and the IRModule API on Relax functions. Expected
IR is written by hand with the node constructors; struct info is compared
with the TVMScript-form text and with hand-built StructInfo nodes."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.ir import Op


def tensor(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def linear_module(n_name="n", x_name="x"):
    """main(x: (n, 784)) -> relu(linear(x)) through call_dps_packed, nested as one expression."""
    n = tir.Var(n_name, "int64")
    x = relax.Var(x_name, tensor((n, 784)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            inner = relax.op.call_dps_packed("env.linear", [x], tensor((n, 128)))
            out = bb.emit(relax.op.call_dps_packed("env.relu", [inner], tensor((n, 128))))
            gv = bb.emit_output(out)
        bb.emit_func_output(gv)
    return bb.get(), n, x


# ---- construction and struct info -------------------------------------------------------------------------


def test_struct_info_nodes():
    n = tir.Var("n", "int64")
    t = relax.TensorStructInfo((1, n), "float32")
    assert t.ndim == 2 and t.dtype == "float32"
    assert isinstance(t.shape, relax.ShapeExpr) and int(t.shape.values[0]) == 1 and t.shape.values[1].same_as(n)
    assert repr(t) == 'R.Tensor((1, n), dtype="float32")'
    assert relax.TensorStructInfo(ndim=3, dtype="int32").shape is None
    assert relax.TensorStructInfo(ndim=3, dtype=None).dtype == ""
    s = relax.ShapeStructInfo([n, 4])
    assert s.ndim == 2 and repr(s) == "R.Shape([n, 4])"
    assert relax.ShapeStructInfo(ndim=3).values is None
    assert relax.PrimStructInfo("int64").dtype == "int64"
    assert relax.PrimStructInfo(value=n).value.same_as(n)
    tup = relax.TupleStructInfo([t, s])
    assert len(tup.fields) == 2
    f = relax.FuncStructInfo([t], s)
    assert f.purity and len(f.params) == 1
    assert relax.FuncStructInfo.opaque_func(ret=relax.ObjectStructInfo()).params is None


def test_struct_info_is_base_of():
    n = tir.Var("n", "int64")
    assert relax.ObjectStructInfo().is_base_of(tensor((1, 2)))
    assert relax.TensorStructInfo(ndim=2, dtype="float32").is_base_of(tensor((1, 2)))
    assert not tensor((1, 2)).is_base_of(relax.TensorStructInfo(ndim=2, dtype="float32"))
    assert not tensor((1, 2)).is_base_of(tensor((1, 3)))
    assert not tensor((1, 2)).is_base_of(tensor((1, 2), "int32"))
    assert tensor((n, 2)).is_base_of(tensor((n, 2)))
    assert not tensor((n, 2)).is_base_of(tensor((3, 2)))  # needs a run-time check


def test_expression_nodes():
    n = tir.Var("n", "int64")
    shape = relax.ShapeExpr([1, n])
    assert shape.struct_info.ndim == 2 and shape.values[0].dtype == "int64"
    pv = relax.PrimValue(3)
    assert pv.struct_info.dtype == "int64" and int(pv.value) == 3
    assert isinstance(relax.StringImm("a").struct_info, relax.ObjectStructInfo)
    assert isinstance(relax.DataTypeImm("float32").struct_info, relax.ObjectStructInfo)
    ext = relax.ExternFunc("env.f")
    assert ext.global_symbol == "env.f" and ext.struct_info.params is None
    c = relax.const(np.arange(6, dtype="float32").reshape(2, 3))
    assert repr(c.struct_info) == 'R.Tensor((2, 3), dtype="float32")'
    np.testing.assert_array_equal(c.data.numpy(), np.arange(6).reshape(2, 3))
    v = relax.Var("v", tensor((2, 3)))
    tup = relax.Tuple([v, c])
    assert repr(tup.struct_info) == 'R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"))'
    item = tup[1]
    assert item.same_as(c)
    tgi = v[0]
    assert isinstance(tgi, relax.TupleGetItem) and tgi.index == 0
    df = relax.DataflowVar("d", tensor((2,)))
    assert isinstance(df, relax.Var)


def test_const_dtypes_follow_tvm():
    assert relax.const(1.0).data.dtype == "float32"
    assert relax.const(1).data.dtype == "int32"
    assert relax.const(np.ones(3)).data.dtype == "float32"  # float64 -> float32 without dtype
    assert relax.const(np.ones(3), "float64").data.dtype == "float64"
    assert relax.const([1, 2], "int64").data.dtype == "int64"
    assert relax.const(True).data.dtype == "bool"
    nd = tvm.nd.array(np.ones((2, 2), dtype="float16"))
    assert relax.const(nd).data.same_as(nd)


# ---- the normalizer ----------------------------------------------------------------------------------


def test_block_builder_anf_and_inference():
    mod, n, x = linear_module()
    main = mod["main"]
    assert main.attrs["global_symbol"] == "main"
    assert repr(main.ret_struct_info) == 'R.Tensor((n, 128), dtype="float32")'
    blocks = main.body.blocks
    assert len(blocks) == 1 and isinstance(blocks[0], relax.DataflowBlock)
    b0, b1, b2 = blocks[0].bindings
    # The nested call was bound to a fresh dataflow var first (A-normal form).
    assert isinstance(b0.var, relax.DataflowVar) and b0.value.args[0].global_symbol == "env.linear"
    assert b1.value.args[1].fields[0].same_as(b0.var)
    assert isinstance(b2.var, relax.Var) and not isinstance(b2.var, relax.DataflowVar)
    assert main.body.body.same_as(b2.var)
    for b in (b0, b1, b2):
        assert repr(b.var.struct_info) == 'R.Tensor((n, 128), dtype="float32")'
    assert [b.var.name_hint for b in (b0, b1, b2)] == ["lv", "lv1", "gv"]
    # The GlobalVar carries the function's signature.
    assert repr(mod.get_global_var("main").struct_info) == repr(main.struct_info)


def test_block_builder_matches_hand_written_function():
    mod, _, _ = linear_module()
    # The same function written node by node, already in A-normal form.
    n = tir.Var("m", "int64")
    x = relax.Var("inp", tensor((n, 784)))
    out = tensor((n, 128))
    a = relax.DataflowVar("a", out)
    b = relax.DataflowVar("b", out)
    c = relax.Var("c", out)
    call = lambda f, arg: relax.Call(Op.get("relax.call_dps_packed"), [relax.ExternFunc(f), relax.Tuple([arg])],
                                     None, [out])
    block = relax.DataflowBlock([relax.VarBinding(a, call("env.linear", x)), relax.VarBinding(b, call("env.relu", a)),
                                 relax.VarBinding(c, b)])
    expected = relax.Function([x], relax.SeqExpr([block], c), out).with_attr("global_symbol", "main")
    tvm.ir.assert_structural_equal(mod["main"], expected)
    assert tvm.ir.structural_hash(mod["main"]) == tvm.ir.structural_hash(expected)
    # A different static dim is a structural difference.
    x2 = relax.Var("inp", tensor((n, 783)))
    wrong = relax.Function([x2], relax.SeqExpr([block], c), out).with_attr("global_symbol", "main")
    assert not tvm.ir.structural_equal(mod["main"], wrong)


def test_normalize_nested_call_outside_function_binds_in_open_block():
    x = relax.Var("x", tensor((4,)))
    bb = relax.BlockBuilder()
    bb._begin_binding_block()
    nested = relax.op.call_pure_packed("f", relax.op.call_pure_packed("g", x, sinfo_args=tensor((4,))),
                                       sinfo_args=tensor((2,)))
    normalized = bb.normalize(nested)
    assert isinstance(normalized.args[1], relax.Var)
    assert repr(normalized.struct_info) == 'R.Tensor((2,), dtype="float32")'
    block = bb._end_block()
    assert len(block.bindings) == 1 and block.bindings[0].var.same_as(normalized.args[1])


def test_normalize_without_open_block_raises():
    x = relax.Var("x", tensor((4,)))
    nested = relax.op.call_pure_packed("f", relax.op.call_pure_packed("g", x, sinfo_args=tensor((4,))),
                                       sinfo_args=tensor((2,)))
    with pytest.raises(ValueError, match="no block is open"):
        relax.BlockBuilder().normalize(nested)


def test_call_of_relax_function_unifies_symbolic_dims():
    bb = relax.BlockBuilder()
    n = tir.Var("n", "int64")
    y = relax.Var("y", tensor((n, 4)))
    with bb.function("sub", [y]):
        gv = bb.emit(relax.op.call_pure_packed("f", y, sinfo_args=tensor((n,))))
        bb.emit_func_output(gv)
    sub = bb.get().get_global_var("sub")
    x = relax.Var("x", tensor((8, 4)))
    with bb.function("main", [x]):
        r = bb.emit(relax.Call(sub, [x]))
        bb.emit_func_output(r)
    assert repr(r.struct_info) == 'R.Tensor((8,), dtype="float32")'
    assert repr(bb.get()["main"].ret_struct_info) == 'R.Tensor((8,), dtype="float32")'


def test_call_of_relax_function_errors_name_the_callee():
    bb = relax.BlockBuilder()
    n = tir.Var("n", "int64")
    y = relax.Var("y", tensor((n, n)))
    with bb.function("sub", [y]):
        bb.emit_func_output(y)
    sub = bb.get().get_global_var("sub")
    cases = [
        ([relax.Var("a", tensor((3, 4)))], ValueError, "sub.*argument 0.*conflicting value 4 for symbolic dim 'n'"),
        ([relax.Var("a", tensor((3, 3), "int32"))], TypeError, "sub.*argument 0.*dtype int32"),
        ([relax.Var("a", tensor((3, 3))), relax.Var("b", tensor((3, 3)))], TypeError, "sub.*expects 1 argument"),
        ([relax.Var("a", relax.ShapeStructInfo([3, 3]))], TypeError, "sub.*argument 0 is not a tensor"),
    ]
    for args, err, pattern in cases:
        bb2 = relax.BlockBuilder(bb.get())
        with pytest.raises(err, match=pattern):
            with bb2.function("main", args):
                bb2.emit(relax.Call(sub, args))
                bb2.emit_func_output(args[0])


def test_match_cast_defines_symbolic_vars():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(ndim=2, dtype="float32"))
    m = tir.Var("m", "int64")
    with bb.function("main", [x]):
        y = bb.match_cast(x, tensor((m, 3)))
        z = bb.emit(relax.op.call_pure_packed("f", y, sinfo_args=tensor((m,))))
        bb.emit_func_output(z)
    main = bb.get()["main"]
    assert isinstance(main.body.blocks[0].bindings[0], relax.MatchCast)
    assert repr(z.struct_info) == 'R.Tensor((m,), dtype="float32")'
    # m is defined inside the body only: the return erases it, keeping ndim.
    assert repr(main.ret_struct_info) == 'R.Tensor(dtype="float32", ndim=1)'


def test_match_cast_that_can_never_succeed_is_refused():
    bb = relax.BlockBuilder()
    x = relax.Var("x", tensor((2, 3)))
    with pytest.raises(TypeError, match="match_cast 'y'.*can never match"):
        with bb.function("main", [x]):
            bb.match_cast(x, relax.ShapeStructInfo(ndim=2), "y")


def test_binding_annotation_is_checked():
    x = relax.Var("x", tensor((2, 3)))
    bad = relax.Var("bad", tensor((2, 3), "int32"))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(bad, x)])], bad)
    with pytest.raises(TypeError, match="binding 'bad'.*does not match the annotation"):
        relax.BlockBuilder().normalize(relax.Function([x], body))


def test_function_return_annotation_is_checked():
    x = relax.Var("x", tensor((2, 3)))
    f = relax.Function([x], relax.SeqExpr([], x), relax.ShapeStructInfo(ndim=2))
    with pytest.raises(TypeError, match="does not match the annotated return"):
        relax.BlockBuilder().normalize(f)


def test_if_branches_become_seq_exprs_and_join():
    c = relax.Var("c", relax.TensorStructInfo((), "bool"))
    x = relax.Var("x", tensor((2, 3)))
    y = relax.Var("y", tensor((4, 3)))
    bb = relax.BlockBuilder()
    with bb.function("main", [c, x, y]):
        r = bb.emit(relax.If(c, relax.op.call_pure_packed("f", x, sinfo_args=tensor((2, 3))), y))
        bb.emit_func_output(r)
    value = bb.get()["main"].body.blocks[0].bindings[0].value
    assert isinstance(value.true_branch, relax.SeqExpr) and isinstance(value.false_branch, relax.SeqExpr)
    assert len(value.true_branch.blocks) == 1  # the call was bound inside the branch
    assert repr(r.struct_info) == 'R.Tensor(dtype="float32", ndim=2)'
    with pytest.raises(TypeError, match="If: the condition"):
        relax.BlockBuilder().normalize(relax.Function([x], relax.If(relax.ShapeExpr([1]), x, x)))


def test_tuple_and_tuple_get_item_inference():
    x = relax.Var("x", tensor((2,)))
    s = relax.Var("s", relax.ShapeStructInfo([2]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, s]):
        t = bb.emit(relax.Tuple([x, s]))
        i = bb.emit(relax.TupleGetItem(t, 1))
        bb.emit_func_output(i)
    assert repr(i.struct_info) == "R.Shape([2])"
    with pytest.raises(IndexError, match="index 5 out of range"):
        with bb.function("g", [x, s]):
            t = bb.emit(relax.Tuple([x, s]))
            bb.emit(relax.TupleGetItem(t, 5))


# ---- core op inference and its errors -----------------------------------------------------------------


def emit_in_function(call, params):
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        v = bb.emit(call)
        bb.emit_func_output(v)
    return v


def test_core_op_inference():
    n = tir.Var("n", "int64")
    x = relax.Var("x", tensor((n, 4)))
    gv = tvm.ir.GlobalVar("prim")
    assert repr(emit_in_function(relax.op.call_tir(gv, [x], tensor((n, 2))), [x]).struct_info) == \
        'R.Tensor((n, 2), dtype="float32")'
    two = emit_in_function(relax.op.call_tir(gv, [x], [tensor((n, 2)), tensor((4,), "int32")]), [x])
    assert isinstance(two.struct_info, relax.TupleStructInfo)
    assert repr(emit_in_function(relax.op.shape_of(x), [x]).struct_info) == "R.Shape([n, 4])"
    assert isinstance(emit_in_function(relax.op.null_value(), [x]).struct_info, relax.ObjectStructInfo)
    alloc = emit_in_function(relax.op.builtin.alloc_tensor((2, 3), "float16", 0), [x])
    assert repr(alloc.struct_info) == 'R.Tensor((2, 3), dtype="float16")'
    storage = relax.Var("st", relax.ObjectStructInfo())
    t = emit_in_function(relax.op.memory.alloc_tensor(storage, 0, (8,), "int8"), [storage])
    assert repr(t.struct_info) == 'R.Tensor((8,), dtype="int8")'
    assert Op.get("relax.call_tir").get_attr("FPurity") is True
    assert Op.get("relax.print").get_attr("FPurity") is False
    assert Op.get("relax.vm.alloc_storage").get_attr("FPurity") is False


@pytest.mark.parametrize("make, err, pattern", [
    (lambda x, gv: relax.Call(Op.get("relax.call_tir"), [gv], None, [tensor((2,))]), TypeError,
     r"relax.call_tir expects 2 to 3 arguments, got 1"),
    (lambda x, gv: relax.Call(Op.get("relax.call_tir"), [x, relax.Tuple([x])], None, [tensor((2,))]), TypeError,
     r"relax.call_tir: operand 'func' \(argument 0\) must be a GlobalVar"),
    (lambda x, gv: relax.Call(Op.get("relax.call_tir"), [gv, x], None, [tensor((2,))]), TypeError,
     r"relax.call_tir: operand 'args' \(argument 1\) must be a tuple"),
    (lambda x, gv: relax.Call(Op.get("relax.call_tir"), [gv, relax.Tuple([x])], None, []), TypeError,
     r"relax.call_tir: expects 1 output struct info"),
    (lambda x, gv: relax.op.call_tir(gv, [x], relax.TensorStructInfo(ndim=2, dtype="float32")), ValueError,
     r"relax.call_tir: out_sinfo needs a shape"),
    (lambda x, gv: relax.op.call_tir(gv, [x], relax.TensorStructInfo((2,), None)), ValueError,
     r"relax.call_tir: out_sinfo needs a dtype"),
    (lambda x, gv: relax.op.call_tir(gv, [x], relax.ShapeStructInfo([2])), TypeError,
     r"relax.call_tir: out_sinfo must be a TensorStructInfo"),
    (lambda x, gv: relax.Call(Op.get("relax.call_dps_packed"), [gv, relax.Tuple([x])], None, [tensor((2,))]),
     TypeError, r"relax.call_dps_packed: operand 'func' \(argument 0\) must be an ExternFunc"),
    (lambda x, gv: relax.Call(Op.get("relax.shape_of"), [relax.ShapeExpr([1])]), TypeError,
     r"relax.shape_of: operand 'expr' \(argument 0\) must be a tensor, got R.Shape\(\[1\]\)"),
    (lambda x, gv: relax.Call(Op.get("relax.shape_of"), [x, x]), TypeError, r"relax.shape_of expects 1 argument, got 2"),
    (lambda x, gv: relax.Call(Op.get("relax.builtin.alloc_tensor"), [relax.ShapeExpr([2]), relax.StringImm("f"),
                                                                      relax.PrimValue(0)]),
     TypeError, r"relax.builtin.alloc_tensor: operand 'dtype' \(argument 1\) must be a DataTypeImm"),
    (lambda x, gv: relax.Call(Op.get("relax.builtin.alloc_tensor"), [x, relax.DataTypeImm("float32"),
                                                                      relax.PrimValue(0)]),
     TypeError, r"relax.builtin.alloc_tensor: operand 'shape' \(argument 0\) must be a shape"),
    (lambda x, gv: relax.Call(Op.get("relax.memory.alloc_storage"), [relax.ShapeExpr([8]), relax.PrimValue(0),
                                                                      relax.StringImm("global"), x]),
     TypeError, r"relax.memory.alloc_storage: operand 'dtype' \(argument 3\) must be a DataTypeImm"),
    (lambda x, gv: relax.Call(Op.get("relax.vm.kill_object"), []), TypeError, r"relax.vm.kill_object expects 1 argument"),
    (lambda x, gv: relax.Call(Op.get("relax.call_pure_packed"), [x], None, [tensor((2,))]), TypeError,
     r"relax.call_pure_packed: operand 'func' \(argument 0\) must be an ExternFunc, got relax.Var"),
    (lambda x, gv: relax.Call(Op.get("relax.call_pure_packed"), [], None, [tensor((2,))]), TypeError,
     r"relax.call_pure_packed expects at least 1 arguments, got 0"),
    (lambda x, gv: relax.Call(Op.get("relax.call_dps_packed"), [relax.ExternFunc("f"), relax.Tuple([x]), x], None,
                              [tensor((2,))]), TypeError, r"relax.call_dps_packed expects 2 arguments, got 3"),
    (lambda x, gv: relax.Call(Op.get("relax.null_value"), [x]), TypeError, r"relax.null_value expects 0 arguments, got 1"),
    (lambda x, gv: relax.Call(Op.get("relax.memory.alloc_tensor"), [x, relax.PrimValue(0), relax.ShapeExpr([2]),
                                                                     relax.DataTypeImm("float32")][:3]),
     TypeError, r"relax.memory.alloc_tensor expects 4 arguments, got 3"),
    (lambda x, gv: relax.Call(Op.get("relax.memory.alloc_tensor"), [x, relax.StringImm("0"), relax.ShapeExpr([2]),
                                                                     relax.DataTypeImm("float32")]),
     TypeError, r"relax.memory.alloc_tensor: operand 'offset' \(argument 1\) must be a PrimValue"),
    (lambda x, gv: relax.Call(Op.get("relax.memory.kill_storage"), [x, x]), TypeError,
     r"relax.memory.kill_storage expects 1 argument, got 2"),
    (lambda x, gv: relax.Call(Op.get("relax.memory.kill_tensor"), []), TypeError,
     r"relax.memory.kill_tensor expects 1 argument, got 0"),
    (lambda x, gv: relax.Call(Op.get("relax.vm.alloc_storage"), [relax.ShapeExpr([8]), relax.PrimValue(0),
                                                                  relax.StringImm("global"), relax.DataTypeImm("uint8")]),
     TypeError, r"relax.vm.alloc_storage: operand 'dtype' \(argument 2\) must be a DataTypeImm, got relax.StringImm"),
    (lambda x, gv: relax.Call(Op.get("relax.vm.alloc_tensor"), [x, relax.PrimValue(0), x, relax.DataTypeImm("float32")]),
     TypeError, r"relax.vm.alloc_tensor: operand 'shape' \(argument 2\) must be a shape"),
    (lambda x, gv: relax.Call(Op.get("relax.vm.call_tir_dyn"), [x, relax.Tuple([x])]), TypeError,
     r"relax.vm.call_tir_dyn: operand 'func' \(argument 0\) must be a GlobalVar"),
    (lambda x, gv: relax.op.call_tir(gv, [x], tensor((2,)), tir_vars=relax.Tuple([])), TypeError,
     r"relax.call_tir: operand 'tir_vars' \(argument 2\) must be a shape"),
    (lambda x, gv: relax.Call(Op.get("relax.print"), [x]), TypeError, r"relax.print: operand 'format'"),
])
def test_core_op_inference_errors(make, err, pattern):
    x = relax.Var("x", tensor((2,)))
    gv = tvm.ir.GlobalVar("prim")
    with pytest.raises(err, match=pattern):
        emit_in_function(make(x, gv), [x])


def test_op_without_inference_is_refused():
    x = relax.Var("x", tensor((2,)))
    with pytest.raises(ValueError, match="'tir.exp' has no FInferStructInfo"):
        emit_in_function(relax.Call(Op.get("tir.exp"), [x]), [x])


# ---- structural equality, JSON ------------------------------------------------------------------------


def test_alpha_equivalence_of_vars_and_symbolic_dims():
    a, _, _ = linear_module("n", "x")
    b, _, _ = linear_module("k", "y")
    tvm.ir.assert_structural_equal(a, b)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    # The same symbolic var used for two dims is not the same as two vars.
    def two_dims(same):
        n = tir.Var("n", "int64")
        m = n if same else tir.Var("m", "int64")
        x = relax.Var("x", tensor((n, m)))
        return relax.BlockBuilder().normalize(relax.Function([x], relax.SeqExpr([], x)))
    assert tvm.ir.structural_equal(two_dims(True), two_dims(True))
    assert not tvm.ir.structural_equal(two_dims(True), two_dims(False))


def test_free_relax_vars_compare_by_identity():
    x = relax.Var("x", tensor((2,)))
    y = relax.Var("x", tensor((2,)))
    assert tvm.ir.structural_equal(relax.Tuple([x]), relax.Tuple([x]))
    assert not tvm.ir.structural_equal(relax.Tuple([x]), relax.Tuple([y]))
    assert tvm.ir.structural_equal(relax.Tuple([x]), relax.Tuple([y]), map_free_vars=True)


def test_json_round_trip_keeps_structure_and_sharing():
    mod, _, _ = linear_module()
    loaded = tvm.ir.load_json(tvm.ir.save_json(mod))
    tvm.ir.assert_structural_equal(mod, loaded)
    main = loaded["main"]
    b0, b1, _ = main.body.blocks[0].bindings
    assert b1.value.args[1].fields[0].same_as(b0.var)
    assert repr(b0.var.struct_info) == 'R.Tensor((n, 128), dtype="float32")'


# ---- IRModule API -------------------------------------------------------------------------------------


def test_ir_module_api_with_relax_functions():
    mod, _, _ = linear_module()
    gv = mod.get_global_var("main")
    assert mod[gv].same_as(mod["main"])
    assert [g.name_hint for g in mod.get_global_vars()] == ["main"]
    assert [(g.name_hint, type(f).__name__) for g, f in mod.functions.items()] == [("main", "Function")]
    f = mod["main"].with_attr("relax.force_pure", True)
    assert f.attrs["relax.force_pure"] and "relax.force_pure" not in mod["main"].attrs
    assert "global_symbol" not in f.without_attr("global_symbol").attrs
    mod.update_func(gv, f)
    assert mod["main"].same_as(f)
    single = tvm.IRModule.from_expr(f.without_attr("global_symbol"))
    assert [g.name_hint for g in single.get_global_vars()] == ["main"]
    with pytest.raises(ValueError, match="nope"):
        mod.get_global_var("nope")


def test_block_builder_add_and_update_func():
    bb = relax.BlockBuilder()
    x = relax.Var("x", tensor((2,)))
    f = relax.Function([x], relax.SeqExpr([], x))
    g1 = bb.add_func(f, "f")
    assert bb.add_func(f, "f").same_as(g1)  # the same function object, the same name
    g2 = bb.add_func(relax.Function([x], relax.SeqExpr([], x)), "f")
    assert g2.name_hint == "f1"
    y = relax.Var("y", tensor((3,)))
    bb.update_func(g1, relax.Function([y], relax.SeqExpr([], y)))
    assert repr(bb.get()["f"].ret_struct_info) == 'R.Tensor((3,), dtype="float32")'
    assert repr(g1.struct_info) == repr(bb.get()["f"].struct_info)


def test_emit_func_output_with_params_at_end():
    bb = relax.BlockBuilder()
    x = relax.Var("x", tensor((2,)))
    with bb.function("main"):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=tensor((2,))))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv, params=[x])
    assert bb.get()["main"].params[0].same_as(x)


def test_block_builder_misuse_errors():
    bb = relax.BlockBuilder()
    x = relax.Var("x", tensor((2,)))
    with pytest.raises(RuntimeError, match="emit_func_output must be called"):
        with bb.function("main", [x]):
            pass
    with pytest.raises(ValueError, match="emit_output is only allowed inside a dataflow block"):
        with bb.function("main", [x]):
            bb.emit_output(x)
    with pytest.raises(RuntimeError, match="must have parameter"):
        with bb.function("main"):
            bb.emit_func_output(x)
    with pytest.raises(ValueError, match="more than once"):  # output is the input placeholder itself
        bb.emit_te(lambda a: a, x)
    with pytest.raises(TypeError, match="emit: expected a relax Expr"):
        with bb.function("main", [x]):
            bb.emit(3)


# ---- bad inputs to constructors -----------------------------------------------------------------------


@pytest.mark.parametrize("build, pattern", [
    (lambda: relax.Var(3), "name_hint must be a str"),
    (lambda: relax.Var("x", 3), "struct_info must be a relax StructInfo"),
    (lambda: relax.Call(relax.Var("f", relax.ObjectStructInfo()), [1]), "Call argument 0 must be a relax Expr"),
    (lambda: relax.Call(None, []), "Call: op must be a relax Expr"),
    (lambda: relax.Tuple([None]), "Tuple field 0 must be a relax Expr"),
    (lambda: relax.TupleGetItem(relax.Tuple([]), "0"), "index must be an int"),
    (lambda: relax.ShapeExpr(3), "values must be a list"),
    (lambda: relax.ShapeExpr([1.5]), "dim 0 must be an integer expression"),
    (lambda: relax.Function([3], relax.Tuple([])), "parameter 0 must be a relax Var"),
    (lambda: relax.Function([relax.Var("x")], relax.Tuple([])), "parameter 'x' has no struct info"),
    (lambda: relax.SeqExpr([None], relax.Tuple([])), "block 0 must be a BindingBlock"),
    (lambda: relax.SeqExpr([], None), "body must be a relax Expr"),
    (lambda: relax.VarBinding(None, relax.Tuple([])), "var must be a relax Var"),
    (lambda: relax.MatchCast(relax.Var("v"), relax.Tuple([]), None), "struct_info must be a StructInfo"),
    (lambda: relax.Constant(np.ones(2)), "data must be a tvm.nd.NDArray"),
    (lambda: relax.TupleStructInfo([1]), "field 0 must be a StructInfo"),
    (lambda: relax.TensorStructInfo(3, "float32"), "shape must be a list/tuple"),
    (lambda: relax.FuncStructInfo([relax.ObjectStructInfo()], None), "ret must be a StructInfo"),
    (lambda: relax.const(object()), "cannot make a constant"),
])
def test_constructor_type_errors(build, pattern):
    with pytest.raises(TypeError, match=pattern):
        build()


def test_unavailable_names_still_raise():
    with pytest.raises(NotImplementedError, match="relax.op.unique"):
        relax.op.unique  # pylint: disable=pointless-statement


def test_failed_emit_leaves_the_block_unchanged():
    x = relax.Var("x", tensor((2,)))
    bb = relax.BlockBuilder()
    bb._begin_binding_block()
    bb.emit(relax.op.call_pure_packed("ok", x, sinfo_args=tensor((2,))))
    # The nested call is fine; the outer shape_of gets a tuple and fails.
    bad = relax.op.shape_of(relax.Tuple([relax.op.call_pure_packed("g", x, sinfo_args=tensor((2,)))]))
    with pytest.raises(TypeError, match="relax.shape_of"):
        bb.emit(bad)
    with pytest.raises(TypeError, match="relax.shape_of"):
        bb.normalize(bad)
    assert len(bb._end_block().bindings) == 1


def test_call_of_extern_func_uses_sinfo_args():
    # R.call_packed("f", x, sinfo_args=...) is a call of an ExternFunc value (opaque, impure).
    x = relax.Var("x", tensor((4,)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x], pure=False):
        y = bb.emit(relax.Call(relax.ExternFunc("env.f"), [x], sinfo_args=[tensor((4,))]))
        z = bb.emit(relax.Call(relax.ExternFunc("env.g"), [x]))
        bb.emit_func_output(y)
    assert repr(y.struct_info) == 'R.Tensor((4,), dtype="float32")'
    assert isinstance(z.struct_info, relax.ObjectStructInfo)
    assert not bb.get()["main"].is_pure
    assert relax.analysis.well_formed(bb.get())
    pure = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(relax.Var("v"), relax.Call(
        relax.ExternFunc("env.f"), [x], sinfo_args=[tensor((4,))]))])], x))
    errs = relax.analysis.well_formed_errors(relax.BlockBuilder().normalize(pure))
    assert errs == ["function '<anonymous>', binding 'v': impure call of impure function 'relax.ExternFunc' in a pure "
                    "function (mark it impure or set relax.force_pure)"]


def test_calls_keep_inferred_struct_info_and_unscoped_builders_erase_nothing():
    n = tir.Var("n", "int64")
    x = relax.Var("x", tensor((4,)))
    call = relax.op.call_tir(tvm.ir.GlobalVar("prim"), [x], tensor((n, 2)))
    # A pass's builder with no scope open: nothing is erased.
    bb = relax.BlockBuilder()
    bb._begin_binding_block()
    v = bb.emit(call)
    assert repr(v.struct_info) == 'R.Tensor((n, 2), dtype="float32")'
    seq = bb.normalize(relax.SeqExpr([bb._end_block()], v))
    assert repr(seq.struct_info) == 'R.Tensor((n, 2), dtype="float32")'
    # Inside a function whose parameters do not define n, the return erases it.
    bb2 = relax.BlockBuilder()
    with bb2.function("main", [x]):
        w = bb2.emit(call)
        bb2.emit_func_output(w)
    assert repr(w.struct_info) == 'R.Tensor((n, 2), dtype="float32")'
    assert repr(bb2.get()["main"].ret_struct_info) == 'R.Tensor(dtype="float32", ndim=2)'


def test_builder_state_is_restored_after_an_error_inside_a_function():
    bb = relax.BlockBuilder()
    x = relax.Var("x", tensor((2,)))
    for fail_in_output in (False, True):
        with pytest.raises(TypeError):
            with bb.function("bad", [x]):
                with bb.dataflow():
                    lv = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=tensor((2,))))
                    if not fail_in_output:
                        bb.emit(relax.op.shape_of(relax.ShapeExpr([1])))
                    gv = bb.emit_output(lv)
                # The return annotation check fails inside emit_func_output's normalization.
                bb.emit_func_output(relax.Function([x], relax.SeqExpr([], x), relax.ShapeStructInfo(ndim=1)))
        # No block or scope is left open by the failed function.
        with pytest.raises(ValueError, match="no block is open"):
            bb._end_block()
        with pytest.raises(ValueError, match="end_scope without begin_scope"):
            bb.end_scope()
    with bb.function("good", [x]):
        out = bb.emit(relax.op.call_pure_packed("f", x, sinfo_args=tensor((2,))))
        bb.emit_func_output(out)
    assert [g.name_hint for g in bb.get().get_global_vars()] == ["good"]

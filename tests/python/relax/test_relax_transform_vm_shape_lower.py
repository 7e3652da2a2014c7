"""relax.transform.VMShapeLower: parameter checks, the shape heap, match_shape
/ make_shape codes and the generated shape_func, against hand-built expected
modules (TVM's MatchShapeCode / MakeShapeCode numbering)."""
import pytest

import tessera as tvm
from tessera import relax, tir

# MatchShapeCode / MakeShapeCode (src/runtime/vm builtins)
NO_OP, ASSERT_EQUAL_TO_IMM, STORE_TO_HEAP, ASSERT_EQUAL_TO_LOAD = 0, 1, 2, 3
USE_IMM, LOAD_SHAPE = 0, 1
VOID = relax.TupleStructInfo([])


def _t(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def _packed(name, *args, sinfo=VOID):
    args = [a if isinstance(a, relax.Expr) else (relax.StringImm(a) if isinstance(a, str) else relax.PrimValue(a))
            for a in args]
    return relax.Call(relax.ExternFunc(name), args, None, [sinfo])


def _heap(size):
    if size == 0:
        return relax.op.null_value()
    return relax.Call(tvm.ir.Op.get("relax.call_builtin_with_ctx"),
                      [relax.ExternFunc("vm.builtin.alloc_shape_heap"), relax.Tuple([relax.PrimValue(size)])], None,
                      [relax.TensorStructInfo(ndim=1, dtype="int64")])


FORCE_PURE = {"relax.force_pure": True}


def _lower(mod, emit_err_ctx=False):
    return relax.transform.VMShapeLower(emit_err_ctx=emit_err_ctx)(mod)


def test_static_parameter():
    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((1, 784)))
        with bb.function("main", [x], attrs=FORCE_PURE):
            if lowered:
                heap = bb.emit(_heap(0))
                bb.emit(_packed("vm.builtin.check_tensor_info", x, 2, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.match_shape", x, heap, 2, ASSERT_EQUAL_TO_IMM, 1,
                                ASSERT_EQUAL_TO_IMM, 784, ""))
            bb.emit_func_output(x)
        return bb.get()

    tvm.ir.assert_structural_equal(_lower(build(False)), build(True))


def test_symbolic_dims_shared_between_parameters():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")

    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((n, 2, m)))
        y = relax.Var("y", _t((n, m)))
        with bb.function("main", [x, y], attrs=FORCE_PURE):
            if lowered:
                heap = bb.emit(_heap(2))
                bb.emit(_packed("vm.builtin.check_tensor_info", x, 3, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.check_tensor_info", y, 2, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.match_shape", x, heap, 3, STORE_TO_HEAP, 0, ASSERT_EQUAL_TO_IMM, 2,
                                STORE_TO_HEAP, 1, ""))
                # y must agree with the n and m stored from x.
                bb.emit(_packed("vm.builtin.match_shape", y, heap, 2, ASSERT_EQUAL_TO_LOAD, 0,
                                ASSERT_EQUAL_TO_LOAD, 1, ""))
            bb.emit_func_output(y)
        return bb.get()

    tvm.ir.assert_structural_equal(_lower(build(False)), build(True))


def _shape_func(heap_size, stores):
    heap = tir.Var("heap", "handle")
    H = tir.decl_buffer((tir.IntImm("int64", heap_size),), "int64", "H")
    body = [tir.BufferStore(H, value(H), [tir.IntImm("int64", index)]) for index, value in stores]
    body = body[0] if len(body) == 1 else tir.SeqStmt(body)
    return tir.PrimFunc([heap], body, buffer_map={heap: H}).with_attr("tir.is_host_func", 1)


def test_derived_dims_are_computed_by_a_shape_func():
    n = tir.Var("n", "int64")

    def load(H, i):
        return tir.BufferLoad(H, [tir.IntImm("int64", i)])

    def build(lowered):
        bb = relax.BlockBuilder()
        if lowered:
            shape_func = bb.add_func(_shape_func(2, [(1, lambda H: load(H, 0) + tir.IntImm("int64", 1))]),
                                     "shape_func")
        x = relax.Var("x", _t((n,)))
        with bb.function("main", [x], attrs=FORCE_PURE):
            if lowered:
                heap = bb.emit(_heap(2))
                bb.emit(_packed("vm.builtin.check_tensor_info", x, 1, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.match_shape", x, heap, 1, STORE_TO_HEAP, 0, ""))
                bb.emit(relax.Call(shape_func, [heap]))
                s = bb.emit(_packed("vm.builtin.make_shape", heap, 2, LOAD_SHAPE, 1, USE_IMM, 3,
                                    sinfo=relax.ShapeStructInfo(ndim=2)))
                # The return value is checked against the annotation R.Shape([n + 1, 3]).
                bb.emit(_packed("vm.builtin.match_shape", s, heap, 2, ASSERT_EQUAL_TO_LOAD, 1,
                                ASSERT_EQUAL_TO_IMM, 3, ""))
            else:
                s = bb.emit(relax.ShapeExpr([n + 1, 3]))
            bb.emit_func_output(s)
        return bb.get()

    after = _lower(build(False))
    expected = build(True)
    # The return annotation R.Shape([n + 1, 3]) is kept (the body's make_shape only knows ndim).
    main = expected["main"]
    expected.update_func(expected.get_global_var("main"),
                         relax.Function(main.params, main.body, relax.ShapeStructInfo([n + 1, 3]), attrs=main.attrs))
    tvm.ir.assert_structural_equal(after, expected)


def test_match_cast_defines_new_dims():
    n, k = tir.Var("n", "int64"), tir.Var("k", "int64")

    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((n,)))
        y = relax.Var("y", relax.TensorStructInfo(ndim=2, dtype="float32"))
        with bb.function("main", [x, y], attrs=FORCE_PURE):
            if lowered:
                heap = bb.emit(_heap(2))
                bb.emit(_packed("vm.builtin.check_tensor_info", x, 1, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.check_tensor_info", y, 2, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.match_shape", x, heap, 1, STORE_TO_HEAP, 0, ""))
                bb.emit(_packed("vm.builtin.match_shape", y, heap, 2, ASSERT_EQUAL_TO_LOAD, 0, STORE_TO_HEAP, 1,
                                ""))
            z = bb.match_cast(y, _t((n, k)))
            bb.emit_func_output(z)
        return bb.get()

    tvm.ir.assert_structural_equal(_lower(build(False)), build(True))


def test_tuple_parameter():
    n = tir.Var("n", "int64")

    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TupleStructInfo([_t((n,)), relax.ShapeStructInfo([n, 2])]))
        with bb.function("main", [x], attrs=FORCE_PURE):
            if lowered:
                heap = bb.emit(_heap(1))
                bb.emit(_packed("vm.builtin.check_tuple_info", x, 2, ""))
                t0 = bb.emit(relax.TupleGetItem(x, 0))
                bb.emit(_packed("vm.builtin.check_tensor_info", t0, 1, relax.DataTypeImm("float32"), ""))
                t1 = bb.emit(relax.TupleGetItem(x, 1))
                bb.emit(_packed("vm.builtin.check_shape_info", t1, 2, ""))
                bb.emit(_packed("vm.builtin.match_shape", t0, heap, 1, STORE_TO_HEAP, 0, ""))
                bb.emit(_packed("vm.builtin.match_shape", t1, heap, 2, ASSERT_EQUAL_TO_LOAD, 0,
                                ASSERT_EQUAL_TO_IMM, 2, ""))
            bb.emit_func_output(x)
        return bb.get()

    tvm.ir.assert_structural_equal(_lower(build(False)), build(True))


def test_num_input_skips_static_weights():
    n = tir.Var("n", "int64")

    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((n, 4)))
        w = relax.Var("w", _t((4, 4)))
        with bb.function("main", [x, w], attrs={"relax.force_pure": True, "num_input": 1}):
            if lowered:
                heap = bb.emit(_heap(1))
                bb.emit(_packed("vm.builtin.check_tensor_info", x, 2, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.match_shape", x, heap, 2, STORE_TO_HEAP, 0, ASSERT_EQUAL_TO_IMM, 4, ""))
            bb.emit_func_output(x)
        return bb.get()

    tvm.ir.assert_structural_equal(_lower(build(False)), build(True))


def test_error_contexts_name_function_and_parameter():
    n = tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((n,)))
    y = relax.Var("y", _t((n,)))
    with bb.function("main", [x, y], attrs=FORCE_PURE):
        bb.emit_func_output(y)
    after = relax.transform.VMShapeLower()(bb.get())
    contexts = []
    for block in after["main"].body.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, relax.Call) and isinstance(v.op, relax.ExternFunc) and v.args:
                last = v.args[-1]
                if isinstance(last, relax.StringImm):
                    contexts.append((v.op.global_symbol, last.value))
    assert ("vm.builtin.match_shape",
            'ErrorContext(fn=main, loc=param[1], param=y, annotation=R.Tensor((n,), dtype="float32"))') in contexts
    assert any(name == "vm.builtin.check_tensor_info" and "param=x" in ctx and "loc=param[0]" in ctx
               for name, ctx in contexts)


def test_local_function_is_refused():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((2,)))
    y = relax.Var("y", _t((2,)))
    inner = relax.Function([y], relax.SeqExpr([], y), _t((2,)))
    with bb.function("main", [x], attrs=FORCE_PURE):
        bb.emit(inner, "inner")
        bb.emit_func_output(x)
    with pytest.raises(NotImplementedError, match="inner"):
        relax.transform.VMShapeLower()(bb.get())


def test_emit_err_ctx_must_be_bool():
    with pytest.raises(TypeError, match="emit_err_ctx"):
        relax.transform.VMShapeLower(emit_err_ctx="yes")


@pytest.mark.parametrize("value", ["var", "derived"])
def test_undefined_symbolic_var_is_refused_naming_it(value):
    k = tir.Var("k", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((2,)))
    with bb.function("main", [x], attrs=FORCE_PURE):
        s = bb.emit(relax.ShapeExpr([k if value == "var" else k + 1]))
        bb.emit_func_output(s)
    with pytest.raises(ValueError, match=r"(value k in 'main'|variable 'k' used in 'main')"):
        relax.transform.VMShapeLower()(bb.get())


def test_dims_stored_in_one_branch_are_stored_again_in_the_other():
    k = tir.Var("k", "int64")

    def branch(x):
        y = relax.Var("y", _t((k,)))
        return relax.SeqExpr([relax.BindingBlock([relax.MatchCast(y, x, _t((k,)))])], x)

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(ndim=1, dtype="float32"))
    c = relax.Var("c", relax.TensorStructInfo((), "bool"))
    with bb.function("main", [x, c], attrs=FORCE_PURE):
        r = bb.emit(relax.If(c, branch(x), branch(x)))
        bb.emit_func_output(r)
    after = _lower(bb.get())
    if_node = [b.value for blk in after["main"].body.blocks for b in blk.bindings if isinstance(b.value, relax.If)][0]
    for seq in (if_node.true_branch, if_node.false_branch):
        codes = [int(b.value.args[3].value) for blk in seq.blocks for b in blk.bindings
                 if isinstance(b.value, relax.Call) and isinstance(b.value.op, relax.ExternFunc)
                 and b.value.op.global_symbol == "vm.builtin.match_shape"]
        assert codes == [STORE_TO_HEAP]


def test_prim_value_parameter_is_checked_and_matched():
    n = tir.Var("n", "int64")

    def build(lowered):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((n,)))
        k = relax.Var("k", relax.PrimStructInfo(value=n))
        with bb.function("main", [x, k], attrs=FORCE_PURE):
            if lowered:
                heap = bb.emit(_heap(1))
                bb.emit(_packed("vm.builtin.check_tensor_info", x, 1, relax.DataTypeImm("float32"), ""))
                bb.emit(_packed("vm.builtin.check_prim_value_info", k, relax.DataTypeImm("int64"), ""))
                bb.emit(_packed("vm.builtin.match_shape", x, heap, 1, STORE_TO_HEAP, 0, ""))
                # k must equal the n stored from x (no ndim operand for a prim value).
                bb.emit(_packed("vm.builtin.match_prim_value", k, heap, ASSERT_EQUAL_TO_LOAD, 0, ""))
            bb.emit_func_output(x)
        return bb.get()

    tvm.ir.assert_structural_equal(_lower(build(False)), build(True))

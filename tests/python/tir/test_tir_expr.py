"""TIR expressions from Python: operators, type promotion and constant
folding, checked against Python's own arithmetic and TVM's documented rules."""
import itertools

import pytest

import tessera as tvm
from tessera import tir


def test_arithmetic_builds_the_expected_nodes():
    x = tir.Var("x", "int32")
    y = tir.Var("y", "int32")
    cases = [
        (x + y, tir.Add), (x - y, tir.Sub), (x * y, tir.Mul), (x // y, tir.FloorDiv), (x % y, tir.FloorMod),
        (x < y, tir.LT), (x <= y, tir.LE), (x > y, tir.GT), (x >= y, tir.GE), (tir.max(x, y), tir.Max),
        (tir.min(x, y), tir.Min), (tir.truncdiv(x, y), tir.Div), (tir.truncmod(x, y), tir.Mod),
    ]
    for expr, cls in cases:
        assert type(expr) is cls
        assert expr.a.same_as(x) and expr.b.same_as(y)
    assert (x == y).asobject().__class__ is tir.EQ
    assert (x != y).asobject().__class__ is tir.NE
    assert (x < y).dtype == "bool"


def test_reflected_operators_put_the_constant_on_the_left():
    x = tir.Var("x", "int32")
    e = 3 - x
    assert type(e) is tir.Sub and int(e.a) == 3 and e.b.same_as(x)
    e = 2 * x
    assert type(e) is tir.Mul and int(e.a) == 2


@pytest.mark.parametrize("a,b", list(itertools.product([-7, -1, 0, 3, 8], [-3, -1, 2, 5])))
def test_constant_folding_matches_python(a, b):
    ca, cb = tir.const(a, "int32"), tir.const(b, "int32")
    assert int(ca + cb) == a + b
    assert int(ca - cb) == a - b
    assert int(ca * cb) == a * b
    assert int(ca // cb) == a // b  # floor semantics, as Python
    assert int(ca % cb) == a % b
    assert int(tir.truncdiv(ca, cb)) == int(a / b)  # C semantics
    assert int(tir.truncmod(ca, cb)) == a - int(a / b) * b
    assert int(tir.max(ca, cb)) == max(a, b)
    assert bool(ca < cb) == (a < b)


def test_folding_wraps_like_the_machine():
    big = tir.const(2**31 - 1, "int32")
    assert int(big + 1) == -(2**31)
    assert int(tir.const(255, "uint8") + tir.const(1, "uint8")) == 0


def test_identities_fold_without_building_nodes():
    x = tir.Var("x", "int32")
    assert (x + 0).same_as(x)
    assert (x * 1).same_as(x)
    assert int(x * 0) == 0
    assert (x // 1).same_as(x)


def test_type_promotion_follows_tvm():
    i32, i64 = tir.Var("a", "int32"), tir.Var("b", "int64")
    f32, f16 = tir.Var("f", "float32"), tir.Var("h", "float16")
    assert (i32 + i64).dtype == "int64"
    assert (i32 + f32).dtype == "float32"
    assert (f16 + f32).dtype == "float32"
    assert (i64 + 1).dtype == "int64"          # the Python int adapts to the variable
    assert (i32 + 1.5).dtype == "float32"
    promoted = i32 + i64
    assert type(promoted.a) is tir.Cast and promoted.a.dtype == "int64"
    assert (i64 + 1).b.dtype == "int64"        # constants are cast in place, not wrapped in Cast


def test_integer_true_division_is_ambiguous():
    x = tir.Var("x", "int32")
    with pytest.raises(TypeError, match="floordiv"):
        x / 2
    f = tir.Var("f", "float32")
    assert type(f / 2) is tir.Div and (f / 2).dtype == "float32"


def test_expressions_refuse_python_truthiness():
    x = tir.Var("x", "int32")
    with pytest.raises(ValueError, match="tvm.tir.all"):
        if x < 3:
            pass
    assert bool(x == x) and not bool(x == tir.Var("x", "int32"))
    assert bool(x != tir.Var("x", "int32"))


def test_bad_operands_raise_clear_errors():
    x = tir.Var("x", "int32")
    with pytest.raises(TypeError, match="bool"):
        tir.And(x, x)
    with pytest.raises(ValueError, match="division by zero"):
        x // 0
    with pytest.raises(TypeError):
        tir.Add(x, tir.Var("f", "float32"))  # raw constructors do not promote
    with pytest.raises(ValueError, match="does not fit"):
        tir.IntImm("int8", 300)


def test_math_intrinsics_and_calls():
    f = tir.Var("f", "float32")
    e = tir.exp(f)
    assert type(e) is tir.Call and e.op.name == "tir.exp" and e.dtype == "float32"
    assert tir.sqrt(tir.Var("i", "int32")).dtype == "float32"
    c = tir.call_extern("float32", "my_fn", f, 1)
    assert c.op.name == "tir.call_extern" and c.args[0].value == "my_fn" and len(c.args) == 3
    assert tvm.ir.Op.get("tir.exp").name == "tir.exp"
    with pytest.raises(ValueError, match="not registered"):
        tvm.ir.Op.get("tir.no_such_op")
    assert int(tir.max_value("int8")) == 127 and int(tir.min_value("int16")) == -32768


def test_buffer_loads_and_stores_check_indices_and_dtypes():
    A = tir.decl_buffer((4, 8), "float32", "A")
    i = tir.Var("i", "int32")
    load = A[i, 2]
    assert type(load) is tir.BufferLoad and load.dtype == "float32" and load.buffer.same_as(A)
    with pytest.raises(ValueError, match="buffer A has 2 dimensions"):
        A[i]
    with pytest.raises(TypeError, match="store a int32 value into buffer A"):
        tir.BufferStore(A, i, [i, i])
    with pytest.raises(TypeError, match="non-integer"):
        A[tir.Var("f", "float32"), 0]


def test_module_and_function_api():
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i", "int32")
    body = tir.For(i, 0, 8, tir.ForKind.SERIAL, tir.BufferStore(A, A[i] * 2.0, [i]))
    f = tir.PrimFunc([A], body)
    assert len(f.params) == 1 and f.buffer_map[f.params[0]].same_as(A)
    g = f.with_attr("global_symbol", "double")
    assert g.attrs["global_symbol"] == "double" and "global_symbol" not in f.attrs
    mod = tvm.IRModule({"b": f, "a": g})
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["a", "b"]
    assert "a" in mod and "zz" not in mod
    mod["c"] = f
    assert mod["c"].same_as(f)
    mod.update_func(mod.get_global_var("c"), g)
    assert mod["c"].same_as(g)
    assert [gv.name_hint for gv in tvm.IRModule.from_expr(g).get_global_vars()] == ["double"]
    assert [gv.name_hint for gv in tvm.IRModule.from_expr(f).get_global_vars()] == ["main"]
    with pytest.raises(ValueError, match='Cannot find global var "zz"'):
        mod.get_global_var("zz")
    assert body.kind == tir.ForKind.SERIAL and int(body.extent) == 8


def test_substitute_and_post_order_visit():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    e = x * 2 + y
    s = tir.substitute(e, {x: y})
    assert s.a.a.same_as(y) and e.a.a.same_as(x)
    seen = []
    tir.post_order_visit(e, lambda n: seen.append(type(n).__name__))
    assert seen == ["Var", "IntImm", "Mul", "Var", "Add"]

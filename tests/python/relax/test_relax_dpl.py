"""tvm.relax.dpl: the dataflow pattern language. Match/no-match tables for
every pattern kind, rewrite_call (structural before/after and NumPy checks of
the built modules), PatternContext graph matching and rewrite_bindings, the
root-op index (counted match attempts) and errors naming the culprit."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax as rx, tir
from tessera.relax.analysis import get_var2val
from tessera.relax.dpl import (PatternContext, is_call_dps_packed, is_call_tir, is_const, is_dfv, is_gv, is_op,
                               is_shape, is_tuple, is_tuple_get_item, is_var, has_attr, has_dtype, has_shape,
                               rewrite_bindings, rewrite_call, wildcard, CallPattern, ExternFuncPattern,
                               FunctionPattern, OrPattern, AndPattern, NotPattern, WildcardPattern, TuplePattern,
                               UnorderedTuplePattern, VarPattern, DataflowVarPattern, ConstantPattern, ExprPattern)
from tessera.relax.dpl import _ffi as dpl_ffi
from tessera.script import ir as I, relax as R, tir as T


def tensor(shape, dtype="float32"):
    return rx.TensorStructInfo(shape, dtype)


X = rx.Var("x", tensor((2, 3, 3)))
Y = rx.Var("y", tensor((2, 3, 3)))
DFV = rx.DataflowVar("x", tensor((3, 3, 3)))
GV = rx.GlobalVar("x")
C = rx.const(np.ones((2, 3), "float32"))
ADD = rx.op.add(X, Y)
MUL = rx.op.multiply(X, Y)


@I.ir_module
class Module:
    @T.prim_func
    def tir_relu(x: T.handle, y: T.handle):
        A = T.match_buffer(x, (32, 32))
        B = T.match_buffer(y, (32, 32))
        for i, j in T.grid(32, 32):
            with T.block():
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((32, 32), "float32"), w: R.Tensor((32, 32), "float32")):
        cls = Module
        with R.dataflow():
            lv0 = R.call_dps_packed("extern_matmul", (x, w), R.Tensor((32, 32), dtype="float32"))
            lv1 = R.call_tir(cls.tir_relu, (lv0,), R.Tensor((32, 32), dtype="float32"))
            R.output(lv1)
        return lv1


MAIN = Module["main"]
BINDINGS = MAIN.body.blocks[0].bindings

n_sym, m_sym = tir.Var("n", "int64"), tir.Var("m", "int64")
SYM = rx.Var("s", tensor([n_sym, m_sym, n_sym + m_sym]))

# (pattern factory, expression, var2val or None, expected)
MATCH_TABLE = [
    ("wildcard", lambda: wildcard(), X, True),
    ("var", lambda: is_var("x"), X, True),
    ("var-any-name", lambda: is_var(), DFV, True),
    ("var-other-name", lambda: is_var("y"), X, False),
    ("var-vs-gv", lambda: is_var("x"), GV, False),
    ("dfv", lambda: is_dfv("x"), DFV, True),
    ("dfv-vs-var", lambda: is_dfv(), X, False),
    ("gv", lambda: is_gv("x"), GV, True),
    ("gv-other", lambda: is_gv("y"), GV, False),
    ("const", lambda: is_const(), C, True),
    ("const-vs-var", lambda: is_const(), X, False),
    ("expr", lambda: ExprPattern(X), X, True),
    ("expr-other", lambda: ExprPattern(X), Y, False),
    ("call", lambda: is_op("relax.add")(wildcard(), wildcard()), ADD, True),
    ("call-other-op", lambda: is_op("relax.add")(wildcard(), wildcard()), MUL, False),
    ("call-arity", lambda: is_op("relax.add")(wildcard()), ADD, False),
    ("call-varg", lambda: is_op("relax.add")(wildcard(), varg_default_wildcard=True), ADD, True),
    ("call-same-pattern-twice", lambda: (lambda w: is_op("relax.add")(w, w))(wildcard()), ADD, False),
    ("call-same-arg-twice", lambda: (lambda w: is_op("relax.add")(w, w))(wildcard()), rx.op.add(X, X), True),
    ("call-commutative", lambda: is_op("relax.add")(is_var("y"), is_var("x")), ADD, True),
    ("call-not-commutative", lambda: is_op("relax.subtract")(is_var("y"), is_var("x")), rx.op.subtract(X, Y), False),
    ("tuple", lambda: is_tuple([wildcard(), is_dfv()]), rx.Tuple([GV, DFV]), True),
    ("tuple-order", lambda: is_tuple([is_dfv(), wildcard()]), rx.Tuple([GV, DFV]), False),
    ("tuple-empty", lambda: is_tuple([wildcard()]), rx.Tuple([]), False),
    ("unordered", lambda: is_tuple([is_const(), is_dfv()], unordered=True), rx.Tuple([DFV, C]), True),
    ("unordered-no", lambda: is_tuple([is_const(), is_dfv()], unordered=True), rx.Tuple([DFV, X]), False),
    ("tgi", lambda: is_tuple_get_item(is_tuple([is_gv(), is_dfv()]), 1), rx.TupleGetItem(rx.Tuple([GV, DFV]), 1), True),
    ("tgi-index", lambda: is_tuple_get_item(wildcard(), 0), rx.TupleGetItem(rx.Tuple([GV, DFV]), 1), False),
    ("tgi-any", lambda: is_tuple_get_item(wildcard()), rx.TupleGetItem(rx.Tuple([GV, DFV]), 1), True),
    ("or-left", lambda: is_dfv("x") | is_gv("x"), DFV, True),
    ("or-right", lambda: is_dfv("x") | is_gv("x"), GV, True),
    ("or-neither", lambda: is_dfv("x") | is_gv("x"), X, False),
    ("and", lambda: wildcard().has_shape((2, 3, 3)) & has_dtype("float32"), X, True),
    ("and-shape", lambda: wildcard().has_shape((2, 3, 3)) & has_dtype("float32"), DFV, False),
    ("not", lambda: ~wildcard().has_shape((2, 3, 3)), DFV, True),
    ("not-no", lambda: ~wildcard().has_shape((2, 3, 3)), X, False),
    ("dtype", lambda: has_dtype("float32"), X, True),
    ("dtype-no", lambda: has_dtype("float16"), X, False),
    ("shape-sym", lambda: has_shape([n_sym, m_sym, m_sym + n_sym]), SYM, True),
    ("shape-sym-no", lambda: has_shape([m_sym, n_sym, n_sym + m_sym]), SYM, False),
    ("shape-unknown", lambda: has_shape([2, 3, 3]), rx.Var("u", rx.TensorStructInfo(dtype="float32", ndim=3)), False),
    ("struct-info", lambda: wildcard().has_struct_info(tensor((2, 3, 3))), X, True),
    ("struct-info-no", lambda: wildcard().has_struct_info(tensor((2, 3, 4))), X, False),
    ("prim-arr", lambda: is_shape([n_sym, m_sym]), rx.ShapeExpr([n_sym, m_sym]), True),
    ("prim-arr-no", lambda: is_shape([n_sym, n_sym * m_sym]), rx.ShapeExpr([n_sym, m_sym]), False),
    ("call-tir", lambda: is_call_tir("tir_relu"), BINDINGS[1].value, True),
    ("call-tir-other", lambda: is_call_tir("tir_matmul"), BINDINGS[1].value, False),
    ("call-tir-args-through-var2val",
     lambda: is_call_tir("tir_relu", [is_call_dps_packed("extern_matmul")]), BINDINGS[1].value, "var2val", True),
    ("call-tir-args-no-var2val",
     lambda: is_call_tir("tir_relu", [is_call_dps_packed("extern_matmul")]), BINDINGS[1].value, None, False),
    ("extern", lambda: ExternFuncPattern("f"), rx.ExternFunc("f"), True),
    ("extern-other", lambda: ExternFuncPattern("f"), rx.ExternFunc("g"), False),
    ("attr-call", lambda: is_op("relax.sum")(wildcard()).has_attr({"keepdims": True}),
     rx.op.sum(X, axis=[1], keepdims=True), True),
    ("attr-call-no", lambda: is_op("relax.sum")(wildcard()).has_attr({"keepdims": True}),
     rx.op.sum(X, axis=[1], keepdims=False), False),
    ("attr-call-list", lambda: is_op("relax.sum")(wildcard()).has_attr({"axis": [1]}),
     rx.op.sum(X, axis=[1]), True),
    ("attr-missing", lambda: is_op("relax.sum")(wildcard()).has_attr({"nonesuch": 1}), rx.op.sum(X, axis=[1]), False),
]


def _case(entry):
    if len(entry) == 4:
        return entry[0], entry[1], entry[2], None, entry[3]
    return entry


@pytest.mark.parametrize("entry", MATCH_TABLE, ids=[e[0] for e in MATCH_TABLE])
def test_match_table(entry):
    _, make, expr, var2val, expected = _case(entry)
    var2val = get_var2val(MAIN) if var2val == "var2val" else None
    assert make().match(expr, var2val=var2val) is expected


def test_function_pattern():
    w1, w2 = wildcard(), wildcard()
    f = FunctionPattern([w1, w2], is_op("relax.add")(w1, w2))
    x, y = rx.Var("x", tensor((4,))), rx.Var("y", tensor((4,)))
    assert f.match(rx.Function([x, y], rx.op.add(x, y), tensor((4,))))
    assert not f.match(rx.Function([x, y], rx.op.multiply(x, y), tensor((4,))))
    assert not f.match(rx.Function([x, y], rx.op.add(y, y), tensor((4,))))
    fn = rx.Function([x, y], rx.op.add(x, y), tensor((4,))).with_attr("Codegen", "test")
    assert f.has_attr({"Codegen": "test"}).match(fn)
    assert not f.has_attr({"Codegen": "other"}).match(fn)


def test_pattern_classes_and_fields():
    w1, w2 = wildcard(), wildcard()
    c = is_op("relax.add")(w1, w2)
    assert isinstance(c, CallPattern) and isinstance(c.args[0], WildcardPattern)
    assert c.args[0].same_as(w1) and c.op.expr.same_as(tvm.ir.Op.get("relax.add"))
    assert isinstance(w1 | w2, OrPattern) and isinstance(w1 & w2, AndPattern) and isinstance(~w1, NotPattern)
    assert isinstance(is_tuple([w1]), TuplePattern) and isinstance(is_tuple([w1], unordered=True),
                                                                      UnorderedTuplePattern)
    assert isinstance(is_var("a"), VarPattern) and is_var("a").name == "a"
    assert isinstance(is_dfv(), DataflowVarPattern) and isinstance(is_const(), ConstantPattern)
    t = is_tuple([w1, w2])
    assert t[-1].index == 1 and t[None].index == -1
    with pytest.raises(IndexError):
        t[2]  # pylint: disable=pointless-statement
    assert has_dtype("float16").dtype == "float16"
    assert is_shape([32, 32])[1] == 32


def test_extract_matched_expr():
    w = wildcard()
    root = is_op("relax.add")(w, is_var("y"))
    matched = root.extract_matched_expr(ADD)
    assert matched[w].same_as(X) and matched[root].same_as(ADD)
    assert root.extract_matched_expr(MUL) is None


def test_memo_rolls_back_across_or():
    # The left alternative binds w to x before failing; the right one must see w unbound.
    w = wildcard()
    left = is_op("relax.add")(w, is_const())
    right = is_op("relax.add")(is_var("x"), w)
    matched = (left | right).extract_matched_expr(ADD)
    assert matched is not None and matched[w].same_as(Y)


# ---- rewrite_call ------------------------------------------------------------------------------

def run(mod_or_func, *arrays):
    mod = mod_or_func if isinstance(mod_or_func, tvm.IRModule) else tvm.IRModule({"main": mod_or_func})
    vm = rx.VirtualMachine(rx.build(mod, "llvm"), tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in arrays]).numpy()


@R.function
def add_twice(x: R.Tensor((16, 16), "float32")) -> R.Tensor((16, 16), "float32"):
    with R.dataflow():
        x2 = R.add(x, x)
        x4 = R.add(x2, x2)
        R.output(x4)
    return x4


def test_rewrite_x_plus_x_to_times_two():
    @R.function
    def expected(x: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((16, 16), dtype="float32") = R.multiply(x, R.const(2, "float32"))
            x4: R.Tensor((16, 16), dtype="float32") = R.multiply(lv, R.const(2, "float32"))
            R.output(x4)
        return x4

    w = wildcard()
    after = rewrite_call(is_op("relax.add")(w, w), lambda _, m: rx.op.multiply(m[w], rx.const(2, "float32")),
                         add_twice)
    tvm.ir.assert_structural_equal(after, expected.with_attr("global_symbol", "add_twice"))
    a = np.random.rand(16, 16).astype("float32")
    np.testing.assert_allclose(run(after, a), 4 * a, rtol=1e-6)
    np.testing.assert_allclose(run(add_twice, a), run(after, a), rtol=1e-6)


def test_rewrite_nested_pattern_and_dead_code():
    @R.function
    def expected(x: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        with R.dataflow():
            x4: R.Tensor((16, 16), dtype="float32") = R.multiply(x, R.const(4, "float32"))
            R.output(x4)
        return x4

    w = wildcard()
    inner = is_op("relax.add")(w, w)
    after = rewrite_call(is_op("relax.add")(inner, inner),
                         lambda _, m: rx.op.multiply(m[w], rx.const(4, "float32")), add_twice)
    tvm.ir.assert_structural_equal(after, expected.with_attr("global_symbol", "add_twice"))


def test_rewrite_noop_returns_input():
    w = wildcard()
    assert rewrite_call(is_op("relax.add")(w, w), lambda orig, _: orig, add_twice).same_as(add_twice)


def test_rewrite_times_two_to_x_plus_x():
    @R.function
    def before(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        with R.dataflow():
            y = R.multiply(x, R.const(2, "float32"))
            R.output(y)
        return y

    @R.function
    def expected(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y

    w, two = wildcard(), is_const()

    def rewriter(call, m):
        if float(m[two].data.numpy()) != 2.0:
            return call
        return rx.op.add(m[w], m[w])

    after = rewrite_call(is_op("relax.multiply")(w, two), rewriter, before)
    tvm.ir.assert_structural_equal(after, expected.with_attr("global_symbol", "before"))
    a = np.random.rand(8).astype("float32")
    np.testing.assert_allclose(run(after, a), run(before, a), rtol=1e-6)


def test_rewrite_relu_relu_to_relu():
    @R.function
    def before(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        with R.dataflow():
            a = R.nn.relu(x)
            b = R.nn.relu(a)
            c = R.nn.relu(b)
            R.output(c)
        return c

    @R.function
    def expected(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
        with R.dataflow():
            c = R.nn.relu(x)  # c = a folded: the output var c takes the dataflow var a's value
            R.output(c)
        return c

    inner = is_op("relax.nn.relu")(wildcard())
    after = rewrite_call(is_op("relax.nn.relu")(inner), lambda _, m: m[inner], before)
    tvm.ir.assert_structural_equal(after, expected.with_attr("global_symbol", "before"))
    a = np.random.randn(4, 4).astype("float32")
    np.testing.assert_allclose(run(after, a), np.maximum(a, 0))
    np.testing.assert_allclose(run(before, a), run(after, a))


def test_rewrite_repeats_to_fixed_point():
    @R.function(private=True)
    def before(x: R.Tensor((64,)), y: R.Tensor((64,)), z: R.Tensor((64,))):
        with R.dataflow():
            a = R.add(x, y)
            b = R.add(a, z)
            out = R.multiply(b, R.const(5.0))
            R.output(out)
        return out

    @R.function(private=True)
    def expected(x: R.Tensor((64,)), y: R.Tensor((64,)), z: R.Tensor((64,))):
        with R.dataflow():
            x = R.multiply(x, R.const(5.0))
            y = R.multiply(y, R.const(5.0))
            a = R.add(x, y)
            z = R.multiply(z, R.const(5.0))
            b = R.add(a, z)
            R.output(b)
        return b

    lhs, rhs, const = wildcard(), wildcard(), is_const()
    add = is_op("relax.add")(lhs, rhs)

    def rewriter(_, m):
        return rx.op.add(rx.op.multiply(m[lhs], m[const]), rx.op.multiply(m[rhs], m[const]))

    after = rewrite_call(is_op("relax.multiply")(add, const), rewriter, before)
    tvm.ir.assert_structural_equal(after, expected)


def test_rewrite_to_a_var_folds_the_binding_and_output_aliases():
    @R.function(private=True)
    def before(x: R.Tensor((16,), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            b = R.reshape(a, (16,))
            c = R.reshape(b, (16,))
            R.output(c)
        return c

    @R.function(private=True)
    def expected(x: R.Tensor((16,), "float32")):
        with R.dataflow():
            c = R.add(x, x)  # b folded into a, then the output var c takes a's value
            R.output(c)
        return c

    arg = wildcard()
    after = rewrite_call(is_op("relax.reshape")(arg, wildcard()), lambda _, m: m[arg], before)
    tvm.ir.assert_structural_equal(after, expected)
    a = np.arange(16, dtype="float32")
    np.testing.assert_allclose(run(after.with_attr("global_symbol", "main"), a), 2 * a)


# ---- root-op index -----------------------------------------------------------------------------

def attempts():
    return dpl_ffi.match_attempts()


def test_rewrite_call_tries_only_calls_of_the_root_ops():
    @R.function
    def before(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.nn.relu(x)
            b = R.exp(a)
            c = R.add(b, b)
            d = R.nn.relu(c)
            e = R.exp(d)
            f = R.multiply(e, e)
            g = R.nn.relu(f)
            R.output(g)
        return g

    w = wildcard()
    pattern = is_op("relax.add")(w, w) | is_op("relax.multiply")(w, w) | is_op("relax.subtract")(w, w)
    start = attempts()
    assert rewrite_call(pattern, lambda orig, _: orig, before).same_as(before)
    assert attempts() - start == 2  # c and f only; the relu/exp bindings are never tried

    start = attempts()
    rewrite_call(wildcard(), lambda orig, _: orig, before)
    assert attempts() - start == 7  # a pattern without a root op is tried on every binding


# ---- PatternContext / match_dfb / rewrite_bindings ---------------------------------------------

@I.ir_module
class Diamond:
    @R.function
    def main(x: R.Tensor((8, 8), "float32"), w: R.Tensor((8, 8), "float32")) -> R.Tensor((8, 8), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.nn.relu(lv0)
            lv2 = R.sigmoid(lv0)
            lv3 = R.add(lv1, lv2)
            R.output(lv3)
        return lv3


@I.ir_module
class Parallel:
    @R.function
    def main(x: R.Tensor((8, 8), "float32")) -> R.Tensor((8, 8), "float32"):
        with R.dataflow():
            lv0 = R.nn.relu(x)
            lv1 = R.nn.relu(x)
            lv2 = R.add(lv0, lv1)
            R.output(lv2)
        return lv2


@I.ir_module
class SmallDiamond:
    @R.function
    def main(x: R.Tensor((8, 8), "float32")) -> R.Tensor((8, 8), "float32"):
        with R.dataflow():
            lv0 = R.nn.relu(x)
            lv1 = R.add(lv0, lv0)
            R.output(lv1)
        return lv1


def relu():
    return is_op("relax.nn.relu")(wildcard(), add_constraint=False)


def test_used_by_matches_param_and_binding():
    dfb = Diamond["main"].body.blocks[0]
    with PatternContext() as ctx:
        n0, n1 = is_var("x"), wildcard()
        n0 ^ n1
        matched = ctx.match_dfb(dfb)
    assert matched[n0].same_as(Diamond["main"].params[0]) and matched[n1].same_as(dfb.bindings[0].var)


def test_diamond_used_by_and_only_used_by():
    dfb = Diamond["main"].body.blocks[0]
    mm = lambda: is_op("relax.matmul")(wildcard(), wildcard(), add_constraint=False)  # noqa: E731
    sig = lambda: is_op("relax.sigmoid")(wildcard(), add_constraint=False)  # noqa: E731
    add = lambda: is_op("relax.add")(wildcard(), wildcard(), add_constraint=False)  # noqa: E731
    with PatternContext() as ctx:
        n0, n1, n2, n3 = mm(), relu(), sig(), add()
        n0 ^ n1
        n0 ^ n2
        n1 >> n3
        n2 >> n3
        matched = ctx.match_dfb(dfb)
        assert matched is not None
        assert [matched[n].name_hint for n in (n0, n1, n2, n3)] == ["lv0", "lv1", "lv2", "lv3"]
    with PatternContext() as ctx:
        n0, n1, n2, n3 = mm(), relu(), sig(), add()
        n0 >> n1  # lv0 has two users: only_used_by fails
        n0 >> n2
        n1 >> n3
        n2 >> n3
        assert ctx.match_dfb(dfb) is None


def test_distinguish_diamond_and_parallel():
    diamond, parallel = SmallDiamond["main"].body.blocks[0], Parallel["main"].body.blocks[0]
    add = lambda: is_op("relax.add")(wildcard(), wildcard(), add_constraint=False)  # noqa: E731
    with PatternContext() as ctx:
        fork, join = relu(), add()
        fork.only_used_by(join, index=0)
        fork.only_used_by(join, index=1)
        assert ctx.match_dfb(diamond) and ctx.match_dfb(parallel) is None
    with PatternContext() as ctx:
        join = add()
        relu() >> join
        relu() >> join  # a second relu node: a different var
        assert ctx.match_dfb(parallel) and ctx.match_dfb(diamond) is None


def test_nested_contexts_and_current():
    dfb = Diamond["main"].body.blocks[0]
    with PatternContext() as outer:
        relu() ^ is_op("relax.add")(wildcard(), wildcard(), add_constraint=False)
        with PatternContext() as inner:
            relu() >> is_op("relax.matmul")(wildcard(), wildcard(), add_constraint=False)  # relu never feeds matmul
            assert PatternContext.current() is inner and inner.match_dfb(dfb) is None
        assert PatternContext.current() is outer and outer.match_dfb(dfb)
    assert PatternContext.current() is None


@R.function(private=True)
def qkv(x1: R.Tensor((2, 4, 8), "float32"), w0: R.Tensor((8, 8), "float32"), w1: R.Tensor((8, 8), "float32"),
        w2: R.Tensor((8, 8), "float32")):
    with R.dataflow():
        w0_t = R.permute_dims(w0, axes=None)
        lv0 = R.matmul(x1, w0_t)
        w1_t = R.permute_dims(w1, axes=None)
        lv1 = R.matmul(x1, w1_t)
        w2_t = R.permute_dims(w2, axes=None)
        lv2 = R.matmul(x1, w2_t)
        out = (lv0, lv1, lv2)
        R.output(out)
    return out


def test_rewrite_bindings_combines_three_matmuls():
    @R.function(private=True)
    def expected(x1: R.Tensor((2, 4, 8), "float32"), w0: R.Tensor((8, 8), "float32"),
                 w1: R.Tensor((8, 8), "float32"), w2: R.Tensor((8, 8), "float32")):
        with R.dataflow():
            w0_t = R.permute_dims(w0, axes=None)
            w1_t = R.permute_dims(w1, axes=None)
            w2_t = R.permute_dims(w2, axes=None)
            lv = R.concat((w0_t, w1_t, w2_t), axis=1)
            lv1 = R.matmul(x1, lv)
            lv0 = R.strided_slice(lv1, axes=[2], begin=[0], end=[8])
            lv1_1 = R.strided_slice(lv1, axes=[2], begin=[8], end=[16])
            lv2 = R.strided_slice(lv1, axes=[2], begin=[16], end=[24])
            out = (lv0, lv1_1, lv2)
            R.output(out)
        return out

    with PatternContext() as ctx:
        inp, wq, wk, wv = wildcard(), wildcard(), wildcard(), wildcard()
        mq, mk, mv = (is_op("relax.matmul")(inp, w) for w in (wq, wk, wv))

    def rewriter(m, var2val):
        assert var2val[m[mq]].op.name == "relax.matmul"
        mm = rx.op.matmul(m[inp], rx.op.concat([m[wq], m[wk], m[wv]], axis=1))
        return {m[v]: rx.op.strided_slice(mm, axes=[2], begin=[8 * i], end=[8 * (i + 1)])
                for i, v in enumerate((mq, mk, mv))}

    after = rewrite_bindings(ctx, rewriter, qkv)
    tvm.ir.assert_structural_equal(after, expected)
    arrays = [np.random.rand(2, 4, 8).astype("float32")] + [np.random.rand(8, 8).astype("float32") for _ in range(3)]
    mod_before, mod_after = tvm.IRModule({"main": qkv}), tvm.IRModule({"main": after})
    for got, want in zip(run_tuple(mod_after, arrays), run_tuple(mod_before, arrays)):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    for i, got in enumerate(run_tuple(mod_after, arrays)):
        np.testing.assert_allclose(got, arrays[0] @ arrays[1 + i].T, rtol=1e-5)


def run_tuple(mod, arrays):
    mod = mod.with_attr if False else mod  # noqa: SIM222 (keeps the module as given)
    main = mod["main"].with_attr("global_symbol", "main")
    vm = rx.VirtualMachine(rx.build(tvm.IRModule({"main": main}), "llvm"), tvm.cpu())
    return [o.numpy() for o in vm["main"](*[tvm.nd.array(a) for a in arrays])]


# ---- errors ------------------------------------------------------------------------------------

def test_unknown_op_names_it():
    with pytest.raises(tvm.error.TVMError, match="relax.nonesuch"):
        is_op("relax.nonesuch")
    with pytest.raises(ValueError, match="relax.nonesuch"):
        is_op("relax.nonesuch")


@pytest.mark.parametrize("make, culprit", [
    (lambda: is_op("relax.add")(1, wildcard()), "args\\[0\\]"),
    (lambda: wildcard() | "x", "OrPattern: right"),
    (lambda: wildcard() & None, "AndPattern: right"),
    (lambda: is_tuple([wildcard(), 3]), "fields\\[1\\]"),
    (lambda: FunctionPattern([wildcard()], 2.0), "FunctionPattern: body"),
    (lambda: is_tuple_get_item(wildcard(), "0"), "index"),
    (lambda: dpl_ffi.CallPattern(wildcard(), [wildcard(), 5], False), "args\\[1\\]"),
    (lambda: dpl_ffi.NotPattern(None), "reject"),
])
def test_non_pattern_operand_names_it(make, culprit):
    with pytest.raises(tvm.error.TVMError, match=culprit):
        make()


def test_rewriter_changing_struct_info_names_binding_and_both():
    w = wildcard()

    def rewriter(_, m):
        return rx.op.sum(m[w], axis=[0])

    with pytest.raises(tvm.error.TVMError, match=r"'x2'.*\(16,\).*\(16, 16\)") as info:
        rewrite_call(is_op("relax.add")(w, w), rewriter, add_twice)
    assert isinstance(info.value, ValueError)


def test_rewriter_returning_non_expr_names_it():
    with pytest.raises(TypeError, match="must return a relax Expr, got int"):
        rewrite_call(is_op("relax.add")(wildcard(), wildcard()), lambda *_: 3, add_twice)


def test_rewrite_bindings_errors():
    with PatternContext() as ctx:
        mq = is_op("relax.matmul")(wildcard(), wildcard())
    x1 = qkv.params[0]
    with pytest.raises(tvm.error.TVMError, match="'x1'.*not a var bound"):
        rewrite_bindings(ctx, lambda m, _: {x1: m[mq]}, qkv)
    with pytest.raises(TypeError, match="dict of relax Var"):
        rewrite_bindings(ctx, lambda m, _: 5, qkv)
    with pytest.raises(TypeError, match="ctx must be a PatternContext"):
        rewrite_bindings(None, lambda m, _: {}, qkv)


def test_rewriter_returning_an_equal_new_expression_is_a_no_op():
    w = wildcard()
    # x + x -> x + x (a new node each time, structurally equal) is a no-op and must not loop.
    assert rewrite_call(is_op("relax.add")(w, w), lambda _, m: rx.op.add(m[w], m[w]), add_twice).same_as(add_twice)


def test_rewriter_that_never_settles_is_refused():
    w, c = wildcard(), is_const()
    pattern = is_op("relax.add")(w, w) | is_op("relax.multiply")(w, c)

    def flip(call, m):
        if call.op.name == "relax.add":
            return rx.op.multiply(m[w], rx.const(2, "float32"))
        return rx.op.add(m[w], m[w])

    with pytest.raises(tvm.error.TVMError, match="no fixed point.*relax.add"):
        rewrite_call(pattern, flip, add_twice)


@pytest.mark.parametrize("shape_a, shape_b, same", [
    ((64, 8), (64, 8), True), (("n", 8), ("n", 8), True), ((64, 8), (1, 8), False), (("n", 8), ("m", 8), False)])
def test_same_shape_as(shape_a, shape_b, same):
    sym = {}

    def sinfo(shape):
        return rx.TensorStructInfo([sym.setdefault(d, tir.Var(d, "int64")) if isinstance(d, str) else d
                                    for d in shape], "float32")

    a, b = rx.Var("a", sinfo(shape_a)), rx.Var("b", sinfo(shape_b))
    bb = rx.BlockBuilder()
    with bb.function("main", [a, b]):
        with bb.dataflow():
            c = bb.emit(rx.op.multiply(a, rx.const(2.0, "float32")))
            d = bb.emit_output(rx.op.add(b, c))
        bb.emit_func_output(d)
    block = bb.get()["main"].body.blocks[0]
    with PatternContext() as ctx:
        lhs, rhs = wildcard(), wildcard()
        is_op("relax.add")(lhs, rhs)
        lhs.same_shape_as(rhs)
    assert (ctx.match_dfb(block) is not None) is same
    with pytest.raises(ValueError, match="inside `with PatternContext"):
        wildcard().same_shape_as(wildcard())


def test_has_type_matches_the_static_type_of_the_struct_info():
    from tessera.relax.dpl import wildcard, is_op, TypePattern

    relax = rx
    from tessera.script import relax as R

    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    s = relax.Var("s", R.Shape([2, 3]))
    assert wildcard().has_type(relax.DynTensorType(2, "float32")).match(x)
    assert not wildcard().has_type(relax.DynTensorType(3, "float32")).match(x)
    assert not wildcard().has_type(relax.DynTensorType(2, "int32")).match(x)
    assert not wildcard().has_type(relax.DynTensorType(2, "float32")).match(s)
    assert wildcard().has_type(relax.ShapeType(2)).match(s)
    pat = is_op("relax.add")(wildcard(), wildcard()).has_type(relax.DynTensorType(2, "float32"))
    assert isinstance(pat, TypePattern)
    assert pat.match(relax.BlockBuilder().normalize(relax.op.add(x, x)))

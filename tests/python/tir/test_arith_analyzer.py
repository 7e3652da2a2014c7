"""tvm.arith.Analyzer as users call it: simplify (shapes TVM prints and
value preservation by brute force), const_int_bound, modular_set, int_set,
can_prove and bind — each checked against evaluation at every point of
small variable ranges."""
import itertools
import random

import pytest

import tessera as tvm
from tessera import arith, tir


def floordiv(a, b):
    return a // b


def truncdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def truncmod(a, b):
    return a - truncdiv(a, b) * b


def evaluate(e, env):
    """Reference evaluator: Python floor semantics for floordiv/floormod, C truncation for Div/Mod."""
    if isinstance(e, int):
        return e
    if isinstance(e, tir.IntImm):
        return int(e.value)
    if isinstance(e, tir.Var):
        return env[e.name_hint]
    if isinstance(e, tir.Cast):
        return evaluate(e.value, env)
    if isinstance(e, tir.Not):
        return int(not evaluate(e.a, env))
    if isinstance(e, tir.Select):
        return evaluate(e.true_value if evaluate(e.condition, env) else e.false_value, env)
    if isinstance(e, tir.Let):
        inner = dict(env)
        inner[e.var.name_hint] = evaluate(e.value, env)
        return evaluate(e.body, inner)
    a, b = evaluate(e.a, env), evaluate(e.b, env)
    ops = {
        tir.Add: lambda: a + b, tir.Sub: lambda: a - b, tir.Mul: lambda: a * b,
        tir.FloorDiv: lambda: a // b, tir.FloorMod: lambda: a % b,
        tir.Div: lambda: truncdiv(a, b), tir.Mod: lambda: truncmod(a, b),
        tir.Min: lambda: min(a, b), tir.Max: lambda: max(a, b),
        tir.EQ: lambda: int(a == b), tir.NE: lambda: int(a != b), tir.LT: lambda: int(a < b),
        tir.LE: lambda: int(a <= b), tir.GT: lambda: int(a > b), tir.GE: lambda: int(a >= b),
        tir.And: lambda: int(bool(a) and bool(b)), tir.Or: lambda: int(bool(a) or bool(b)),
    }
    for cls, fn in ops.items():
        if type(e) is cls:  # pylint: disable=unidiomatic-typecheck
            return fn()
    raise TypeError(f"unsupported node {type(e).__name__}")


def const(v):
    return tir.IntImm("int32", v)


class Gen:
    """Seeded random integer expressions built from raw nodes (no folding)."""

    def __init__(self, variables, seed):
        self.vars = variables
        self.rng = random.Random(seed)

    def leaf(self):
        if self.rng.random() < 0.25:
            return const(self.rng.randint(-4, 8))
        return self.rng.choice(self.vars)

    def divisor(self, negative_ok):
        v = 0
        while v == 0:
            v = self.rng.randint(-5, 8) if negative_ok else self.rng.randint(1, 8)
        return const(v)

    def int_expr(self, depth):
        if depth == 0:
            return self.leaf()
        sub = lambda: self.int_expr(depth - 1)  # noqa: E731
        k = self.rng.randint(0, 12)
        if k <= 1:
            return tir.Add(sub(), sub())
        if k == 2:
            return tir.Sub(sub(), sub())
        if k == 3:
            return tir.Mul(sub(), const(self.rng.randint(-3, 5)))
        if k == 4:
            return tir.Mul(sub(), self.leaf())
        if k == 5:
            return tir.FloorDiv(sub(), self.divisor(self.rng.random() < 0.2))
        if k == 6:
            return tir.FloorMod(sub(), self.divisor(self.rng.random() < 0.2))
        if k == 7:
            return tir.Div(sub(), self.divisor(True))
        if k == 8:
            return tir.Mod(sub(), self.divisor(True))
        if k == 9:
            return tir.Min(sub(), sub())
        if k == 10:
            return tir.Max(sub(), sub())
        if k == 11:
            return tir.Select(tir.LT(sub(), sub()), sub(), sub())
        x, c = sub(), const(self.rng.randint(1, 6))
        return tir.Add(tir.Mul(tir.FloorDiv(x, c), c), tir.FloorMod(x, c))


DOMAINS = {"x": (0, 5), "y": (-3, 3), "z": (1, 4)}


@pytest.fixture(name="setup")
def fixture_setup():
    variables = {name: tir.Var(name, "int32") for name in DOMAINS}
    ana = arith.Analyzer()
    for name, (lo, hi) in DOMAINS.items():
        ana.bind(variables[name], tvm.ir.Range(lo, hi + 1))
    return variables, ana


def points():
    names = list(DOMAINS)
    for values in itertools.product(*(range(lo, hi + 1) for lo, hi in DOMAINS.values())):
        yield dict(zip(names, values))


def test_simplify_shapes():
    ana = arith.Analyzer()
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    i0, i1 = tir.Var("i_0", "int32"), tir.Var("i_1", "int32")
    assert str(ana.simplify(x * 4 + x * 2)) == "x * 6"
    assert str(ana.simplify((x + 3) - x)) == "3"
    assert str(ana.simplify(i1 + i0 * 4)) == "i_0 * 4 + i_1"
    ana.bind(i1, tvm.ir.Range(0, 4))
    ana.bind(i0, tvm.ir.Range(0, 8))
    fused = i0 * 4 + i1
    assert str(ana.simplify(fused // 4)) == "i_0"
    assert str(ana.simplify(fused % 4)) == "i_1"
    assert str(ana.simplify(tir.floordiv(x, 1))) == "x"
    assert str(ana.simplify(i1 % 4)) == "i_1"
    assert str(ana.simplify(tir.floordiv(tir.floormod(x, 32), 4))) == "x % 32 // 4"
    f = tir.Var("f", "int32")
    assert str(ana.simplify(f // 4 * 4 + f % 4)) == "f"
    assert str(ana.rewrite_simplify(x + x)) == "x * 2"
    assert str(ana.canonical_simplify(y - y)) == "0"


def test_can_prove_and_bind():
    ana = arith.Analyzer()
    x, n, i = tir.Var("x", "int32"), tir.Var("n", "int32"), tir.Var("i", "int32")
    ana.bind(x, tvm.ir.Range(0, 8))
    assert ana.can_prove(x < 8)
    assert ana.can_prove(x >= 0)
    assert not ana.can_prove(x < 7)
    assert ana.can_prove(tir.min(x, x + 1) == x)
    ana.bind(i, tvm.ir.Range(0, n))  # symbolic range
    assert ana.can_prove(i < n)
    assert not ana.can_prove(i < n - 1)
    y = tir.Var("y", "int32")
    ana.bind(y, x + 1)  # y equals x + 1
    assert str(ana.simplify(y - x)) == "1"
    assert ana.can_prove_equal(y * 2, x * 2 + 2)
    with pytest.raises(TypeError):
        ana.bind(y, "not an expression")


def test_const_int_bound_and_modular_set_api():
    ana = arith.Analyzer()
    x = tir.Var("x", "int32")
    ana.bind(x, tvm.ir.Range(0, 8))
    b = ana.const_int_bound(x * 4 + 1)
    assert (b.min_value, b.max_value) == (1, 29)
    b = ana.const_int_bound(tir.Var("w", "int64"))
    assert b.min_value == arith.ConstIntBound.NEG_INF and b.max_value == arith.ConstIntBound.POS_INF
    m = ana.modular_set(x * 4 + 2)
    assert (m.coeff, m.base) == (4, 2)
    z = tir.Var("z", "int32")
    ana.update(z, arith.ConstIntBound(3, 5))
    assert ana.can_prove(z * 2 >= 6)
    ana.update(z, arith.ModularSet(4, 1))
    assert ana.modular_set(z * 2).coeff == 8


def test_int_set_api():
    ana = arith.Analyzer()
    i, j, n = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("n", "int32")
    s = ana.int_set(i * 4 + j, {i: tvm.ir.Range(0, 8), j: arith.IntervalSet(0, 3)})
    assert isinstance(s, arith.IntervalSet)
    assert (s.min_value.value, s.max_value.value) == (0, 31)
    s = ana.int_set(j * 16 + i, {i: tvm.ir.Range(0, n)})
    assert str(s.min_value) == "j * 16" and str(s.max_value) == "j * 16 + n - 1"
    assert arith.IntSet.everything().is_everything()
    assert arith.IntSet.nothing().is_nothing()
    assert arith.IntSet.single_point(i).is_single_point()
    u = arith.union([arith.IntervalSet(0, 3), arith.IntervalSet(6, 9)])
    assert (u.min_value.value, u.max_value.value) == (0, 9)
    assert "inf" in repr(arith.IntSet.everything())
    with pytest.raises(TypeError):
        ana.int_set(i, {i: 3})


def test_random_simplify_keeps_values(setup):
    variables, ana = setup
    gen = Gen(list(variables.values()), seed=5)
    pts = list(points())
    for _ in range(150):
        e = gen.int_expr(gen.rng.randint(1, 3))
        s = ana.simplify(e)
        for env in pts:
            assert evaluate(s, env) == evaluate(e, env), f"{e} simplified to {s} at {env}"


def test_random_bounds_modular_sets_and_int_sets_hold(setup):
    variables, ana = setup
    gen = Gen(list(variables.values()), seed=11)
    dom = {v: tvm.ir.Range(DOMAINS[name][0], DOMAINS[name][1] + 1) for name, v in variables.items()}
    pts = list(points())
    for _ in range(120):
        e = gen.int_expr(gen.rng.randint(1, 3))
        values = [evaluate(e, env) for env in pts]
        b = ana.const_int_bound(e)
        assert b.min_value <= min(values) and max(values) <= b.max_value, str(e)
        m = ana.modular_set(e)
        for v in values:
            assert (v == m.base) if m.coeff == 0 else ((v - m.base) % m.coeff == 0), f"{e}: {m} but {v}"
        s = ana.int_set(e, dom)
        if isinstance(s.min_value, tir.IntImm):
            assert s.min_value.value <= min(values), str(e)
        if isinstance(s.max_value, tir.IntImm):
            assert max(values) <= s.max_value.value, str(e)


def test_affine_int_sets_are_exact(setup):
    variables, ana = setup
    rng = random.Random(3)
    dom = {v: tvm.ir.Range(DOMAINS[name][0], DOMAINS[name][1] + 1) for name, v in variables.items()}
    pts = list(points())
    for _ in range(60):
        e = const(rng.randint(-5, 5))
        for v in variables.values():
            e = tir.Add(e, tir.Mul(v, const(rng.randint(-4, 4))))
        values = [evaluate(e, env) for env in pts]
        s = ana.int_set(e, dom)
        assert (s.min_value.value, s.max_value.value) == (min(values), max(values)), str(e)


def _lets_case():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    v = tir.Var("v", "int32")
    return x, y, v, [
        # trivial value inlined
        tir.Let(v, y, v * 2 + x),
        tir.Let(v, tir.IntImm("int32", 3), v * x - v),
        # a non-trivial inner Let of the same variable hides the outer trivial binding
        tir.Let(v, tir.IntImm("int32", 5), v + tir.Let(v, x * y + 1, v * v)),
        # a trivial inner Let of the same variable overrides, then the outer one is back
        tir.Let(v, x, tir.Let(v, tir.IntImm("int32", 7), v + 1) + v),
        # unused after simplification: dropped
        tir.Let(v, x * y + 1, v - v + x),
    ]


@pytest.mark.parametrize("index", range(5))
def test_simplify_let_forms_preserve_values(index):
    """Let inlining and scoping (shadowing, overriding, unused) against the evaluator."""
    x, y, v, cases = _lets_case()
    e = cases[index]
    r = arith.Analyzer().simplify(e)
    for xv, yv in itertools.product(range(-3, 4), repeat=2):
        assert evaluate(r, {"x": xv, "y": yv}) == evaluate(e, {"x": xv, "y": yv}), (e, r)


def test_simplify_drops_an_unused_let_and_inlines_constants():
    x, y, v, cases = _lets_case()
    assert not isinstance(arith.Analyzer().simplify(cases[4]), tir.Let)
    r = arith.Analyzer().simplify(cases[1])
    tvm.ir.assert_structural_equal(r, x * 3 - 3)

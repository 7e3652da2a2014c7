"""TVMScript printer from Python: script.AsTVMScript on IR built through
the registered constructors, compared with the course's printout (written
by hand), checked to be valid Python, and its operator precedence checked
against Python's own evaluation of random expression trees."""
import ast
import random
import types

import pytest

import tessera as tvm
from tessera import tir

AS_SCRIPT = tvm.get_global_func("script.AsTVMScript")


def _range(extent):
    return tvm.ir.Range(0, extent)


def _block(name, axes, values, body, reads, writes, init=None, alloc=None):
    """BlockRealize of a block over axes [(var, extent, iter_type)]."""
    ivs = [tir.IterVar(_range(e), v, t) for v, e, t in axes]
    blk = tir.Block(ivs, reads, writes, name, body, init=init, alloc_buffers=alloc or [])
    return tir.BlockRealize(list(values), True, blk)


def _point(buf, idx):
    return tir.BufferRegion(buf, [tvm.ir.Range.from_min_extent(i, 1) for i in idx])


def _serial(var, extent, body):
    return tir.For(var, 0, extent, tir.ForKind.SERIAL, body)


def make_mm_relu_module():
    """Course chapter 2, MyModule (mm_relu), built node by node."""
    A, B, C = (tir.decl_buffer((128, 128), "float32", n) for n in "ABC")
    Y = tir.decl_buffer((128, 128), "float32", "Y")
    i, j, k = (tir.Var(n, "int32") for n in "ijk")
    vi, vj, vk = (tir.Var(n, "int32") for n in ("vi", "vj", "vk"))
    update = tir.BufferStore(Y, Y[vi, vj] + A[vi, vk] * B[vk, vj], [vi, vj])
    init = tir.BufferStore(Y, tir.FloatImm("float32", 0), [vi, vj])
    block_y = _block("Y", [(vi, 128, tir.IterVar.DataPar), (vj, 128, tir.IterVar.DataPar),
                           (vk, 128, tir.IterVar.CommReduce)], [i, j, k], update,
                     [_point(A, [vi, vk]), _point(B, [vk, vj])], [_point(Y, [vi, vj])], init=init)
    loops_y = _serial(i, 128, _serial(j, 128, _serial(k, 128, block_y)))
    i2, j2 = tir.Var("i", "int32"), tir.Var("j", "int32")
    wi, wj = tir.Var("vi", "int32"), tir.Var("vj", "int32")
    relu = tir.BufferStore(C, tir.max(Y[wi, wj], tir.FloatImm("float32", 0)), [wi, wj])
    block_c = _block("C", [(wi, 128, tir.IterVar.DataPar), (wj, 128, tir.IterVar.DataPar)], [i2, j2], relu,
                     [_point(Y, [wi, wj])], [_point(C, [wi, wj])])
    loops_c = _serial(i2, 128, _serial(j2, 128, block_c))
    root = tir.Block([], [], [], "root", tir.SeqStmt([loops_y, loops_c]), alloc_buffers=[Y])
    func = tir.PrimFunc([A, B, C], tir.BlockRealize([], True, root))
    func = func.with_attr({"global_symbol": "mm_relu", "tir.noalias": True})
    return tvm.IRModule({"mm_relu": func})


MM_RELU_TEXT = '''# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((128, 128))
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))'''


def test_mm_relu_prints_as_the_course_shows():
    mod = make_mm_relu_module()
    assert AS_SCRIPT(mod) == MM_RELU_TEXT
    assert mod.script() == MM_RELU_TEXT
    ast.parse(MM_RELU_TEXT)


def test_show_prints_the_script(capsys):
    mod = make_mm_relu_module()
    mod.show()
    assert capsys.readouterr().out == MM_RELU_TEXT + "\n"


def test_settings_indent_prefix_and_name():
    mod = make_mm_relu_module()
    text = AS_SCRIPT(mod, {"indent_spaces": 2, "tir_prefix": "Tx"})
    assert "\n  @Tx.prim_func\n  def mm_relu(A: Tx.Buffer((128, 128), \"float32\")" in text
    assert "\n        vi, vj, vk = Tx.axis.remap(\"SSR\", [i, j, k])\n" in text
    func = mod["mm_relu"]
    text = AS_SCRIPT(func, {"name": "kernel", "print_header": False})
    assert text.startswith("@T.prim_func\ndef kernel(A: T.Buffer((128, 128), \"float32\")")
    with pytest.raises(ValueError, match="unknown TVMScript printer option"):
        AS_SCRIPT(mod, {"indnet_spaces": 2})
    with pytest.raises(ValueError, match="indent_spaces"):
        AS_SCRIPT(mod, {"indent_spaces": -1})
    with pytest.raises(TypeError):
        AS_SCRIPT(3)


def test_constructors_from_the_registry_and_symbolic_shapes():
    """IR built with get_global_func constructors only: a handle parameter whose
    buffer has a symbolic extent prints as T.handle + n = T.int64() + T.match_buffer."""
    ctor = tvm.get_global_func
    n = ctor("tir.Var")("n", "int64")
    i = ctor("tir.Var")("i", "int64")
    a = ctor("tir.Var")("a", "handle")
    data = ctor("tir.Var")("A", "handle")
    zero64 = tir.IntImm("int64", 0)
    A = ctor("tir.Buffer")(data, "float16", [n], [], None, "A", "global", 64, 1)
    store = ctor("tir.BufferStore")(A, ctor("tir.Cast")("float16", ctor("tir.Cast")("float32", i)), [i])
    loop = ctor("tir.For")(i, zero64, n, 2, store, None, None)  # vectorized
    func = ctor("tir.PrimFunc")([a], loop, {a: A}, None)
    text = AS_SCRIPT(func)
    assert text == '''# from tvm.script import tir as T

@T.prim_func(private=True)
def main(a: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float16")
    for i in T.vectorized(n):
        A[i] = T.Cast("float16", T.Cast("float32", i))'''
    ast.parse(text)


def test_repr_of_nodes_uses_the_printer():
    x = tir.Var("x", "int32")
    y = tir.Var("y", "int32")
    assert repr(x * 4 + y) == "x * 4 + y"
    assert repr((x + y) * 4) == "(x + y) * 4"
    assert repr(tir.floordiv(x, y + 1)) == "x // (y + 1)"
    buf = tir.decl_buffer((8,), "float32", "B")
    stmt = tir.BufferStore(buf, tir.FloatImm("float32", 1.5), [x])
    assert repr(stmt) == 'B = T.Buffer((8,))\nx = T.int32()\nB[x] = T.float32(1.5)'
    assert str(stmt) == repr(stmt)
    assert repr(make_mm_relu_module()) == MM_RELU_TEXT


# ---- precedence against Python's own evaluation ---------------------------------

_INT_OPS = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, tir.floordiv, tir.floormod]
_CMP_OPS = [lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: (a == b).asobject(),
            lambda a, b: (a != b).asobject(), lambda a, b: a > b, lambda a, b: a >= b]


def _random_int_expr(rng, variables, depth):
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.7:
            return variables[rng.choice(sorted(variables))]
        return tir.IntImm("int32", rng.randint(1, 9))
    a = _random_int_expr(rng, variables, depth - 1)
    b = _random_int_expr(rng, variables, depth - 1)
    try:
        return rng.choice(_INT_OPS)(a, b)
    except ValueError:  # the builder folded the divisor to a constant 0
        return a


def _random_bool_expr(rng, variables, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(_CMP_OPS)(_random_int_expr(rng, variables, 2), _random_int_expr(rng, variables, 2))
    kind = rng.choice(["and", "or", "not"])
    a = _random_bool_expr(rng, variables, depth - 1)
    if kind == "not":
        return tvm.get_global_func("tir._OpNot")(a)  # the folding builders, as the parser uses
    b = _random_bool_expr(rng, variables, depth - 1)
    return tvm.get_global_func("tir._OpAnd" if kind == "and" else "tir._OpOr")(a, b)


_TREE_OPS = {
    tir.Add: lambda a, b: a + b, tir.Sub: lambda a, b: a - b, tir.Mul: lambda a, b: a * b,
    tir.FloorDiv: lambda a, b: a // b, tir.FloorMod: lambda a, b: a % b,
    tir.LT: lambda a, b: a < b, tir.LE: lambda a, b: a <= b, tir.EQ: lambda a, b: a == b,
    tir.NE: lambda a, b: a != b, tir.GT: lambda a, b: a > b, tir.GE: lambda a, b: a >= b,
}


def _eval_tree(node, env):
    """The oracle: evaluates the IR tree itself, node by node (the builders may
    have folded parts of what the generator asked for)."""
    if isinstance(node, tir.Var):
        return env[node.name_hint]
    if isinstance(node, tir.IntImm):
        return node.value
    if isinstance(node, tir.Not):
        return not _eval_tree(node.a, env)
    if isinstance(node, tir.And):
        return bool(_eval_tree(node.a, env)) and bool(_eval_tree(node.b, env))
    if isinstance(node, tir.Or):
        return bool(_eval_tree(node.a, env)) or bool(_eval_tree(node.b, env))
    return _TREE_OPS[type(node)](_eval_tree(node.a, env), _eval_tree(node.b, env))


def _evaluate(f):
    try:
        return ("ok", f())
    except ZeroDivisionError:
        return ("div0", None)


def test_printed_infix_expressions_evaluate_like_the_tree():
    rng = random.Random(7)
    variables = {n: tir.Var(n, "int32") for n in ("a", "b", "c", "d")}
    checked = 0
    for trial in range(400):
        expr = _random_int_expr(rng, variables, 4) if trial % 2 else _random_bool_expr(rng, variables, 3)
        text = AS_SCRIPT(expr)
        code = compile(text, "<printed>", "eval")
        for _ in range(5):
            env = {n: rng.randint(-20, 20) for n in variables}
            want = _evaluate(lambda: _eval_tree(expr, env))  # pylint: disable=cell-var-from-loop
            # T only knows T.bool (folded comparisons): the text must be plain
            # infix Python here, and any T.<op> raises.
            scope = dict(env, T=types.SimpleNamespace(bool=bool))
            got = _evaluate(lambda: eval(code, {"__builtins__": {}}, scope))  # pylint: disable=eval-used,cell-var-from-loop
            assert got == want, (text, env)
            checked += 1
    assert checked == 2000


@pytest.mark.parametrize("builder", [
    lambda x, y: x + (y - x) * 3,
    lambda x, y: tir.if_then_else(x < y, x, y) + 1,
    lambda x, y: tir.Select(tir.all(x < 3, y > 1), x, y),
    lambda x, y: tir.Cast("float32", x) / tir.Cast("float32", y + 1),
    lambda x, y: tir.exp(tir.Cast("float32", x)),
    lambda x, y: tir.truncdiv(x, y) + tir.truncmod(x, y),
])
def test_printed_expressions_are_valid_python(builder):
    x = tir.Var("x", "int32")
    y = tir.Var("y", "int32")
    text = AS_SCRIPT(builder(x, y))
    ast.parse(text, mode="eval")


def _names_defined_before_use(text):
    """Names a statement of the printed function reads that no earlier line
    (or parameter) defines, in order (Python's own scoping, via ast)."""
    fn = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef))
    defined = {a.arg for a in fn.args.args} | {"T", "range"}
    undefined = []

    def visit(stmts):
        for s in stmts:
            if isinstance(s, ast.For):
                undefined.extend(n.id for n in ast.walk(s.iter) if isinstance(n, ast.Name) and n.id not in defined)
                defined.update(n.id for n in ast.walk(s.target) if isinstance(n, ast.Name))
                visit(s.body)
                continue
            value = s.value if isinstance(s, (ast.Assign, ast.Expr)) else s
            undefined.extend(n.id for n in ast.walk(value)
                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in defined)
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    if isinstance(t, ast.Name):
                        defined.add(t.id)
                    else:  # a store through a buffer: its name is read
                        undefined.extend(n.id for n in ast.walk(t) if isinstance(n, ast.Name) and n.id not in defined)

    visit(fn.body)
    return undefined


def test_buffer_over_an_allocation_is_declared_after_it():
    # After FlattenBuffer a flat buffer over allocated memory has no DeclBuffer;
    # it used to be declared with the function's free buffers, naming the
    # allocation (data=B) before `B = T.allocate(...)` defined it.
    A = tir.decl_buffer((16,), "float32", "A")
    data = tir.Var("B", "handle")
    B = tir.decl_buffer((16,), "float32", "B", data=data)
    i = tir.Var("i", "int32")
    body = tir.For(i, 0, 16, tir.ForKind.SERIAL, tir.SeqStmt([
        tir.BufferStore(B, tir.BufferLoad(A, [i]), [i]),
        tir.BufferStore(A, tir.BufferLoad(B, [i]) + tir.const(1.0, "float32"), [i])]))
    f = tir.PrimFunc([A.data], tir.Allocate(data, "float32", [16], tir.const(True, "bool"), body), buffer_map={A.data: A})
    text = f.script()
    assert text == '''# from tvm.script import tir as T

@T.prim_func(private=True)
def main(A: T.Buffer((16,), "float32")):
    B = T.allocate([16], "float32", "global")
    B_1 = T.Buffer((16,), data=B)
    for i in range(16):
        B_1[i] = A[i]
        A[i] = B_1[i] + T.float32(1)'''
    assert _names_defined_before_use(text) == []


def test_flattened_function_names_nothing_before_defining_it():
    from tessera.script import tir as T

    @T.prim_func
    def two_stage(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        B = T.alloc_buffer((4, 4))
        for i, j in T.grid(4, 4):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(4, 4):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)

    lower = tvm.transform.Sequential([tvm.tir.transform.ConvertBlocksToOpaque(),
                                      tvm.tir.transform.LowerOpaqueBlock(), tvm.tir.transform.FlattenBuffer()])
    text = lower(tvm.IRModule({"main": two_stage}))["main"].script()
    assert "data=B)" in text
    assert _names_defined_before_use(text) == []

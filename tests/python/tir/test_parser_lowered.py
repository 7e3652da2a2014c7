"""The parser on the forms the printer writes for lowered TIR: intrinsic
calls with string arguments (T.tvm_storage_sync("shared")), T.allocate and
T.decl_buffer in both the `x = ...` and the `with ... as x:` spellings, and
T.Buffer(..., data=x) over allocated memory. Each expected function is built
by hand with the tir API and compared structurally."""
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T


def parse(text):
    return tvm.script.from_source(text)


def fn(params, body, buffer_map=None):
    return tir.PrimFunc(params, body, buffer_map=buffer_map or {}).with_attr("global_symbol", "f")


def one_buffer(name="A", shape=(4,)):
    a = tir.decl_buffer(shape, "float32", name)
    h = tir.Var(name.lower(), "handle")
    return a, h


# ---------------------------------------------------------------------------
# Intrinsics with string arguments
# ---------------------------------------------------------------------------


def test_storage_sync_takes_a_string_as_string_imm():
    f = parse('@T.prim_func\ndef f():\n    T.tvm_storage_sync("shared")\n')
    call = f.body.value
    assert isinstance(call, tir.Call) and call.op.name == "tir.tvm_storage_sync"
    assert call.dtype == "int32"
    assert isinstance(call.args[0], tir.StringImm) and call.args[0].value == "shared"
    expected = fn([], tir.Evaluate(tir.call_intrin("int32", "tir.tvm_storage_sync", tir.StringImm("shared"))))
    tvm.ir.assert_structural_equal(f, expected)


def test_intrinsic_string_round_trips_through_the_printer():
    sync = tir.Evaluate(tir.call_intrin("int32", "tir.tvm_storage_sync", tir.StringImm("global")))
    f = fn([], sync)
    tvm.ir.assert_structural_equal(parse(f.script()), f)


def test_reinterpret_takes_its_dtype_first():
    f = parse('@T.prim_func\ndef f(x: T.int32):\n    T.evaluate(T.reinterpret("float32", x))\n')
    call = f.body.value
    assert call.op.name == "tir.reinterpret" and call.dtype == "float32" and len(call.args) == 1


def test_intrinsic_arity_still_checked_with_strings():
    with pytest.raises(tvm.error.ParseError, match=r"T.tvm_storage_sync\(\) takes 1 argument but 2 were given"):
        parse('@T.prim_func\ndef f():\n    T.tvm_storage_sync("shared", "warp")\n')


# ---------------------------------------------------------------------------
# T.allocate
# ---------------------------------------------------------------------------


def _expected_allocate(condition=True):
    a, h = one_buffer()
    data = tir.Var("x", "handle")
    alias = tir.decl_buffer((4,), "float32", "x_buf", data=data)
    store = tir.BufferStore(alias, tir.const(1.0, "float32"), [tir.const(0, "int32")])
    copy = tir.BufferStore(a, tir.BufferLoad(alias, [tir.const(0, "int32")]), [tir.const(0, "int32")])
    cond = tir.const(condition, "bool") if isinstance(condition, bool) else condition
    body = tir.Allocate(data, "float32", [tir.const(4, "int32")], cond, tir.SeqStmt([store, copy]))
    return fn([h], body, {h: a})


def test_allocate_assignment_wraps_the_rest_of_the_body():
    f = parse(
        "@T.prim_func\n"
        'def f(A: T.Buffer((4,), "float32")):\n'
        '    x = T.allocate([4], "float32", "global")\n'
        '    x_buf = T.Buffer((4,), data=x)\n'
        "    x_buf[0] = T.float32(1)\n"
        "    A[0] = x_buf[0]\n")
    tvm.ir.assert_structural_equal(f, _expected_allocate())


def test_allocate_with_as_scopes_the_body():
    f = parse(
        "@T.prim_func\n"
        'def f(A: T.Buffer((4,), "float32")):\n'
        '    with T.allocate([4], "float32", "global") as x:\n'
        '        x_buf = T.Buffer((4,), data=x)\n'
        "        x_buf[0] = T.float32(1)\n"
        "        A[0] = x_buf[0]\n"
        "    A[1] = T.float32(2)\n")
    alloc = f.body[0]
    assert isinstance(alloc, tir.Allocate) and alloc.dtype == "float32"
    assert isinstance(f.body[1], tir.BufferStore)
    tvm.ir.assert_structural_equal(alloc, _expected_allocate().body, map_free_vars=True)


def test_allocate_condition_and_bad_arguments():
    with pytest.raises(tvm.error.ParseError, match="storage scope cannot be empty"):
        parse('@T.prim_func\ndef f():\n    x = T.allocate([4], "float32", "")\n    T.evaluate(0)\n')
    with pytest.raises(tvm.error.ParseError, match="condition must be a boolean"):
        parse('@T.prim_func\ndef f():\n    x = T.allocate([4], "float32", "global", 1.5)\n    T.evaluate(0)\n')
    with pytest.raises(tvm.error.ParseError, match="has no effect"):
        parse('@T.prim_func\ndef f():\n    T.allocate([4], "float32")\n')
    with pytest.raises(tvm.error.ParseError, match="unsupported context"):
        parse('@T.prim_func\ndef f():\n    with T.float32(1) as x:\n        T.evaluate(0)\n')
    with pytest.raises(tvm.error.ParseError, match="missing the required argument 'dtype'"):
        parse('@T.prim_func\ndef f():\n    x = T.allocate([4])\n    T.evaluate(0)\n')


# ---------------------------------------------------------------------------
# T.decl_buffer
# ---------------------------------------------------------------------------


def test_decl_buffer_allocates_and_declares():
    f = parse(
        "@T.prim_func\n"
        'def f(A: T.Buffer((4,), "float32")):\n'
        '    B = T.decl_buffer((4,), scope="shared")\n'
        "    B[0] = A[0]\n"
        "    A[1] = B[0]\n")
    a, h = one_buffer()
    # As in TVM, the memory of a non-global buffer is a handle typed by its scope.
    data = tir.Var("B", tvm.ir.PointerType(tvm.ir.PrimType("float32"), "shared"))
    b = tir.decl_buffer((4,), "float32", "B", data=data, scope="shared")
    zero, one = tir.const(0, "int32"), tir.const(1, "int32")
    body = tir.SeqStmt([tir.BufferStore(b, tir.BufferLoad(a, [zero]), [zero]),
                        tir.BufferStore(a, tir.BufferLoad(b, [zero]), [one])])
    expected = fn([h], tir.Allocate(b.data, "float32", [tir.const(4, "int32")], tir.const(True, "bool"),
                                    tir.DeclBuffer(b, body)), {h: a})
    tvm.ir.assert_structural_equal(f, expected)
    assert f.body.body.buffer.scope() == "shared"


def test_decl_buffer_over_existing_data_only_declares():
    f = parse(
        "@T.prim_func\n"
        'def f(A: T.Buffer((4,), "float32")):\n'
        '    with T.decl_buffer((2, 2), data=A.data) as B:\n'
        "        B[1, 1] = T.float32(0)\n")
    assert isinstance(f.body, tir.DeclBuffer)
    assert f.body.buffer.data.same_as(f.buffer_map[f.params[0]].data)
    assert [int(x) for x in f.body.buffer.shape] == [2, 2]


def test_decl_buffer_bad_arguments():
    # axis_separators are kept (ascending positions in [0, ndim])
    f = parse('@T.prim_func\ndef f():\n    B = T.decl_buffer((4, 4), axis_separators=[1])\n    T.evaluate(0)\n')
    assert "axis_separators=[1]" in f.script()
    with pytest.raises(tvm.error.ParseError, match="axis_separators must be non-decreasing positions in \\[0, 2\\]"):
        parse('@T.prim_func\ndef f():\n    B = T.decl_buffer((4, 4), axis_separators=[3])\n    T.evaluate(0)\n')
    assert parse('@T.prim_func\ndef f():\n    B = T.decl_buffer((4,), axis_separators=[])\n    B[0] = T.float32(0)\n')
    with pytest.raises(tvm.error.ParseError, match="data must be a handle variable"):
        parse('@T.prim_func\ndef f():\n    B = T.decl_buffer((4,), data=3)\n    T.evaluate(0)\n')
    with pytest.raises(tvm.error.ParseError, match="cannot be subscripted|has no attribute|cannot be used"):
        parse('@T.prim_func\ndef f():\n    B = T.decl_buffer((4,))\n    B.foo[0] = 1\n')


# ---------------------------------------------------------------------------
# Lowered modules round-trip through the printer
# ---------------------------------------------------------------------------


def test_lowered_module_round_trips():
    @T.prim_func
    def before(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B = T.alloc_buffer((4, 4))
                B[vi, vj] = A[vi, vj] * T.float32(2)
                C[vi, vj] = B[vi, vj] + T.float32(1)

    lowered = tvm.lower(before)
    text = lowered.script()
    assert "T.allocate(" in text or "T.decl_buffer(" in text, text
    reparsed = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(reparsed, lowered)
    assert reparsed.script() == text

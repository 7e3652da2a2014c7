"""Python ints too large for a C++ int / int32 parameter (issue K2 item 7):
they used to be narrowed silently (a TupleGetItem index of 2**32 became 0,
ndim=2**32 + 1 became 1, time_evaluator(number=2**32 + 1) ran once). Every
integer conversion of a typed FFI argument is now range-checked and raises
OverflowError (tvm.error.TVMOverflowError, also a TVMError) naming the
function and argument; a TVMScript index literal too large for its buffer's
index dtype is a parse error at the literal (line:column)."""
import pytest

from .harness import expect_error
from .test_codegen_reliability import expect_error as expect_script_error

OVERFLOWS = [
    ("tuple_get_item", """
from tessera import relax
x = relax.Var("x", relax.TupleStructInfo([relax.TensorStructInfo((2,), "float32")]))
relax.TupleGetItem(x, {v})
"""),
    ("tensor_struct_info_ndim", """
from tessera import relax
relax.TensorStructInfo(dtype="float32", ndim={v})
"""),
    ("time_evaluator_number", """
import numpy as np
from tessera import te
A = te.placeholder((4,), "float32", name="A")
B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
m = tvm.build(te.create_prim_func([A, B]), target="llvm")
a = tvm.nd.array(np.zeros(4, "float32")); b = tvm.nd.array(np.zeros(4, "float32"))
m.time_evaluator(m.entry_name if hasattr(m, "entry_name") else "main", tvm.cpu(), number={v})(a, b)
"""),
]


@pytest.mark.parametrize("value", [2**32 + 1, 2**31, -2**31 - 1, 2**40])
@pytest.mark.parametrize("name,code", OVERFLOWS, ids=[o[0] for o in OVERFLOWS])
def test_out_of_range_int_argument_raises_overflow_error(name, code, value):
    expect_error(code.format(v=value), "tvm.error.TVMOverflowError", "does not fit in int32", timeout=60)


@pytest.mark.parametrize("value", [2**32 + 1, 2**31, -2**31 - 1])
@pytest.mark.parametrize("kind", ["load", "store"])
def test_tvmscript_index_literal_beyond_index_dtype_is_a_parse_error(kind, value):
    body = f"t[{value}] = T.float32(1)" if kind == "store" else f"t[0] = t[{value}]"
    expect_script_error(f"""
src = '''
@T.prim_func
def f(t: T.Buffer((8,), "float32")):
    {body}
'''
tvm.script.from_source(src)
""", "tvm.error.DiagnosticError", f":4:", timeout=60)
    expect_script_error(f"""
tvm.script.from_source('''
@T.prim_func
def f(t: T.Buffer((8,), "float32")):
    {body}
''')
""", "tvm.error.DiagnosticError", f"index {value} of buffer 't' (dimension 0) does not fit its index dtype int32",
                        timeout=60)


def test_int64_buffer_accepts_large_index_literal():
    # An int64-shaped buffer's index dtype is int64: the same literal is fine there.
    expect_script_error("""
f = tvm.script.from_source('''
@T.prim_func
def f(t: T.Buffer((T.int64(8589934592),), "int8")):
    t[T.int64(4294967297)] = T.int8(1)
''')
assert "4294967297" in f.script()
raise ValueError("parsed")
""", "ValueError", "parsed", timeout=60)

"""Printing then parsing Relax is a fixed point for every value (issue K2,
item 10): infinities and NaN in float attributes, scalar constants,
PrimValues, PrimStructInfo values and the TIR they reach print as text the
parser reads back to the same module (print -> parse -> print is stable)."""
import pytest

from .harness import run_case

PRELUDE = """
import math
import numpy as np
import tessera as tvm
from tessera import relax, tir

def fixed_point(mod):
    for show_meta in (False, True):
        text = mod.script(show_meta=show_meta)
        if "metadata[" in text and not show_meta:
            continue  # a constant kept in the metadata section: only the full printout parses
        back = tvm.script.from_source(text)
        tvm.ir.assert_structural_equal(back, mod, map_free_vars=True)
        assert back.script(show_meta=show_meta) == text, (text, back.script(show_meta=show_meta))
    return text

def one_binding(make, shape=(3,)):
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(make(x))
        bb.emit_func_output(y)
    return bb.get()
"""

VALUES = ["math.inf", "-math.inf", "math.nan", "1e308", "-0.0", "5e-324", "0.1"]


def run(code, timeout=120):
    res = run_case(PRELUDE + code, timeout=timeout)
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("value", VALUES)
def test_float_attribute(value):
    run(f"""
g = relax.Var("g", relax.TensorStructInfo((3,), "float32"))
b = relax.Var("b", relax.TensorStructInfo((3,), "float32"))
x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x, g, b]):
    y = bb.emit(relax.op.nn.layer_norm(x, g, b, [1], epsilon={value}))
    bb.emit_func_output(y)
fixed_point(bb.get())
print("OK")
""")


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_scalar_constant(value, dtype):
    run(f"""
mod = one_binding(lambda x: relax.op.add(x, relax.op.astype(relax.const({value}, {dtype!r}), "float32")), ())
fixed_point(mod)
print("OK")
""")


@pytest.mark.parametrize("value", VALUES)
def test_prim_value_and_prim_struct_info(value):
    run(f"""
v = relax.PrimValue(tir.FloatImm("float64", {value}))
x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
p = relax.Var("p", relax.PrimStructInfo(value=tir.FloatImm("float64", {value})))
bb = relax.BlockBuilder()
with bb.function("main", [x, p]):
    t = bb.emit(relax.Tuple([x, v]))
    bb.emit_func_output(t)
fixed_point(bb.get())
print("OK")
""")


@pytest.mark.parametrize("value", VALUES)
def test_function_and_block_attributes(value):
    # Raw Python floats in attributes print as literals (float("inf") for the
    # values without one) and parse back as T.float32 constants, which compare
    # equal (as TVM, which turns Python numbers into FloatImm); from then on the text is stable.
    run(f"""
x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x], attrs={{"my": {value}}}):
    bb.emit_func_output(x)
f = tvm.script.from_source('''
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)
''')

sch = tvm.tir.Schedule(f.with_attr("my", {value}))
sch.annotate(sch.get_block("b"), "ann", {value})
for mod in (bb.get(), sch.mod):
    text = mod.script()
    back = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(back, mod)
    fixed_point(back)
print("OK")
""")

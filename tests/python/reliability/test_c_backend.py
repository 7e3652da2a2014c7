"""The C source backend (target "c") on bad input: a missing C compiler, a
kernel the C generator cannot express, an integer division by zero and
narrow-integer overflow each end in an exception naming the culprit or in
NumPy's numbers, never in a crash, a C compiler error or a silent wrong
answer. Cases that could crash run in a subprocess (harness.run_case)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func

from .harness import expect_error, run_case


def test_missing_c_compiler_is_named(tmp_path):
    code = """
import tessera as tvm
from tessera import te
A = te.placeholder((4,), "float32", name="A")
f = te.create_prim_func([A, te.compute((4,), lambda i: A[i] * 2.0, name="B")])
try:
    tvm.build(f, target="c")
except RuntimeError as e:
    assert "no-such-cc-xyz" in str(e) and "CC" in str(e), e
    print("RAISED")
"""
    res = run_case(code, timeout=120, env={"CC": "no-such-cc-xyz"})
    assert res.returncode == 0 and "RAISED" in res.stdout, res.describe()


def test_a_kernel_c_cannot_express_names_function_op_and_target():
    A = buf("A", (4,))
    llvm_only = tir.call_intrin("float32", "tir.call_llvm_pure_intrin", tir.StringImm("llvm.sqrt"), A[0])
    f = func([A], loops([4], lambda i: tir.BufferStore(A, llvm_only, [i])), name="llvm_intrinsic")
    with pytest.raises(NotImplementedError,
                       match=r"llvm_intrinsic.*target 'c'.*tir\.call_llvm_pure_intrin has no lowering for target 'c'"):
        tvm.build(f, target="c")


def test_integer_division_by_zero_raises_not_sigfpe():
    expect_error("""
import numpy as np
from tessera import te, tir
A = te.placeholder((4,), "int32", name="A")
B = te.placeholder((4,), "int32", name="B")
C = te.compute((4,), lambda i: tir.floordiv(A[i], B[i]), name="C")
lib = tvm.build(te.create_prim_func([A, B, C]).with_attr("global_symbol", "divides"), target="c")
a = tvm.nd.array(np.array([1, 2, 3, 4], "int32")); b = tvm.nd.array(np.array([1, 0, 1, 1], "int32"))
lib["divides"](a, b, tvm.nd.empty((4,), "int32"))
""", "ZeroDivisionError", "divides")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16"])
def test_narrow_integer_arithmetic_wraps_as_numpy(dtype):
    # C computes int8/int16 in int: the generator must wrap each result back.
    A, B, C = buf("A", (64,), dtype), buf("B", (64,), dtype), buf("C", (64,), "int32")
    f = func([A, B, C], loops([64], lambda i: tir.BufferStore(
        C, tir.Cast("int32", (A[i] + B[i]) * B[i] - A[i]), [i]), kinds=[tir.ForKind.VECTORIZED]))
    info = np.iinfo(dtype)
    rng = np.random.default_rng(5)
    a = rng.integers(info.min, info.max, 64, endpoint=True).astype(dtype)
    b = rng.integers(info.min, info.max, 64, endpoint=True).astype(dtype)
    c = tvm.nd.empty((64,), "int32")
    tvm.build(f, target="c")["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    with np.errstate(over="ignore"):
        expected = ((a + b) * b - a).astype("int32")
    np.testing.assert_array_equal(c.numpy(), expected)


def test_float16_buffers_pass_through_a_c_compiler_without_float16():
    # GCC < 12 on x86 has no _Float16 (simulated by undefining the macro that announces it):
    # float16 buffers can still be copied (what the host code of GPU kernels does);
    # arithmetic on them is refused by the C compiler, named in the RuntimeError.
    code = """
import numpy as np
import tessera as tvm
from tessera import te
A = te.placeholder((8,), "float16", name="A")
copy = te.create_prim_func([A, te.compute((8,), lambda i: A[i], name="B")])
a = (np.arange(8) / 4).astype("float16")
b = tvm.nd.empty((8,), "float16")
tvm.build(copy, target="c")(tvm.nd.array(a), b)
np.testing.assert_array_equal(b.numpy(), a)
twice = te.create_prim_func([A, te.compute((8,), lambda i: A[i] + A[i], name="B")])
try:
    tvm.build(twice, target="c")
except RuntimeError as e:
    assert "C compiler" in str(e) and "tsr_float16_storage_only" in str(e), e
    print("REFUSED")
"""
    res = run_case(code, timeout=120, env={"CC": "cc -U__FLT16_MANT_DIG__"})
    assert res.returncode == 0 and "REFUSED" in res.stdout, res.describe()

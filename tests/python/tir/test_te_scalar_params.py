"""te.create_prim_func with scalar tir.Var arguments (src/te/create_prim_func.cc):
each becomes a by-value parameter at its place in the list; the built kernel
takes the scalar at run time (checked against NumPy); a handle Var or another
object is refused naming the argument."""
import numpy as np
import pytest
import tessera as tvm
from tessera import te, tir


def test_scalar_parameter_in_place():
    a = te.placeholder((4,), "float32", "A")
    s = tir.Var("s", "float32")
    b = te.compute((4,), lambda i: a[i] * s, name="B")
    func = te.create_prim_func([a, s, b])
    assert [str(p.dtype) for p in func.params] == ["handle", "float32", "handle"]
    lib = tvm.build(func, target="llvm")
    x = np.arange(4, dtype="float32")
    out = tvm.nd.empty((4,), "float32")
    lib(tvm.nd.array(x), 1.5, out)
    np.testing.assert_allclose(out.numpy(), x * 1.5)


def test_bad_scalar_arguments():
    a = te.placeholder((4,), "float32", "A")
    b = te.compute((4,), lambda i: a[i] + 1, name="B")
    with pytest.raises(TypeError, match="argument 1 is a handle Var"):
        te.create_prim_func([a, tir.Var("h", "handle"), b])
    with pytest.raises(TypeError, match="argument 1 is a int, not a te.Tensor or a scalar tir.Var"):
        te.create_prim_func([a, 3, b])

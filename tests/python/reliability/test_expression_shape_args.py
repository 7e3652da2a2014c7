"""A kernel parameter whose dimension is an expression of size variables (the output
of a reshape to n * 2, as a dynamic-batch model imports): it compiles (LLVM and C),
runs at any size, and a call whose argument has another extent raises ValueError
naming the parameter, the dimension and the expression (never an out-of-bounds
write); the check survives export_library. Compared with NumPy."""
import numpy as np
import pytest

import tessera as tvm
from .harness import expect_error

# One kernel for every case: B (n * 2,) repeats each element of A (n,) twice.
KERNEL = '''
@T.prim_func
def repeat2(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n * 2,), "float32")
    for i in range(n * 2):
        with T.block("B"):
            vi = T.axis.spatial(n * 2, i)
            B[vi] = A[vi // 2]
'''


def _kernel():
    return tvm.script.from_source(KERNEL)


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_expression_dim_compiles_and_runs_at_any_size(target):
    f = tvm.build(_kernel(), target=target)
    for n in (1, 5):
        a = np.arange(n, dtype="float32")
        b = tvm.nd.array(np.zeros(2 * n, "float32"))
        f(tvm.nd.array(a), b)
        np.testing.assert_array_equal(b.numpy(), np.repeat(a, 2))


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_wrong_extent_is_a_value_error(target):
    expect_error(f'''
import numpy as np
f = tvm.build(tvm.script.from_source({KERNEL!r}), target="{target}")
f(tvm.nd.array(np.zeros(4, "float32")), tvm.nd.array(np.zeros(7, "float32")))
''', "ValueError", "shape[0] is 7 but expected (n * 2) = 8")


def test_check_survives_export(tmp_path):
    path = str(tmp_path / "lib.so")
    tvm.build(_kernel(), target="llvm").export_library(path)
    expect_error(f'''
import numpy as np
f = tvm.runtime.load_module({path!r})["repeat2"]
f(tvm.nd.array(np.zeros(3, "float32")), tvm.nd.array(np.zeros(5, "float32")))
''', "ValueError", "expected (n * 2) = 6")

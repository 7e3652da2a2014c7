"""End-to-end smoke of the runtime boundary: NumPy -> NDArray -> C++ -> NumPy,
checked against NumPy's own arithmetic."""
import numpy as np

import tessera as tvm


def test_cpp_function_mutates_ndarray_in_place_like_numpy():
    x = np.random.default_rng(0).standard_normal((5, 7)).astype("float32")
    a = tvm.nd.array(x)
    out = tvm.get_global_func("testing.ndarray_scale_f32")(a, 3.0)
    assert out.same_as(a)
    np.testing.assert_allclose(a.numpy(), x * np.float32(3.0), rtol=1e-6)


def test_python_callback_receives_converted_values_from_cpp():
    seen = []

    def cb(i, f, s, lst, arr):
        seen.append((i, f, s, lst, arr.numpy().tolist()))
        return i * 2

    arr = tvm.nd.array(np.array([1, 2], dtype="int32"))
    r = tvm.get_global_func("testing.call_packed")(cb, 3, 0.5, "s", [1, "a"], arr)
    assert r == 6
    assert seen == [(3, 0.5, "s", [1, "a"], [1, 2])]

"""``check_saved_func(vm, name, *args)``: saves ``name`` with ``args`` as a
VM closure (``vm.save_function``), calls both the closure and the function,
checks the results agree (NumPy, element by element, through tuples) and
returns the result."""
import numpy as np

from ...runtime.container import ShapeTuple


def _assert_same(a, b, where="result"):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        a, b = list(a), list(b)
        assert len(a) == len(b), f"{where}: tuple lengths differ ({len(a)} vs {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]")
        return
    if isinstance(a, ShapeTuple) or isinstance(b, ShapeTuple):
        assert list(a) == list(b), f"{where}: shapes differ ({list(a)} vs {list(b)})"
        return
    if hasattr(a, "numpy") and hasattr(b, "numpy"):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=where)
        return
    assert a == b, f"{where}: {a!r} != {b!r}"


def check_saved_func(vm, func_name, *inputs):
    """The result of ``vm[func_name](*inputs)``, checked equal to the saved closure's."""
    saved_name = f"{func_name}_saved"
    vm.save_function(func_name, saved_name, *inputs)
    res_saved = vm[saved_name]()
    res = vm[func_name](*inputs)
    _assert_same(res, res_saved)
    return res


__all__ = ["check_saved_func"]

"""``check_saved_func(vm, name, *args)``: saves ``name`` with ``args`` as a
VM closure (``vm.save_function``), calls both the closure and the function,
checks the results agree (NumPy, element by element, through tuples) and
returns the result. Importing this module also registers the ``test.vm.*``
packed functions TVM's VM tests call beyond those of the runtime
(src/runtime/vm/testing_functions.cc): move, equal_zero, subtract_one,
identity and tile (destination-passing), check_if_defined."""
import numpy as np

from ..._ffi.registry import get_global_func, register_func
from ...runtime import ndarray as _nd
from ...runtime.container import ShapeTuple


def _register(name):
    def wrap(func):
        if get_global_func(name, allow_missing=True) is None:
            register_func(name, func)
        return func
    return wrap


@_register("test.vm.move")
def _move(src):
    return src


@_register("test.vm.equal_zero")
def _equal_zero(a):
    return _nd.array(np.array(np.all(a.numpy() == 0)))


@_register("test.vm.subtract_one")
def _subtract_one(a):
    return _nd.array(np.subtract(a.numpy(), 1))


@_register("test.vm.identity")
def _identity(a, b):
    b.copyfrom(a.numpy())


@_register("test.vm.tile")
def _tile(a, b):
    b.copyfrom(np.tile(a.numpy(), (1, 2)))


@_register("test.vm.check_if_defined")
def _check_if_defined(obj):
    return obj is not None


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

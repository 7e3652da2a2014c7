"""The global function registry and the C++/Python call boundary: register_func /
get_global_func, value conversion in both directions (testing.echo, testing.call_packed),
argument errors, and exceptions crossing the boundary both ways with their kind and identity."""
import itertools

import numpy as np
import pytest

import tessera as tvm
from tessera import error as tvm_error

_counter = itertools.count()


@pytest.fixture
def fname():
    """A fresh global function name, removed from the registry after the test."""
    names = []

    def make(stem="f"):
        name = f"test.registry.{stem}_{next(_counter)}"
        names.append(name)
        return name

    yield make
    for n in names:
        tvm._ffi.remove_global_func(n)


def _f(name):
    return tvm.get_global_func(name)


echo = _f("testing.echo")
call_packed = _f("testing.call_packed")
call_and_catch = _f("testing.call_and_catch")
throw_error = _f("testing.throw_error")
type_name = _f("testing.type_name")
add_int = _f("testing.add_int")


# ---------------------------------------------------------------- register_func / get_global_func


def test_register_func_decorator_with_name(fname):
    name = fname()

    @tvm.register_func(name)
    def mul(a, b):
        return a * b

    assert callable(mul) and mul(2, 3) == 6  # the decorator returns the function itself
    f = tvm.get_global_func(name)
    assert isinstance(f, tvm.PackedFunc)
    assert f(6, 7) == 42
    assert call_packed(f, 3, 5) == 15


def test_register_func_bare_decorator_uses_function_name():
    try:
        @tvm.register_func
        def tessera_test_bare_decorated(x):
            return x + 100

        assert tessera_test_bare_decorated(1) == 101  # the decorator returns the function itself
        assert tvm.get_global_func("tessera_test_bare_decorated")(1) == 101
        assert call_packed(tvm.get_global_func("tessera_test_bare_decorated"), 5) == 105
        assert "tessera_test_bare_decorated" in tvm._ffi.list_global_func_names()
    finally:
        tvm._ffi.remove_global_func("tessera_test_bare_decorated")


def test_register_func_direct_call(fname):
    name = fname()
    tvm.register_func(name, lambda s: s.upper())
    assert tvm.get_global_func(name)("abc") == "ABC"
    assert name in tvm._ffi.list_global_func_names()


def test_register_func_override_replaces(fname):
    name = fname()
    tvm.register_func(name, lambda: "first")
    old = tvm.get_global_func(name)
    tvm.register_func(name, lambda: "second", override=True)
    assert tvm.get_global_func(name)() == "second"
    assert old() == "first"  # a handle taken earlier keeps the old function

    @tvm.register_func(name, override=True)
    def third():
        return "third"

    assert tvm.get_global_func(name)() == "third"


def test_register_func_duplicate_without_override_raises(fname):
    name = fname()
    tvm.register_func(name, lambda: 1)
    with pytest.raises(ValueError, match="already registered"):
        tvm.register_func(name, lambda: 2)
    with pytest.raises(tvm.TVMError):
        tvm.register_func(name, lambda: 3)
    assert tvm.get_global_func(name)() == 1
    # C++-registered functions are protected the same way
    with pytest.raises(ValueError):
        tvm.register_func("testing.nop", lambda: "hijacked")
    assert tvm.get_global_func("testing.nop")() is None


def test_register_func_rejects_bad_arguments(fname):
    with pytest.raises(TypeError):
        tvm.register_func(fname(), 3)
    with pytest.raises(TypeError):
        tvm.register_func(42, lambda: 1)


def test_get_global_func_missing():
    with pytest.raises(ValueError, match="test.registry.does_not_exist"):
        tvm.get_global_func("test.registry.does_not_exist")
    with pytest.raises(tvm.TVMError):
        tvm.get_global_func("test.registry.does_not_exist")
    assert tvm.get_global_func("test.registry.does_not_exist", allow_missing=True) is None


def test_remove_global_func(fname):
    name = fname()
    tvm.register_func(name, lambda: 0)
    assert tvm._ffi.remove_global_func(name) is True
    assert tvm.get_global_func(name, allow_missing=True) is None
    assert tvm._ffi.remove_global_func(name) is False


def test_cpp_functions_are_listed_and_named():
    names = tvm._ffi.list_global_func_names()
    for n in ["testing.echo", "testing.nop", "testing.call_packed", "testing.add_int"]:
        assert n in names
    assert names == sorted(names)
    assert echo.name == "testing.echo"
    assert "testing.echo" in repr(echo)


# ---------------------------------------------------------------- C++ functions called from Python


@pytest.mark.parametrize("value, expected_type", [
    (0, "int"), (-5, "int"), (2**63 - 1, "int"), (-2**63, "int"),
    (1.5, "float"), (-0.0, "float"), (1e308, "float"), (float("inf"), "float"),
    (True, "bool"), (False, "bool"),
    (None, "None"),
    ("", "str"), ("hello", "str"), ("héllo wörld ✓", "str"),
])
def test_echo_scalars(value, expected_type):
    out = echo(value)
    assert type(out) is type(value)
    assert out == value
    if isinstance(value, float):
        assert np.copysign(1.0, out) == np.copysign(1.0, value)
    assert type_name(value) == expected_type


def test_echo_nan():
    out = echo(float("nan"))
    assert isinstance(out, float) and out != out


def test_echo_string_with_embedded_nul():
    s = "a\x00b\x00"
    assert echo(s) == s


def test_echo_lists_and_tuples():
    value = [1, "two", 3.0, None, True, [4, [5, "six"]], []]
    out = echo(value)
    assert out == value
    assert type(out[4]) is bool and type(out[0]) is int
    assert echo((1, 2, (3,))) == [1, 2, [3]]
    assert type_name([1]) == "runtime.Array"
    assert _f("testing.array_size")([1, 2, 3, [4, 5]]) == 4
    assert _f("testing.array_size")(()) == 0


def test_echo_devices_and_dtypes():
    assert echo(tvm.cpu(0)) == tvm.cpu(0)
    assert echo(tvm.cuda(3)) == tvm.cuda(3)
    assert type_name(tvm.cpu(0)) == "Device"
    assert echo(tvm.DataType("float32x4")) == "float32x4"


def test_echo_ndarray_identity():
    a = tvm.nd.array(np.arange(4, dtype="float32"))
    b = echo(a)
    assert isinstance(b, tvm.nd.NDArray)
    assert b.same_as(a)
    assert b == a
    assert b.data_ptr == a.data_ptr
    c = tvm.nd.array(np.arange(4, dtype="float32"))
    assert not c.same_as(a)
    assert type_name(a) == "runtime.NDArray"
    lst = echo([a, c])
    assert lst[0].same_as(a) and lst[1].same_as(c)


def test_echo_packed_func_and_python_callable():
    assert echo(echo).same_as(echo)
    f = echo(lambda x, y: x - y)
    assert isinstance(f, tvm.PackedFunc)
    assert f(10, 4) == 6


def test_integer_out_of_int64_range_raises():
    with pytest.raises(OverflowError, match="int64"):
        echo(2**63)
    with pytest.raises(OverflowError, match="int64"):
        echo(-2**63 - 1)


def test_add_int_typed_arguments():
    assert add_int(2, 40) == 42
    assert add_int(-2**62, -2**62) == -2**63
    with pytest.raises(TypeError) as info:
        add_int(1, "x")
    msg = str(info.value)
    assert "testing.add_int" in msg and "argument 1" in msg and "str" in msg
    with pytest.raises(TypeError) as info:
        add_int(1.5, 2)
    msg = str(info.value)
    assert "argument 0" in msg and "float" in msg
    with pytest.raises(TypeError, match="expects 2 arguments but got 1"):
        add_int(1)
    with pytest.raises(TypeError, match="expects 2 arguments but got 3"):
        add_int(1, 2, 3)
    with pytest.raises(tvm.TVMError):
        add_int(None, 1)


def test_typed_array_argument_errors():
    with pytest.raises(TypeError, match="argument 0"):
        _f("testing.array_size")(3)
    scale = _f("testing.ndarray_scale_f32")
    with pytest.raises(TypeError, match="float32"):
        scale(tvm.nd.array(np.arange(3, dtype="int32")), 2.0)
    with pytest.raises(TypeError, match="argument 1"):
        scale(tvm.nd.array(np.arange(3, dtype="float32")), "two")


def test_cpp_function_mutates_ndarray_and_returns_it():
    x = np.arange(6, dtype="float32").reshape(2, 3) - 2.5
    a = tvm.nd.array(x)
    out = _f("testing.ndarray_scale_f32")(a, 3.0)
    assert out.same_as(a)
    np.testing.assert_array_equal(a.numpy(), x * np.float32(3.0))


# ---------------------------------------------------------------- numpy / torch values


def test_numpy_scalars_pass_as_numbers():
    out = echo(np.float32(0.1))
    assert type(out) is float and out == float(np.float32(0.1))
    out = echo(np.float64(2.5))
    assert type(out) is float and out == 2.5
    out = echo(np.int64(-7))
    assert type(out) is int and out == -7
    out = echo(np.uint8(200))
    assert type(out) is int and out == 200
    out = echo(np.array(5))
    assert type(out) is int and out == 5
    out = echo(np.array(1.25, dtype="float32"))
    assert type(out) is float and out == 1.25
    out = echo(np.bool_(True))
    assert type(out) is bool and out is True
    assert add_int(np.int64(40), np.int32(2)) == 42
    assert add_int(np.array(3), 4) == 7


def test_torch_zero_dim_tensor_passes_as_number():
    torch = pytest.importorskip("torch")
    out = echo(torch.tensor(2.5))
    assert type(out) is float and out == 2.5
    assert add_int(torch.tensor(5), 1) == 6


def test_numpy_array_argument_suggests_nd_array():
    with pytest.raises(TypeError, match=r"tvm\.nd\.array"):
        echo(np.zeros(3))
    with pytest.raises(TypeError, match=r"tvm\.nd\.array"):
        echo([1, np.ones((2, 2))])
    with pytest.raises(TypeError, match=r"tvm\.nd\.array"):
        _f("testing.ndarray_scale_f32")(np.arange(3, dtype="float32"), 2.0)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"tvm\.nd\.array"):
        echo(torch.zeros(3))


class _Opaque:
    """A plain Python object with no runtime equivalent."""


def test_unconvertible_python_objects_raise_type_error():
    with pytest.raises(TypeError, match="_Opaque"):
        echo(_Opaque())
    with pytest.raises(TypeError, match="object"):
        echo(object())
    with pytest.raises(TypeError, match="_Opaque"):
        echo([1, _Opaque()])


# ---------------------------------------------------------------- Python callables called from C++


def test_callback_receives_every_value_kind():
    seen = []

    def cb(*args):
        seen.append(args)
        return "ok"

    a = tvm.nd.array(np.array([1, 2, 3], dtype="int8"))
    assert call_packed(cb, 7, -1.25, True, False, "s", None, [1, [2, "x"]], a, tvm.cpu(0)) == "ok"
    (args,) = seen
    assert args[:7] == (7, -1.25, True, False, "s", None, [1, [2, "x"]])
    assert [type(v) for v in args[:6]] == [int, float, bool, bool, str, type(None)]
    assert isinstance(args[7], tvm.nd.NDArray) and args[7].same_as(a)
    np.testing.assert_array_equal(args[7].numpy(), [1, 2, 3])
    assert args[8] == tvm.cpu(0)


@pytest.mark.parametrize("value", [0, -3, 2**62, 0.5, True, False, "str ✓", None, [1, "a", [None]]])
def test_callback_return_values(value):
    out = call_packed(lambda: value)
    assert out == value and type(out) is type(value)


def test_callback_ndarray_identity_and_writes():
    a = tvm.nd.array(np.zeros(4, dtype="float32"))

    def fill(arr):
        assert arr.same_as(a)
        arr.copyfrom(np.full(4, 9.0, dtype="float32"))
        return arr

    out = call_packed(fill, a)
    assert out.same_as(a)
    np.testing.assert_array_equal(a.numpy(), np.full(4, 9.0))


def test_nested_callables():
    assert call_packed(lambda g: g(3), lambda x: x * 2) == 6

    def outer(g, h):
        return g(h, 10)

    def inner(h, v):
        return h(v) + 1

    assert call_packed(outer, inner, lambda v: v * v) == 101
    # a callable returned from Python to C++ and back
    make_adder = call_packed(lambda: (lambda x: x + 5))
    assert isinstance(make_adder, tvm.PackedFunc)
    assert make_adder(1) == 6
    assert call_packed(make_adder, 10) == 15
    # C++ -> Python -> C++ -> Python
    assert call_packed(lambda f: call_packed(f, 4), lambda x: x - 1) == 3


def test_registered_python_function_called_from_cpp(fname):
    name = fname()
    tvm.register_func(name, lambda a, b: [b, a])
    assert call_packed(tvm.get_global_func(name), "x", 2) == [2, "x"]


def test_callback_returning_unconvertible_value_raises_type_error():
    with pytest.raises(TypeError, match="_Opaque"):
        call_packed(_Opaque)
    with pytest.raises(TypeError, match=r"tvm\.nd\.array"):
        call_packed(lambda: np.zeros(2))


def test_callback_wrong_arity_raises_python_type_error():
    with pytest.raises(TypeError):
        call_packed(lambda x: x)


# ---------------------------------------------------------------- exceptions Python -> C++ -> Python


class _CustomError(Exception):
    pass


@pytest.mark.parametrize("exc", [
    ValueError("bad value"), TypeError("bad type"), KeyError("missing"), IndexError("out of range"),
    RuntimeError("boom"), ZeroDivisionError("div"), _CustomError("custom"), NotImplementedError("later"),
])
def test_python_exception_comes_back_as_same_object(exc):
    def raiser(*_):
        raise exc

    with pytest.raises(type(exc)) as info:
        call_packed(raiser, 1, "a")
    assert info.value is exc


def test_python_exception_identity_through_registered_function(fname):
    name = fname()
    exc = _CustomError("from registry")

    def raiser():
        raise exc

    tvm.register_func(name, raiser)
    with pytest.raises(_CustomError) as info:
        tvm.get_global_func(name)()
    assert info.value is exc


def test_python_exception_identity_through_two_boundaries():
    exc = LookupError("deep")

    def innermost():
        raise exc

    with pytest.raises(LookupError) as info:
        call_packed(lambda: call_packed(innermost))
    assert info.value is exc


def test_cpp_error_inside_callback_keeps_identity():
    seen = []

    def cb():
        try:
            throw_error("IndexError", "inner index")
        except Exception as e:  # noqa: BLE001
            seen.append(e)
            raise

    with pytest.raises(IndexError) as info:
        call_packed(cb)
    assert info.value is seen[0]
    assert isinstance(info.value, tvm_error.TVMIndexError)


@pytest.mark.parametrize("exc, expected", [
    (ValueError("bad thing"), "ValueError: bad thing"),
    (TypeError("wrong type"), "TypeError: wrong type"),
    (RuntimeError("rt"), "RuntimeError: rt"),
    (NotImplementedError("todo"), "NotImplementedError: todo"),
    (_CustomError("mine"), "_CustomError: mine"),
])
def test_python_exception_seen_from_cpp_keeps_kind_and_message(exc, expected):
    def raiser():
        raise exc

    assert call_and_catch(raiser) == expected


def test_call_and_catch_returns_none_without_error():
    assert call_and_catch(lambda: 1) is None


@pytest.mark.parametrize("kind", ["ValueError", "TypeError", "IndexError", "AttributeError",
                                  "NotImplementedError"])
def test_tessera_error_crossing_python_keeps_its_kind(kind):
    def cb():
        throw_error(kind, "inner")

    assert call_and_catch(cb) == f"{kind}: inner"


# ---------------------------------------------------------------- C++ errors -> Python


@pytest.mark.parametrize("kind, cls, builtin", [
    ("ValueError", tvm_error.TVMValueError, ValueError),
    ("TypeError", tvm_error.TVMTypeError, TypeError),
    ("IndexError", tvm_error.TVMIndexError, IndexError),
    ("KeyError", tvm_error.TVMKeyError, KeyError),
    ("AttributeError", tvm_error.TVMAttributeError, AttributeError),
    ("NotImplementedError", tvm_error.OpNotImplemented, NotImplementedError),
    ("InternalError", tvm_error.InternalError, RuntimeError),
    ("RuntimeError", tvm.TVMError, RuntimeError),
    ("SomethingUnknownError", tvm.TVMError, RuntimeError),
])
def test_cpp_error_kinds_map_to_classes(kind, cls, builtin):
    msg = f"message for {kind} (42)"
    with pytest.raises(BaseException) as info:
        throw_error(kind, msg)
    e = info.value
    assert type(e) is cls
    assert isinstance(e, tvm.TVMError)
    assert isinstance(e, builtin)
    assert str(e) == msg
    # also through a C++ -> Python -> C++ call chain
    with pytest.raises(cls):
        call_packed(lambda: throw_error(kind, msg))


def test_error_classes_hierarchy():
    for cls, builtin in [(tvm_error.TVMValueError, ValueError), (tvm_error.TVMTypeError, TypeError),
                         (tvm_error.TVMIndexError, IndexError), (tvm_error.TVMKeyError, KeyError),
                         (tvm_error.TVMAttributeError, AttributeError),
                         (tvm_error.OpNotImplemented, NotImplementedError)]:
        assert issubclass(cls, tvm.TVMError) and issubclass(cls, builtin)
    assert issubclass(tvm.TVMError, RuntimeError)
    assert tvm.error.TVMError is tvm.TVMError


def test_register_error_maps_a_new_kind():
    class TesseraTestCustomKindError(tvm.TVMError):
        pass

    tvm.error.register_error("TesseraTestCustomKind", TesseraTestCustomKindError)
    with pytest.raises(TesseraTestCustomKindError, match="custom kind"):
        throw_error("TesseraTestCustomKind", "custom kind")

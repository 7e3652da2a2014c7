"""``tvm.testing.CompareBeforeAfter``: a test class declares ``before``, a
``transform`` (a Pass, or a method returning one) and ``expected`` (TIR to
match, or an exception class the transform must raise); the class then runs
``test_compare``. Undecorated TVMScript bodies are parsed at test time."""
import inspect
import textwrap

import pytest
from ..error import TVMTypeError, TVMValueError


def _is_fixture(obj):
    return hasattr(obj, "_pytestfixturefunction") or type(obj).__name__ == "FixtureFunctionDefinition"


def _takes_self(obj):
    try:
        return callable(obj) and "self" in inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False


def _parse_function(func, name=None):
    from ..script import from_source  # pylint: disable=import-outside-toplevel

    source = textwrap.dedent(inspect.getsource(func))
    # A `@T.prim_func` method of a class is left unparsed until here (as in
    # TVM): its source already carries the decorator.
    if not source.lstrip().startswith("@"):
        source = "@T.prim_func\n" + source
    namespace = dict(getattr(func, "__globals__", {}))
    prim_func = from_source(source, extra_vars=namespace)
    return prim_func.with_attr("global_symbol", name) if name else prim_func


def _ir_fixture(obj):
    """A fixture producing the PrimFunc/IRModule `obj` describes."""
    from .. import ir, tir  # pylint: disable=import-outside-toplevel

    if isinstance(obj, (tir.PrimFunc, ir.IRModule)):
        def make(self):  # pylint: disable=unused-argument
            return obj
    elif _takes_self(obj):
        def make(self):
            return obj(self)
    elif inspect.isclass(obj):
        def make(self):  # pylint: disable=unused-argument
            funcs = {}
            for name, member in vars(obj).items():
                if name.startswith("_"):
                    continue
                if isinstance(member, ir.BaseFunc):
                    funcs[name] = member.with_attr("global_symbol", name)
                else:
                    funcs[name] = _parse_function(member, name)
            return ir.IRModule(funcs)
    else:
        def make(self):  # pylint: disable=unused-argument
            return _parse_function(obj)
    return pytest.fixture(make)


def _transform_fixture(cls, transform):
    from .. import ir, tir  # pylint: disable=import-outside-toplevel

    def applying(module_pass):
        def run(obj):
            if isinstance(obj, ir.IRModule):
                return module_pass(obj)
            if isinstance(obj, tir.PrimFunc):
                return module_pass(ir.IRModule({"main": obj}))["main"]
            raise TVMTypeError(f"CompareBeforeAfter: expected an IRModule or a PrimFunc, got {type(obj).__name__}")
        return run

    if _is_fixture(transform):
        cls._transform_orig = transform

        def make(self, _transform_orig):  # pylint: disable=unused-argument
            return applying(_transform_orig)
    elif isinstance(transform, ir.transform.Pass):
        def make(self):  # pylint: disable=unused-argument
            return applying(transform)
    elif _takes_self(transform):
        def make(self):
            return applying(transform(self))
    else:
        raise TVMTypeError(f"{cls.__name__}.transform must be a tvm.ir.transform.Pass or a method returning one, "
                           f"got {type(transform).__name__}")
    return pytest.fixture(make)


class CompareBeforeAfter:
    """Base class of before/transform/expected tests (see the module docstring)."""

    check_well_formed = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for names, attr in ((("before", "Before"), "before"), (("expected", "Expected"), "expected")):
            given = [n for n in names if n in vars(cls)]
            if len(given) > 1:
                raise TVMTypeError(f"{cls.__name__} defines both {given[0]} and {given[1]}")
            if given:
                value = vars(cls)[given[0]]
                if _is_fixture(value):
                    setattr(cls, attr, value)
                elif attr == "expected" and inspect.isclass(value) and issubclass(value, Exception):
                    setattr(cls, attr, pytest.fixture(lambda self, _e=value: _e))
                else:
                    setattr(cls, attr, _ir_fixture(value))
        if "transform" in vars(cls):
            cls.transform = _transform_fixture(cls, vars(cls)["transform"])

    def test_compare(self, before, expected, transform):
        from .. import ir, tir  # pylint: disable=import-outside-toplevel

        if inspect.isclass(expected) and issubclass(expected, Exception):
            with pytest.raises(expected):
                after = transform(before)
                pytest.fail(f"expected {expected.__name__} from the transform, got:\n{after.script()}")
        elif isinstance(expected, (tir.PrimFunc, ir.IRModule)):
            after = transform(before)
            if isinstance(after, tir.PrimFunc):
                after = after.with_attr("global_symbol", "main")
                expected = expected.with_attr("global_symbol", "main")
            try:
                ir.assert_structural_equal(after, expected)
            except ValueError as err:
                raise TVMValueError("TIR after the transform differs from the expected TIR:\n"
                                    f"{before.script()}\n{after.script()}\n{expected.script()}") from err
        else:
            raise TVMTypeError("CompareBeforeAfter: `expected` must give a PrimFunc, an IRModule or an Exception "
                               f"class, got {type(expected).__name__}")

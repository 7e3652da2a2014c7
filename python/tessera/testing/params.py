"""pytest parameters and fixtures of ``tvm.testing``: ``x = parameter(1, 2)``
makes a fixture ``x`` taking each value; ``a, b = parameters((1, 2), (3, 4))``
makes fixtures taking the value sets together; ``fixture`` is pytest's, with an
optional cache of the return value across parametrizations."""
import copy
import functools
import inspect
import itertools
import sys

import pytest
from ..error import TVMValueError

_group_counter = itertools.count()


def parameter(*values, ids=None, by_dict=None):
    """A fixture (named by the variable it is assigned to) that takes each of
    ``values`` in turn; ``by_dict`` maps test ids to values instead."""
    if by_dict is not None:
        if values or ids:
            raise TVMValueError("parameter(): give either values (with ids) or by_dict, not both")
        ids, values = list(by_dict.keys()), list(by_dict.values())
    if not values:
        raise TVMValueError("parameter() needs at least one value")

    @pytest.fixture(params=list(values), ids=ids)
    def as_fixture(*_cls, request):
        return request.param

    return as_fixture


def parameters(*value_sets, ids=None):
    """One fixture per position of the value sets, taking the sets' values
    together (not their cross product): ``a, b = parameters((1, 2), (3, 4))``
    runs each test with (a, b) = (1, 2) then (3, 4)."""
    if not value_sets:
        raise TVMValueError("parameters() needs at least one value set")
    width = len(value_sets[0])
    if any(len(v) != width for v in value_sets):
        raise TVMValueError(f"parameters(): every value set needs {width} values, got {[len(v) for v in value_sets]}")
    # A hidden fixture holding the whole set; it must be visible to pytest in
    # the caller's namespace (module or class body).
    group_name = f"_tessera_parameters_{next(_group_counter)}"

    @pytest.fixture(params=[tuple(v) for v in value_sets], ids=ids, name=group_name)
    def group(*_cls, request):
        return request.param

    sys._getframe(1).f_locals[group_name] = group  # pylint: disable=protected-access

    def member(position):
        def pick(*_cls, **kwargs):
            return kwargs[group_name][position]

        pick.__signature__ = inspect.Signature(
            [inspect.Parameter("_cls", inspect.Parameter.VAR_POSITIONAL),
             inspect.Parameter(group_name, inspect.Parameter.KEYWORD_ONLY)])
        return pytest.fixture(pick)

    return [member(i) for i in range(width)]


def fixture(func=None, *, cache_return_value=False):
    """pytest.fixture; with ``cache_return_value``, the value computed for given
    arguments is kept and each test gets a deep copy (for costly setups)."""

    def wrap(func):
        if cache_return_value:
            func = _cached(func)
        return pytest.fixture(func)

    return wrap(func) if func is not None else wrap


def _cached(func):
    cache = {}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            key = (tuple(repr(a) for a in args), tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        except Exception:  # pylint: disable=broad-except
            return func(*args, **kwargs)
        if key not in cache:
            cache[key] = func(*args, **kwargs)
        try:
            return copy.deepcopy(cache[key])
        except Exception:  # pylint: disable=broad-except  (objects that cannot be copied are shared)
            return cache[key]

    return wrapper

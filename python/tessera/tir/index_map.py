"""``tvm.tir.IndexMap``: a map from buffer indices to new indices, written
``IndexMap.from_func(lambda i, j: (j // 4, i, j % 4))``; transform_layout
takes one. It maps indices and shapes, inverts bijective affine maps and
prints as ``T.index_map(lambda i, j: ...)``."""
import inspect

from .._ffi.registry import register_object
from ..ir.base import Node
from . import _ffi_api
from .expr import Var
from ..error import TVMValueError


@register_object("tir.IndexMap")
class IndexMap(Node):
    """``IndexMap(initial_indices, final_indices, inverse_index_map=None)``;
    fields ``initial_indices``, ``final_indices``, ``inverse_index_map``.

    ``IndexMap.AXIS_SEPARATOR`` in the list a mapping function returns marks
    where a new group of physical axes starts (``from_func_with_separators``;
    transform_layout then gives the buffer those axis separators)."""

    AXIS_SEPARATOR = "axis_separator"

    def __init__(self, initial_indices, final_indices, inverse_index_map=None):
        if callable(inverse_index_map):
            inverse_index_map = IndexMap.from_func(inverse_index_map)
        self.__init_handle_by_constructor__(_ffi_api.IndexMap, list(initial_indices), list(final_indices),
                                            inverse_index_map)

    @staticmethod
    def from_func(mapping_function, ndim=None, inverse_index_map=None, *, index_dtype="int64"):
        """An IndexMap from a function of the indices (one parameter per
        index, or ``*args`` with ``ndim``) returning an index or a tuple."""
        index_map, separators = IndexMap.from_func_with_separators(
            mapping_function, ndim, inverse_index_map, index_dtype=index_dtype)
        if separators:
            raise TVMValueError("IndexMap.from_func: the mapping function returns IndexMap.AXIS_SEPARATOR; "
                                "use IndexMap.from_func_with_separators")
        return index_map

    @staticmethod
    def from_func_with_separators(mapping_function, ndim=None, inverse_index_map=None, *, index_dtype="int64"):
        """As ``from_func``, where the returned list may hold
        ``IndexMap.AXIS_SEPARATOR`` between indices: returns the IndexMap and
        the axis separators (the number of final indices before each)."""
        params = list(inspect.signature(mapping_function).parameters.values())
        kwonly = [p.name for p in params if p.kind == inspect.Parameter.KEYWORD_ONLY]
        if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
            if ndim is None:
                raise TVMValueError("IndexMap.from_func needs ndim for a function taking *args")
            # As TVM: named positional indices first, *args takes the middle
            # ones, keyword-only parameters the last (lambda *rest, k: ...).
            lead = [p.name for p in params
                    if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            n_var = ndim - len(lead) - len(kwonly)
            if n_var < 0:
                raise TVMValueError(f"IndexMap.from_func: the function takes at least {len(lead) + len(kwonly)} "
                                    f"indices, ndim is {ndim}")
            names = lead + [f"i{k}" for k in range(len(lead), len(lead) + n_var)] + kwonly
        else:
            names = [p.name for p in params]
            if ndim is not None and ndim != len(names):
                raise TVMValueError(f"IndexMap.from_func: the function takes {len(names)} indices, ndim is {ndim}")
        dtypes = index_dtype if isinstance(index_dtype, (list, tuple)) else [index_dtype] * len(names)
        if len(dtypes) != len(names):
            raise TVMValueError(f"IndexMap.from_func: {len(dtypes)} index dtypes for {len(names)} indices")
        initial = [Var(n, d) for n, d in zip(names, dtypes)]
        n_pos = len(initial) - len(kwonly)  # keyword-only parameters come last in `names`
        final = mapping_function(*initial[:n_pos], **dict(zip(kwonly, initial[n_pos:])))
        if not isinstance(final, (list, tuple)):
            final = [final]
        indices, separators = [], []
        for item in final:
            if isinstance(item, str) and item == IndexMap.AXIS_SEPARATOR:
                if not indices or (separators and separators[-1] == len(indices)):
                    raise TVMValueError("IndexMap.from_func_with_separators: an AXIS_SEPARATOR must follow an index "
                                        f"(got {list(final)!r})")
                separators.append(len(indices))
            else:
                indices.append(item)
        if separators and separators[-1] == len(indices):
            raise TVMValueError("IndexMap.from_func_with_separators: an AXIS_SEPARATOR must precede an index "
                                f"(got {list(final)!r})")
        return IndexMap(initial, indices, inverse_index_map), separators

    def map_indices(self, indices):
        """The final indices at ``indices`` (ints or PrimExprs), simplified."""
        return list(_ffi_api.IndexMapMapIndices(self, list(indices)))

    def map_shape(self, shape):
        """The shape of a buffer of ``shape`` after the map (constant shapes)."""
        return list(_ffi_api.IndexMapMapShape(self, list(shape)))

    def inverse(self, shape):
        """The inverse over a buffer of ``shape`` (bijective affine maps only;
        ValueError otherwise)."""
        return _ffi_api.IndexMapInverse(self, list(shape))

    def is_equivalent_to(self, other_map):
        from ..ir.structural import structural_equal  # pylint: disable=import-outside-toplevel

        return structural_equal(self, other_map)

    def script(self, **kwargs):  # pylint: disable=unused-argument
        return f"T.index_map({_ffi_api.IndexMapAsLambda(self)})"

    def __str__(self):
        return self.script()

    def __repr__(self):
        return self.script()


__all__ = ["IndexMap"]

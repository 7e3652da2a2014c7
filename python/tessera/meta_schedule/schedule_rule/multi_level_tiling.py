"""MultiLevelTiling (C++: src/meta_schedule/schedule_rule/multi_level_tiling.cc) and
Tessera's MultiLevelTilingPackedPanel (multi_level_tiling_packed_panel.cc: the same
branches plus packed panels for matmul-like blocks, the default for "llvm")."""
from typing import NamedTuple

from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule
from ...error import TVMTypeError


class ReuseType(NamedTuple):
    """Data reuse: ``req`` "no" / "may" / "must", ``levels`` (1-based tile levels where the
    cache stage goes), ``scope`` (storage scope of the cache)."""

    req: str
    levels: list
    scope: str

    def as_dict(self):
        return {"req": self.req, "levels": list(self.levels), "scope": self.scope}


def _reuse(value, name):
    if value is None:
        return None
    if isinstance(value, ReuseType):
        return value.as_dict()
    if isinstance(value, dict):
        return dict(value)
    raise TVMTypeError(f"MultiLevelTiling({name}=...) must be a ReuseType or a dict, got {type(value).__name__}")


@register_object("meta_schedule.MultiLevelTiling")
class MultiLevelTiling(ScheduleRule):
    """TVM's signature: ``MultiLevelTiling(structure, tile_binds=None, max_innermost_factor=None,
    vector_load_lens=None, reuse_read=None, reuse_write=None, filter_fn=None)``. GPU:
    ``tile_binds`` binds the fused tiles of the first levels to those thread tags,
    ``vector_load_lens`` makes the read caches cooperative fetches; ``filter_fn`` is refused
    with NotImplementedError."""

    def __init__(self, structure, tile_binds=None, max_innermost_factor=None, vector_load_lens=None,
                 reuse_read=None, reuse_write=None, filter_fn=None):
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleMultiLevelTiling, structure, tile_binds, max_innermost_factor, vector_load_lens,
            _reuse(reuse_read, "reuse_read"), _reuse(reuse_write, "reuse_write"), filter_fn)


@register_object("meta_schedule.MultiLevelTilingPackedPanel")
class MultiLevelTilingPackedPanel(MultiLevelTiling):
    """MultiLevelTiling's branches plus, for a block with loops (i, j, k) = (spatial,
    spatial, reduction) and an operand not indexed by i, the packed-panel schedule:
    i1 <= packed_i rows unrolled, j1 <= packed_j columns vectorized, k1 <= packed_k, the
    panel copied once per j0 tile, the i1 x j1 tile accumulated in a local buffer."""

    def __init__(self, structure="SSRSRS", tile_binds=None, max_innermost_factor=64, vector_load_lens=None,
                 reuse_read=None, reuse_write=None, packed_i=8, packed_j=64, packed_k=512):
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleMultiLevelTilingPackedPanel, structure, tile_binds, max_innermost_factor,
            vector_load_lens, _reuse(reuse_read, "reuse_read"), _reuse(reuse_write, "reuse_write"),
            int(packed_i), int(packed_j), int(packed_k))

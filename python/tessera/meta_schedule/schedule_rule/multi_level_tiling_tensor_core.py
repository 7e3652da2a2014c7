"""MultiLevelTilingTensorCore (C++: src/meta_schedule/schedule_rule/multi_level_tiling_tensor_core.cc):
matmul-like fp16 blocks tiled into thread blocks, warps and 16x16 fragments and tensorized onto
mma.sync m16n8k16 (the intrinsics of tvm.tir.tensor_intrin.cuda, imported here so they are registered)."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .multi_level_tiling import MultiLevelTiling, _reuse


@register_object("meta_schedule.MultiLevelTilingTensorCore")
class MultiLevelTilingTensorCore(MultiLevelTiling):
    """TVM's signature: ``MultiLevelTilingTensorCore(intrin_groups, structure, tile_binds=None,
    max_innermost_factor=None, vector_load_lens=None, reuse_read=None, reuse_write=None,
    use_software_pipeline=False)``; ``intrin_groups`` is a list of {"init", "load_a", "load_b",
    "compute", "store"} dicts of registered intrinsic names (e.g.
    ``tvm.tir.tensor_intrin.cuda.get_mma_intrin_group(...)``); an unknown name is a ValueError
    naming it. The tiling levels are fixed (docs/compatibility.md); use_software_pipeline=True
    is refused with NotImplementedError."""

    def __init__(self, intrin_groups, structure="SSSRRSRS", tile_binds=None, max_innermost_factor=None,
                 vector_load_lens=None, reuse_read=None, reuse_write=None, use_software_pipeline=False):
        from ...tir.tensor_intrin import cuda as _cuda_intrin  # noqa: F401  pylint: disable=import-outside-toplevel
        groups = [{str(k): str(v) for k, v in dict(g).items()} for g in intrin_groups]
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleMultiLevelTilingTensorCore, groups, structure, tile_binds, max_innermost_factor,
            vector_load_lens, _reuse(reuse_read, "reuse_read"), _reuse(reuse_write, "reuse_write"),
            bool(use_software_pipeline))

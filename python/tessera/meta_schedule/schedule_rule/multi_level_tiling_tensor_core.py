"""MultiLevelTilingTensorCore (C++: src/meta_schedule/schedule_rule/multi_level_tiling_tensor_core.cc):
matmul-like fp16 blocks tiled into thread blocks, warps and 16x16 fragments and tensorized onto
mma.sync m16n8k16 (the intrinsics of tvm.tir.tensor_intrin.cuda, imported here so they are registered)."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from ...error import OpNotImplemented
from .multi_level_tiling import MultiLevelTiling, _reuse

# What the rule's one tiling does (tir/schedule/tensor_core_gemm): values saying otherwise are refused,
# never accepted and ignored.
_STRUCTURE = "SSSRRSRS"
_TILE_BINDS = (None, ["blockIdx.y", "blockIdx.x", "threadIdx.y"], ["blockIdx.x", "threadIdx.y"])


def _refuse_unless(ok, name, value, what):
    if not ok:
        raise OpNotImplemented(f"MultiLevelTilingTensorCore({name}={value!r}) is not supported: the rule's one "
                               f"tiling {what} (docs/compatibility.md)")


def _reuse_req(value):
    d = _reuse(value, "reuse")
    return None if d is None else (str(d.get("req", "")), str(d.get("scope", "")))


@register_object("meta_schedule.MultiLevelTilingTensorCore")
class MultiLevelTilingTensorCore(MultiLevelTiling):
    """TVM's signature: ``MultiLevelTilingTensorCore(intrin_groups, structure, tile_binds=None,
    max_innermost_factor=None, vector_load_lens=None, reuse_read=None, reuse_write=None,
    use_software_pipeline=False)``; ``intrin_groups`` is a list of {"init", "load_a", "load_b",
    "compute", "store"} dicts of registered intrinsic names (e.g.
    ``tvm.tir.tensor_intrin.cuda.get_mma_intrin_group(...)``); an unknown name is a ValueError
    naming it. The tiling levels are fixed (docs/compatibility.md): a ``structure``, ``tile_binds``,
    ``reuse_read`` or ``reuse_write`` asking for another tiling, and use_software_pipeline=True, are
    refused with NotImplementedError naming the parameter."""

    def __init__(self, intrin_groups, structure="SSSRRSRS", tile_binds=None, max_innermost_factor=None,
                 vector_load_lens=None, reuse_read=None, reuse_write=None, use_software_pipeline=False):
        from ...tir.tensor_intrin import cuda as _cuda_intrin  # noqa: F401  pylint: disable=import-outside-toplevel
        _refuse_unless(structure == _STRUCTURE or not set(str(structure)) <= set("SR"), "structure", structure,
                       f"is {_STRUCTURE!r} (thread-block, warp and fragment levels)")
        binds = None if tile_binds is None else [str(b) for b in tile_binds]
        _refuse_unless(binds in _TILE_BINDS, "tile_binds", tile_binds,
                       "binds thread-block tiles to blockIdx and warps to threadIdx.y")
        rr = _reuse_req(reuse_read)
        _refuse_unless(rr is None or (rr[0] == "must" and rr[1] in ("shared", "shared.dyn")), "reuse_read",
                       reuse_read, "always stages A and B in shared memory")
        rw = _reuse_req(reuse_write)
        _refuse_unless(rw is None or rw[0] == "no", "reuse_write", reuse_write,
                       "stores the accumulator fragments straight to the output (no write cache)")
        groups = [{str(k): str(v) for k, v in dict(g).items()} for g in intrin_groups]
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleMultiLevelTilingTensorCore, groups, structure, tile_binds, max_innermost_factor,
            vector_load_lens, _reuse(reuse_read, "reuse_read"), _reuse(reuse_write, "reuse_write"),
            bool(use_software_pipeline))

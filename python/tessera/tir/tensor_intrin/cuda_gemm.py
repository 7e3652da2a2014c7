"""schedule_fp16_gemm: a reusable tensor-core schedule for C[M, N] (fp32 or fp16) = A[M, K] @ B[K, N] (fp16 or
bf16), using the mma intrinsics of tir/tensor_intrin/cuda.py: block tiles of A and B staged in shared memory by
cooperative (vectorized) fetches, warps loading 16x16 fragments with ldmatrix and multiplying them with mma.sync,
the C tile accumulated in warp fragments (registers) and stored to global memory with mma_store.
"""
from ..._ffi.registry import get_global_func
from ...error import TVMValueError
from . import cuda as _intrin

_TAGS = {"float32": "f32", "float16": "f16"}


def schedule_fp16_gemm(sch, block="C", block_m=128, block_n=128, block_k=32, warp_m=64, warp_n=64, vec=8):
    """Tensorizes the GEMM block `block` of `sch` (loops i, j, k over C[i, j] += A[i, k] * B[k, j], k the
    reduction) onto mma.sync m16n8k16 and returns `sch`. Tile sizes: a thread block computes block_m x block_n of
    C, stepping k by block_k through shared memory; each warp computes warp_m x warp_n. M, N, K must be
    multiples of block_m, block_n, block_k; the tiles multiples of 16 (ValueError otherwise)."""
    b = sch.get_block(block)
    loops = sch.get_loops(b)
    kinds = [int(iv.iter_type) for iv in sch.get(b).iter_vars]
    if len(loops) != 3 or kinds != [0, 0, 2] or len(sch.get(b).reads) < 2:
        raise TVMValueError(f"schedule_fp16_gemm: block {block} is not a GEMM C[i, j] += A[i, k] * B[k, j] under loops "
                         f"i, j, k (it has {len(loops)} loops, iterators {kinds}; 0 spatial, 2 reduction)")
    i, j, k = loops
    m, n, kk = (int(sch.get(x).extent) for x in (i, j, k))
    a_buf, b_buf = (r.buffer for r in sch.get(b).reads[-2:])
    c_buf = sch.get(b).writes[0].buffer
    in_dtype, out_dtype = str(a_buf.dtype), str(c_buf.dtype)
    for what, size, tile in (("M", m, block_m), ("N", n, block_n), ("K", kk, block_k)):
        if tile % 16 or size % tile:
            raise TVMValueError(f"schedule_fp16_gemm: {what}={size} is not a multiple of its tile {tile} (a multiple "
                             "of 16)")
    if block_m % warp_m or block_n % warp_n or warp_m % 16 or warp_n % 16:
        raise TVMValueError(f"schedule_fp16_gemm: warp tile {warp_m}x{warp_n} must be multiples of 16 dividing the "
                         f"block tile {block_m}x{block_n}")
    if in_dtype not in ("float16", "bfloat16") or out_dtype not in _TAGS or (in_dtype == "bfloat16"
                                                                           and out_dtype != "float32"):
        raise TVMValueError(f"schedule_fp16_gemm: block {block} computes {out_dtype} from {in_dtype} (supported: "
                         "float16 -> float32/float16, bfloat16 -> float32)")
    warps = (block_m // warp_m) * (block_n // warp_n)
    threads = warps * 32
    src = "f16" if in_dtype == "float16" else "bf16"
    mma = {("f16", "float32"): _intrin.MMA_f16f16f32_INTRIN, ("f16", "float16"): _intrin.MMA_f16f16f16_INTRIN,
           ("bf16", "float32"): _intrin.MMA_bf16bf16f32_INTRIN}[(src, out_dtype)]
    acc = _TAGS[out_dtype]

    names = [f"mma_fill_16x16_{acc}", f"mma_ldmatrix_{src}_a", f"mma_ldmatrix_{src}_b", mma,
             f"mma_store_16x16_{acc}_global"]
    # the steps are shared with the MultiLevelTilingTensorCore rule (src/tir/schedule/tensor_core_gemm.cc)
    _schedule_tensor_core_gemm(sch, b, 0, 1, names, [m // block_m, block_m // warp_m, warp_m // 16],
                               [n // block_n, block_n // warp_n, warp_n // 16], [kk // block_k, block_k // 16],
                               threads, vec)
    return sch


def _schedule_tensor_core_gemm(*args):
    return get_global_func("tir.schedule.ScheduleTensorCoreGemm")(*args)

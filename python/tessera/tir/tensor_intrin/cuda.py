"""CUDA tensor-core intrinsics for ``sch.tensorize`` (mma.sync m16n8k16 + ldmatrix, TVM v0.18's names) and
``schedule_fp16_gemm``, a reusable fp16 GEMM schedule built on them (blockize/tensorize + shared-memory staging),
and ``get_mma_intrin_group`` (the names MultiLevelTilingTensorCore takes as an intrin group).

Design (differs from TVM, see docs/compatibility.md): a tensor-core fragment is a 16x16 tile of a buffer in the
"warp" storage scope. Its TIR shape is the logical tile (not TVM's [32, 8] lane layout), and only the intrinsics
below touch it: each computes the per-thread register offset of a fragment from its element offset and the
buffer's row stride ((16x16 tile index) * 8), and CodeGenCUDA allocates 1/32 of a warp buffer per thread.
The lane layout inside a fragment is the one ldmatrix/mma.sync define (PTX ISA, m16n8k16 fragments).
"""
from ...script import tir as T
from . import TensorIntrin

WARP_SIZE = 32
# Per-thread values of one 16x16 fragment (256 elements over 32 lanes).
_LOCAL = 256 // WARP_SIZE


def _frag(buf, row_stride):
    """Per-thread register offset of the 16x16 fragment `buf` (a region of a "warp" buffer whose rows are
    `row_stride` long, tiled by 16x16 fragments)."""
    off = buf.elem_offset
    return ((off // row_stride) // 16 * (row_stride // 16) + off % row_stride // 16) * _LOCAL


def _copy_desc(dtype, src_scope, dst_scope):
    """dst (16, 16) = src (16, 16): what loads a fragment (shared -> warp) or stores one (warp -> global/shared)."""

    @T.prim_func
    def desc(s: T.handle, d: T.handle) -> None:
        src = T.match_buffer(s, (16, 16), dtype, align=64, offset_factor=16, scope=src_scope)
        dst = T.match_buffer(d, (16, 16), dtype, align=64, offset_factor=16, scope=dst_scope)
        with T.block("root"):
            T.reads(src[0:16, 0:16])
            T.writes(dst[0:16, 0:16])
            for i, j in T.grid(16, 16):
                with T.block("copy"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    dst[vi, vj] = src[vi, vj]

    return desc


def _ldmatrix(dtype, trans):
    """shared (16, 16) -> warp fragment. A: rows i, cols k (ldmatrix); B: rows k, cols n (ldmatrix.trans gives
    the "col" operand of mma.sync). Lane t gives the address of row t % 16, column 8 * (t // 16)."""

    desc = _copy_desc(dtype, "shared", "warp")

    @T.prim_func
    def impl(a: T.handle, w: T.handle) -> None:
        s0 = T.int32()
        w0 = T.int32()
        src = T.match_buffer(a, (16, 16), dtype, align=64, offset_factor=16, scope="shared", strides=[s0, 1])
        dst = T.match_buffer(w, (16, 16), dtype, align=64, offset_factor=16, scope="warp", strides=[w0, 1])
        with T.block("root"):
            T.reads(src[0:16, 0:16])
            T.writes(dst[0:16, 0:16])
            tx = T.env_thread("threadIdx.x")
            T.launch_thread(tx, 32)
            T.evaluate(T.ptx_ldmatrix(dtype, trans, 4, ".b16", dst.data, _frag(dst, w0), src.access_ptr("r"),
                                      tx % 16 * s0 + tx // 16 * 8))

    return desc, impl


def _mma(in_dtype, acc_dtype):
    """C (16, 16) += A (16, 16) @ B (16, 16), all warp fragments: two mma.sync m16n8k16 (columns 0-7, 8-15)."""
    ptx_in = {"float16": "fp16", "bfloat16": "bf16"}[in_dtype]
    ptx_acc = {"float32": "fp32", "float16": "fp16"}[acc_dtype]
    # the second n8 tile: B's registers 2-3 (4 values), C's second half (4 values per thread either way)
    half = 4

    # (T.cast to the accumulator's own dtype is no cast: the same description serves fp16 accumulation)
    @T.prim_func
    def desc(a: T.handle, b: T.handle, c: T.handle) -> None:
        A = T.match_buffer(a, (16, 16), in_dtype, align=64, offset_factor=16, scope="warp")
        B = T.match_buffer(b, (16, 16), in_dtype, align=64, offset_factor=16, scope="warp")
        C = T.match_buffer(c, (16, 16), acc_dtype, align=64, offset_factor=16, scope="warp")
        with T.block("root"):
            T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
            T.writes(C[0:16, 0:16])
            for i, j, k in T.grid(16, 16, 16):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    C[vi, vj] = C[vi, vj] + T.cast(A[vi, vk], acc_dtype) * T.cast(B[vk, vj], acc_dtype)

    @T.prim_func
    def impl(a: T.handle, b: T.handle, c: T.handle) -> None:
        sa = T.int32()
        sb = T.int32()
        sc = T.int32()
        A = T.match_buffer(a, (16, 16), in_dtype, align=64, offset_factor=16, scope="warp", strides=[sa, 1])
        B = T.match_buffer(b, (16, 16), in_dtype, align=64, offset_factor=16, scope="warp", strides=[sb, 1])
        C = T.match_buffer(c, (16, 16), acc_dtype, align=64, offset_factor=16, scope="warp", strides=[sc, 1])
        with T.block("root"):
            T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
            T.writes(C[0:16, 0:16])
            T.evaluate(T.ptx_mma(acc_dtype, "m16n8k16", "row", "col", ptx_in, ptx_in, ptx_acc, A.data, _frag(A, sa),
                                 B.data, _frag(B, sb), C.data, _frag(C, sc), False))
            T.evaluate(T.ptx_mma(acc_dtype, "m16n8k16", "row", "col", ptx_in, ptx_in, ptx_acc, A.data, _frag(A, sa),
                                 B.data, _frag(B, sb) + half, C.data, _frag(C, sc) + half, False))

    return desc, impl


def _fill(dtype):
    @T.prim_func
    def desc(c: T.handle) -> None:
        C = T.match_buffer(c, (16, 16), dtype, align=64, offset_factor=16, scope="warp")
        with T.block("root"):
            T.reads()
            T.writes(C[0:16, 0:16])
            for i, j in T.grid(16, 16):
                with T.block("init"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = T.cast(0, dtype)

    @T.prim_func
    def impl(c: T.handle) -> None:
        sc = T.int32()
        C = T.match_buffer(c, (16, 16), dtype, align=64, offset_factor=16, scope="warp", strides=[sc, 1])
        with T.block("root"):
            T.reads()
            T.writes(C[0:16, 0:16])
            T.evaluate(T.mma_fill(dtype, _LOCAL, C.data, _frag(C, sc)))

    return desc, impl


def _store(dtype, scope):
    desc = _copy_desc(dtype, "warp", scope)

    @T.prim_func
    def impl(c: T.handle, d: T.handle) -> None:
        sc = T.int32()
        sd = T.int32()
        C = T.match_buffer(c, (16, 16), dtype, align=64, offset_factor=16, scope="warp", strides=[sc, 1])
        D = T.match_buffer(d, (16, 16), dtype, align=64, offset_factor=16, scope=scope, strides=[sd, 1])
        with T.block("root"):
            T.reads(C[0:16, 0:16])
            T.writes(D[0:16, 0:16])
            T.evaluate(T.mma_store(dtype, 16, 16, D.access_ptr("w"), C.data, _frag(C, sc), sd))

    return desc, impl


LDMATRIX_f16_A_INTRIN = "mma_ldmatrix_f16_a"
TensorIntrin.register(LDMATRIX_f16_A_INTRIN, *_ldmatrix("float16", False))
LDMATRIX_f16_B_INTRIN = "mma_ldmatrix_f16_b"
TensorIntrin.register(LDMATRIX_f16_B_INTRIN, *_ldmatrix("float16", True))
LDMATRIX_bf16_A_INTRIN = "mma_ldmatrix_bf16_a"
TensorIntrin.register(LDMATRIX_bf16_A_INTRIN, *_ldmatrix("bfloat16", False))
LDMATRIX_bf16_B_INTRIN = "mma_ldmatrix_bf16_b"
TensorIntrin.register(LDMATRIX_bf16_B_INTRIN, *_ldmatrix("bfloat16", True))

MMA_f16f16f32_INTRIN = "mma_f16f16f32"
TensorIntrin.register(MMA_f16f16f32_INTRIN, *_mma("float16", "float32"))
MMA_f16f16f16_INTRIN = "mma_f16f16f16"
TensorIntrin.register(MMA_f16f16f16_INTRIN, *_mma("float16", "float16"))
MMA_bf16bf16f32_INTRIN = "mma_bf16bf16f32"
TensorIntrin.register(MMA_bf16bf16f32_INTRIN, *_mma("bfloat16", "float32"))

MMA_fill_16x16_f32_INTRIN = "mma_fill_16x16_f32"
TensorIntrin.register(MMA_fill_16x16_f32_INTRIN, *_fill("float32"))
MMA_fill_16x16_f16_INTRIN = "mma_fill_16x16_f16"
TensorIntrin.register(MMA_fill_16x16_f16_INTRIN, *_fill("float16"))

MMA_store_16x16_f32_global_INTRIN = "mma_store_16x16_f32_global"
TensorIntrin.register(MMA_store_16x16_f32_global_INTRIN, *_store("float32", "global"))
MMA_store_16x16_f16_global_INTRIN = "mma_store_16x16_f16_global"
TensorIntrin.register(MMA_store_16x16_f16_global_INTRIN, *_store("float16", "global"))
MMA_store_16x16_f32_shared_INTRIN = "mma_store_16x16_f32_shared"
TensorIntrin.register(MMA_store_16x16_f32_shared_INTRIN, *_store("float32", "shared"))


def get_mma_intrin_group(load_scope, store_scope, in_dtype, out_dtype, trans_a, trans_b,
                         not_use_mma_store_intrinic=True, store_to_smem_dtype=None):
    """TVM's helper: the {"init", "load_a", "load_b", "compute", "store"} intrinsic names of an mma.sync
    m16n8k16 group, for ``MultiLevelTilingTensorCore(intrin_groups=[...])``. Tessera has operands loaded
    from "shared", B stored [K, N] (trans_b False), A stored [M, K] (trans_a False), fp16 -> fp32/fp16 and
    bf16 -> fp32, stored to "global" (or fp32 to "shared"); anything else is a ValueError naming it.
    The last two arguments are accepted for TVM's signature and unused."""
    from ...error import TVMValueError  # pylint: disable=import-outside-toplevel
    del not_use_mma_store_intrinic, store_to_smem_dtype
    src = {"float16": "f16", "bfloat16": "bf16"}.get(str(in_dtype))
    acc = {"float32": "f32", "float16": "f16"}.get(str(out_dtype))
    problems = []
    if load_scope != "shared":
        problems.append(f"load_scope={load_scope!r} (only 'shared')")
    if src is None or acc is None or (src == "bf16" and acc != "f32"):
        problems.append(f"in_dtype={in_dtype!r} -> out_dtype={out_dtype!r} (float16 -> float32/float16, "
                        "bfloat16 -> float32)")
    if trans_a or trans_b:
        problems.append(f"trans_a={trans_a}, trans_b={trans_b} (no _trans intrinsics: A is [M, K], B is [K, N])")
    store = f"mma_store_16x16_{acc}_{store_scope}"
    if store_scope not in ("global", "shared") or (acc is not None and TensorIntrin.get(store, True) is None):
        problems.append(f"store_scope={store_scope!r} for out_dtype={out_dtype!r}")
    if problems:
        raise TVMValueError("get_mma_intrin_group: no such mma group in Tessera: " + "; ".join(problems))
    compute = {("f16", "f32"): MMA_f16f16f32_INTRIN, ("f16", "f16"): MMA_f16f16f16_INTRIN,
               ("bf16", "f32"): MMA_bf16bf16f32_INTRIN}[(src, acc)]
    return {"init": f"mma_fill_16x16_{acc}", "load_a": f"mma_ldmatrix_{src}_a", "load_b": f"mma_ldmatrix_{src}_b",
            "compute": compute, "store": store}


from .cuda_gemm import schedule_fp16_gemm  # noqa: E402,F401  (the GEMM schedule built on these intrinsics)

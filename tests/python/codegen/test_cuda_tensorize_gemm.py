"""Tensor-core intrinsics of tir/tensor_intrin/cuda.py through sch.tensorize, and schedule_fp16_gemm (blockize +
tensorize + shared-memory staging): the tensorized IR against hand-written expectations, tensorize refusing blocks
of the wrong shape or dtype, and the generated CUDA of the GEMM at several sizes compiled by NVRTC for sm_80 and
sm_90. Compile-only: the numbers are checked by test_cuda_tensorize_gemm_gpu.py on a GPU."""
import pytest

import tessera as tvm
from tessera.contrib import nvcc
from tessera.script import tir as T
from tessera.tir.tensor_intrin.cuda import schedule_fp16_gemm

from .test_cuda_codegen import ARCHS, cuda_source, requires_nvrtc


def gemm_module(m, n, k, out_dtype="float32", in_dtype="float16"):
    """C[m, n] (out_dtype) = A[m, k] @ B[k, n] (in_dtype), accumulated in out_dtype."""

    @T.prim_func
    def main(A: T.Buffer((m, k), in_dtype), B: T.Buffer((k, n), in_dtype), C: T.Buffer((m, n), out_dtype)):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, kk in T.grid(m, n, k):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, kk])
                with T.init():
                    C[vi, vj] = T.cast(0, out_dtype)
                C[vi, vj] = C[vi, vj] + T.cast(A[vi, vk], out_dtype) * T.cast(B[vk, vj], out_dtype)

    return tvm.IRModule({"main": main})


def _batched_gemm():
    @T.prim_func
    def main(A: T.Buffer((2, 32, 32), "float16"), B: T.Buffer((2, 32, 32), "float16"),
             C: T.Buffer((2, 32, 32), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for bb, i, j, k in T.grid(2, 32, 32, 32):
            with T.block("C"):
                vb, vi, vj, vk = T.axis.remap("SSSR", [bb, i, j, k])
                with T.init():
                    C[vb, vi, vj] = T.float32(0)
                C[vb, vi, vj] = C[vb, vi, vj] + T.cast(A[vb, vi, vk], "float32") * T.cast(B[vb, vk, vj], "float32")

    return tvm.IRModule({"main": main})


def warp_mma_module(in_dtype, acc_dtype, kk):
    """One 16 x 16 x kk multiply-accumulate on "warp" fragments (what mma_* tensorizes)."""

    @T.prim_func
    def main(a: T.handle, b: T.handle, c: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        Aw = T.match_buffer(a, (16, kk), in_dtype, scope="warp")
        Bw = T.match_buffer(b, (kk, 16), in_dtype, scope="warp")
        Cw = T.match_buffer(c, (16, 16), acc_dtype, scope="warp")
        for i, j, k in T.grid(16, 16, kk):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                Cw[vi, vj] = Cw[vi, vj] + T.cast(Aw[vi, vk], acc_dtype) * T.cast(Bw[vk, vj], acc_dtype)

    return tvm.IRModule({"main": main})


# Hand-written: what tensorize("mma_f16f16f32") must make of warp_mma_module("float16", "float32", 16). The
# per-thread register offset of a fragment is ((row // 16) * (row stride // 16) + col // 16) * 8.
@T.prim_func
def _expected_mma(a: T.handle, b: T.handle, c: T.handle):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    Aw = T.match_buffer(a, (16, 16), "float16", scope="warp")
    Bw = T.match_buffer(b, (16, 16), "float16", scope="warp")
    Cw = T.match_buffer(c, (16, 16), "float32", scope="warp")
    with T.block("root"):
        with T.block("C_o"):
            vi_o = T.axis.spatial(1, 0)
            vj_o = T.axis.spatial(1, 0)
            vk_o = T.axis.reduce(1, 0)
            T.reads(Cw[0:16, 0:16], Aw[0:16, 0:16], Bw[0:16, 0:16])
            T.writes(Cw[0:16, 0:16])
            sa = T.int32()
            oa = T.int32()
            A = T.match_buffer(Aw[0:16, 0:16], (16, 16), "float16", strides=(sa, 1), elem_offset=oa, scope="warp",
                               offset_factor=16)
            sb = T.int32()
            ob = T.int32()
            B = T.match_buffer(Bw[0:16, 0:16], (16, 16), "float16", strides=(sb, 1), elem_offset=ob, scope="warp",
                               offset_factor=16)
            sc = T.int32()
            oc = T.int32()
            C = T.match_buffer(Cw[0:16, 0:16], (16, 16), strides=(sc, 1), elem_offset=oc, scope="warp",
                               offset_factor=16)
            T.ptx_mma("float32", "m16n8k16", "row", "col", "fp16", "fp16", "fp32",
                      A.data, (oa // sa // 16 * (sa // 16) + oa % sa // 16) * 8,
                      B.data, (ob // sb // 16 * (sb // 16) + ob % sb // 16) * 8,
                      C.data, (oc // sc // 16 * (sc // 16) + oc % sc // 16) * 8, T.bool(False))
            T.ptx_mma("float32", "m16n8k16", "row", "col", "fp16", "fp16", "fp32",
                      A.data, (oa // sa // 16 * (sa // 16) + oa % sa // 16) * 8,
                      B.data, (ob // sb // 16 * (sb // 16) + ob % sb // 16) * 8 + 4,
                      C.data, (oc // sc // 16 * (sc // 16) + oc % sc // 16) * 8 + 4, T.bool(False))


def test_tensorize_mma_matches_hand_written():
    sch = tvm.tir.Schedule(warp_mma_module("float16", "float32", 16))
    sch.tensorize(sch.get_loops(sch.get_block("C"))[0], "mma_f16f16f32")
    tvm.ir.assert_structural_equal(sch.mod["main"], _expected_mma)


@pytest.mark.parametrize("in_dtype,acc_dtype,kk,why", [
    ("float32", "float32", 16, "expressions differ"),  # fp32 inputs (no cast): no fp16 mma
    ("float16", "float32", 8, "loop extents differ"),  # a 16x16x8 block
])
def test_tensorize_refuses_wrong_block(in_dtype, acc_dtype, kk, why):
    sch = tvm.tir.Schedule(warp_mma_module(in_dtype, acc_dtype, kk))
    with pytest.raises(tvm.error.TVMError, match="does not match the intrinsic's description") as info:
        sch.tensorize(sch.get_loops(sch.get_block("C"))[0], "mma_f16f16f32")
    assert why in str(info.value)


def test_tensorized_gemm_ir():
    """schedule_fp16_gemm: block tiles staged in shared memory, warps on 16x16 fragments (fill, ldmatrix A and
    B, mma, store), every 16x16 block replaced by its intrinsic."""
    sch = schedule_fp16_gemm(tvm.tir.Schedule(gemm_module(256, 128, 64)), block_m=128, block_n=64, block_k=32,
                             warp_m=64, warp_n=32)
    text = sch.mod.script()
    for call, count in (("T.mma_fill(", 1), ("T.ptx_ldmatrix(", 2), ("T.ptx_mma(", 2), ("T.mma_store(", 1)):
        assert text.count(call) == count, call
    assert 'T.ptx_ldmatrix("float16", T.bool(False)' in text and 'T.ptx_ldmatrix("float16", T.bool(True)' in text
    for scope in ('scope="shared"', 'scope="warp"'):
        assert scope in text
    loops = [sch.get(x) for x in sch.get_loops(sch.get_block("C_update_o"))]
    tags = [lp.thread_binding.thread_tag for lp in loops if lp.thread_binding is not None]
    assert tags == ["blockIdx.x", "threadIdx.y"]
    # 2 x 2 block tiles, 2 x 2 warps; k in steps of 32 (2 fragments), 4 x 2 fragments per warp
    assert [int(lp.extent) for lp in loops] == [4, 4, 2, 2, 4, 2]


@pytest.mark.parametrize("tiles", [dict(block_m=48), dict(warp_n=24), dict(block_k=40)])
def test_schedule_refuses_bad_tiles(tiles):
    with pytest.raises(ValueError, match="schedule_fp16_gemm"):
        schedule_fp16_gemm(tvm.tir.Schedule(gemm_module(128, 128, 128)), **tiles)


def test_schedule_refuses_a_block_that_is_not_a_gemm():
    with pytest.raises(ValueError, match="block C is not a GEMM"):
        schedule_fp16_gemm(tvm.tir.Schedule(_batched_gemm()))


def test_schedule_refuses_fp32_inputs():
    with pytest.raises(ValueError, match="float32 from float32"):
        schedule_fp16_gemm(tvm.tir.Schedule(gemm_module(128, 128, 128, in_dtype="float32")))


def cuda_gemm_source(m, n, k, out_dtype="float32", **tiles):
    sch = schedule_fp16_gemm(tvm.tir.Schedule(gemm_module(m, n, k, out_dtype)), **tiles)
    return tvm.build(sch.mod, target="cuda").imported_modules[0].get_source()


SIZES = [
    (128, 128, 128, "float32", {}),
    (256, 512, 384, "float32", {}),  # non-square, several block tiles and k steps
    (64, 96, 48, "float32", dict(block_m=32, block_n=32, block_k=16, warp_m=16, warp_n=32)),
    (256, 256, 256, "float16", {}),
]


@requires_nvrtc
@pytest.mark.parametrize("m,n,k,out_dtype,tiles", SIZES)
def test_tensorized_gemm_compiles(m, n, k, out_dtype, tiles):
    src = cuda_gemm_source(m, n, k, out_dtype, **tiles)
    acc = {"float32": "f32", "float16": "f16"}[out_dtype]
    wm, wn, bk = tiles.get("warp_m", 64), tiles.get("warp_n", 64), tiles.get("block_k", 32)
    # fragment loops unrolled: per k step of the block, (wm/16) x (wn/16) fragments, two m16n8k16 each
    assert src.count(f"mma.sync.aligned.m16n8k16.row.col.{acc}.f16.f16.{acc}") == 2 * (bk // 16) * (wm // 16) * (wn // 16)
    assert src.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") == (bk // 16) * (wm // 16)
    assert src.count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == (bk // 16) * (wn // 16)
    # shared memory written by all threads, read by ldmatrix: a barrier before the reads and one before the next
    # k step overwrites it, none between the ldmatrix reads
    assert "__shared__ half A_shared[" in src and src.count("__syncthreads();") == 2
    # the warp tile's accumulators: (warp_m * warp_n) / 32 registers per thread
    ctype = {"float32": "float", "float16": "half"}[out_dtype]
    assert f"{ctype} C_warp[{wm * wn // 32}]" in src
    for arch in ARCHS:
        ptx = nvcc.compile_cuda(src, target_format="ptx", arch=arch).decode()
        assert "mma.sync.aligned.m16n8k16" in ptx and "ldmatrix.sync.aligned" in ptx


def test_warp_buffer_element_access_is_refused():
    """A "warp" buffer holds fragments spread over the lanes: reading it element by element would read the wrong
    values, so code generation refuses it and names the buffer."""

    @T.prim_func
    def f(a: T.handle):
        T.func_attr({"global_symbol": "warp_elem", "tir.noalias": True})
        A = T.Buffer((32,), "float32", data=a)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            W = T.allocate([32], "float32", "warp")
            W_1 = T.Buffer((32,), "float32", data=W, scope="warp")
            W_1[tx] = A[tx]
            A[tx] = W_1[tx] + T.float32(1)

    with pytest.raises(ValueError, match="warp buffer W .*only accessed through the tensor intrinsics"):
        cuda_source(tvm.IRModule({"k": f}))


@requires_nvrtc
def test_tensorized_bf16_gemm_compiles():
    sch = schedule_fp16_gemm(tvm.tir.Schedule(gemm_module(128, 256, 64, "float32", in_dtype="bfloat16")))
    src = tvm.build(sch.mod, target="cuda").imported_modules[0].get_source()
    assert src.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 64
    for arch in ARCHS:
        assert "mma.sync.aligned.m16n8k16" in nvcc.compile_cuda(src, target_format="ptx", arch=arch).decode()

"""tvm.tir.tensor_intrin (x86, arm_cpu, rocm, hexagon, dot_product_common)
and the tensorize matching they need: description buffers of lower rank
than the block's, indices matched by value, the implementation's block
annotations; VNNI / AVX512 intrinsics checked against NumPy on CPUs that
have them."""
import numpy as np
import pytest

import tessera as tvm
import tessera.testing
from tessera import te, tir
from tessera.script import tir as T
from tessera.tir.tensor_intrin import arm_cpu, hexagon, rocm, x86  # noqa: F401  (registers the intrinsics)


def test_registered_names():
    names = [x86.VNNI_DOT_16x4_INTRIN, x86.AVX512_DOT_16x4_INTRIN, arm_cpu.ARM_DOT_4x4_i8_NEON_INTRIN,
             arm_cpu.ARM_DOT_4x4_i8_SDOT_INTRIN, arm_cpu.DP4A_S8S8S32_INTRIN, arm_cpu.DP4A_U8U8U32_INTRIN,
             arm_cpu.DP4A_U8S8S32_INTRIN, arm_cpu.DP4A_S8U8S32_INTRIN, rocm.AMDGPU_SDOT4_INTRIN,
             hexagon.VRMPY_u8u8i32_INTRIN, hexagon.VDMPY_i16i16i32_INTRIN]
    assert names == ["dot_16x4_vnni", "dot_16x4_avx512", "dot_4x4_i8i8s32_neon", "dot_4x4_i8i8s32_sdot",
                     "dp4a_s8s8s32", "dp4a_u8u8u32", "dp4a_u8s8s32", "dp4a_s8u8s32", "sdot4",
                     "dot_32x4_u8u8i32_vrmpy", "dot_32x2_i16i16i32_vdmpy"]
    for name in names:
        intrin = tir.TensorIntrin.get(name)
        assert len(intrin.desc.params) == len(intrin.impl.params) == 3
    assert tir.TensorIntrin.get("no_such_intrin", allow_missing=True) is None
    with pytest.raises(ValueError):
        tir.TensorIntrin.get("no_such_intrin")


def _packed_matmul(m, n, k, lanes, group, dtype_x="uint8", dtype_w="int8"):
    """compute[i, j] = sum_k X[i, k] * W[j // lanes, k // group, j % lanes, k % group], tensorized over
    (j % lanes, k % group) with an intrinsic of `lanes` x `group`."""
    X = te.placeholder((m, k), name="X", dtype=dtype_x)
    W = te.placeholder((n // lanes, k // group, lanes, group), name="W", dtype=dtype_w)
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(X[i, r].astype("int32") *
                                               W[j // lanes, r // group, j % lanes, r % group].astype("int32"),
                                               axis=r), name="compute")
    sch = tir.Schedule(te.create_prim_func([X, W, C]))
    block = sch.get_block("compute")
    _, j, kk = sch.get_loops(block)
    _, ji = sch.split(j, factors=[None, lanes])
    ko, ki = sch.split(kk, factors=[None, group])
    sch.reorder(ko, ji, ki)
    sch.decompose_reduction(block, ko)
    return sch, ji


def _run_packed(sch, m, n, k, lanes, group, x_high, w_low, w_high):
    f = tvm.build(sch.mod, target="llvm -mcpu=cascadelake")
    rng = np.random.default_rng(0)
    x = rng.integers(0, x_high, (m, k)).astype("uint8")
    w = rng.integers(w_low, w_high, (n // lanes, k // group, lanes, group)).astype("int8")
    out = tvm.nd.array(np.zeros((m, n), "int32"))
    f(tvm.nd.array(x), tvm.nd.array(w), out)
    w_rows = w.transpose(0, 2, 1, 3).reshape(n, k)
    np.testing.assert_array_equal(out.numpy(), x.astype("int32") @ w_rows.astype("int32").T)


@tvm.testing.requires_x86_vnni
def test_vnni_matches_numpy():
    sch, ji = _packed_matmul(32, 32, 32, 16, 4)
    sch.tensorize(ji, x86.VNNI_DOT_16x4_INTRIN)
    _run_packed(sch, 32, 32, 32, 16, 4, 256, -128, 128)


@tvm.testing.requires_x86_avx512
def test_avx512_matches_numpy():
    # vpmaddubsw saturates sums of two products at 16 bits: keep them below 2**15
    sch, ji = _packed_matmul(32, 32, 32, 16, 4)
    sch.tensorize(ji, x86.AVX512_DOT_16x4_INTRIN)
    _run_packed(sch, 32, 32, 32, 16, 4, 64, -64, 64)


def test_arm_and_hexagon_tensorize_structurally():
    sch, ji = _packed_matmul(16, 16, 16, 4, 4, "int8")
    sch.tensorize(ji, arm_cpu.ARM_DOT_4x4_i8_SDOT_INTRIN)
    block = sch.get(sch.get_block("compute_update_o"))
    assert [str(m.buffer.shape) for m in block.match_buffers] == ["[4]", "[4, 4]", "[4]"]
    assert "llvm.aarch64.neon.sdot.v4i32.v16i8" in block.body.script()


# ---- rank of the description below the block's ---------------------------------------------------


@T.prim_func
def _dot4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0:4], B[0:4])
        T.writes(C[()])
        for i in range(4):
            with T.block("update"):
                vi = T.axis.remap("R", [i])
                C[()] = C[()] + A[vi] * B[vi]


@T.prim_func
def _dot4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0:4], B[0:4])
        T.writes(C[()])
        T.block_attr({"from_impl": 1})
        T.evaluate(T.call_extern("int32", "dot4", C.data, C.elem_offset, A.data, A.elem_offset, B.data,
                                 B.elem_offset))


tir.TensorIntrin.register("tessera_test_dot4", _dot4_desc, _dot4_impl, override=True)


@T.prim_func
def _batched(A: T.Buffer((2, 8, 8), "float32"), B: T.Buffer((2, 8, 8), "float32"), C: T.Buffer((2, 8, 8), "float32")):
    for n, i, j, k in T.grid(2, 8, 8, 8):
        with T.block("update"):
            vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
            C[vn, vi, vj] = C[vn, vi, vj] + A[vn, vi, vk] * B[vn, vj, vk]


@T.prim_func
def _batched_tensorized(A: T.Buffer((2, 8, 8), "float32"), B: T.Buffer((2, 8, 8), "float32"),
                        C: T.Buffer((2, 8, 8), "float32")):
    for n, i, j, k_0 in T.grid(2, 8, 8, 2):
        with T.block("update_o"):
            vn, vi, vj, vko = T.axis.remap("SSSR", [n, i, j, k_0])
            T.reads(C[vn, vi, vj], A[vn, vi, vko * 4:vko * 4 + 4], B[vn, vj, vko * 4:vko * 4 + 4])
            T.writes(C[vn, vi, vj])
            T.block_attr({"from_impl": 1})
            A_1 = T.match_buffer(A[vn, vi, vko * 4:vko * 4 + 4], (4,), offset_factor=1)
            B_1 = T.match_buffer(B[vn, vj, vko * 4:vko * 4 + 4], (4,), offset_factor=1)
            C_1 = T.match_buffer(C[vn, vi, vj], (), offset_factor=1)
            T.evaluate(T.call_extern("int32", "dot4", C_1.data, C_1.elem_offset, A_1.data, A_1.elem_offset,
                                     B_1.data, B_1.elem_offset))


def test_lower_rank_description_matches_trailing_dims():
    sch = tir.Schedule(_batched)
    _, _, _, k = sch.get_loops(sch.get_block("update"))
    _, ki = sch.split(k, factors=[None, 4])
    sch.tensorize(ki, "tessera_test_dot4")
    tvm.ir.assert_structural_equal(sch.mod["main"].body, _batched_tensorized.body, map_free_vars=True)


@T.prim_func
def _row_dot4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (1, 4), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0, 0:4], B[0:4])
        T.writes(C[()])
        for i in range(4):
            with T.block("update"):
                vi = T.axis.remap("R", [i])
                C[()] = C[()] + A[0, vi] * B[vi]


@T.prim_func
def _row_dot4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (1, 4), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0, 0:4], B[0:4])
        T.writes(C[()])
        T.evaluate(T.call_extern("int32", "dot4", C.data, A.data, B.data))


tir.TensorIntrin.register("tessera_test_row_dot4", _row_dot4_desc, _row_dot4_impl, override=True)


def test_description_of_higher_rank_is_refused():
    @T.prim_func
    def flat(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((1,), "float32")):
        for k in range(8):
            with T.block("update"):
                vk = T.axis.remap("R", [k])
                C[0] = C[0] + A[vk] * B[vk]

    sch = tir.Schedule(flat)
    _, ki = sch.split(sch.get_loops(sch.get_block("update"))[0], factors=[None, 4])
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="lower rank than the intrinsic"):
        sch.tensorize(ki, "tessera_test_row_dot4")
    tvm.ir.assert_structural_equal(sch.mod, before)
    sch.tensorize(ki, "tessera_test_dot4")  # the same loop with a rank-1 description


# ---- indices matched by value ------------------------------------------------------------------------


@T.prim_func
def _nibble_desc(packed: T.handle, out: T.handle):
    P = T.match_buffer(packed, (1,), "int32", offset_factor=1)
    O = T.match_buffer(out, (8,), "int32", offset_factor=1)
    with T.block("root"):
        T.reads(P[0:1])
        T.writes(O[0:8])
        for i in range(8):
            with T.block("unpack"):
                vi = T.axis.remap("S", [i])
                O[vi] = T.bitwise_and(T.shift_right(P[vi // 8], vi % 8 * 4), 15)


@T.prim_func
def _nibble_impl(packed: T.handle, out: T.handle):
    P = T.match_buffer(packed, (1,), "int32", offset_factor=1)
    O = T.match_buffer(out, (8,), "int32", offset_factor=1)
    with T.block("root"):
        T.reads(P[0:1])
        T.writes(O[0:8])
        T.evaluate(T.call_extern("int32", "unpack8", P.data, O.data))


tir.TensorIntrin.register("tessera_test_nibbles", _nibble_desc, _nibble_impl, override=True)


def _unpack(pattern):
    @T.prim_func
    def unpack(P: T.Buffer((4, 2), "int32"), O: T.Buffer((4, 16), "int32")):
        for r, c0, c1 in T.grid(4, 2, 8):
            with T.block("unpack"):
                vr = T.axis.spatial(4, r)
                vc = T.axis.spatial(16, c0 * 8 + c1)
                O[vr, vc] = T.bitwise_and(T.shift_right(P[vr, vc // 8], vc % pattern * 4), 15)

    return unpack


def test_indices_matched_by_value():
    sch = tir.Schedule(_unpack(8))
    sch.tensorize(sch.get_loops(sch.get_block("unpack"))[-1], "tessera_test_nibbles")
    block = sch.get(sch.get_block("unpack_o"))
    r, c = (iv.var for iv in block.iter_vars)
    P, O = sch.mod["main"].buffer_map.values()
    expected = [tir.BufferRegion(P, [tvm.ir.Range.from_min_extent(r, 1), tvm.ir.Range.from_min_extent(c, 1)]),
                tir.BufferRegion(O, [tvm.ir.Range.from_min_extent(r, 1), tvm.ir.Range.from_min_extent(c * 8, 8)])]
    tvm.ir.assert_structural_equal([m.source for m in block.match_buffers], expected)


def test_indices_of_other_value_are_refused():
    sch = tir.Schedule(_unpack(4))  # vc % 4 is not the description's vi % 8
    with pytest.raises(tir.ScheduleError, match="does not match the intrinsic"):
        sch.tensorize(sch.get_loops(sch.get_block("unpack"))[-1], "tessera_test_nibbles")


# ---- annotations -------------------------------------------------------------------------------------


def test_decompose_reduction_keeps_annotations_on_init():
    @T.prim_func
    def annotated(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 8):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.block_attr({"note": 7})
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]

    sch = tir.Schedule(annotated)
    block = sch.get_block("sum")
    init = sch.decompose_reduction(block, sch.get_loops(block)[1])
    assert int(sch.get(init).annotations["note"]) == 7


# ---- TVMScript helpers the intrinsics' users write --------------------------------------------------


def test_host_function_takes_keyword_arguments():
    def shift(value, pos, *, dtype, nbits=4):
        return tir.Cast(dtype, tir.shift_right(value, pos * nbits))

    @T.prim_func
    def use(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = shift(A[vi], vi % 2, dtype="float32", nbits=8)

    @T.prim_func
    def expected(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = T.Cast("float32", T.shift_right(A[vi], vi % 2 * 8))

    tvm.ir.assert_structural_equal(use.body, expected.body, map_free_vars=True)


def test_host_function_keyword_errors_reach_the_user():
    def shift(value, *, dtype):
        return tir.Cast(dtype, value)

    with pytest.raises(Exception, match="unexpected keyword argument 'bits'"):
        @T.prim_func
        def use(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float32")):
            for i in range(8):
                with T.block("b"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = shift(A[vi], dtype="float32", bits=8)


def test_scalar_type_constructors_outside_tvmscript():
    assert isinstance(T.bool(True), tir.IntImm) and T.bool(True).dtype == "bool"
    assert bool(T.bool(True) == T.bool(True))
    assert T.int64(3).dtype == "int64" and T.int64(3).value == 3
    assert T.float32(0.5).dtype == "float32"
    assert T.float16(tir.IntImm("int32", 2)).dtype == "float16"

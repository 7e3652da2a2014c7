"""ms.schedule_rule.MultiLevelTiling and MultiLevelTilingPackedPanel (C++ rules): SSRSRS
tiling, write reuse branches and the packed-panel branch, against hand-written expected
modules (decisions fixed by the seed); blocks the rules do not fit stay as they are."""
import numpy as np
import pytest

import tessera as tvm
from tessera.meta_schedule.schedule_rule import MultiLevelTiling, MultiLevelTilingPackedPanel, ReuseType
from tessera.script import tir as T

from _ms_rule_util import apply_rule, assert_func_equal


@T.prim_func
def matmul(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


# seed 1: i -> [1, 2, 4, 2], j -> [2, 2, 1, 4], k -> [4, 4]; S0 S1 R0 S2 R1 S3
@T.prim_func
def matmul_ssrsrs(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                  C: T.Buffer((16, 16), "float32")):
    for i_0, j_0, i_1, j_1, k_0, i_2, j_2, k_1, i_3, j_3 in T.grid(1, 2, 2, 2, 4, 4, 1, 4, 2, 4):
        with T.block("C"):
            vi = T.axis.spatial(16, i_0 * 16 + i_1 * 8 + i_2 * 2 + i_3)
            vj = T.axis.spatial(16, j_0 * 8 + j_1 * 4 + j_2 * 4 + j_3)
            vk = T.axis.reduce(16, k_0 * 4 + k_1)
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


# the same tiles, the output through a "global" cache written back at the last S1 loop (level 2)
@T.prim_func
def matmul_ssrsrs_write_level2(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                               C: T.Buffer((16, 16), "float32")):
    C_global = T.alloc_buffer((16, 16))
    for i_0, j_0, i_1, j_1 in T.grid(1, 2, 2, 2):
        for k_0, i_2, j_2, k_1, i_3, j_3 in T.grid(4, 4, 1, 4, 2, 4):
            with T.block("C"):
                vi = T.axis.spatial(16, i_0 * 16 + i_1 * 8 + i_2 * 2 + i_3)
                vj = T.axis.spatial(16, j_0 * 8 + j_1 * 4 + j_2 * 4 + j_3)
                vk = T.axis.reduce(16, k_0 * 4 + k_1)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C_global[vi, vj])
                T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                with T.init():
                    C_global[vi, vj] = T.float32(0)
                C_global[vi, vj] = C_global[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(8, 4):
            with T.block("C_global"):
                v0 = T.axis.spatial(16, i_1 * 8 + ax0)
                v1 = T.axis.spatial(16, j_0 * 8 + j_1 * 4 + ax1)
                T.reads(C_global[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_global[v0, v1]


# packed panel, seed 1 (packed_i 4, packed_j 8, packed_k 16): i -> [8, 2], j -> [8, 2], k -> [16, 1]
@T.prim_func
def matmul_packed(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                  C: T.Buffer((16, 16), "float32")):
    B_global = T.alloc_buffer((16, 16))
    C_local = T.alloc_buffer((16, 16), scope="local")
    for j_0 in range(8):
        for ax0 in range(16):
            for ax1 in T.vectorized(2):
                with T.block("B_global"):
                    v0 = T.axis.spatial(16, ax0)
                    v1 = T.axis.spatial(16, j_0 * 2 + ax1)
                    T.reads(B[v0, v1])
                    T.writes(B_global[v0, v1])
                    B_global[v0, v1] = B[v0, v1]
        for i_0 in range(8):
            for i_1_init, j_1_init in T.grid(2, 2):
                with T.block("C_init"):
                    vi = T.axis.spatial(16, i_0 * 2 + i_1_init)
                    vj = T.axis.spatial(16, j_0 * 2 + j_1_init)
                    T.reads()
                    T.writes(C_local[vi, vj])
                    T.block_attr({"meta_schedule.tiling_structure": "packed_panel"})  # copied, as TVM
                    C_local[vi, vj] = T.float32(0)
            for k_0, k_1 in T.grid(16, 1):
                for i_1 in T.unroll(2):
                    for j_1 in T.vectorized(2):
                        with T.block("C_update"):
                            vi = T.axis.spatial(16, i_0 * 2 + i_1)
                            vj = T.axis.spatial(16, j_0 * 2 + j_1)
                            vk = T.axis.reduce(16, k_0 + k_1)
                            T.reads(C_local[vi, vj], A[vi, vk], B_global[vk, vj])
                            T.writes(C_local[vi, vj])
                            T.block_attr({"meta_schedule.tiling_structure": "packed_panel"})
                            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B_global[vk, vj]
            for ax0 in range(2):
                for ax1 in T.vectorized(2):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(16, i_0 * 2 + ax0)
                        v1 = T.axis.spatial(16, j_0 * 2 + ax1)
                        T.reads(C_local[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_local[v0, v1]


@T.prim_func
def add_one(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


def _matmul_ok(sch):
    a, b = np.random.rand(16, 16).astype("float32"), np.random.rand(16, 16).astype("float32")
    c = tvm.nd.empty((16, 16), "float32")
    tvm.build(sch.mod, target="llvm")["matmul"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)


def test_ssrsrs_tiling():
    (sch,) = apply_rule(MultiLevelTiling("SSRSRS", max_innermost_factor=4), matmul, "C", seed=1)
    assert_func_equal(sch.mod["main"], matmul_ssrsrs)
    names = [i.kind.name for i in sch.trace.insts]
    assert names.count("SamplePerfectTile") == 3 and names.count("Split") == 3 and "Reorder" in names


def test_write_reuse_may_branches_in_three():
    rule = MultiLevelTiling("SSRSRS", max_innermost_factor=4, reuse_write=ReuseType("may", [1, 2], "global"))
    out = apply_rule(rule, matmul, "C", seed=1)
    assert len(out) == 3       # no cache, cache at level 1, cache at level 2
    assert_func_equal(out[0].mod["main"], matmul_ssrsrs)
    assert_func_equal(out[2].mod["main"], matmul_ssrsrs_write_level2)
    for sch in out:
        _matmul_ok(sch)


def test_write_reuse_must_always_adds_the_cache():
    rule = MultiLevelTiling("SSRSRS", max_innermost_factor=4, reuse_write={"req": "must", "levels": [2], "scope": "global"})
    (sch,) = apply_rule(rule, matmul, "C", seed=1)
    assert_func_equal(sch.mod["main"], matmul_ssrsrs_write_level2)


def test_packed_panel_adds_its_branch_before_tvms():
    rule = MultiLevelTilingPackedPanel("SSRSRS", max_innermost_factor=4,
                                       reuse_write=ReuseType("may", [1, 2], "global"), packed_i=4, packed_j=8, packed_k=16)
    out = apply_rule(rule, matmul, "C", seed=1)
    assert len(out) == 4
    assert_func_equal(out[0].mod["main"], matmul_packed)
    for sch in out:
        _matmul_ok(sch)


def test_blocks_that_need_no_tiling_are_left_alone():
    for rule in (MultiLevelTiling("SSRSRS"), MultiLevelTilingPackedPanel()):
        (sch,) = apply_rule(rule, add_one, "B")
        assert_func_equal(sch.mod["main"], add_one)
        (sch,) = apply_rule(rule, matmul, "root")
        assert_func_equal(sch.mod["main"], matmul)
    # an already tiled block is not tiled again
    (tiled,) = apply_rule(MultiLevelTiling("SSRSRS", max_innermost_factor=4), matmul, "C", seed=1)
    (again,) = MultiLevelTiling("SSRSRS").apply(tiled, tiled.get_block("C"))
    assert_func_equal(again.mod["main"], matmul_ssrsrs)


def test_bad_arguments():
    # tile_binds needs as many leading 'S' levels (the GPU rules: tests/python/meta_schedule/test_cuda_space.py)
    with pytest.raises(ValueError, match="tile_binds"):
        MultiLevelTiling("SRSRS", tile_binds=["blockIdx.x", "vthread.x", "threadIdx.x"])
    with pytest.raises(ValueError, match="vector_load_lens"):
        MultiLevelTiling("SSRSRS", vector_load_lens=[0, 2, 4])
    with pytest.raises(NotImplementedError, match="filter_fn"):
        MultiLevelTiling("SSRSRS", filter_fn=lambda sch, block: True)
    with pytest.raises(ValueError, match="structure"):
        MultiLevelTiling("SSXRS")
    with pytest.raises(ValueError, match="req"):
        MultiLevelTiling("SSRSRS", reuse_write={"req": "maybe", "levels": [1], "scope": "global"})
    with pytest.raises(ValueError, match="level 7"):
        MultiLevelTiling("SSRSRS", reuse_write={"req": "may", "levels": [7], "scope": "global"})
    with pytest.raises(ValueError, match="may"):
        MultiLevelTiling("SSRSRS", reuse_read={"req": "may", "levels": [1], "scope": "global"})
    with pytest.raises(TypeError, match="reuse_write"):
        MultiLevelTiling("SSRSRS", reuse_write="global")
    with pytest.raises(ValueError, match="positive"):
        MultiLevelTilingPackedPanel(packed_i=0)

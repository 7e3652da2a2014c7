"""PostOrderApply with the C++ rules: the default llvm space (TVM's rules plus the
packed-panel branch), user-given rule and postproc lists (C++ or Python), the block
filter, and an end-to-end tune_tir whose best schedule matches NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.postproc import RewriteReductionBlock
from tessera.meta_schedule.schedule_rule import (AddRFactor, AutoInline, MultiLevelTiling, MultiLevelTilingPackedPanel,
                                                 ParallelizeVectorizeUnroll, PyScheduleRule, RandomComputeLocation,
                                                 ScheduleRule)
from tessera.script import tir as T

from .test_meta_schedule_schedule_rule_multi_level_tiling import matmul

TARGET = "llvm --num-cores=1"


@T.prim_func
def matmul_relu(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    C = T.alloc_buffer((32, 32))
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(32, 32):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))


def _ctx(mod, space=None, seed=1):
    return ms.TuneContext(mod, TARGET, space_generator=space or "post-order-apply", rand_state=seed)


def test_default_rules_are_tvms_llvm_set_with_the_packed_panel_variant():
    rules = ScheduleRule.create("llvm")
    assert [type(r) for r in rules] == [AutoInline, AddRFactor, MultiLevelTilingPackedPanel,
                                        ParallelizeVectorizeUnroll, RandomComputeLocation]
    assert rules[3].max_jobs_per_core == 16 and rules[3].max_vectorize_extent == 64
    assert [int(x) for x in rules[3].unroll_max_steps] == [0, 16, 64, 512]
    assert rules[2].structure == "SSRSRS" and rules[2].max_innermost_factor == 64
    with pytest.raises(ValueError, match="Unsupported kind"):
        ScheduleRule.create("nvptx")


def test_default_design_space_of_a_matmul():
    ctx = _ctx(matmul)
    spaces = ctx.space_generator.generate_design_space(ctx.mod, 0, ctx)
    structures = []
    for sch in spaces:
        name = "C_update" if "C_update" in sch.mod.script() else "C"     # packed: decomposed
        structures.append(str(sch.get(sch.get_block(name)).annotations["meta_schedule.tiling_structure"]))
        root = sch.get(sch.get_block("root")).annotations
        assert int(root["meta_schedule.vectorize"]) == 64
        assert "meta_schedule.parallel" not in root      # one core: no parallel loops (Tessera)
    assert sorted(structures) == ["SSRSRS"] * 3 + ["packed_panel"]        # no cache, cache at 1, at 2; packed


def test_user_rules_and_postprocs_are_honoured():
    space = ms.space_generator.PostOrderApply(sch_rules=[MultiLevelTiling("SSRSRS", max_innermost_factor=4)],
                                              postprocs=[RewriteReductionBlock()])
    ctx = _ctx(matmul, space)
    assert len(space.generate_design_space(ctx.mod, 0, ctx)) == 1
    sch = space.sample(ctx.mod, 7, ctx)
    assert space.apply_postprocs(sch)
    names = [i.kind.name for i in sch.trace.insts]
    assert names.count("SamplePerfectTile") == 3 and "Annotate" in names   # tiling_structure only
    assert "SampleCategorical" not in names and names.index("EnterPostproc") < names.index("DecomposeReduction")
    assert "meta_schedule.parallel" not in sch.get(sch.get_block("root")).annotations


class _TwoWays(PyScheduleRule):
    """A Python rule that branches: the block as it is, and with its innermost loop unrolled."""

    def apply(self, sch, block):
        if sch.get(block).name_hint != "D":
            return [sch]
        other = sch.copy()
        other.unroll(other.get_loops(block)[-1])
        return [sch, other]


def test_python_rules_and_the_block_filter():
    space = ms.space_generator.PostOrderApply(sch_rules=[_TwoWays()], postprocs=[])
    ctx = _ctx(matmul_relu, space)
    spaces = space.generate_design_space(ctx.mod, 0, ctx)
    assert len(spaces) == 2
    assert sum(any(i.kind.name == "Unroll" for i in s.trace.insts) for s in spaces) == 1
    only_c = ms.space_generator.PostOrderApply(f_block_filter=lambda block: block.name_hint == "C",
                                               sch_rules=[AutoInline(False, True, True, True, True, True),
                                                          MultiLevelTiling("SSRSRS")], postprocs=[])
    ctx = _ctx(matmul_relu, only_c)
    (sch,) = only_c.generate_design_space(ctx.mod, 0, ctx)
    assert "meta_schedule.tiling_structure" in sch.get(sch.get_block("C")).annotations
    assert len(sch.get_loops(sch.get_block("D"))) == 2                     # D was not visited


def test_tune_tir_with_the_default_space_matches_numpy(tmp_path):
    db = ms.tune_tir(matmul_relu, TARGET, str(tmp_path), 8, num_trials_per_iter=4, seed=0)
    recs = db.get_all_tuning_records()
    # 8 trials (distinct traces); the final confirmation may re-measure some of them
    assert len({r.trace_key for r in recs}) == 8 and all(r.is_valid for r in recs)
    assert all(any(i.kind.name == "EnterPostproc" for i in r.trace.insts) for r in recs)
    sch = ms.tir_integration.compile_tir(db, matmul_relu, TARGET)
    a, b = np.random.rand(32, 32).astype("float32"), np.random.rand(32, 32).astype("float32")
    d = tvm.nd.empty((32, 32), "float32")
    tvm.build(sch.mod, target=TARGET)["main"](tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), np.maximum(a @ b, 0), rtol=1e-4)


def test_tune_tir_with_user_rules(tmp_path):
    space = ms.space_generator.PostOrderApply(
        sch_rules=[AutoInline(False, True, True, True, True, True), MultiLevelTiling("SSRSRS", max_innermost_factor=8)],
        postprocs=[RewriteReductionBlock()])
    db = ms.tune_tir(matmul_relu, TARGET, str(tmp_path), 4, num_trials_per_iter=4, space=space, seed=0)
    sch = ms.tir_integration.compile_tir(db, matmul_relu, TARGET)
    assert "packed_panel" not in sch.mod.script()
    a, b = np.random.rand(32, 32).astype("float32"), np.random.rand(32, 32).astype("float32")
    d = tvm.nd.empty((32, 32), "float32")
    tvm.build(sch.mod, target=TARGET)["main"](tvm.nd.array(a), tvm.nd.array(b), d)
    np.testing.assert_allclose(d.numpy(), np.maximum(a @ b, 0), rtol=1e-4)

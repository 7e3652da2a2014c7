"""ms.schedule_rule.RandomComputeLocation (C++ rule): sample_compute_location +
compute_at on a block directly under the root, as TVM's; the decision replays from the
trace; blocks without a consumer or already tiled stay."""
import tessera as tvm
from tessera.meta_schedule.schedule_rule import RandomComputeLocation
from tessera.script import tir as T

from _ms_rule_util import apply_rule, assert_func_equal


@T.prim_func
def producer_consumer(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


# seed 2: decision 1 (the consumer's j loop)
@T.prim_func
def producer_at_j(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        for ax0, ax1 in T.grid(1, 1):
            with T.block("B"):
                vi = T.axis.spatial(8, i + ax0)
                vj = T.axis.spatial(8, j + ax1)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_moves_the_block_to_the_sampled_location():
    (sch,) = apply_rule(RandomComputeLocation(), producer_consumer, "B", seed=1)   # decision 1: C's j loop
    assert [i.kind.name for i in sch.trace.insts] == ["GetBlock", "SampleComputeLocation", "ComputeAt"]
    assert_func_equal(sch.mod["main"], producer_at_j)
    # the decision replays
    again = tvm.tir.Schedule(producer_consumer, seed=99)
    sch.trace.apply_to_schedule(again)
    assert_func_equal(again.mod["main"], producer_at_j)


def test_decision_inline_inlines_the_block():
    """As TVM: when compute_inline would succeed, "inline" (decision -2) is a
    candidate, and compute_at at it inlines the block."""
    (sch,) = apply_rule(RandomComputeLocation(), producer_consumer, "B", seed=4)   # decision -2
    inst = [i for i in sch.trace.insts if i.kind.name == "SampleComputeLocation"][0]
    assert int(sch.trace.decisions[inst]) == -2
    expected = tvm.tir.Schedule(producer_consumer)
    expected.compute_inline(expected.get_block("B"))
    assert_func_equal(sch.mod["main"], expected.mod["main"])
    again = tvm.tir.Schedule(producer_consumer, seed=99)
    sch.trace.apply_to_schedule(again)
    assert_func_equal(again.mod["main"], expected.mod["main"])


def test_decision_root_leaves_the_block_in_place():
    (sch,) = apply_rule(RandomComputeLocation(), producer_consumer, "B", seed=3)   # decision -1
    inst = [i for i in sch.trace.insts if i.kind.name == "SampleComputeLocation"][0]
    assert int(sch.trace.decisions[inst]) == -1
    assert_func_equal(sch.mod["main"], producer_consumer)


def test_blocks_it_does_not_fit_are_left_alone():
    for name in ("C", "root"):          # C has no consumer; the root is never moved
        (sch,) = apply_rule(RandomComputeLocation(), producer_consumer, name)
        assert_func_equal(sch.mod["main"], producer_consumer)
        assert "SampleComputeLocation" not in [i.kind.name for i in sch.trace.insts]
    sch = tvm.tir.Schedule(producer_consumer)
    sch.annotate(sch.get_block("B"), "meta_schedule.tiling_structure", "SSRSRS")   # tiled: skipped
    before = sch.mod["main"]
    (out,) = RandomComputeLocation().apply(sch, sch.get_block("B"))
    assert_func_equal(out.mod["main"], before)

"""The block/loop index a Schedule caches per function (schedule_index.h):
after every primitive, successful or failed, the cached index equals one
built from scratch; unchanged blocks are reused rather than walked again;
and a failed primitive leaves the module and the index as they were."""
import random

import pytest

import tessera as tvm
from .test_schedule_instruction_kinds import MatmulRelu, AddThenScale

index_check = tvm.get_global_func("tir.schedule.ScheduleIndexCheck")


def check(sch):
    same, reused = index_check(sch)
    assert same, "the cached index differs from a fresh one"
    return int(reused)


def random_step(sch, rng):
    blocks = [sch.get_block(n) for n in ("C", "D") if n in sch.mod.script()]
    block = rng.choice(blocks)
    lps = sch.get_loops(block)
    op = rng.randrange(7)
    if op == 0:
        sch.split(rng.choice(lps), factors=[None, rng.choice([2, 4, 3])])
    elif op == 1 and len(lps) >= 2:
        k = rng.randrange(len(lps) - 1)
        sch.fuse(lps[k], lps[k + 1])
    elif op == 2 and len(lps) >= 2:
        sch.reorder(lps[-1], lps[0])
    elif op == 3:
        sch.parallel(rng.choice(lps))
    elif op == 4:
        sch.blockize(rng.choice(lps))
    elif op == 5:
        sch.reverse_compute_at(sch.get_block("D"), rng.choice(sch.get_loops(sch.get_block("C"))))
    else:
        sch.unroll(rng.choice(lps))


@pytest.mark.parametrize("seed", range(8))
def test_cached_index_matches_a_fresh_one_after_every_step(seed):
    rng = random.Random(seed)
    sch = tvm.tir.Schedule(MatmulRelu)
    check(sch)
    ok = failed = 0
    for _ in range(12):
        before = sch.mod
        try:
            random_step(sch, rng)
            ok += 1
        except tvm.tir.ScheduleError:
            failed += 1
            assert sch.mod.same_as(before)
        check(sch)
    assert ok > 0


def test_unchanged_blocks_are_reused():
    sch = tvm.tir.Schedule(MatmulRelu)
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    _, k1 = sch.split(k, factors=[None, 4])
    outer = sch.blockize(k1)  # C_o holds the k1 loop and block C
    i0, _ = sch.split(i, factors=[None, 8])  # rebinds C_o, but block C below it is unchanged
    assert check(sch) >= 1
    sch.parallel(i0)
    assert check(sch) >= 1
    assert sch.get(outer).name_hint == "C_o"


def test_failed_primitives_leave_module_and_index_unchanged():
    sch = tvm.tir.Schedule(AddThenScale)
    b = sch.get_block("B")
    i, j = sch.get_loops(b)
    sch.split(i, factors=[None, 4])
    check(sch)
    before = sch.mod
    for bad in (lambda: sch.split(j, factors=[3, 3]),
                lambda: sch.compute_inline(sch.get_block("C")),
                lambda: sch.storage_align(sch.get_block("C"), 0, axis=0, factor=32, offset=8),
                lambda: sch.transform_layout("C", ("write", 0), lambda x, y: (x, x))):
        with pytest.raises(tvm.tir.ScheduleError):
            bad()
        assert sch.mod.same_as(before)
        check(sch)
    sch.fuse(*sch.get_loops(b)[:2])  # the schedule still works afterwards
    check(sch)


def test_producers_and_consumers_follow_each_commit():
    sch = tvm.tir.Schedule(MatmulRelu)
    c, d = sch.get_block("C"), sch.get_block("D")
    names = lambda rvs: [sch.get(b).name_hint for b in rvs]  # noqa: E731
    assert names(sch.get_producers(d)) == ["C"] and names(sch.get_consumers(c)) == ["D"]
    assert names(sch.get_producers(c)) == [] and names(sch.get_consumers(d)) == []
    wb = sch.cache_write(c, 0, "local")  # C -> C_local -> (write-back) -> D
    assert names(sch.get_consumers(c)) == [sch.get(wb).name_hint]
    assert names(sch.get_producers(d)) == [sch.get(wb).name_hint]
    assert names(sch.get_producers(wb)) == ["C"]
    sch.reverse_compute_at(wb, sch.get_loops(c)[0])  # the write-back moves under C's outer loop
    assert names(sch.get_producers(wb)) == ["C"] and names(sch.get_consumers(c)) == [sch.get(wb).name_hint]
    # Loops do not make scopes: D and the write-back still share the root scope.
    assert names(sch.get_producers(d)) == [sch.get(wb).name_hint]

    check(sch)

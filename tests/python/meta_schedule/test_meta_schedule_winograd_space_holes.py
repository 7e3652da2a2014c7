"""The tuning space of the Winograd conv2d has no holes: where the batched GEMM's fused
tile loop is split into groups that cross a row of tiles (4 of a 6-tile row here, 4 of 14
in ResNet's 64 @ 56), sample_compute_location used to offer the data transform a place
under that group, whose region then spans 1 or 2 rows (a loop extent depending on the
loop; DisallowDynamicLoop rejected 6-7% of the samples), and compute_at of the padding
above it left the loop variable unbound. Samples and mutations are now all valid and
match PyTorch; no location drawn gives a varying extent; compute_at there covers the rows
over the whole loop."""
import re

import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax, tir, topi
from tessera.meta_schedule import search_strategy as S
from tessera.meta_schedule.tune_context import TuneContext, normalize_mod

TARGET = "llvm --num-cores=1"
C, K, HW = 16, 16, 24  # 6 x 6 tiles of 4 x 4: a group of 4 fused tiles crosses a row
RNG = np.random.default_rng(11)
W = (RNG.standard_normal((K, C, 3, 3)) / 12).astype("float32")


def _task():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, C, HW, HW), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.relu(relax.op.nn.conv2d(x, relax.const(W), padding=1)))
        bb.emit_func_output(out)
    tasks = [t for t in ms.relax_integration.extract_tasks(relax.get_pipeline("zero")(bb.get()), TARGET)
             if "winograd" in t.task_name]
    assert tasks, "no Winograd kernel"
    return tasks[0]


def _check_against_torch(mod):
    """Runs ``mod`` (inputs: x, the transformed weight, B^T, A^T) against PyTorch's conv + ReLU."""
    torch = pytest.importorskip("torch")
    f = mod["main"]
    shapes = [tuple(int(s) for s in f.buffer_map[p].shape) for p in f.params]
    x = RNG.standard_normal(shapes[0]).astype("float32")
    u = topi.nn.conv2d_winograd_weight_transform(W, 4)
    bt, at = topi.nn.winograd_transform_constants(4)
    consts = {u.shape: u, bt.shape: bt, at.shape: at}
    out = tvm.nd.empty(shapes[-1], "float32")
    tvm.build(mod, target="llvm")["main"](*[tvm.nd.array(a) for a in [x] + [consts[s] for s in shapes[1:-1]]], out)
    expected = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(W), padding=1)).numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def _samples(n, seed=0):
    task = _task()
    ctx = TuneContext(task.dispatched[0], TARGET, "post-order-apply", "evolutionary", task.task_name, seed, 1)
    strategy = S.ReplayFunc(ctx)
    return ctx, strategy, [strategy._sample() for _ in range(n)]


def test_120_samples_and_their_mutations_pass_the_postprocessors():
    ctx, strategy, cands = _samples(120)
    assert ctx.num_sample_errors == 0, ctx.sample_errors[:2]  # 6-10 rejected before
    mutators = S.MutatorSampler(ctx.mutator_probs, ctx, np.random.default_rng(0))
    mutated = 0
    for cand in cands:
        trace = mutators.sample().apply(cand.sch.trace, int(ctx.rng.integers(1, 2**31 - 1)))
        if trace is not None:
            mutated += strategy._replayed(trace) is not None
    assert mutated >= 90 and ctx.num_sample_errors == 0, ctx.sample_errors[:2]


def test_3_sampled_candidates_with_compute_at_match_torch():
    _, _, cands = _samples(40, seed=1)
    assert all(c is not None for c in cands)
    seen, picked = set(), []
    for cand in cands:
        # A compute-at'ed stage, and explicit unrolling of at most 16 steps (quick to build).
        trace = str(cand.sch.trace)
        unroll = re.search(r"candidates=\[0, 16, 64, 512\].*?decision=(\d)", trace)
        if "compute_at" in trace and (unroll is None or int(unroll.group(1)) <= 1) and cand.shash not in seen:
            seen.add(cand.shash)
            picked.append(cand)
    assert len(picked) >= 3
    for cand in picked[:3]:
        _check_against_torch(cand.sch.mod)


def test_compute_at_above_a_row_crossing_tile_group_covers_the_rows():
    # The data transform under groups of 4 fused tiles (1 or 2 tile rows each), the
    # padding under the outermost loop: its region must cover every group's rows, with
    # no variable of the loops below left in it (it used to fail to build: "p_0 is used
    # but never defined").
    mod = normalize_mod(_task().dispatched[0])
    sch = tir.Schedule(mod)
    loops = sch.get_loops(sch.get_block("winograd_bgemm"))  # eps, nu, ko, p, ki, rc
    _, group = sch.split(loops[3], [None, 4])
    sch.compute_at(sch.get_block("winograd_data_pack"), group)
    sch.compute_at(sch.get_block("winograd_data_pack_rows"), sch.get_loops(sch.get_block("winograd_bgemm"))[3])
    sch.compute_at(sch.get_block("winograd_data_pad"), loops[0])
    pad_loops = sch.get_loops(sch.get_block("winograd_data_pad"))
    assert all(isinstance(sch.get(l).extent, tvm.tir.IntImm) for l in pad_loops), sch.mod.script()
    _check_against_torch(sch.mod)


def test_sample_compute_location_offers_no_location_with_a_varying_extent():
    # Under the group of 4 fused tiles the row transform would need 1 or 2 tile rows: every
    # location sample_compute_location draws gives the block constant loop extents.
    mod = normalize_mod(_task().dispatched[0])
    base = tir.Schedule(mod)
    loops = base.get_loops(base.get_block("winograd_bgemm"))
    _, group = base.split(loops[3], [None, 4])
    base.compute_at(base.get_block("winograd_data_pack"), group)
    places = set()
    for seed in range(24):
        sch = tir.Schedule(base.mod, seed=seed)
        block = sch.get_block("winograd_data_pack_rows")
        loc = sch.sample_compute_location(block)
        decision = int(list(sch.trace.decisions.values())[-1])
        places.add(decision)
        sch.compute_at(block, loc)
        if decision == -2:
            continue  # the "inline" location
        extents = [sch.get(l).extent for l in sch.get_loops(sch.get_block("winograd_data_pack_rows"))]
        assert all(isinstance(e, tvm.tir.IntImm) for e in extents), (seed, extents)
    assert len(places) >= 2, places  # loops above the group are still offered

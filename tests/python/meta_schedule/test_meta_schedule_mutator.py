"""meta_schedule mutators (C++, ms.mutator.*) on hand-made traces, the mutator table
drawn with its probabilities (chi-square checks), the postprocessors DisallowDynamicLoop
and VerifyGPUCode, and TVM's evolutionary search: determinism with a fixed seed, the
mutators in use, mutator_probs honoured, and a tuning run checked against NumPy."""
import math

import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import tir
from tessera.meta_schedule.cost_model import RandomModel
from tessera.meta_schedule.search_strategy import EvolutionarySearch, MutatorSampler
from tessera.script import tir as T

from ms_helpers import matmul_module

# Chi-square critical values at p = 0.001 for 1..3 degrees of freedom.
CHI2_CRIT = {1: 10.83, 2: 13.82, 3: 16.27}


def _chi2(counts, probs):
    total = sum(counts)
    return sum((c - total * p) ** 2 / (total * p) for c, p in zip(counts, probs))


def _ctx(mod, target="llvm --num-cores=4", **kw):
    return ms.TuneContext(mod=mod, target=target, rand_state=0, **kw)


def _init(m, mod, target="llvm --num-cores=4"):
    m._initialize_with_tune_context(_ctx(mod, target))
    return m


def _replays(mod, trace):
    sch = tir.Schedule(mod, seed=1)
    trace.apply_to_schedule(sch)
    return sch


def _decision_of(trace, kind):
    return [trace.decisions[i] for i in trace.insts if i.kind.name == kind and i in trace.decisions]


def _tiled_trace(n=64, max_inner=16):
    mod = matmul_module(n)
    sch = tir.Schedule(mod, seed=3)
    b = sch.get_block("C")
    i, j, _ = sch.get_loops(b)
    sch.split(i, sch.sample_perfect_tile(i, n=4, max_innermost_factor=max_inner, decision=[2, 2, 2, 8]))
    sch.split(j, sch.sample_perfect_tile(j, n=2, max_innermost_factor=max_inner, decision=[4, 16]))
    return mod, sch


def _np_matmul_check(mod, n):
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n)).astype("float32"), rng.random((n, n)).astype("float32")
    c = tvm.nd.empty((n, n), "float32")
    tvm.build(mod, target="llvm")["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


# ---- MutateTileSize ------------------------------------------------------------------
def test_mutate_tile_size_moves_a_factor_and_keeps_the_extent():
    mod, sch = _tiled_trace()
    m = _init(ms.mutator.MutateTileSize(), mod)
    before = _decision_of(sch.trace, "SamplePerfectTile")
    seen = set()
    for seed in range(300):
        out = m.apply(sch.trace, seed)
        after = _decision_of(out, "SamplePerfectTile")
        changed = [(list(b), list(a)) for b, a in zip(before, after) if list(a) != list(b)]
        assert len(changed) == 1                                  # exactly one decision differs
        old, new = changed[0]
        assert math.prod(new) == math.prod(old) and len(new) == len(old)
        assert new[-1] <= 16                                      # max_innermost_factor
        diff = [k for k in range(len(old)) if old[k] != new[k]]
        assert len(diff) == 2                                     # one tile gave, one took
        x, y = (diff[0], diff[1]) if new[diff[0]] < old[diff[0]] else (diff[1], diff[0])
        assert old[x] % new[x] == 0 and new[y] == old[y] * (old[x] // new[x])
        seen.add(tuple(new))
        _np_matmul_check(_replays(mod, out).mod, 64) if seed < 3 else _replays(mod, out)
    assert len(seen) >= 8                                         # many neighbours reached


def test_mutate_tile_size_respects_max_innermost_and_finds_nothing_to_move():
    mod = matmul_module(16)
    sch = tir.Schedule(mod, seed=0)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    sch.split(i, sch.sample_perfect_tile(i, n=2, max_innermost_factor=2, decision=[8, 2]))
    m = _init(ms.mutator.MutateTileSize(), mod)
    for seed in range(50):   # the innermost tile is at its limit: 2 can only move outwards
        assert list(_decision_of(m.apply(sch.trace, seed), "SamplePerfectTile")[0]) == [16, 1]
    sch2 = tir.Schedule(mod, seed=0)
    i, _, _ = sch2.get_loops(sch2.get_block("C"))
    sch2.split(i, sch2.sample_perfect_tile(i, n=2, max_innermost_factor=1, decision=[16, 1]))
    assert m.apply(sch2.trace, 0) is None                         # no legal move
    assert m.apply(tir.Schedule(mod).trace, 0) is None            # nothing sampled


# ---- MutateUnroll ---------------------------------------------------------------------
def test_mutate_unroll_repicks_with_the_instruction_probabilities():
    mod = matmul_module(16)
    sch = tir.Schedule(mod, seed=0)
    b = sch.get_block("C")
    v = sch.sample_categorical([0, 16, 64, 512], [0.5, 0.3, 0.2, 0.0], decision=0)
    sch.annotate(b, "meta_schedule.unroll_explicit", v)
    other = sch.sample_categorical([1, 2], [0.5, 0.5], decision=0)   # not an unroll value: never touched
    m = _init(ms.mutator.MutateUnroll(), mod)
    counts = [0, 0, 0, 0]
    for seed in range(4000):
        out = m.apply(sch.trace, seed)
        decs = _decision_of(out, "SampleCategorical")
        assert decs[1] == 0
        counts[int(decs[0])] += 1
    assert counts[0] == 0 and counts[3] == 0                      # never the current one, never p = 0
    assert _chi2(counts[1:3], [0.6, 0.4]) < CHI2_CRIT[1]          # 0.3 : 0.2 renormalized
    assert _chi2(counts[1:3], [0.5, 0.5]) > CHI2_CRIT[1]          # the check can fail
    out = m.apply(sch.trace, 1)
    replayed = _replays(mod, out)
    assert int(replayed.get(replayed.get_block("C")).annotations["meta_schedule.unroll_explicit"]) in (16, 64)
    # Without an unroll annotation there is nothing to mutate.
    plain = tir.Schedule(mod, seed=0)
    plain.sample_categorical([0, 16], [0.5, 0.5])
    assert m.apply(plain.trace, 0) is None


# ---- MutateParallel -------------------------------------------------------------------
@pytest.mark.parametrize("cores, jobs, expected", [(4, 4, {2, 4}), (2, 2, {2}), (4, 16, {2, 4, 8})])
def test_mutate_parallel_picks_another_plan_within_max_jobs(cores, jobs, expected):
    mod, sch = _tiled_trace()          # outer spatial loops: 2, 2, 2, 8 (i), then j 4, 16
    sch.annotate(sch.get_block("C"), "meta_schedule.parallel", 64)
    target = f"llvm --num-cores={cores}"
    m = _init(ms.mutator.MutateParallel(max_jobs_per_core=jobs), mod, target)
    values = set()
    for seed in range(60):
        out = m.apply(sch.trace, seed)
        if out is None:
            continue
        ann = [i for i in out.insts if i.kind.name == "Annotate"][-1]
        value = int(ann.inputs[1])
        assert value <= cores * jobs
        values.add(value)
        _replays(mod, out)
    # products of the outer loops: 2, 4, 8, 64; the current value 64 (capped at the limit)
    # is one plan; the others are the remaining products within cores * jobs.
    assert values == expected


def test_mutate_parallel_bad_inputs():
    with pytest.raises(ValueError, match="max_jobs_per_core"):
        ms.mutator.MutateParallel(max_jobs_per_core=0)
    with pytest.raises(TypeError):
        ms.mutator.MutateParallel(max_jobs_per_core="16")
    mod, sch = _tiled_trace()
    sch.annotate(sch.get_block("C"), "meta_schedule.parallel", 64)
    with pytest.raises(ValueError, match="_initialize_with_tune_context"):
        ms.mutator.MutateParallel(16).apply(sch.trace, 0)
    with pytest.raises(TypeError):
        ms.mutator.MutateTileSize().apply("not a trace")


# ---- MutateComputeLocation ------------------------------------------------------------
@T.prim_func
def _two_stage(A: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    B = T.alloc_buffer((32, 32), "float32")
    for i, j in T.grid(32, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_mutate_compute_location_repicks_a_legal_location():
    mod = tvm.IRModule({"main": _two_stage.with_attr("global_symbol", "main")})
    sch = tir.Schedule(mod, seed=0)
    b = sch.get_block("B")
    loc = sch.sample_compute_location(b, decision=0)
    sch.compute_at(b, loc)
    m = _init(ms.mutator.MutateComputeLocation(), mod)
    seen = set()
    for seed in range(60):
        out = m.apply(sch.trace, seed)
        dec = _decision_of(out, "SampleComputeLocation")[0]
        assert dec != 0
        seen.add(int(dec))
        rng = np.random.default_rng(seed)
        a = rng.random((32, 32)).astype("float32")
        c = tvm.nd.empty((32, 32), "float32")
        if seed < 4:
            tvm.build(_replays(mod, out).mod, target="llvm")["main"](tvm.nd.array(a), c)
            np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
    # TVM's candidates: inline (-2: B can be inlined), the root (-1), or C's
    # j loop (position 1); C's i loop (0) was current.
    assert seen == {-2, -1, 1}
    assert m.apply(tir.Schedule(mod).trace, 0) is None


# ---- the mutator table -------------------------------------------------------------------
def test_default_table_is_tvms_llvm_table():
    table = ms.mutator.Mutator.create("llvm")
    assert sorted((str(m), p) for m, p in table.items()) == [
        ("MutateComputeLocation", 0.05), ("MutateParallel", 0.02), ("MutateTileSize", 0.9), ("MutateUnroll", 0.03)]
    # cuda: TVM's GPU table
    assert sorted((str(m), p) for m, p in ms.mutator.Mutator.create("cuda").items()) == [
        ("MutateThreadBinding", 0.02), ("MutateTileSize", 0.9), ("MutateUnroll", 0.08)]
    with pytest.raises(NotImplementedError):
        ms.mutator.Mutator.create("nvptx")


def test_mutator_sampler_draws_with_the_table_probabilities():
    table = ms.mutator.Mutator.create("llvm")
    sampler = MutatorSampler(table, _ctx(matmul_module(16)), np.random.default_rng(7))
    names = ["MutateTileSize", "MutateComputeLocation", "MutateUnroll", "MutateParallel"]
    probs = [0.9, 0.05, 0.03, 0.02]
    counts = dict.fromkeys(names, 0)
    for _ in range(20000):
        counts[str(sampler.sample())] += 1
    obs = [counts[n] for n in names]
    assert _chi2(obs, probs) < CHI2_CRIT[3]
    assert _chi2(obs, [0.25] * 4) > CHI2_CRIT[3]                    # a wrong table is detected
    # unnormalized weights are normalized; zero weights are never drawn
    s2 = MutatorSampler({ms.mutator.MutateTileSize(): 3.0, ms.mutator.MutateUnroll(): 1.0,
                         ms.mutator.MutateParallel(4): 0.0}, None, np.random.default_rng(1))
    c2 = [str(s2.sample()) for _ in range(8000)]
    assert "MutateParallel" not in c2
    assert _chi2([c2.count("MutateTileSize"), c2.count("MutateUnroll")], [0.75, 0.25]) < CHI2_CRIT[1]
    with pytest.raises(ValueError):
        MutatorSampler({ms.mutator.MutateTileSize(): -1.0}, None, np.random.default_rng(0))


# ---- postprocessors ---------------------------------------------------------------------
def test_disallow_dynamic_loop():
    @T.prim_func
    def dyn(a: T.handle, n: T.int32):
        A = T.match_buffer(a, (n,), "float32")
        for i in range(n):
            with T.block("A"):
                vi = T.axis.spatial(n, i)
                A[vi] = T.float32(0)

    p = ms.postproc.DisallowDynamicLoop()
    assert p.apply(tir.Schedule(matmul_module(16)))
    assert not p.apply(tir.Schedule(tvm.IRModule({"main": dyn})))
    assert "loop i" in p.last_error and "non-constant" in p.last_error
    with pytest.raises(TypeError):
        p.apply(matmul_module(16))


def _gpu_mod(threads, shared):
    @T.prim_func
    def kernel(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
        for bx in T.thread_binding(1024 // threads, thread="blockIdx.x"):
            for tx in T.thread_binding(threads, thread="threadIdx.x"):
                with T.block("B"):
                    vi = T.axis.spatial(1024, bx * threads + tx)
                    S = T.alloc_buffer((shared,), "float32", scope="shared")
                    S[0] = A[vi]
                    B[vi] = S[0]
    return tvm.IRModule({"main": kernel})


def test_verify_gpu_code_checks_the_targets_limits():
    p = ms.postproc.VerifyGPUCode()
    ctx = ms.TuneContext(mod=_gpu_mod(256, 16), target="cuda -max_threads_per_block=512 "
                         "-max_shared_memory_per_block=4096", rand_state=0)
    p._initialize_with_tune_context(ctx)
    assert p.apply(tir.Schedule(_gpu_mod(256, 16))), p.last_error
    assert not p.apply(tir.Schedule(_gpu_mod(1024, 16)))
    assert "1024 threads per block" in p.last_error
    assert p.apply(tir.Schedule(_gpu_mod(256, 1024)))               # 4096 bytes: at the limit
    assert not p.apply(tir.Schedule(_gpu_mod(256, 1025)))
    assert "shared memory" in p.last_error
    with pytest.raises(ValueError, match="GPU target"):
        ms.postproc.VerifyGPUCode()._initialize_with_tune_context(_ctx(matmul_module(16)))
    with pytest.raises(ValueError, match="_initialize_with_tune_context"):
        ms.postproc.VerifyGPUCode().apply(tir.Schedule(_gpu_mod(256, 16)))
    assert [type(x).__name__ for x in ms.postproc.Postproc.create("cuda")] == [
        "DisallowDynamicLoop", "RewriteCooperativeFetch", "RewriteUnboundBlock", "RewriteParallelVectorizeUnroll",
        "RewriteReductionBlock", "VerifyGPUCode"]
    assert "VerifyGPUCode" not in [type(x).__name__ for x in ms.postproc.Postproc.create("llvm")]


# ---- evolutionary search ------------------------------------------------------------------
def _proposals(seed, **kw):
    ctx = ms.TuneContext(mod=matmul_module(64), target="llvm --num-cores=1", rand_state=seed)
    es = EvolutionarySearch(ctx, RandomModel(seed=seed), population_size=48, init_min_unmeasured=16, **kw)
    out = []
    for _ in range(2):
        cands = es.generate(8)
        for c in cands:
            ctx.measured.add(c.shash)
        es.notify(cands, [1e-3 * (k + 1) for k in range(len(cands))])
        out += [c.shash for c in cands]
    return out, es


def test_evolutionary_search_is_deterministic_and_uses_the_mutators():
    first, es = _proposals(0)
    again, _ = _proposals(0)
    other, _ = _proposals(1)
    assert len(first) == 16 and len(set(first)) == 16              # never the same module twice
    assert first == again and first != other
    assert es.num_mutations > 0


def test_mutator_probs_are_honoured_and_checked():
    space = ms.space_generator.PostOrderApply(mutator_probs={})
    ctx = ms.TuneContext(mod=matmul_module(64), target="llvm --num-cores=1", space_generator=space, rand_state=0)
    es = EvolutionarySearch(ctx, RandomModel(), population_size=16, init_min_unmeasured=8)
    es.generate(4)
    assert es.num_mutations == 0                                     # an empty table never mutates
    only = ms.space_generator.ScheduleFn(lambda s: s, mutator_probs={ms.mutator.MutateUnroll(): 1.0})
    assert list(map(str, ms.TuneContext(mod=matmul_module(16), space_generator=only).mutator_probs)) == ["MutateUnroll"]
    with pytest.raises(TypeError):
        ms.space_generator.PostOrderApply(mutator_probs={"MutateTileSize": 1.0})
    with pytest.raises(ValueError):
        ms.space_generator.ScheduleFn(lambda s: s, mutator_probs={ms.mutator.MutateUnroll(): -0.5})
    with pytest.raises(TypeError):
        ms.space_generator.PostOrderApply(postprocs=["DisallowDynamicLoop"])
    with pytest.raises(ValueError, match="population_size"):
        EvolutionarySearch(ctx, RandomModel(), population_size=0)
    with pytest.raises(ValueError, match="eps_greedy"):
        EvolutionarySearch(ctx, RandomModel(), eps_greedy=1.5)


def test_a_postproc_rejecting_everything_leaves_nothing_to_measure():
    class RejectAll(ms.postproc.PyPostproc):
        def apply(self, sch):
            return False

    space = ms.space_generator.PostOrderApply(postprocs=[RejectAll()])
    ctx = ms.TuneContext(mod=matmul_module(32), target="llvm --num-cores=1", space_generator=space, rand_state=0)
    es = EvolutionarySearch(ctx, RandomModel(), population_size=8, init_min_unmeasured=4, max_fail_count=1)
    assert es.generate(4) == []


def test_tune_tir_with_evolutionary_search_matches_numpy(tmp_path):
    n = 64
    mod = matmul_module(n)
    db = ms.tune_tir(mod, "llvm --num-cores=1", str(tmp_path), 8, num_trials_per_iter=4, seed=3)
    recs = db.get_all_tuning_records()
    # 8 trials (distinct traces); the final confirmation may re-measure some of them
    assert len({r.trace_key for r in recs}) == 8 and all(r.is_valid for r in recs)
    assert len({int(tvm.ir.structural_hash(_replays(mod, r.trace).mod)) for r in recs}) == 8
    _np_matmul_check(ms.tir_integration.compile_tir(db, mod, "llvm --num-cores=1").mod, n)

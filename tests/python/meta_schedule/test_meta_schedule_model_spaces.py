"""The default CPU space on the kernels of a CNN (ResNet-18's issue [G2]): conv2d in the
packed layout LegalizeOps makes (strided and 3x3), max_pool2d with an overlapping window,
a fused conv2d + batch_norm, and batch_norm on inputs that make NaN. Every sampled
candidate passes the postprocessors, builds and matches NumPy; candidates are checked
through the runner even where the unscheduled program computes NaN; warm-up rounds
reach every task of a model whose budget is smaller than tasks x round size."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax
from tessera.meta_schedule import search_strategy as S
from tessera.meta_schedule.runner.runner import mismatches
from tessera.meta_schedule.tune_context import TuneContext

TARGET = "llvm --num-cores=1"


def _conv_bn_relu_module(cin=8, cout=32, hw=16, stride=1, fuse=False):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, cin, hw, hw), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((cout, cin, 3, 3), "float32"))
    gamma, beta, mean, var = (relax.Var(n, relax.TensorStructInfo((cout,), "float32"))
                              for n in ("gamma", "beta", "mean", "var"))
    with bb.function("main", [x, w, gamma, beta, mean, var]):
        with bb.dataflow():
            c = bb.emit(relax.op.nn.conv2d(x, w, strides=stride, padding=1))
            bn = bb.emit(relax.op.nn.batch_norm(c, gamma, beta, mean, var, axis=1))
            r = bb.emit(relax.op.nn.relu(relax.TupleGetItem(bn, 0)))
            out = bb.emit_output(r)
        bb.emit_func_output(out)
    mod = bb.get()
    if fuse:
        mod = relax.get_pipeline("zero")(mod)
    return mod


def _pool_module(hw=16):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8, hw, hw), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(relax.op.nn.max_pool2d(x, pool_size=3, strides=2, padding=1)))
        bb.emit_func_output(out)
    return bb.get()


def _task(mod, name_part, block=None):
    """The first task whose name contains ``name_part`` (and with a block named ``block``)."""
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    found = [t for t in tasks if name_part in t.task_name
             and (block is None or f'T.block("{block}")' in t.dispatched[0].script())]
    assert found, [t.task_name for t in tasks]
    return found[0]


def _run(mod, inputs):
    lib = tvm.build(mod, target="llvm")
    func = mod["main"]
    arrays = [tvm.nd.array(a) for a in inputs]
    for p in func.params[len(inputs):]:
        buf = func.buffer_map[p]
        arrays.append(tvm.nd.empty([int(s) for s in buf.shape], buf.dtype))
    lib["main"](*arrays)
    return [a.numpy() for a in arrays[len(inputs):]]


def _sample_check(task, n_samples, n_built, seed=0, n_out=1):
    """Samples the default space: no sample may fail; the first ``n_built`` candidates
    must compute what the unscheduled function computes (an oracle checked against NumPy
    by the callers)."""
    ctx = TuneContext(task.dispatched[0], TARGET, "post-order-apply", "random", task.task_name, seed, 1)
    strategy = S.ReplayFunc(ctx)
    cands = [strategy._sample() for _ in range(n_samples)]
    assert ctx.num_sample_errors == 0, ctx.sample_errors[:2]
    assert all(c is not None for c in cands)
    func = task.dispatched[0]["main"]
    rng = np.random.default_rng(seed)
    n_in = len(func.params) - n_out
    inputs = [rng.uniform(-1, 1, [int(s) for s in func.buffer_map[p].shape]).astype("float32")
              for p in func.params[:n_in]]
    want = _run(task.dispatched[0], inputs)
    for cand in cands[:n_built]:
        got = _run(cand.sch.mod, inputs)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    return inputs, want


@pytest.mark.parametrize("stride", [1, 2])
def test_packed_conv2d_samples_are_valid_and_match_numpy(stride):
    mod = _conv_bn_relu_module(hw=8, stride=stride)
    task = _task(mod, "conv2d", block="conv2d_nchw_unpack")  # the layout the failures came from
    inputs, want = _sample_check(task, 8, 2)
    x, w_packed = inputs  # (F/16, C, 3, 3, 16): w[f] = w_packed[f // 16, ..., f % 16]
    w = w_packed.transpose(0, 4, 1, 2, 3).reshape(-1, *w_packed.shape[1:4])
    ref = np.zeros_like(want[0])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    for i in range(3):
        for j in range(3):
            patch = xp[:, :, i:i + stride * ref.shape[2]:stride, j:j + stride * ref.shape[3]:stride]
            ref += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    np.testing.assert_allclose(want[0], ref, rtol=1e-4, atol=1e-4)


def test_max_pool2d_overlapping_window_samples_are_valid_and_match_numpy():
    task = _task(_pool_module(), "max_pool2d")
    inputs, want = _sample_check(task, 8, 2)
    xp = np.pad(inputs[0], ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    ref = np.full_like(want[0], -np.inf)
    for i in range(3):
        for j in range(3):
            ref = np.maximum(ref, xp[:, :, i:i + 16:2, j:j + 16:2])
    np.testing.assert_allclose(want[0], ref)


def test_fused_conv_bn_samples_are_valid_and_match_numpy():
    mod = _conv_bn_relu_module(hw=8, fuse=True)
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    task = [t for t in tasks if "conv2d" in t.task_name and "batch_norm" in t.task_name][0]
    # outputs: the normalized conv, the moving mean and the moving variance
    inputs, want = _sample_check(task, 8, 2, n_out=3)
    x, w_packed, gamma, beta, mean, var = inputs
    w = w_packed.transpose(0, 4, 1, 2, 3).reshape(-1, *w_packed.shape[1:4])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = sum(np.einsum("nchw,fc->nfhw", xp[:, :, i:i + 8, j:j + 8], w[:, :, i, j])
               for i in range(3) for j in range(3))
    per_channel = lambda v: v[None, :, None, None]  # noqa: E731
    with np.errstate(invalid="ignore"):  # negative random variances: NaN channels, as the kernel's
        ref = (conv - per_channel(mean)) / np.sqrt(per_channel(var) + 1e-5) * per_channel(gamma) + per_channel(beta)
    np.testing.assert_allclose(want[0], ref, rtol=1e-4, atol=1e-4)


def test_batch_norm_with_nan_outputs_is_checked_and_tuned(tmp_path):
    # Random inputs give negative variances: rsqrt makes NaN in the unscheduled program's
    # output too; a correct candidate must still be accepted (it was "wrong result").
    task = _task(_conv_bn_relu_module(), "batch_norm")
    db = ms.tune_tir(task.dispatched[0], TARGET, str(tmp_path), 2, num_trials_per_iter=2, seed=0,
                     strategy="random", num_tuning_cores=1)
    recs = db.get_all_tuning_records()
    assert recs and all(r.is_valid for r in recs), [r.error_msg for r in recs]


def test_mismatch_count_treats_nan_and_inf_by_place():
    want = np.array([1.0, np.nan, np.inf, -np.inf, 1e6], "float32")
    assert mismatches(want.copy(), want, 1e-4, 1e-4) == (0, 0.0)
    got = want.copy()
    got[1] = 0.0          # a value where NaN was expected
    got[2] = -np.inf      # the wrong infinity
    got[4] = 1e6 + 500.0  # beyond rtol at this magnitude
    bad, diff = mismatches(got, want, 1e-4, 1e-4)
    assert bad == 3 and diff == pytest.approx(500.0)
    # an infinity in the expected output must not widen the tolerance for the others
    assert mismatches(np.array([np.inf, 2.0], "float32"), np.array([np.inf, 1.0], "float32"), 1e-4, 1e-4)[0] == 1


def test_every_task_gets_a_first_round_on_a_small_budget(tmp_path):
    # 4 tasks (weight packing, conv2d, batch_norm, relu), 16 trials per round but a budget
    # of 6: TVM's warm-up would give the whole budget to the first task.
    mod = _conv_bn_relu_module(cin=4, cout=16, hw=8)
    db = ms.relax_integration.tune_relax(mod, None, TARGET, str(tmp_path), 6, num_trials_per_iter=16, seed=0,
                                         num_tuning_cores=1, cost_model="random")
    tasks = ms.relax_integration.extract_tasks(mod, TARGET)
    assert len(tasks) == 4
    assert all(db.records_of(t.mod) for t in tasks), [len(db.records_of(t.mod)) for t in tasks]

"""The Winograd conv's design space samples no unschedulable candidate: where
RandomComputeLocation puts the row transform under a tile loop whose tiles cross a tile
row, the rows it reads vary in number with the loop (1 or 2); compute_at bounds that extent
by its largest value with a predicate, so DisallowDynamicLoop no longer rejects the sample
(2-23% of the 64- and 128-channel ResNet Winograd convs' samples before). The samples
build and match a direct convolution."""
import pytest

from tessera import meta_schedule as ms
from tessera import relax
from tessera.meta_schedule.tune_context import normalize_mod

from .test_meta_schedule_winograd_knobs import BIAS, C, TARGET, W, _check_against_numpy


def _task(hw):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, C, hw, hw), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.add(relax.op.nn.conv2d(x, relax.const(W), padding=1), relax.const(BIAS)))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    mod = relax.get_pipeline("zero")(bb.get())
    tasks = [t for t in ms.relax_integration.extract_tasks(mod, TARGET) if "winograd" in t.task_name]
    assert tasks, "no Winograd kernel"
    return normalize_mod(tasks[0].dispatched[0])


@pytest.mark.parametrize("hw", [24, 56])
def test_winograd_space_samples_are_all_schedulable(hw):
    mod = _task(hw)
    ctx = ms.TuneContext(mod=mod, target=TARGET, space_generator="post-order-apply", rand_state=0)
    space = ctx.space_generator
    rejected, varying = [], []
    for seed in range(1, 41):
        sch = space.sample(mod, seed, ctx)
        if not space.apply_postprocs(sch):
            rejected.append((seed, space.last_rejection))
        elif any("T.where(ax" in ln and "//" in ln for ln in sch.mod["main"].script().splitlines()):
            varying.append(sch)  # a loop bounded by its largest extent, under a predicate
    assert not rejected, rejected
    assert varying
    for sch in varying[:2]:
        _check_against_numpy(mod, sch.mod)

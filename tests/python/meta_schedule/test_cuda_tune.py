"""GPU tuning on a GPU (skipped without one): tune_tir with a CUDA target builds the
candidates for cuda, checks them against the host's unscheduled results and times them on
tvm.cuda(0); the chosen schedules build and match NumPy. The search space itself is tested
without a GPU in test_cuda_space.py. Needs the CUDA backend (tvm.build(..., target="cuda"))."""
import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import tir
from tessera.meta_schedule.arg_info import ArgInfo
from tessera.meta_schedule.runner import LocalRunner, RunnerInput

from .test_cuda_space import add_relu, matmul

requires_cuda = pytest.mark.skipif(not tvm.cuda(0).exist, reason="needs a CUDA device")
H200 = "nvidia/nvidia-h200"


def _target():
    """The H200 tag on an H200 (the lead's GPU machine), else the device's own target."""
    dev = tvm.cuda(0)
    return H200 if "H200" in str(dev.device_name) else str(tvm.target.Target.from_device(dev))


def _run(rt_mod, arrays):
    dev = tvm.cuda(0)
    nds = [tvm.nd.array(a, dev) for a in arrays]
    rt_mod["main"](*nds)
    return [x.numpy() for x in nds]


@requires_cuda
def test_tune_tir_matmul_on_the_gpu(tmp_path):
    mod = matmul(512)
    # a short run (the conformance file tunes with the evolutionary search)
    target = _target()
    db = ms.tune_tir(mod, target, str(tmp_path), 4, num_trials_per_iter=4, strategy="replay-trace", seed=0,
                     num_tuning_cores=4)
    records = db.get_all_tuning_records()
    assert any(r.is_valid for r in records), [r.error_msg for r in records]
    sch = ms.tir_integration.compile_tir(db, mod, target)
    rt_mod = tvm.build(sch.mod, target=target)
    rng = np.random.default_rng(0)
    a = rng.uniform(size=(512, 512)).astype("float32")
    b = rng.uniform(size=(512, 512)).astype("float32")
    _, _, c = _run(rt_mod, [a, b, np.zeros((512, 512), "float32")])
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)


@requires_cuda
def test_tune_tir_elementwise_on_the_gpu(tmp_path):
    mod = add_relu(1024)
    db = ms.tune_tir(mod, "cuda", str(tmp_path), 2, num_trials_per_iter=2, strategy="replay-trace", seed=0,
                     num_tuning_cores=2)
    sch = ms.tir_integration.compile_tir(db, mod, "cuda")
    rt_mod = tvm.build(sch.mod, target="cuda")
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, size=(1024, 1024)).astype("float32")
    b = rng.uniform(-1, 1, size=(1024, 1024)).astype("float32")
    _, _, c = _run(rt_mod, [a, b, np.zeros((1024, 1024), "float32")])
    np.testing.assert_allclose(c, np.maximum(a + b, 0), rtol=1e-6)


@requires_cuda
def test_local_runner_checks_and_times_on_the_gpu(tmp_path):
    mod = add_relu(256)
    sch = tir.Schedule(mod)
    post = ms.postproc.RewriteUnboundBlock()
    post._initialize_with_tune_context(ms.TuneContext(target="cuda"))
    assert post.apply(sch)
    path = str(tmp_path / "cand.so")
    tvm.build(sch.mod, target="cuda").export_library(path)
    runner = LocalRunner(timeout_sec=60)
    try:
        args = ArgInfo.from_prim_func(mod["main"])
        ref = runner.make_reference(mod, "cuda", args, str(tmp_path / "ref.npz"))
        (res,) = runner.run([RunnerInput(path, "cuda", args, ref)])
        assert res.error_msg is None, res.error_msg
        assert res.run_secs and all(t > 0 for t in res.run_secs)
    finally:
        runner.close()


@requires_cuda
def test_target_from_the_device_and_the_h200_tag():
    dev = tvm.cuda(0)
    target = tvm.target.Target.from_device(dev)
    assert target.kind.name == "cuda"
    assert target.attrs["arch"] == "sm_" + str(dev.compute_version).replace(".", "")
    assert target.attrs["max_threads_per_block"] == dev.max_threads_per_block
    assert target.attrs["max_shared_memory_per_block"] == min(dev.max_shared_memory_per_block, 49152)
    assert target.attrs["thread_warp_size"] == dev.warp_size == 32
    if "H200" in str(dev.device_name):
        tag = tvm.target.Target("nvidia/nvidia-h200")
        assert tag.attrs["arch"] == target.attrs["arch"] == "sm_90"
        assert tag.attrs["max_threads_per_block"] == dev.max_threads_per_block

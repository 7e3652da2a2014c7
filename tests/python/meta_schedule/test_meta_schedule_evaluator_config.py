"""LocalRunner(evaluator_config=EvaluatorConfig(...)) as in TVM: the config's number,
repeat, min_repeat_ms and cache flush (None fields: TVM's defaults 3, 1, 100, False);
LocalRunner() with no config keeps the tuner's own setting (number=3, repeat=1,
min_repeat_ms=20); each repeat is one of the candidate's run_secs."""
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.arg_info import ArgInfo
from tessera.meta_schedule.builder import BuilderInput, LocalBuilder
from tessera.meta_schedule.default_candidate import default_schedule
from tessera.meta_schedule.runner import EvaluatorConfig, LocalRunner, RunnerInput
from tessera.meta_schedule.tune_context import normalize_mod

from ms_helpers import matmul_module

TARGET = "llvm --num-cores=1"


def test_config_fields_and_tvm_defaults():
    r = LocalRunner(evaluator_config=EvaluatorConfig(number=2, repeat=4, min_repeat_ms=0,
                                                     enable_cpu_cache_flush=True))
    assert (r.number, r.repeat, r.min_repeat_ms, r.enable_cpu_cache_flush) == (2, 4, 0, True)
    r.close()
    r = LocalRunner(30, EvaluatorConfig())  # TVM's positional order: timeout_sec, evaluator_config
    assert r.evaluator_config == EvaluatorConfig(3, 1, 100, False)
    r.close()
    r = LocalRunner()
    assert (r.number, r.repeat, r.min_repeat_ms, r.enable_cpu_cache_flush) == (3, 1, 20, False)
    r.close()


def test_bad_configs_name_the_culprit():
    with pytest.raises(tvm.error.TVMError, match="repeat=0"):
        LocalRunner(evaluator_config=EvaluatorConfig(repeat=0))
    with pytest.raises(TypeError, match="EvaluatorConfig"):
        LocalRunner(evaluator_config={"number": 2})
    with pytest.raises(ValueError, match="not both"):
        LocalRunner(evaluator_config=EvaluatorConfig(number=2), repeat=3)


def test_each_repeat_is_one_run_sec(tmp_path):
    mod = normalize_mod(matmul_module(32))
    target = tvm.target.Target(TARGET)
    args_info = ArgInfo.from_prim_func(mod["main"])
    runner = LocalRunner(evaluator_config=EvaluatorConfig(number=1, repeat=3, min_repeat_ms=0))
    builder = LocalBuilder(max_workers=1)
    try:
        ref = runner.make_reference(mod, target, args_info, str(tmp_path / "ref.npz"))
        built = builder.build([BuilderInput(default_schedule(mod, target).mod, str(target))])[0]
        res = runner.run([RunnerInput(built.artifact_path, "cpu", args_info, ref)])[0]
    finally:
        builder.close()
        runner.close()
    assert res.error_msg is None and len(res.run_secs) == 3 and all(t > 0 for t in res.run_secs)

"""Every stage of the lowering keeps the module well formed
(relax.analysis.well_formed, an independent checker), on the course's MLP,
a symbolic-shape module and a module with a derived dim."""
import pytest

from tessera import relax

from .test_relax_transform_static_plan_block_memory import _mlp_ch3, _mlp_ch5
from .test_relax_vm_shape_checks import _shared_n_module

T = relax.transform
STAGES = [T.ToNonDataflow, T.RemovePurityChecking, T.CallTIRRewrite, T.StaticPlanBlockMemory, T.LowerAllocTensor,
          T.VMBuiltinLower, T.VMShapeLower, T.AttachGlobalSymbol]


@pytest.mark.parametrize("build", [_mlp_ch3, _mlp_ch5, _shared_n_module])
def test_each_stage_is_well_formed(build):
    mod = build()
    assert relax.analysis.well_formed(mod)
    for stage in STAGES:
        mod = stage()(mod)
        errors = list(relax.analysis.well_formed_errors(mod))
        assert not errors, f"after {stage.__name__}: {errors}"

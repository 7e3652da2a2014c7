"""meta_schedule's view of a Relax model is relax.build's: fuse_as_built, extract_tasks and
compile_relax legalize in relax.build's scope (packed matmul weights on a CPU, batch_norm
folded into conv2d), so tuning starts from the PrimFuncs the default build makes
(benchmarks/tune_models.py builds its untuned and tuned models this way)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import ir, relax, tir
from tessera import meta_schedule as ms
from tessera.relax.vm_build import build_scope

torch = pytest.importorskip("torch")
from tessera.relax.frontend.torch import from_exported_program  # noqa: E402

TARGET = tvm.target.Target("llvm --num-cores=1")


class _Block(torch.nn.Module):
    """A transformer feed-forward block with softmax: matmul+bias+GELU, matmul+bias, softmax."""

    def __init__(self):
        super().__init__()
        self.up, self.down = torch.nn.Linear(64, 128), torch.nn.Linear(128, 64)

    def forward(self, x):
        return torch.softmax(self.down(torch.nn.functional.gelu(self.up(x))), -1)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    block, x = _Block().eval(), torch.randn(1, 16, 64)
    with torch.no_grad():
        expected = block(x).numpy()
    raw = from_exported_program(torch.export.export(block, (x,)), unwrap_unit_return_tuple=True)
    return raw, x.numpy(), expected


def _built_prims(mod):
    """The PrimFuncs relax.build's default pipeline leaves, without their name-like attributes."""
    with build_scope(TARGET):
        mod = relax.get_pipeline("default_build", target=TARGET)(mod)
    return [f.without_attr("global_symbol").without_attr("op_pattern")
            for f in mod.functions.values() if isinstance(f, tir.PrimFunc)]


def _same_set(a, b):
    return len(a) == len(b) and all(any(ir.structural_equal(f, g) for g in b) for f in a) \
        and all(any(ir.structural_equal(f, g) for g in a) for f in b)


def test_fused_model_builds_the_default_primfuncs(model):
    raw = model[0]
    default = _built_prims(raw)
    assert _same_set(default, _built_prims(ms.relax_integration.fuse_as_built(raw, TARGET)))
    # the "zero" pipeline outside relax.build's scope picks the plain matmul: a different build
    assert not _same_set(default, _built_prims(relax.get_pipeline("zero")(raw)))


def test_tasks_have_the_default_packed_matmul(model):
    tasks = ms.relax_integration.extract_tasks(model[0], TARGET)
    matmuls = [t for t in tasks if "matmul" in t.task_name and "weight_pack" not in t.task_name]
    assert len(matmuls) == 2
    for task in matmuls:
        weight = list(task.mod["main"].buffer_map.values())[1]
        assert len(weight.shape) == 3, task.task_name   # [N / block, K, block]


def test_compile_relax_matches_torch(model, tmp_path):
    raw, x, expected = model
    db = ms.database.JSONDatabase(work_dir=str(tmp_path))
    fused = ms.relax_integration.fuse_as_built(raw, TARGET)
    for mod in (raw, fused):
        vm = relax.VirtualMachine(ms.relax_integration.compile_relax(db, mod, TARGET), tvm.cpu())
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), expected, rtol=1e-4, atol=1e-5)

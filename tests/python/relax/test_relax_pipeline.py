"""relax.get_pipeline("default_build"): the named Sequential relax.build runs,
and the whole lowering of the course's MLP through it."""
import pytest

import tessera as tvm
from tessera import relax

ZERO = ["LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR"]
OPTIONAL = ["FoldBatchnormToConv2d"] + ZERO[1:] + ["DefaultCPUSchedule", "DeadCodeElimination"]
EXPECTED = ["FoldBatchnormToConv2d"] + ZERO + ["DefaultCPUSchedule", "DeadCodeElimination", "Normalize", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
            "LowerAllocTensor", "VMBuiltinLower", "VMShapeLower", "AttachGlobalSymbol"]


def test_default_pipeline_is_the_named_sequential():
    for seq in (relax.get_pipeline(), relax.get_pipeline("default_build")):
        assert isinstance(seq, tvm.transform.Sequential)
        assert seq.info.name == "relax.build_pipeline"
        assert [p.info.name for p in seq.passes] == EXPECTED


def test_pipelines_are_the_cpp_sequentials():
    """The Python API returns the Sequentials defined once in C++ (pipeline.cc)."""
    cpp = tvm.get_global_func("relax.transform.DefaultBuildPipeline")(None)
    assert [p.info.name for p in cpp.passes] == EXPECTED
    zero = relax.get_pipeline("zero")
    assert [p.info.name for p in zero.passes] == ZERO
    assert [p.info.name for p in relax.pipeline.zero_pipeline(enable_warning=True).passes] == ZERO


def test_unknown_and_registered_pipelines():
    with pytest.raises(ValueError, match="nonesuch"):
        relax.get_pipeline("nonesuch")
    with pytest.raises(TypeError):
        relax.get_pipeline(3)
    with pytest.raises(TypeError, match="enable_warning"):
        relax.get_pipeline("zero", target="llvm")
    with pytest.raises(ValueError, match="already registered"):
        relax.register_pipeline("default_build")

    @relax.register_pipeline("test_only_legalize")
    def _only_legalize():
        return tvm.transform.Sequential([relax.transform.LegalizeOps()], name="only_legalize")

    assert relax.get_pipeline("test_only_legalize").info.name == "only_legalize"


def _call_tir_count(mod):
    return sum(1 for _, f in mod.functions.items() if isinstance(f, relax.Function)
               for block in f.body.blocks for b in block.bindings
               if isinstance(b.value, relax.Call) and b.value.op == tvm.ir.Op.get("relax.call_tir"))


@pytest.mark.parametrize("step", EXPECTED)
def test_each_step_can_be_disabled(step):
    """PassContext(disabled_pass=[step]) leaves exactly that step out of the pipeline."""
    runs = []

    @tvm.instrument.pass_instrument
    class Record:  # pylint: disable=too-few-public-methods
        def run_before_pass(self, _mod, info):
            runs.append(info.name)

    with tvm.transform.PassContext(disabled_pass=[step], instruments=[Record()]):
        if step in OPTIONAL:
            ex = relax.build(_linear_relu_module(), target="llvm")
        else:
            try:
                relax.get_pipeline()(_linear_relu_module())
            except tvm.error.TVMError:
                pass  # a later lowering step may need the one left out
    top = [n for n in runs if n in EXPECTED]
    assert step not in top
    assert top == [n for n in EXPECTED if n != step][:len(top)]
    if step in OPTIONAL:  # the optimizations are optional: the result is still right
        assert len(top) == len(EXPECTED) - 1
        _check_linear_relu(ex)


def test_pipeline_lowers_call_tir_module_to_vm_builtins():
    from .test_relax_transform_static_plan_block_memory import _mlp_ch5  # pylint: disable=import-outside-toplevel

    with tvm.transform.PassContext(disabled_pass=["FuseOps"]):  # the five kernels unfused: four intermediates
        lowered = relax.get_pipeline()(_mlp_ch5())
    main = lowered["main"]
    ops = set()
    for block in main.body.blocks:
        assert not isinstance(block, relax.DataflowBlock)
        for b in block.bindings:
            v = b.value
            if isinstance(v, relax.Call):
                ops.add(v.op.name if isinstance(v.op, tvm.ir.Op) else getattr(v.op, "global_symbol", None))
    assert "relax.call_tir" not in ops and "relax.builtin.alloc_tensor" not in ops
    assert "relax.memory.alloc_storage" not in ops and "relax.memory.alloc_tensor" not in ops
    assert {"relax.vm.alloc_storage", "relax.vm.alloc_tensor", "vm.builtin.check_tensor_info",
            "vm.builtin.match_shape"} <= ops
    assert main.attrs["global_symbol"] == "main" and main.attrs["relax.force_pure"]
    # Two planned storages plus the output's own storage.
    assert sum(1 for b in main.body.blocks[0].bindings
               if isinstance(b.value, relax.Call) and b.value.op == tvm.ir.Op.get("relax.vm.alloc_storage")) == 3


def test_printed_pipeline_lists_its_passes_in_order():
    text = str(relax.get_pipeline())
    names = ["Normalize", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
             "LowerAllocTensor", "VMBuiltinLower", "VMShapeLower", "AttachGlobalSymbol"]
    lines = text.splitlines()
    assert lines[0].startswith("transform.Sequential(relax.build_pipeline"), text
    found = [n for line in lines[1:] for n in names if f"({n}," in line]
    assert found == [n for n in names if n in found] and set(found) >= set(names[1:]), text


def _linear_relu_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((8, 4), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            gv = bb.emit_output(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w), b)))
        bb.emit_func_output(gv)
    return bb.get()


def _prim_names(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc))


def test_pipeline_fuses_and_each_fusion_pass_can_be_left_out():
    assert _prim_names(relax.get_pipeline()(_linear_relu_module())) == ["fused_matmul_add_relu"]
    for skipped in ("AnnotateTIROpPattern", "FuseOps"):
        with tvm.transform.PassContext(disabled_pass=[skipped]):
            assert _prim_names(relax.get_pipeline()(_linear_relu_module())) == ["add", "matmul", "relu"]
    for disabled in ([], ["FuseOps"]):
        with tvm.transform.PassContext(disabled_pass=disabled):
            _check_linear_relu(relax.build(_linear_relu_module(), target="llvm"))


def _check_linear_relu(ex):
    import numpy as np  # pylint: disable=import-outside-toplevel

    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in [(2, 8), (8, 4), (4,)])
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b))
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)

"""relax.build for a device target: a kind without a default schedule for its
untuned kernels, or a host that cannot run the VM, is refused naming the
target (before any pass runs), never built into kernels without thread
bindings."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R


@I.ir_module
class Add:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y


def test_device_kind_without_default_schedule_refused():
    with pytest.raises(NotImplementedError, match="nvptx"):
        relax.build(Add, target="nvptx")


def test_host_that_cannot_run_the_vm_refused():
    with pytest.raises(ValueError, match="cannot run the VM"):
        relax.build(Add, target=tvm.target.Target("cuda", host="cuda"))


def test_pipeline_for_a_device_kind_without_default_schedule_refused():
    with pytest.raises(ValueError, match="nvptx"):
        relax.get_pipeline("default_build", target="nvptx")

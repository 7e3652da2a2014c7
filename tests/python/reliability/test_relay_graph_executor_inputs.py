"""Bad input to the Relay-style API (relay.build, graph_executor.GraphModule,
relay.testing): each is an exception naming the culprit (the input, index,
target or option), never a crash or a silent wrong answer."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relay
from tessera.contrib import graph_executor
import tessera.relay.testing  # noqa: F401

from . import harness


@pytest.fixture(scope="module")
def lib():
    mod, params = relay.testing.mlp.get_workload(batch_size=2)
    return relay.build(mod, target="llvm", params=params)


@pytest.fixture
def gmod(lib):
    return graph_executor.GraphModule(lib["default"](tvm.cpu()))


def test_unknown_input_name_lists_the_inputs(gmod):
    with pytest.raises(ValueError, match=r"no input named 'image'.*data"):
        gmod.set_input("image", np.zeros((2, 1, 28, 28), "float32"))


def test_input_index_out_of_range(gmod):
    with pytest.raises(IndexError, match="input index 3"):
        gmod.set_input(3, np.zeros((2, 1, 28, 28), "float32"))


def test_run_before_set_input_names_the_missing_input(gmod):
    with pytest.raises(ValueError, match="not set: data"):
        gmod.run()


def test_get_output_before_run_and_out_of_range(gmod):
    with pytest.raises(tvm.TVMError, match="run"):
        gmod.get_output(0)
    gmod.run(data=np.zeros((2, 1, 28, 28), "float32"))
    with pytest.raises(IndexError, match="1 output"):
        gmod.get_output(1)
    with pytest.raises(ValueError, match=r"\(2, 10\)"):
        gmod.get_output(0, tvm.nd.empty((1, 10)))


def test_unknown_param_names_are_skipped_as_in_relay(gmod):
    gmod.set_input(fc1_weight=np.zeros((128, 784), "float32"), data=np.ones((2, 1, 28, 28), "float32"))
    gmod.run()
    assert np.isfinite(gmod.get_output(0).numpy()).all()


def test_wrong_input_shape_and_dtype_name_the_input():
    setup = ("import numpy as np\n"
             "from tessera import relay\n"
             "from tessera.contrib import graph_executor\n"
             "import tessera.relay.testing\n"
             "mod, params = relay.testing.mlp.get_workload(batch_size=2)\n"
             "m = graph_executor.GraphModule(relay.build(mod, params=params)['default'](tvm.cpu()))\n")
    harness.expect_error(setup + "m.run(data=np.zeros((3, 1, 28, 28), 'float32'))", "ValueError", "param=data")
    harness.expect_error(setup + "m.run(data=np.zeros((2, 1, 28, 28), 'float64'))", "TypeError", "float64")


def test_build_refuses_other_targets_and_non_modules():
    mod, params = relay.testing.mlp.get_workload(batch_size=1)
    with pytest.raises(NotImplementedError, match="cuda"):
        relay.build(mod, target="cuda", params=params)
    with pytest.raises(TypeError, match="IRModule"):
        relay.build("main", target="llvm")
    with pytest.raises(TypeError, match="params"):
        relay.build(mod, target="llvm", params=[1, 2])


def test_factory_and_executor_names(lib):
    with pytest.raises(ValueError, match="'default'"):
        lib["resnet"]
    with pytest.raises(TypeError, match="GraphModule"):
        graph_executor.GraphModule(lib)
    with pytest.raises(NotImplementedError, match="GraphModule"):
        graph_executor.create("{}", lib.get_lib(), tvm.cpu())


def test_loaded_library_output_count(lib, tmp_path):
    """relay.build's library records its outputs; one exported by relax.build
    knows them after the first run (before, asking raises)."""
    lib.export_library(tmp_path / "m.so")
    m = graph_executor.GraphModule(tvm.runtime.load_module(str(tmp_path / "m.so"))["default"](tvm.cpu()))
    assert m.get_num_outputs() == 1
    mod, params = relay.testing.mlp.get_workload(batch_size=2)
    tvm.relax.build(mod, params=params).export_library(tmp_path / "r.so")
    m = graph_executor.GraphModule(tvm.runtime.load_module(str(tmp_path / "r.so"))["default"](tvm.cpu()))
    with pytest.raises(tvm.TVMError, match="run"):
        m.get_num_outputs()
    m.run(data=np.zeros((2, 1, 28, 28), "float32"))
    assert m.get_num_outputs() == 1


def test_workload_arguments():
    with pytest.raises(ValueError, match="num_layers=19"):
        relay.testing.resnet.get_workload(num_layers=19)
    with pytest.raises(NotImplementedError, match="NHWC"):
        relay.testing.resnet.get_workload(layout="NHWC")

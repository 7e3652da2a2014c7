"""The Relay-style API over Relax (python/tessera/relay, contrib/graph_executor):
relay.build + GraphModule against NumPy / PyTorch oracles, export_library
and load_module, params left unbound then set by name, tuple outputs,
relay.testing workloads and relay.frontend.from_onnx's (mod, params) split
(with a stand-in Relax ONNX importer when the real one is absent)."""
import sys
import types

import numpy as np
import pytest
import tessera as tvm
from tessera import relax, relay
from tessera.contrib import graph_executor
import tessera.relay.testing  # noqa: F401
from relay_helpers import mlp_oracle


@pytest.fixture(scope="module")
def mlp():
    mod, params = relay.testing.mlp.get_workload(batch_size=2)
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target="llvm", params=params)
    x = np.random.default_rng(0).standard_normal((2, 1, 28, 28)).astype("float32")
    return mod, params, lib, x, mlp_oracle(x, {k: v.numpy() for k, v in params.items()})


def test_mlp_build_run_matches_numpy(mlp):
    _, _, lib, x, expected = mlp
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    assert m.get_num_inputs() == 1 and m.get_input_index("data") == 0 and m.get_input_index("nope") == -1
    assert m.get_num_outputs() == 1
    m.set_input("data", tvm.nd.array(x))
    m.run()
    np.testing.assert_allclose(m.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)
    out = tvm.nd.empty((2, 10))
    assert m.get_output(0, out) is out
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m.get_input(0).numpy(), x)
    # by index, from NumPy, and through run(**inputs)
    m.set_input(0, np.zeros_like(x))
    m.run(data=x)
    np.testing.assert_allclose(m.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_benchmark_returns_seconds(mlp):
    _, _, lib, x, _ = mlp
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    res = m.benchmark(tvm.cpu(), number=2, repeat=3, data=x)
    assert len(res.results) == 3 and 0 < res.mean < 1.0


def test_export_library_loads_back(mlp, tmp_path):
    _, _, lib, x, expected = mlp
    path = tmp_path / "mlp.so"
    lib.export_library(str(path))
    loaded = tvm.runtime.load_module(str(path))
    m = graph_executor.GraphModule(loaded["default"](tvm.cpu()))
    m.set_input("data", x)
    m.run()
    assert m.get_num_outputs() == 1
    np.testing.assert_allclose(m.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_unbound_params_are_inputs_set_by_name(mlp):
    mod, params, _, x, expected = mlp
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target="llvm")
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    assert m.get_num_inputs() == 1 + len(params)
    m.set_input(**params)
    m.set_input("data", x)
    m.run()
    np.testing.assert_allclose(m.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_tuple_outputs_are_flattened():
    x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.exp(x))
            b = bb.emit(relax.op.add(x, x))
            out = bb.emit_output(relax.Tuple([a, relax.Tuple([b, x])]))
        bb.emit_func_output(out)
    lib = relay.build(bb.get(), target="llvm")
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    assert m.get_num_outputs() == 3
    xv = np.array([0.5, -1.0, 2.0], "float32")
    m.set_input("x", xv)
    m.run()
    for i, want in enumerate([np.exp(xv), xv + xv, xv]):
        np.testing.assert_allclose(m.get_output(i).numpy(), want, rtol=1e-6)


def _torch_preact_resnet18(x, p, torch):
    F = torch.nn.functional
    t = {k: torch.from_numpy(v.numpy()) for k, v in p.items()}

    def bn(v, name, scale=True):
        return F.batch_norm(v, t[f"{name}_moving_mean"], t[f"{name}_moving_var"],
                            t[f"{name}_gamma"] if scale else None, t[f"{name}_beta"], False, 0.0, 2e-5)

    def conv(v, name, stride=1, pad=0):
        return F.conv2d(v, t[f"{name}_weight"], stride=stride, padding=pad)

    y = conv(bn(x, "bn_data", scale=False), "conv0", 2, 3)
    y = F.max_pool2d(F.relu(bn(y, "bn0")), 3, 2, 1)
    for stage in range(4):
        for unit in range(2):
            n = f"stage{stage + 1}_unit{unit + 1}"
            stride = 2 if stage > 0 and unit == 0 else 1
            act = F.relu(bn(y, f"{n}_bn1"))
            z = conv(act, f"{n}_conv1", stride, 1)
            z = conv(F.relu(bn(z, f"{n}_bn2")), f"{n}_conv2", 1, 1)
            y = z + (conv(act, f"{n}_sc", stride) if f"{n}_sc_weight" in t else y)
    y = F.adaptive_avg_pool2d(F.relu(bn(y, "bn1")), 1).flatten(1)
    return F.softmax(F.linear(y, t["fc1_weight"], t["fc1_bias"]), dim=-1)


def test_resnet18_workload_matches_torch():
    torch = pytest.importorskip("torch")
    mod, params = relay.testing.resnet.get_workload(num_layers=18, batch_size=2, num_classes=7,
                                                    image_shape=(3, 48, 48))
    assert [p.name_hint for p in mod["main"].params][0] == "data"
    assert tuple(params["conv0_weight"].shape) == (64, 3, 7, 7)
    assert tuple(params["fc1_weight"].shape) == (7, 512)
    lib = relay.build(mod, target="llvm", params=params)
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    x = np.random.default_rng(1).standard_normal((2, 3, 48, 48)).astype("float32")
    m.set_input("data", x)
    m.run()
    with torch.no_grad():
        expected = _torch_preact_resnet18(torch.from_numpy(x), params, torch).numpy()
    np.testing.assert_allclose(m.get_output(0).numpy(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layers,count", [(34, 21_797_672), (50, 25_557_032)])
def test_resnet_workload_parameter_counts(layers, count):
    """Conv and dense weights plus biases and batch-norm scales/shifts (the
    moving statistics excluded) add up to the published ResNet sizes."""
    from tessera.relay.testing import resnet

    mod = resnet.get_net(1, 1000, layers, (3, 224, 224))
    n = 0
    for var in list(mod["main"].params)[1:]:
        if not var.name_hint.endswith(("_moving_mean", "_moving_var")) and not var.name_hint.startswith("bn_data"):
            n += int(np.prod([int(d) for d in var.struct_info.shape.values]))
    assert abs(n - count) / count < 0.01, n


def _stand_in_onnx_importer(calls):
    """A Relax "ONNX importer" returning a fixed module with the weight kept as
    an input and its value in the "params" attribute, as the real one does with
    keep_params_in_input=True."""
    def from_onnx(model, shape_dict=None, dtype_dict="float32", opset=None, keep_params_in_input=False):
        calls.append((model, shape_dict, dtype_dict, opset, keep_params_in_input))
        x = relax.Var("input", relax.TensorStructInfo(tuple(shape_dict["input"]), "float32"))
        w = relax.Var("fc.weight", relax.TensorStructInfo((3, 4), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [x, w], attrs={"num_input": 1}):
            with bb.dataflow():
                out = bb.emit_output(relax.op.matmul(x, relax.op.permute_dims(w)))
            bb.emit_func_output(out)
        mod = bb.get()
        weight = np.arange(12, dtype="float32").reshape(3, 4)
        mod["main"] = mod["main"].with_attr("params", [tvm.nd.array(weight)])
        return mod
    return from_onnx


def test_relay_from_onnx_splits_params(monkeypatch):
    calls = []
    fake = types.ModuleType("tessera.relax.frontend.onnx")
    fake.from_onnx = _stand_in_onnx_importer(calls)
    monkeypatch.setitem(sys.modules, "tessera.relax.frontend.onnx", fake)
    mod, params = relay.frontend.from_onnx("model.onnx", {"input": (2, 4)}, freeze_params=False)
    assert calls == [("model.onnx", {"input": (2, 4)}, "float32", None, True)]
    assert list(params) == ["fc.weight"]
    assert "params" not in mod["main"].attrs
    lib = relay.build(mod, target="llvm", params=params)
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    m.set_input("input", x)
    m.run()
    np.testing.assert_allclose(m.get_output(0).numpy(), x @ params["fc.weight"].numpy().T, rtol=1e-5)


def test_relay_from_onnx_refuses_weights_without_values(monkeypatch):
    """An importer that keeps weights as inputs without their values is an error, not params={}."""
    def from_onnx(model, **kwargs):
        mod = _stand_in_onnx_importer([])(model, **kwargs)
        return tvm.IRModule({"main": mod["main"].without_attr("params")})
    fake = types.ModuleType("tessera.relax.frontend.onnx")
    fake.from_onnx = from_onnx
    monkeypatch.setitem(sys.modules, "tessera.relax.frontend.onnx", fake)
    with pytest.raises(ValueError, match="1 weight"):
        relay.frontend.from_onnx("model.onnx", {"input": (2, 4)}, freeze_params=False)


def test_relay_op_namespace_is_not_faked():
    with pytest.raises(NotImplementedError, match="Relax"):
        relay.nn  # noqa: B018


@pytest.mark.parametrize("freeze", [True, False])
def test_relay_from_onnx_freeze_params(freeze):
    """freeze_params=True (Relay's default) embeds the weights as constants and returns
    params={}; False keeps them as inputs of main with their values in params. Both
    match ONNX Runtime through relay.build and the graph executor."""
    pytest.importorskip("onnxruntime")
    from .onnx_helpers import make_model, helper, run_ort
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4)).astype("float32")
    x = rng.standard_normal((2, 4)).astype("float32")
    model = make_model([helper.make_node("Gemm", ["input", "w"], ["out"], transB=1)], {"input": x}, ["out"],
                       initializers={"w": w})
    mod, params = relay.frontend.from_onnx(model, {"input": (2, 4)}, freeze_params=freeze)
    names = [p.name_hint for p in mod["main"].params]
    if freeze:
        assert params == {} and names == ["input"]
    else:
        assert list(params) == ["w"] and names == ["input", "w"]
    lib = relay.build(mod, target="llvm", params=params)
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    m.set_input("input", x)
    m.run()
    np.testing.assert_allclose(m.get_output(0).numpy(), run_ort(model, {"input": x})[0], rtol=1e-5, atol=1e-5)


def test_relay_build_honours_opt_level():
    """opt_level selects passes as in Relay: 0 turns FuseOps off (one kernel per op),
    the default fuses the MLP's epilogues; both compute the same (NumPy oracle)."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((8, 16)).astype("float32")
    x_np = rng.standard_normal((4, 16)).astype("float32")
    x = relax.Var("x", relax.TensorStructInfo((4, 16), "float32"))
    wv = relax.Var("w", relax.TensorStructInfo((8, 16), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, wv]):
        with bb.dataflow():
            y = bb.emit(relax.op.matmul(x, relax.op.permute_dims(wv)))
            out = bb.emit_output(relax.op.nn.relu(relax.op.add(y, y)))
        bb.emit_func_output(out)
    kernels = {}
    for level in (0, 3):
        with tvm.transform.PassContext(opt_level=level):
            lib = relay.build(bb.get(), target="llvm", params={"w": w})
        m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
        m.set_input("x", x_np)
        m.run()
        np.testing.assert_allclose(m.get_output(0).numpy(), np.maximum(2 * (x_np @ w.T), 0), rtol=1e-5, atol=1e-5)
        kernels[level] = [n for n in lib.executable.stats().split() if n.strip("[],").startswith("fused")]
    assert kernels[0] == [] and kernels[3], kernels

"""Shared helpers of the ONNX frontend tests: build a one-graph model with
onnx.helper, run it in ONNX Runtime (the oracle) and through from_onnx + relax.build
+ the VM, and compare."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper  # noqa: E402

import tessera as tvm  # noqa: E402
from tessera import relax  # noqa: E402
from tessera.relax.frontend.onnx import from_onnx  # noqa: E402


def make_model(nodes, inputs, outputs, initializers=None, opset=13, domains=()):
    """``inputs``: name -> NumPy array (graph inputs, shapes and dtypes from it) or
    name -> (elem_type, shape) for symbolic shapes; ``initializers``: name -> array."""
    ins = []
    for name, value in inputs.items():
        if isinstance(value, tuple):
            ins.append(helper.make_tensor_value_info(name, value[0], value[1]))
        else:
            ins.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                                     list(value.shape)))
    outs = [helper.make_empty_tensor_value_info(o) for o in outputs]
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in (initializers or {}).items()]
    graph = helper.make_graph(nodes, "test", ins, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] +
                              [helper.make_opsetid(d, 1) for d in domains])
    model.ir_version = 8
    return model


def run_ort(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def run_tessera(model, feeds, **kwargs):
    mod = from_onnx(model, **kwargs)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(v) for v in feeds.values()])
    if isinstance(out, tvm.nd.NDArray):
        return [out.numpy()]
    return [o.numpy() for o in out]


def check_model(model, feeds, rtol=1e-5, atol=1e-5, **kwargs):
    expected = run_ort(model, feeds)
    got = run_tessera(model, feeds, **kwargs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape, (g.shape, e.shape)
        assert str(g.dtype) == str(e.dtype), (g.dtype, e.dtype)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return got


def check(op_type, inputs, attrs=None, initializers=None, opset=13, n_out=1, rtol=1e-5, atol=1e-5, input_names=None,
          domain=""):
    """One node of ``op_type`` over graph ``inputs`` (fed) and ``initializers``."""
    names = input_names if input_names is not None else list(inputs) + list(initializers or {})
    outputs = [f"out{i}" for i in range(n_out)]
    node = helper.make_node(op_type, names, outputs, domain=domain, **(attrs or {}))
    model = make_model([node], inputs, outputs, initializers, opset, domains=[domain] if domain else [])
    return check_model(model, dict(inputs), rtol=rtol, atol=atol)

"""The ONNX importer's refusals (relax.frontend.onnx.from_onnx): every unsupported
operator reported at once before anything is converted (op type, domain, opset, first
node), unsupported attribute values naming node / attribute / value, malformed,
truncated, empty or missing files and undefined inputs as clear errors, and Gather
indices out of range refused at import (constants) or clamped at run time. Each case runs in a subprocess
(harness.run_case): a bad file must never crash the process."""
import pytest

from . import harness

pytest.importorskip("onnx")

_PRELUDE = """
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
import tessera as tvm
from tessera import relax
from tessera.relax.frontend.onnx import from_onnx

def model(nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_empty_tensor_value_info(o) for o in outputs],
                              [numpy_helper.from_array(np.asarray(v), k) for k, v in inits])
    ops = [helper.make_opsetid("", opset), helper.make_opsetid("com.example", 1)]
    m = helper.make_model(graph, opset_imports=ops)
    m.ir_version = 8
    return m

def error_of(fn):
    try:
        fn()
    except Exception as e:
        return e
    raise SystemExit("NO ERROR")
"""


def _run(body):
    res = harness.run_case(_PRELUDE + body, timeout=60)
    assert not res.crashed and res.returncode == 0, res.describe()
    return res.stdout


def test_every_unsupported_op_listed_once():
    out = _run("""
nodes = [helper.make_node("Relu", ["x"], ["a"], name="r0"),
         helper.make_node("NonMaxSuppression", ["a", "a"], ["b"], name="nms_first"),
         helper.make_node("NonMaxSuppression", ["a", "a"], ["c"], name="nms_second"),
         helper.make_node("MyOp", ["a"], ["d"], domain="com.example", name="custom"),
         helper.make_node("Scan", ["a"], ["e"], name="scan", num_scan_inputs=1),
         helper.make_node("Add", ["d", "e"], ["y"])]
e = error_of(lambda: from_onnx(model(nodes, [("x", [2, 2])], ["y"])))
assert isinstance(e, tvm.error.OpNotImplemented) and isinstance(e, NotImplementedError), type(e)
print(str(e))
""")
    assert "3 operator type(s) are not supported" in out
    assert "ai.onnx::NonMaxSuppression (opset 11), first at node 'nms_first'" in out
    assert "nms_second" not in out
    assert "com.example::MyOp (opset 1), first at node 'custom'" in out
    assert "ai.onnx::Scan (opset 11), first at node 'scan'" in out
    assert "Traceback" not in out


def test_op_newer_than_opset_20_is_refused():
    out = _run("""
nodes = [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT64, name="c21")]
e = error_of(lambda: from_onnx(model(nodes, [("x", [2])], ["y"], opset=21)))
assert isinstance(e, tvm.error.OpNotImplemented), type(e)
print(str(e))
# the same op under opset 20 imports
from_onnx(model(nodes, [("x", [2])], ["y"], opset=20))
""")
    assert "ai.onnx::Cast (opset 21), first at node 'c21'" in out


@pytest.mark.parametrize("op,attrs,inputs,expect", [
    ("Resize", {"mode": "cubic"}, ["x", "", "s"], "node 'bad' (Resize): attribute mode='cubic' is not supported"),
    ("ArgMax", {"select_last_index": 1}, ["x"], "attribute select_last_index=1 is not supported"),
    ("Pad", {"mode": "wrap"}, ["x", "p"], "attribute mode='wrap' is not supported (supported: 'constant', 'reflect', "
                                          "'edge')"),
    ("BatchNormalization", {"training_mode": 1}, ["x", "s", "s", "s", "s"], "attribute training_mode=1"),
    ("Conv", {"auto_pad": "SAME"}, ["x", "w"], "attribute auto_pad='SAME' is not supported"),
])
def test_unsupported_attribute_value_names_node_attribute_value(op, attrs, inputs, expect):
    out = _run(f"""
node = helper.make_node({op!r}, {inputs!r}, ["y"], name="bad", **{attrs!r})
inits = [("s", np.ones(4, "float32")), ("p", np.zeros(8, "int64")), ("w", np.ones((1, 4, 1, 1), "float32"))]
inits = [(k, v) for k, v in inits if k in {inputs!r}]
e = error_of(lambda: from_onnx(model([node], [("x", [1, 4, 2, 2])], ["y"], inits, opset=18)))
assert isinstance(e, tvm.error.OpNotImplemented), type(e)
print(str(e))
""")
    assert expect in out


def test_unused_extra_output_refused():
    out = _run("""
node = helper.make_node("LayerNormalization", ["x", "s"], ["y", "mean"], name="ln")
e = error_of(lambda: from_onnx(model([node], [("x", [2, 4])], ["y"], [("s", np.ones(4, "float32"))], opset=17)))
print(type(e).__name__, str(e))
""")
    assert "OpNotImplemented" in out and "node 'ln' (LayerNormalization): outputs ['mean'] are not computed" in out


@pytest.mark.parametrize("content,expect", [
    ("truncated", "is not a readable ONNX model"),
    ("garbage", "is not a readable ONNX model"),
    ("empty", "holds no graph"),
])
def test_malformed_files_are_value_errors(tmp_path, content, expect):
    path = tmp_path / "m.onnx"
    out = _run(f"""
import os
good = model([helper.make_node("Relu", ["x"], ["y"])], [("x", [2, 3])], ["y"],
             [("w", np.ones((64, 64), "float32"))]).SerializeToString()
data = {{"truncated": good[: len(good) // 2], "garbage": bytes(range(256)) * 7, "empty": b""}}[{content!r}]
open({str(path)!r}, "wb").write(data)
e = error_of(lambda: from_onnx({str(path)!r}))
assert isinstance(e, tvm.error.TVMError) and isinstance(e, ValueError), (type(e), e)
print(str(e))
""")
    assert expect in out and str(path) in out


def test_missing_file_and_wrong_argument_types():
    out = _run("""
e = error_of(lambda: from_onnx("/nonexistent/model.onnx"))
assert isinstance(e, FileNotFoundError) and isinstance(e, tvm.error.TVMError), type(e)
print(str(e))
e = error_of(lambda: from_onnx(42))
assert isinstance(e, TypeError), type(e)
print(str(e))
m = model([helper.make_node("Relu", ["x"], ["y"])], [("x", [2, 3])], ["y"])
e = error_of(lambda: from_onnx(m, shape_dict={"nope": (1,)}))
assert isinstance(e, ValueError), type(e)
print(str(e))
""")
    assert "no ONNX model file at '/nonexistent/model.onnx'" in out
    assert "expected an onnx.ModelProto or a path, got int" in out
    assert "shape_dict names ['nope'], which are not inputs of the model" in out


def test_truncated_graph_with_undefined_input():
    out = _run("""
nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Add", ["a", "lost"], ["y"], name="add")]
e = error_of(lambda: from_onnx(model(nodes, [("x", [2])], ["y"])))
assert isinstance(e, ValueError), type(e)
print(str(e))
nodes = [helper.make_node("Relu", ["x"], ["a"])]
e = error_of(lambda: from_onnx(model(nodes, [("x", [2])], ["y"])))
print(str(e))
""")
    assert "node 'add' (Add) uses 'lost', which no graph input, initializer or earlier node defines" in out
    assert "the graph output 'y' is not computed by any node" in out


def test_gather_indices_out_of_range():
    """Constant indices out of range are refused at import; run-time ones raise IndexError
    at run time (as ONNX Runtime refuses them; never a read outside the tensor, never a
    clamped wrong element); in-range ones, negative ones included, match NumPy."""
    out = _run("""
node = helper.make_node("Gather", ["x", "i"], ["y"], axis=0, name="g")
e = error_of(lambda: from_onnx(model([node], [("x", [4, 3])], ["y"], [("i", np.array([0, 4]))])))
assert isinstance(e, IndexError), type(e)
print(str(e))
graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3]),
                                        helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
                          [helper.make_empty_tensor_value_info("y")])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
vm = relax.VirtualMachine(relax.build(from_onnx(m), "llvm"), tvm.cpu())
x = np.arange(12, dtype="float32").reshape(4, 3)
got = vm["main"](tvm.nd.array(x), tvm.nd.array(np.array([3, -4]))).numpy()
np.testing.assert_array_equal(got, np.take(x, [3, -4], axis=0))
e = error_of(lambda: vm["main"](tvm.nd.array(x), tvm.nd.array(np.array([1000000, -1000000]))))
assert isinstance(e, IndexError) and "out of bounds" in str(e), (type(e), e)
print("RUNTIME REFUSED")
""")
    assert "index 4 out of range for axis 0 of size 4" in out and "node 'g' (Gather)" in out
    assert "RUNTIME REFUSED" in out

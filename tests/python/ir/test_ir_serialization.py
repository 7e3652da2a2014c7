"""JSON serialization of IR (tvm.ir.save_json / load_json), driven by each
node's one registration: every TVMScript module the TIR tests parse round-
trips (oracle: structural equality with the original and a fixed point of
the JSON text), shared variables keep their identity, values of every kind
survive, and bad input raises ValueError naming the culprit."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/python
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


@T.prim_func
def scaled_copy(a: T.handle, b: T.handle, n: T.int32):
    T.func_attr({"global_symbol": "scaled_copy", "tir.noalias": True, "ratio": 0.25, "tags": ["x", "y"]})
    A = T.match_buffer(a, (n, 16), "float32")
    B = T.match_buffer(b, (n, 16), "float32")
    for i, j in T.grid(n, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(0.5) + T.float32(1e-7)


def test_parsed_modules_of_the_tir_tests_round_trip():
    files = ["tir/test_parser_tir.py", "tir/test_printer_tir.py", "schedule/test_schedule_primitives.py",
             "ir/test_structural_equal.py", "codegen/test_codegen_llvm.py", "relax/test_relax_script.py"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), HERE]))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "json_roundtrip_plugin",
                           *[os.path.join(HERE, f) for f in files]],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    line = [l for l in proc.stdout.splitlines() if l.startswith("json-roundtrip:")]
    assert line, proc.stdout[-2000:]
    count = int(line[0].split()[1])
    assert count >= 100, line[0]


def test_round_trip_keeps_values_and_sharing():
    text = tvm.ir.save_json(scaled_copy)
    loaded = tvm.ir.load_json(text)
    tvm.ir.assert_structural_equal(scaled_copy, loaded)
    assert tvm.ir.save_json(loaded) == text
    assert loaded.attrs["ratio"].value == pytest.approx(0.25)
    assert list(loaded.attrs["tags"]) == ["x", "y"]
    # The symbolic extent n is one variable: the parameter, the buffer shape
    # and the loop extent all hold the same object after loading.
    n = loaded.params[2]
    buf = loaded.buffer_map[loaded.params[0]]
    assert buf.shape[0].same_as(n)
    assert loaded.buffer_map[loaded.params[1]].shape[0].same_as(n)
    assert buf.name == "A" and n.name_hint == "n"
    # Names matter to the text, not to structural equality: the loaded
    # function still builds and runs like the original.
    f = tvm.build(loaded, target="llvm")
    a = tvm.nd.array(np.arange(48, dtype="float32").reshape(3, 16))
    b = tvm.nd.empty((3, 16), "float32")
    f(a, b, 3)
    np.testing.assert_allclose(b.numpy(), a.numpy() * 0.5 + 1e-7, rtol=1e-6)


def test_scalars_of_every_kind():
    value = {"i": 7, "f": 1.5, "neg": -3, "b": True, "s": "text", "l": [1, 2.5, "z"], "inf": math.inf, "nan": math.nan}
    loaded = tvm.ir.load_json(tvm.ir.save_json(value))
    assert set(loaded) == set(value)
    assert loaded["i"] == 7 and loaded["neg"] == -3 and loaded["s"] == "text"
    assert loaded["f"] == 1.5 and isinstance(loaded["f"], float) and loaded["b"] is True
    assert math.isinf(loaded["inf"]) and math.isnan(loaded["nan"])
    assert list(loaded["l"]) == [1, 2.5, "z"]
    x = tvm.tir.Var("x", "int64")
    e = tvm.ir.load_json(tvm.ir.save_json(x * 3 + x))
    assert e.a.a.same_as(e.b) and e.b.dtype == "int64"


def test_ops_load_as_the_registered_op():
    call = tvm.tir.call_intrin("float32", "tir.exp", tvm.tir.FloatImm("float32", 1.0))
    loaded = tvm.ir.load_json(tvm.ir.save_json(call))
    assert loaded.op.same_as(tvm.ir.Op.get("tir.exp"))


def _node_doc(type_key, fields):
    import json  # pylint: disable=import-outside-toplevel
    return json.dumps({"root": {"node": 0}, "nodes": [{"type_key": type_key, "fields": fields}]})


@pytest.mark.parametrize("text, needle", [
    ("{", "malformed JSON"),
    ("[]", "not an IR document"),
    ('{"root": {"node": 0}, "nodes": []}', "not defined before it"),
    ('{"root": {"bogus": 1}, "nodes": []}', "unrecognised value"),
    (_node_doc("tir.NoSuchNode", {}), "unknown type key 'tir.NoSuchNode'"),
    (_node_doc("tir.Var", {"name_hint": 3, "dtype": {"dtype": "int32"}, "span": None}), "field 'name_hint'"),
    (_node_doc("tir.Var", {"name_hint": "x", "dtype": {"dtype": "int32"}}), "missing field 'span'"),
    (_node_doc("tir.Var", {"name_hint": "x", "dtype": {"dtype": "int32"}, "span": None, "color": 1}),
     "unknown field 'color'"),
    (_node_doc("ir.IntImm", {"dtype": {"dtype": "int32"}, "value": "seven", "span": None}), "field 'value'"),
    (_node_doc("ir.IntImm", {"dtype": {"dtype": "int8"}, "value": 1000, "span": None}), "does not fit"),
    (_node_doc("ir.Op", {"name": "tir.no_such_op", "description": "", "num_inputs": 1, "span": None,
                         "struct_info_": None}), "tir.no_such_op"),
])
def test_bad_input_raises_value_error_naming_the_culprit(text, needle):
    with pytest.raises(ValueError) as info:
        tvm.ir.load_json(text)
    assert needle in str(info.value)
    assert isinstance(info.value, tvm.error.TVMError)


def test_out_of_range_loop_kind_is_refused():
    i = tvm.tir.Var("i", "int32")
    loop = tvm.tir.For(i, 0, 8, tvm.tir.ForKind.SERIAL, tvm.tir.Evaluate(0))
    text = tvm.ir.save_json(loop)
    assert '"kind":0' in text
    with pytest.raises(ValueError, match="ForKind 9"):
        tvm.ir.load_json(text.replace('"kind":0', '"kind":9'))


def test_values_that_cannot_be_saved_are_refused():
    func = tvm.get_global_func("ir.SaveJSON")
    with pytest.raises(ValueError, match="no registered fields|cannot be saved|Device"):
        tvm.ir.save_json(func)

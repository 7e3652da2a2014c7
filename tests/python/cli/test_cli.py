"""The ``tessera`` command line run as a user runs it (``python -m tessera``
in a subprocess): compile, run, show, bench, profile and tune on a library
built by relay.build, a torch.export .pt2 file and (when this build has the
ONNX importer) a tiny ONNX model made with onnx.helper; outputs checked
against NumPy / PyTorch, and every user mistake one line on stderr with
exit status 1, no traceback."""
import os
import subprocess
import sys

import numpy as np
import pytest
import tessera as tvm
from tessera import relay
import tessera.relay.testing  # noqa: F401

from relay_helpers import mlp_oracle

_PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))
COMMANDS = ["compile", "run", "tune", "show", "bench", "profile"]


def tessera(*args, cwd=None, timeout=180):
    env = dict(os.environ)
    env["PYTHONPATH"] = _PYTHON_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_NUM_THREADS", "2")
    return subprocess.run([sys.executable, "-m", "tessera", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout, check=False)


def assert_user_error(res, *words):
    assert res.returncode == 1, (res.returncode, res.stdout, res.stderr)
    lines = [line for line in res.stderr.splitlines() if not line.startswith(("[", "      done"))]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith("tessera ") and "error:" in lines[0], lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    """A library exported by relay.build, an input file and the expected output."""
    d = tmp_path_factory.mktemp("mlp")
    mod, params = relay.testing.mlp.get_workload(batch_size=1)
    relay.build(mod, target="llvm", params=params).export_library(d / "mlp.so")
    x = np.random.default_rng(0).standard_normal((1, 1, 28, 28)).astype("float32")
    np.save(d / "x.npy", x)
    return d, mlp_oracle(x, {k: v.numpy() for k, v in params.items()})


@pytest.mark.parametrize("command", [None] + COMMANDS)
def test_help(command):
    res = tessera(*([command] if command else []), "--help")
    assert res.returncode == 0 and res.stdout.startswith("usage: tessera"), res.stderr
    if command is None:
        assert all(c in res.stdout for c in COMMANDS)


def test_run_prints_top_scores_and_saves(mlp):
    d, expected = mlp
    res = tessera("run", d / "mlp.so", "--input", f"data={d / 'x.npy'}", "--print-top", "3", "--output",
                  d / "out.npy")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "output 0: shape 1x10 float32"
    top = np.argsort(-expected[0], kind="stable")[:3]
    assert [int(line.split("index ")[1].split()[0]) for line in lines[1:4]] == list(top)
    np.testing.assert_allclose(np.load(d / "out.npy"), expected, rtol=1e-5, atol=1e-6)


def test_run_one_input_without_name_and_float64_file(mlp, tmp_path):
    d, expected = mlp
    np.save(tmp_path / "x64.npy", np.load(d / "x.npy").astype("float64"))
    res = tessera("run", d / "mlp.so", "--input", tmp_path / "x64.npy", "--print-top", "0", "--output",
                  tmp_path / "o.npy")
    assert res.returncode == 0 and "#1" not in res.stdout, res.stderr
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), expected, rtol=1e-5, atol=1e-6)


def test_bench_and_profile(mlp, tmp_path):
    d, _ = mlp
    res = tessera("bench", d / "mlp.so", "--number", "2", "--repeat", "2")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].split()[:2] == ["engine", "median"]
    assert float(res.stdout.splitlines()[1].split()[1]) > 0
    res = tessera("profile", d / "mlp.so", "--input", f"data={d / 'x.npy'}", "--csv", tmp_path / "p.csv")
    assert res.returncode == 0, res.stderr
    assert "fused_matmul_add_relu" in res.stdout and "VM overhead" in res.stdout
    assert (tmp_path / "p.csv").read_text().startswith("Name,Shapes,Count")


def test_bench_against_onnxruntime(mlp, tmp_path):
    """The same MLP written with onnx.helper (its input named differently, so
    inputs are matched by position): both engines timed, outputs agree."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    d, _ = mlp
    _, params = relay.testing.mlp.get_workload(batch_size=1)
    p = {k: v.numpy() for k, v in params.items()}
    nodes = [helper.make_node("Reshape", ["image", "shape"], ["h0"])]
    for i in (1, 2, 3):
        nodes.append(helper.make_node("Gemm", [f"h{i - 1}" if i == 1 else f"r{i - 1}", f"fc{i}_weight", f"fc{i}_bias"],
                                      [f"g{i}"], transB=1))
        nodes.append(helper.make_node("Relu" if i < 3 else "Softmax", [f"g{i}"], [f"r{i}"]))
    inits = [numpy_helper.from_array(v, k) for k, v in p.items()]
    inits.append(numpy_helper.from_array(np.array([1, 784], "int64"), "shape"))
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 28, 28])],
                              [helper.make_tensor_value_info("r3", TensorProto.FLOAT, [1, 10])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(tmp_path / "mlp.onnx"))
    res = tessera("bench", d / "mlp.so", "--onnx", tmp_path / "mlp.onnx", "--number", "2", "--repeat", "2")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "note: input names differ; matched by position: data -> image"
    assert [line.split()[0] for line in lines[2:4]] == ["tessera", "onnxruntime"]
    assert lines[4].startswith("tessera / onnxruntime (median): ")
    assert float(lines[5].split(": ")[1]) < 1e-5


@pytest.mark.parametrize("case", ["missing library", "not a library", "unknown input", "missing npy",
                                  "bad npy", "wrong shape", "missing input", "wrong dtype kind"])
def test_run_user_errors(mlp, tmp_path, case):
    d, _ = mlp
    lib, x = d / "mlp.so", d / "x.npy"
    (tmp_path / "junk.so").write_text("junk")
    (tmp_path / "junk.npy").write_text("junk")
    np.save(tmp_path / "small.npy", np.zeros((1, 28, 28), "float32"))
    np.save(tmp_path / "ints.npy", np.zeros((1, 1, 28, 28), "complex64"))
    args, words = {
        "missing library": (["run", tmp_path / "nope.so", "--input", f"data={x}"], ["nope.so"]),
        "not a library": (["run", tmp_path / "junk.so"], ["junk.so"]),
        "unknown input": (["run", lib, "--input", f"image={x}"], ["'image'", "data"]),
        "missing npy": (["run", lib, "--input", f"data={tmp_path / 'none.npy'}"], ["none.npy", "'data'"]),
        "bad npy": (["run", lib, "--input", f"data={tmp_path / 'junk.npy'}"], ["junk.npy"]),
        "wrong shape": (["run", lib, "--input", f"data={tmp_path / 'small.npy'}"], ["'data'", "1x1x28x28"]),
        "missing input": (["run", lib], ["data"]),
        "wrong dtype kind": (["run", lib, "--input", f"data={tmp_path / 'ints.npy'}"], ["'data'", "complex64"]),
    }[case]
    assert_user_error(tessera(*args), *words)


def test_other_user_errors(mlp, tmp_path):
    d, _ = mlp
    assert_user_error(tessera("compile", tmp_path / "model.onnx", "-o", tmp_path / "m.so"), "model.onnx")
    (tmp_path / "model.txt").write_text("x")
    assert_user_error(tessera("compile", tmp_path / "model.txt", "-o", tmp_path / "m.so"), ".txt")
    assert_user_error(tessera("show", d / "mlp.so"), ".so")
    assert_user_error(tessera("compile", tmp_path / "model.txt", "--input", "x:1xq", "-o", "m.so"), "1xq")
    assert_user_error(tessera("bench", d / "mlp.so", "--onnx", tmp_path / "none.onnx"), "none.onnx")
    assert_user_error(tessera("compile", tmp_path / "model.txt", "--tune-trials", "2", "-o", "m.so"), "--work-dir")


def test_no_argument_reaches_a_shell(mlp, tmp_path):
    """Shell metacharacters in names and paths are taken literally."""
    d, expected = mlp
    res = tessera("run", d / "mlp.so", "--input", f"data;touch {tmp_path}/pwned={d / 'x.npy'}", cwd=tmp_path)
    assert_user_error(res, "touch")
    out = tmp_path / "a;touch pwned $(id).npy"
    res = tessera("run", d / "mlp.so", "--input", f"data={d / 'x.npy'}", "--output", out, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "pwned").exists()
    np.testing.assert_allclose(np.load(out), expected, rtol=1e-5, atol=1e-6)


def test_pt2_compile_and_run_matches_torch(tmp_path):
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 4)

        def forward(self, x):
            return torch.softmax(self.fc(torch.relu(x)), -1)

    torch.manual_seed(0)
    net = Net().eval()
    x = np.random.default_rng(1).standard_normal((2, 6)).astype("float32")
    torch.export.save(torch.export.export(net, (torch.from_numpy(x),)), str(tmp_path / "net.pt2"))
    np.save(tmp_path / "x.npy", x)
    res = tessera("compile", tmp_path / "net.pt2", "--input", "x:2x6", "-o", tmp_path / "net.so")
    assert res.returncode == 0, res.stderr
    assert "[1/3] importing" in res.stderr and "[3/3] writing" in res.stderr and "wrote" in res.stdout
    res = tessera("run", tmp_path / "net.so", "--input", f"x={tmp_path / 'x.npy'}", "--output", tmp_path / "y.npy")
    assert res.returncode == 0, res.stderr
    with torch.no_grad():
        np.testing.assert_allclose(np.load(tmp_path / "y.npy"), net(torch.from_numpy(x)).numpy(), rtol=1e-5,
                                   atol=1e-6)



def test_pt2_unknown_input_name(tmp_path, capsys):
    """In-process (PyTorch is already loaded here): the .pt2 path checks --input names too."""
    torch = pytest.importorskip("torch")
    from tessera.cli import main

    torch.export.save(torch.export.export(torch.nn.ReLU(), (torch.zeros(2, 6),)), str(tmp_path / "relu.pt2"))
    assert main(["compile", str(tmp_path / "relu.pt2"), "--input", "y:2x6", "-o", str(tmp_path / "n.so"), "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("tessera compile: error:") and "'y'" in err and "\n" not in err, err


# ---- ONNX models (need tessera.relax.frontend.onnx) -----------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_onnx(tmp_path_factory):
    pytest.importorskip("tessera.relax.frontend.onnx", reason="this build has no ONNX importer")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype("float32")
    b = rng.standard_normal(3).astype("float32")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["z"]),
         helper.make_node("Relu", ["z"], ["y"])], "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    d = tmp_path_factory.mktemp("onnx")
    onnx.save(model, str(d / "tiny.onnx"))
    x = rng.standard_normal((2, 4)).astype("float32")
    np.save(d / "x.npy", x)
    return d, np.maximum(x @ w + b, 0)


def test_onnx_compile_run_show_bench(tiny_onnx):
    d, expected = tiny_onnx
    res = tessera("compile", d / "tiny.onnx", "--input", "x:2x4", "-o", d / "tiny.so")
    assert res.returncode == 0, res.stderr
    res = tessera("run", d / "tiny.so", "--input", f"x={d / 'x.npy'}", "--output", d / "y.npy")
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(np.load(d / "y.npy"), expected, rtol=1e-5, atol=1e-6)
    res = tessera("show", d / "tiny.onnx", "--input", "x:2x4", "--png", d / "g.png")
    assert res.returncode == 0, res.stderr
    assert "input x: (2, 4) float32" in res.stdout
    assert (d / "g.png").read_bytes()[:4] == b"\x89PNG"
    res = tessera("bench", d / "tiny.so", "--onnx", d / "tiny.onnx", "--number", "2", "--repeat", "2")
    assert res.returncode == 0, res.stderr
    assert "onnxruntime" in res.stdout and "tessera / onnxruntime" in res.stdout


def test_onnx_tune_then_compile(tiny_onnx, tmp_path):
    d, expected = tiny_onnx
    res = tessera("tune", d / "tiny.onnx", "--input", "x:2x4", "--trials", "2", "--work-dir", tmp_path / "w",
                  "--seed", "0")
    assert res.returncode == 0, res.stderr
    res = tessera("compile", d / "tiny.onnx", "--input", "x:2x4", "--work-dir", tmp_path / "w", "-o",
                  tmp_path / "t.so")
    assert res.returncode == 0 and "tuned schedules" in res.stderr, res.stderr
    res = tessera("run", tmp_path / "t.so", "--input", f"x={d / 'x.npy'}", "--output", tmp_path / "y.npy")
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, rtol=1e-5, atol=1e-6)


def test_onnx_user_errors(tiny_onnx, tmp_path):
    d, _ = tiny_onnx
    assert_user_error(tessera("compile", d / "tiny.onnx", "--input", "data:2x4", "-o", tmp_path / "m.so"),
                      "'data'", "x")
    data = (d / "tiny.onnx").read_bytes()
    (tmp_path / "cut.onnx").write_bytes(data[: len(data) // 2])
    assert_user_error(tessera("compile", tmp_path / "cut.onnx", "-o", tmp_path / "m.so"), "cut.onnx")

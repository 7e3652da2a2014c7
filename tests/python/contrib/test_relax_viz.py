"""tvm.contrib.relax_viz / relay_viz: the parsed graph of a Relax function
(ops with shapes, weights collapsed, fused functions as clusters), kernel
times from a vm.profile report as colours and labels, and the rendered
PDF/PNG/SVG files and terminal text."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, relay
from tessera.runtime.profiling import Report
import tessera.relay.testing  # noqa: F401
from tessera.contrib import relax_viz, relay_viz

graphviz = pytest.importorskip("graphviz")


@pytest.fixture(scope="module")
def mlp():
    return relay.testing.mlp.get_workload(batch_size=2)


def _graph(mod, params=None, **kwargs):
    plotter = relax_viz.TermPlotter()
    relax_viz.RelaxVisualizer(mod, relax_param=params, plotter=plotter, **kwargs)
    (graph, times), = plotter._graphs  # pylint: disable=protected-access
    return graph, times


def test_parsed_graph_of_the_mlp(mlp):
    mod, params = mlp
    graph, _ = _graph(mod, params)
    assert [n.label for n in graph.nodes] == [
        "data", "reshape", "permute_dims", "matmul", "add", "nn.relu", "permute_dims", "matmul", "add", "nn.relu",
        "permute_dims", "matmul", "add", "nn.softmax", "output"]
    assert graph.nodes[0].kind == "input" and graph.nodes[0].detail == "(2, 1, 28, 28) float32"
    assert graph.nodes[2].collapsed == ["fc1_weight (128, 784) float32"]
    assert graph.nodes[3].detail == "(2, 128) float32" and graph.nodes[3].collapsed == []
    assert len(graph.edges) == 14  # 11 chain edges + 3 transposes into their matmul
    assert graph.clusters == {}


def test_weights_are_inputs_without_params(mlp):
    graph, _ = _graph(mlp[0])
    assert sum(n.kind == "input" for n in graph.nodes) == 7


def _report(rows):
    return Report([(name, "", 1, ns) for name, ns in rows], sum(ns for _, ns in rows))


def test_profile_colours_fused_kernels(mlp):
    mod, params = mlp
    report = _report([("fused_matmul_add_relu", 8000), ("softmax", 1000), ("fused_matmul2_add2", 1000),
                      ("vm.builtin.alloc_storage", 10000)])  # a VM builtin: in the total, not in the scale
    plotter = relax_viz.DotPlotter()
    graph, times = _graph(mod, params, profile=report)
    assert sorted(graph.cluster_kernel.values()) == ["fused_matmul1_add1_relu1", "fused_matmul2_add2",
                                                     "fused_matmul_add_relu"]
    (last,) = [c for c, k in graph.cluster_kernel.items() if k == "fused_matmul2_add2"]
    assert [graph.nodes[int(i[1:])].label for i in graph.clusters[last]] == ["matmul2", "add2"]
    assert times == {"fused_matmul_add_relu": (8.0, 1), "softmax": (1.0, 1), "fused_matmul2_add2": (1.0, 1),
                     "vm.builtin.alloc_storage": (10.0, 1)}
    relax_viz.RelaxVisualizer(mod, relax_param=params, plotter=plotter, profile=report)
    src = plotter.source()
    assert "subgraph cluster_fused_matmul_add_relu" in src
    assert 'fillcolor="#bd0026"' in src and "8.0 us (40%)" in src  # slowest kernel: darkest
    assert "1.0 us (5%)" in src
    text = relax_viz.TermPlotter()
    relax_viz.RelaxVisualizer(mod, relax_param=params, plotter=text, profile=report)
    lines = text.text().splitlines()
    assert "  [fused_matmul_add_relu]  8.0 us (40%) " + "#" * 20 in lines


def test_profile_of_a_real_run_matches_kernel_names(mlp):
    mod, params = mlp
    vm = relax.VirtualMachine(relax.build(mod, params=params), tvm.cpu(), profile=True)
    report = vm.profile("main", tvm.nd.array(np.zeros((2, 1, 28, 28), "float32")))
    graph, times = _graph(mod, params, profile=report)
    kernels = set(graph.cluster_kernel.values()) | {n.kernel for n in graph.nodes if n.kernel}
    assert kernels == {r["Name"] for r in report.calls if not r["Name"].startswith("vm.")}
    assert kernels <= set(times)


def test_fused_function_called_twice_is_two_clusters():
    """FuseOps reuses one fused function for identical subgraphs: each call is
    its own cluster, timed per call (the report sums the calls)."""
    x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
    w = relax.const(np.ones((8, 8), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.relu(relax.op.matmul(x, w)))
            y = bb.emit(relax.op.nn.relu(relax.op.matmul(y, w)))
            out = bb.emit_output(relax.op.nn.softmax(y))
        bb.emit_func_output(out)
    report = Report([("fused_matmul_relu", "", 2, 8000), ("softmax", "", 1, 2000)], 10000)
    graph, _ = _graph(bb.get(), profile=report)
    assert list(graph.cluster_kernel.values()) == ["fused_matmul_relu", "fused_matmul_relu"]
    assert [len(ids) for ids in graph.clusters.values()] == [2, 2]
    plotter = relax_viz.DotPlotter()
    relax_viz.RelaxVisualizer(bb.get(), plotter=plotter, profile=report)
    src = plotter.source()
    assert src.count("subgraph cluster_") == 2 and src.count("4.0 us x 2 (80%)") == 2
    text = relax_viz.TermPlotter()
    relax_viz.RelaxVisualizer(bb.get(), plotter=text, profile=report)
    assert text.text().count("[fused_matmul_relu]  4.0 us x 2 (80%) " + "#" * 20) == 2


@pytest.mark.parametrize("fmt,magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF-")])
def test_render_formats(mlp, tmp_path, fmt, magic):
    mod, params = mlp
    path = relax_viz.RelaxVisualizer(mod, relax_param=params, plotter=relax_viz.DotPlotter()).render(
        tmp_path / f"g.{fmt}")
    assert path == str(tmp_path / f"g.{fmt}")
    data = (tmp_path / f"g.{fmt}").read_bytes()
    assert data.startswith(magic)
    if fmt == "svg":
        assert b"nn.softmax" in data and b"fc1_weight" in data
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"g.{fmt}"]  # the DOT source is cleaned up


def test_relay_viz_names_write_pdf(tmp_path, monkeypatch):
    mod, params = relay.testing.resnet.get_workload(num_layers=18, image_shape=(3, 32, 32))
    monkeypatch.chdir(tmp_path)
    viz = relay_viz.RelayVisualizer(mod, relay_param=params, plotter=relay_viz.DotPlotter(),
                                    parser=relay_viz.DotVizParser())
    assert viz.render("1") == "1.pdf"
    assert (tmp_path / "1.pdf").read_bytes()[:5] == b"%PDF-"


def test_term_plotter_prints_and_writes(mlp, tmp_path, capsys):
    mod, params = mlp
    text = relay_viz.RelayVisualizer(mod, relay_param=params).render()
    assert capsys.readouterr().out.strip() == text.strip()
    assert "  %3 = matmul(%1, %2): (2, 128) float32" in text.splitlines()
    relax_viz.RelaxVisualizer(mod, plotter=relax_viz.TermPlotter()).render(tmp_path / "g.txt")
    assert (tmp_path / "g.txt").read_text().startswith("fn main\n  input data: (2, 1, 28, 28) float32")


def test_tuple_and_if():
    from tessera.script import relax as R, ir as I

    @I.ir_module
    class Mod:
        @R.function
        def main(c: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")):
            if c:
                y = R.add(x, x)
            else:
                y = R.multiply(x, x)
            t = (y, x)
            return t

    graph, _ = _graph(Mod)
    assert [n.kind for n in graph.nodes] == ["input", "input", "if", "tuple", "output"]


def test_bad_arguments(mlp):
    mod, params = mlp
    with pytest.raises(ValueError, match="jpg"):
        relax_viz.DotPlotter(format="jpg")
    with pytest.raises(TypeError, match="vm.profile"):
        relax_viz.RelaxVisualizer(mod, profile={"matmul": 1.0})
    with pytest.raises(TypeError, match="IRModule"):
        relax_viz.RelaxVisualizer("main")
    with pytest.raises(TypeError, match="relax_param"):
        relax_viz.RelaxVisualizer(mod, relax_param=[1])

"""``tessera show MODEL``: the graph of an .onnx or .pt2 model as text
(relax_viz's TermPlotter), and with ``--png/--svg/--pdf FILE`` as a
Graphviz picture; ``--profile`` builds and profiles it first and colours
each fused kernel by its time."""
from .common import CLIError, parse_shape_specs
from .models import load_model

HELP = "print or draw the graph of a model"


def add_arguments(parser):
    parser.add_argument("model", help="the model: an .onnx file or a .pt2 file from torch.export.save")
    parser.add_argument("--input", action="append", metavar="NAME:SHAPE", help="the shape of an input")
    for fmt in ("png", "svg", "pdf"):
        parser.add_argument(f"--{fmt}", metavar="FILE", help=f"draw the graph to a {fmt.upper()} file")
    parser.add_argument("--fused", action="store_true", help="show the graph after operator fusion")
    parser.add_argument("--profile", action="store_true",
                        help="build and run the model once (random inputs) and colour each kernel by its time")


def _profile(mod):
    import numpy as np  # pylint: disable=import-outside-toplevel
    from .. import relax  # pylint: disable=import-outside-toplevel
    from ..contrib.model_signature import describe  # pylint: disable=import-outside-toplevel
    from ..runtime.device import cpu  # pylint: disable=import-outside-toplevel
    from ..runtime.ndarray import array  # pylint: disable=import-outside-toplevel

    rng = np.random.default_rng(0)
    inputs = []
    for item in describe(mod["main"])["inputs"]:
        if item["shape"] is None or not all(isinstance(d, int) for d in item["shape"]):
            raise CLIError(f"--profile needs fixed input shapes: give --input {item['name']}:SHAPE")
        dtype = np.dtype(item["dtype"])
        value = rng.standard_normal(item["shape"]).astype(dtype) if dtype.kind == "f" else np.zeros(
            item["shape"], dtype)
        inputs.append(array(value))
    vm = relax.VirtualMachine(relax.build(mod), cpu(), profile=True)
    vm["main"](*inputs)
    return vm.profile("main", *inputs)


def run(args):
    from ..contrib import relax_viz  # pylint: disable=import-outside-toplevel

    shapes = parse_shape_specs(args.input)
    pictures = [(fmt, getattr(args, fmt)) for fmt in ("png", "svg", "pdf") if getattr(args, fmt)]
    mod = load_model(args.model, shapes)
    report = _profile(mod) if args.profile else None
    fuse = args.fused or args.profile
    relax_viz.RelaxVisualizer(mod, plotter=relax_viz.TermPlotter(), profile=report, fuse=fuse).render()
    for fmt, path in pictures:
        plotter = relax_viz.DotPlotter(format=fmt)
        written = relax_viz.RelaxVisualizer(mod, plotter=plotter, profile=report, fuse=fuse).render(path)
        print(f"wrote {written}")
    return 0

"""``tessera tune MODEL --trials N --work-dir DIR``: tunes the kernels of an
.onnx or .pt2 model and leaves the records in DIR, for ``tessera compile
MODEL --work-dir DIR``. The tuner prints its own per-round progress."""
from .cmd_compile import tune
from .common import Progress, check_file, parse_shape_specs
from .models import load_model

HELP = "tune the kernels of a model; the records go to --work-dir"


def add_arguments(parser):
    parser.add_argument("model", help="the model: an .onnx file or a .pt2 file from torch.export.save")
    parser.add_argument("--trials", type=int, required=True, metavar="N", help="trials in all")
    parser.add_argument("--work-dir", required=True, metavar="DIR", help="where the tuning records go")
    parser.add_argument("--input", action="append", metavar="NAME:SHAPE", help="the shape of an input")
    parser.add_argument("--target", default="llvm", help="the target (default: llvm)")
    parser.add_argument("--seed", type=int, help="fix the tuner's random choices")


def run(args):
    from ..target import Target  # pylint: disable=import-outside-toplevel

    shapes = parse_shape_specs(args.input)
    check_file(args.model, "model file")
    target = Target(args.target)
    progress = Progress(2)
    progress(f"importing {args.model}")
    mod = load_model(args.model, shapes)
    progress(f"tuning the kernels ({args.trials} trials)")
    tune(mod, target, args.trials, args.work_dir, args.seed)
    progress.close()
    print(f"tuning records are in {args.work_dir}; build with: tessera compile {args.model} --work-dir "
          f"{args.work_dir} -o model.so")
    return 0

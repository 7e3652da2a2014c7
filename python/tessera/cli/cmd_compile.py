"""``tessera compile MODEL -o model.so``: imports an .onnx or .pt2 model,
optionally tunes its kernels (``--tune-trials N --work-dir DIR``, or applies
the records ``tessera tune`` left in DIR), builds it for the CPU and exports
one shared library that records its input signature."""
import os

from .common import CLIError, Progress, check_file, parse_shape_specs
from .models import load_model

HELP = "compile an .onnx or .pt2 model into a shared library"


def add_arguments(parser):
    parser.add_argument("model", help="the model: an .onnx file or a .pt2 file from torch.export.save")
    parser.add_argument("-o", "--output", required=True, help="the library to write (e.g. model.so)")
    parser.add_argument("--input", action="append", metavar="NAME:SHAPE",
                        help="the shape of an input, e.g. data:1x3x224x224 (repeat for several inputs)")
    parser.add_argument("--target", default="llvm", help="the target (default: llvm, the host CPU)")
    parser.add_argument("--tune-trials", type=int, metavar="N", help="tune the kernels with N trials in all first")
    parser.add_argument("--work-dir", metavar="DIR",
                        help="where tuning records are kept; without --tune-trials, the records of an earlier "
                             "`tessera tune` are applied")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no progress")


def tuning_database(work_dir):
    """The JSON database of a tuning run in ``work_dir``."""
    from ..meta_schedule.database import JSONDatabase  # pylint: disable=import-outside-toplevel

    if not os.path.isfile(os.path.join(work_dir, "database_tuning_record.json")):
        raise CLIError(f"no tuning records in {work_dir} (run `tessera tune` with --work-dir {work_dir} first)")
    return JSONDatabase(work_dir=work_dir)


def tune(mod, target, trials, work_dir, seed=None):
    """Tunes the kernels of ``mod`` with ``trials`` trials; returns the database."""
    from ..meta_schedule.relax_integration import tune_relax  # pylint: disable=import-outside-toplevel

    if trials < 1:
        raise CLIError(f"--tune-trials must be at least 1, got {trials}")
    os.makedirs(work_dir, exist_ok=True)
    return tune_relax(mod, None, target, work_dir, trials, num_trials_per_iter=min(64, trials), seed=seed)


def run(args):
    from .. import relax  # pylint: disable=import-outside-toplevel
    from ..contrib import model_signature  # pylint: disable=import-outside-toplevel
    from ..meta_schedule.relax_integration import compile_relax  # pylint: disable=import-outside-toplevel
    from ..target import Target  # pylint: disable=import-outside-toplevel

    shapes = parse_shape_specs(args.input)
    check_file(args.model, "model file")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise CLIError(f"cannot write {args.output}: no such directory {out_dir}")
    if args.tune_trials is not None and args.work_dir is None:
        raise CLIError("--tune-trials needs --work-dir DIR (where the tuning records go)")
    target = Target(args.target)
    tuning = args.tune_trials is not None
    progress = Progress(4 if tuning else 3, args.quiet)
    progress(f"importing {args.model}")
    mod = load_model(args.model, shapes)
    database = None
    if tuning:
        progress(f"tuning the kernels ({args.tune_trials} trials, records in {args.work_dir})")
        database = tune(mod, target, args.tune_trials, args.work_dir)
    elif args.work_dir is not None:
        database = tuning_database(args.work_dir)
    progress(f"building for {target}" + (" with the tuned schedules" if database is not None else ""))
    mod = model_signature.attach(mod)
    executable = relax.build(mod, target=target) if database is None else compile_relax(database, mod, target)
    progress(f"writing {args.output}")
    executable.export_library(args.output)
    progress.close()
    if not args.quiet:
        print(f"wrote {args.output}")
    return 0

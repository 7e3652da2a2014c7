"""``tessera profile model.so``: one profiled run of a compiled model (after a
warm-up run): the vm.profile report of each kernel and VM builtin, as a
table, or as CSV / JSON files."""
from .library import Library

HELP = "profile a compiled model: the time of each kernel"


def add_arguments(parser):
    parser.add_argument("library", help="a library written by tessera compile")
    parser.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input (default: random)")
    parser.add_argument("--top", type=int, metavar="N", help="print the N slowest rows only")
    parser.add_argument("--csv", metavar="FILE", help="also write the report as CSV")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")


def run(args):
    lib = Library(args.library)
    inputs = lib.inputs(args.input, random=True)
    vm = lib.vm(profile=True)
    vm["main"](*inputs)  # warm-up: the thread pool and first-touch pages
    report = vm.profile("main", *inputs)
    print(report.table(top=args.top))
    for path, text in ((args.csv, report.csv), (args.json, report.json)):
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text())
    return 0

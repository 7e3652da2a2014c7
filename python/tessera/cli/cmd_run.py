"""``tessera run model.so --input NAME=file.npy``: runs a compiled model once
and prints each output's shape and dtype, and for a score vector its top
entries (``--print-top K``); ``--output out.npy`` saves the output (several
outputs go to one .npz)."""
import numpy as np

from ..contrib.graph_executor import flatten_outputs
from .library import Library

HELP = "run a compiled model on inputs from .npy files"


def add_arguments(parser):
    parser.add_argument("library", help="a library written by tessera compile")
    parser.add_argument("--input", action="append", metavar="NAME=FILE.npy",
                        help="the array of an input (repeat for several; just FILE.npy for a one-input model)")
    parser.add_argument("--print-top", type=int, default=5, metavar="K",
                        help="for a score vector, print its K largest entries (default 5; 0: none)")
    parser.add_argument("--output", metavar="FILE", help="save the output (.npy; several outputs: .npz)")


def describe_output(i, value, top):
    lines = [f"output {i}: shape {'x'.join(map(str, value.shape)) or 'scalar'} {value.dtype}"]
    scores = value.reshape(-1)
    if top > 0 and value.ndim >= 1 and value.shape[-1] > 1 and scores.size == value.shape[-1]:
        order = np.argsort(-scores, kind="stable")[:top]
        lines += [f"  #{rank + 1}: index {int(k)}  {scores[k]:.6g}" for rank, k in enumerate(order)]
    return lines


def run(args):
    lib = Library(args.library)
    args_in = lib.inputs(args.input)
    outputs = [o.numpy() for o in flatten_outputs(lib.vm()["main"](*args_in))]
    for i, value in enumerate(outputs):
        print("\n".join(describe_output(i, value, args.print_top)))
    if args.output:
        if len(outputs) == 1:
            np.save(args.output, outputs[0])
        else:
            np.savez(args.output, **{f"output_{i}": v for i, v in enumerate(outputs)})
        print(f"saved to {args.output}")
    return 0

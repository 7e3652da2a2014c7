"""What the subcommands of the ``tessera`` command line share: CLIError (a
user mistake, printed as one line), the parsers of ``--input`` values
(NAME:1x3x224x224 shapes, NAME=file.npy arrays) and the stage progress
printed to stderr."""
import os
import sys
import time

import numpy as np


class CLIError(Exception):
    """A mistake of the user's (missing file, bad shape, unknown input):
    printed as one line, exit status 1."""


def check_file(path, what="file"):
    if not os.path.exists(path):
        raise CLIError(f"no such {what}: {path}")
    if os.path.isdir(path):
        raise CLIError(f"{path} is a directory, not a {what}")
    return path


def parse_shape(text, name):
    """"1x3x224x224" (or "1,3,224,224") -> (1, 3, 224, 224)."""
    parts = text.replace(",", "x").split("x") if text else []
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if not dims or any(d < 1 for d in dims):
        raise CLIError(f"bad shape {text!r} for input {name!r}: expected positive sizes such as 1x3x224x224")
    return dims


def parse_shape_specs(specs):
    """["NAME:1x3x224x224", ...] -> {NAME: shape}, in order."""
    shapes = {}
    for spec in specs or []:
        name, sep, shape = spec.rpartition(":")
        if not sep or not name:
            raise CLIError(f"bad --input {spec!r}: expected NAME:SHAPE such as data:1x3x224x224")
        if name in shapes:
            raise CLIError(f"input {name!r} is given twice")
        shapes[name] = parse_shape(shape, name)
    return shapes


def load_array(path, name):
    check_file(path, f"file for input {name!r}")
    try:
        value = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as err:
        raise CLIError(f"cannot read {path} (input {name!r}) as a NumPy .npy array: {err}") from err
    if not isinstance(value, np.ndarray):
        raise CLIError(f"{path} (input {name!r}) holds several arrays; give one .npy array per input")
    return value


def parse_array_specs(specs, names):
    """["NAME=file.npy", ...] (or just "file.npy" for a one-input model) ->
    {NAME: array}; names must be among ``names``."""
    arrays = {}
    for spec in specs or []:
        name, sep, path = spec.partition("=")
        if not sep:
            if len(names) != 1:
                raise CLIError(f"--input {spec!r} does not say which input it is: use NAME=FILE.npy with NAME one "
                               f"of {', '.join(names)}")
            name, path = names[0], spec
        if name not in names:
            raise CLIError(f"unknown input name {name!r}: the model's inputs are {', '.join(names) or 'none'}")
        if name in arrays:
            raise CLIError(f"input {name!r} is given twice")
        arrays[name] = load_array(path, name)
    return arrays


class Progress:
    """Numbered stages on stderr: ``[2/4] building for llvm ... done (3.1 s)``."""

    def __init__(self, total, quiet=False):
        self.total = total
        self.step = 0
        self.quiet = quiet
        self._start = None

    def __call__(self, what):
        self._finish()
        self.step += 1
        self._start = time.perf_counter()
        if not self.quiet:
            print(f"[{self.step}/{self.total}] {what} ...", file=sys.stderr, flush=True)

    def _finish(self):
        if self._start is not None and not self.quiet:
            print(f"      done ({time.perf_counter() - self._start:.1f} s)", file=sys.stderr, flush=True)
        self._start = None

    def close(self):
        self._finish()

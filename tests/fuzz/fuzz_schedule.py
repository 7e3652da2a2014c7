"""Fuzz target (c): schedule primitives. Each input builds a Schedule on one of
a few seed programs and applies a random sequence of primitives with random
(often nonsensical) arguments: real and stale block/loop handles, odd ints,
None, strings, floats, lists. A primitive either succeeds or raises a TVMError
subclass and leaves sch.mod unchanged; anything else is a finding. Calls whose
arguments do not bind to the Python signature are not made (that TypeError is
the interpreter's). Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_schedule.py"""
import inspect

import fuzz_common as fc
from fuzz_common import tvm

# Seed programs with blocks (matmul+relu, reduction, elementwise chain).
_PROGRAMS = []
for _text in fc.load_seeds():
    if "T.block(" not in _text or len(_PROGRAMS) >= 6:
        continue
    try:
        _mod = tvm.script.from_source(_text)
    except Exception:  # noqa: BLE001
        continue
    if isinstance(_mod, tvm.tir.PrimFunc):
        _mod = tvm.IRModule({"main": _mod})
    if len(_mod.functions) == 1:  # renamed to "main" so that the schedule works on it
        _PROGRAMS.append(tvm.IRModule({"main": list(_mod.functions.values())[0]}))

_SKIP = {"mod", "trace", "func_working_on", "show", "copy", "seed", "fork_seed", "work_on",
         "tensorize", "enter_postproc"}
PRIMITIVES = sorted(name for name, fn in inspect.getmembers(tvm.tir.Schedule, inspect.isfunction)
                    if not name.startswith("_") and name not in _SKIP)
INTS = [0, 1, 2, 3, 4, 7, 8, 16, 32, 128, -1, -2, 2**31 - 1, 2**31, -2**31, 2**40, 2**63 - 1, 2**64]
STRS = ["global", "shared", "local", "C", "Y", "A", "B", "", "main", "threadIdx.x", "blockIdx.x",
        "vthread", "pragma_unroll", "\x00", "\ud800", "nosuch"]


def _block_names(mod):
    names = []

    def visit(node):
        if isinstance(node, tvm.tir.Block):
            names.append(node.name_hint)
    tvm.tir.stmt_functor.post_order_visit(mod["main"].body, visit)
    return names


_NAMES = [[n for n in _block_names(m) if n != "root"] or ["root"] for m in _PROGRAMS]


def _arg(fdp, sch, names, depth=0):
    kind = fdp.ConsumeIntInRange(0, 11)
    try:
        if kind <= 2:  # a real block
            return sch.get_block(names[fdp.ConsumeIntInRange(0, len(names) - 1)])
        if kind <= 4:  # a real loop
            loops = sch.get_loops(sch.get_block(names[fdp.ConsumeIntInRange(0, len(names) - 1)]))
            return loops[fdp.ConsumeIntInRange(0, len(loops) - 1)] if loops else None
    except tvm.error.TVMError:
        return None
    if kind == 5:
        return INTS[fdp.ConsumeIntInRange(0, len(INTS) - 1)]
    if kind == 6:
        return STRS[fdp.ConsumeIntInRange(0, len(STRS) - 1)]
    if kind == 7:
        return None
    if kind == 8:
        return [0.5, float("nan"), float("inf"), -1e300][fdp.ConsumeIntInRange(0, 3)]
    if kind == 9 and depth < 2:
        return [_arg(fdp, sch, names, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    if kind == 10:
        return [None, 2, 4, 8, 1, -1, 0][fdp.ConsumeIntInRange(0, 6)]
    return lambda *i: tuple(reversed(i))  # an index map


def body(fdp):
    which = fdp.ConsumeIntInRange(0, len(_PROGRAMS) - 1)
    sch = tvm.tir.Schedule(_PROGRAMS[which], seed=fdp.ConsumeIntInRange(0, 1000))
    names = _NAMES[which]
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        if fdp.remaining_bytes() == 0:
            break
        name = PRIMITIVES[fdp.ConsumeIntInRange(0, len(PRIMITIVES) - 1)]
        method = getattr(sch, name)
        args = [_arg(fdp, sch, names) for _ in range(fdp.ConsumeIntInRange(0, 4))]
        try:
            inspect.signature(method).bind(*args)
        except TypeError:
            continue
        before = sch.mod.script()
        try:
            method(*args)
        except Exception as e:  # noqa: BLE001
            desc = fc.check_exception(e, f"sch.{name}")
            if desc:
                raise fc.Finding(desc + f" [args: {[type(a).__name__ for a in args]}]") from e
            after = sch.mod.script()
            if after != before:
                raise fc.Finding(f"sch.{name}: failed ({type(e).__name__}) but changed sch.mod")
            return


if __name__ == "__main__":
    fc.main("schedule", body)

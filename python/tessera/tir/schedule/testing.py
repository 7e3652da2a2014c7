"""``tvm.tir.schedule.testing``: checks for schedule tests — a trace replayed
from its Python text and from its JSON form rebuilds the same module, and
PrimFunc comparison ignoring the global symbol."""
from ...ir import IRModule, assert_structural_equal
from ..function import PrimFunc
from .schedule import Schedule
from .trace import Trace
from ...error import TVMTypeError, TVMValueError


def assert_structural_equal_ignore_global_symbol(func1, func2, *args, **kwargs):
    """assert_structural_equal of two PrimFuncs, both given global_symbol "main"."""
    assert_structural_equal(func1.with_attr("global_symbol", "main"), func2.with_attr("global_symbol", "main"),
                            *args, **kwargs)


class _EvalT:
    """``T`` for executing a printed trace: ``T.int64(128)`` and the other
    dtype constructors make constants (the parser's T.* are markers for the
    TVMScript parser); other names are the parser's."""

    def __init__(self, script_t, tir):
        self._t, self._tir = script_t, tir

    def __getattr__(self, name):
        import re  # pylint: disable=import-outside-toplevel

        if re.fullmatch(r"(u?int|float|bfloat)\d+|bool", name):
            return lambda value: self._tir.const(value, name)
        return getattr(self._t, name)


def verify_trace_roundtrip(sch, mod, *, debug_mask="all", text_format=("python", "json")):
    """Replays ``sch.trace`` on a fresh Schedule of ``mod`` from each text
    format ("python": exec of ``trace.as_python()``; "json": ``as_json`` then
    ``apply_json_to_schedule``), asserts the result equals ``sch.mod`` and that
    the replayed trace prints the same; returns the last new schedule."""
    if not isinstance(mod, (PrimFunc, IRModule)):
        raise TVMTypeError(f"verify_trace_roundtrip: mod must be a PrimFunc or an IRModule, got {type(mod).__name__}")
    formats = [text_format] if isinstance(text_format, str) else list(text_format)
    new_sch = None
    for fmt in formats:
        trace = sch.trace
        new_sch = Schedule(mod, debug_mask=debug_mask)
        if fmt == "json":
            Trace.apply_json_to_schedule(json_obj=trace.as_json(), sch=new_sch)
        elif fmt == "python":
            from ... import tir  # pylint: disable=import-outside-toplevel
            from ...script import tir as T  # pylint: disable=import-outside-toplevel

            namespace = dict(vars(tir))
            namespace["T"] = _EvalT(T, tir)
            # One namespace: a lambda in the trace (an index map using sampled
            # integers) sees the variables defined by earlier lines.
            namespace["sch"] = new_sch
            exec("\n".join(trace.as_python()), namespace)  # pylint: disable=exec-used
        else:
            raise TVMValueError(f"verify_trace_roundtrip: unknown text_format {fmt!r} (\"python\" or \"json\")")
        assert_structural_equal(new_sch.mod, sch.mod)
        assert "\n".join(trace.as_python()) == "\n".join(new_sch.trace.as_python()), \
            f"the trace replayed from {fmt} prints differently"
    return new_sch


__all__ = ["assert_structural_equal_ignore_global_symbol", "verify_trace_roundtrip"]

"""Schedule traces (``tvm.tir.schedule.Trace``): the recorded primitives and
sampling decisions, printable as Python and replayable."""
import json

from ..._ffi.registry import register_object
from ...ir.base import Node
from . import _ffi_api
from .instruction import Instruction
from ...error import OpNotImplemented, TVMTypeError, TVMValueError


@register_object("tir.Trace")
class Trace(Node):
    """``insts`` (list of Instruction) and ``decisions`` (Instruction -> value)."""

    def __init__(self, insts, decisions):
        decisions = dict(decisions or {})
        for inst in decisions:
            if inst not in list(insts):
                raise TVMValueError(f"Trace: the decision for {inst} names an instruction not in insts")
        self.__init_handle_by_constructor__(_ffi_api.Trace, list(insts), decisions)

    def __str__(self):
        return _ffi_api.TraceAsPython(self).rstrip("\n")

    def append(self, inst, decision=None):
        """Adds ``inst`` (with its ``decision``) at the end, in place."""
        if not isinstance(inst, Instruction):
            raise TVMTypeError(f"Trace.append expects an Instruction, got {type(inst).__name__}")
        _ffi_api.TraceAppend(self, inst, decision)

    def pop(self):
        """Removes and returns the last instruction (None when empty), in place."""
        return _ffi_api.TracePop(self)

    def _without_postproc(self):
        insts = list(self.insts)
        for k, inst in enumerate(insts):
            if inst.kind.name == "EnterPostproc":
                kept = insts[:k]
                return Trace(kept, {i: d for i, d in self.decisions.items() if any(i.same_as(x) for x in kept)})
        return self

    def simplified(self, remove_postproc):
        """A copy without the instructions nothing depends on: pure ones
        (lookups, sampling) whose outputs no kept instruction uses; with
        ``remove_postproc``, everything from ``enter_postproc`` on is dropped
        first."""
        source = self._without_postproc() if remove_postproc else self
        insts = list(source.insts)
        decisions = source.decisions
        used = set()
        kept = []

        def uses(value):
            if isinstance(value, (list, tuple)):
                for v in value:
                    uses(v)
            elif isinstance(value, dict):
                for k, v in value.items():
                    uses(k)
                    uses(v)
            elif isinstance(value, Node):
                used.add(value.handle)

        for inst in reversed(insts):
            if inst.kind.is_pure and not any(o.handle in used for o in inst.outputs if isinstance(o, Node)):
                continue
            kept.append(inst)
            uses(list(inst.inputs))
        kept.reverse()
        return Trace(kept, {i: d for i, d in decisions.items() if any(i.same_as(k) for k in kept)})

    def __repr__(self):
        return str(self)

    def as_python(self, remove_postproc=False):
        """The trace as Python statements over ``sch``, one list entry per line;
        ``remove_postproc``: without the postprocessing (from ``enter_postproc`` on)."""
        trace = self._without_postproc() if remove_postproc else self
        lines = _ffi_api.TraceAsPython(trace).splitlines()
        # Drop the "# from tvm import tir" / "def apply_trace(...)" header and the body's indent.
        body = [l for l in lines if not l.startswith("#") and not l.startswith("def apply_trace")]
        return [l[2:] if l.startswith("  ") else l for l in body if l.strip() != "pass"]

    def show(self, style=None, black_format=False):
        """Prints the trace as Python (no syntax highlighting or black
        formatting: ``style`` and ``black_format`` are refused)."""
        if style is not None or black_format:
            raise OpNotImplemented("Trace.show(style=..., black_format=True) is not supported; "
                                      "call Trace.show() or print(str(trace))")
        print(str(self))

    def apply_to_schedule(self, sch, remove_postproc=False, decision_provider=None):
        """Replays every instruction (with its decision) onto ``sch``.

        ``remove_postproc``: stop at ``enter_postproc`` (the postprocessing
        instructions are not replayed). ``decision_provider(inst, inputs, attrs, decision)``
        returns the decision to use for each instruction that has one; it sees
        the instruction's inputs as recorded in this trace (not yet mapped to
        ``sch``'s handles)."""
        trace = self
        if decision_provider is not None:
            for inst in self.insts:
                if inst in self.decisions:
                    old = self.decisions[inst]
                    new = decision_provider(inst, list(inst.inputs), list(inst.attrs), old)
                    trace = trace.with_decision(inst, new)
        _ffi_api.ApplyTrace(sch, trace, bool(remove_postproc))

    def as_json(self, remove_postproc=False):
        """TVM's JSON form ``[insts, decisions]`` (what a tuning database
        stores): each instruction ``[kind, inputs, attrs, outputs]`` with random
        variables by name ("b0", "l1", "v2"), each decision ``[inst_index,
        value]``; with ``remove_postproc``, without the postprocessing (from
        ``enter_postproc`` on)."""
        trace = self._without_postproc() if remove_postproc else self
        return json.loads(_ffi_api.TraceToJSON(trace))

    @staticmethod
    def from_json(obj):
        """Rebuilds a Trace from :meth:`as_json` output (the list or its JSON
        text; the ``{"insts", "decisions"}`` dict Tessera wrote before is read too)."""
        text = obj if isinstance(obj, str) else json.dumps(obj)
        return _ffi_api.TraceFromJSON(text)

    @staticmethod
    def apply_json_to_schedule(json_obj, sch):
        """Replays the trace stored by :meth:`as_json` onto ``sch``."""
        Trace.from_json(json_obj).apply_to_schedule(sch)

    def with_decision(self, inst, decision, remove_postproc=False):
        """A copy of this trace with ``inst``'s decision replaced; with
        ``remove_postproc``, without the postprocessing (from ``enter_postproc`` on)."""
        trace = self._without_postproc() if remove_postproc else self
        return _ffi_api.TraceWithDecision(trace, inst, decision)

    def get_decision(self, inst):
        return self.decisions.get(inst)


__all__ = ["Instruction", "Trace"]  # Instruction re-exported from .instruction

"""Schedule traces (``tvm.tir.schedule.Trace``): the recorded primitives and
sampling decisions, printable as Python and replayable."""
import json

from ..._ffi.registry import register_object
from ...ir.base import Node
from . import _ffi_api
from .instruction import Instruction


@register_object("tir.Trace")
class Trace(Node):
    """``insts`` (list of Instruction) and ``decisions`` (Instruction -> value)."""

    def __str__(self):
        return _ffi_api.TraceAsPython(self)

    def __repr__(self):
        return str(self)

    def show(self, *args, **kwargs):  # pylint: disable=unused-argument
        print(str(self))

    def apply_to_schedule(self, sch, remove_postproc=False, decision_provider=None):  # pylint: disable=unused-argument
        """Replays every instruction (with its decision) onto ``sch``."""
        _ffi_api.ApplyTrace(sch, self, bool(remove_postproc))

    def as_json(self, remove_postproc=False):  # pylint: disable=unused-argument
        """A JSON-serializable form (what a tuning database stores)."""
        return json.loads(_ffi_api.TraceToJSON(self))

    @staticmethod
    def from_json(obj):
        """Rebuilds a Trace from :meth:`as_json` output (a dict or its JSON text)."""
        text = obj if isinstance(obj, str) else json.dumps(obj)
        return _ffi_api.TraceFromJSON(text)

    @staticmethod
    def apply_json_to_schedule(json_obj, sch):
        """Replays the trace stored by :meth:`as_json` onto ``sch``."""
        Trace.from_json(json_obj).apply_to_schedule(sch)

    def with_decision(self, inst, decision, remove_postproc=False):  # pylint: disable=unused-argument
        """A copy of this trace with ``inst``'s decision replaced."""
        return _ffi_api.TraceWithDecision(self, inst, decision)

    def get_decision(self, inst):
        return self.decisions.get(inst)


__all__ = ["Instruction", "Trace"]  # Instruction re-exported from .instruction

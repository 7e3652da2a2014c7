"""Compilation targets (``tvm.target.Target``): "llvm", "llvm -mcpu=native
--num-cores=4", "cuda -arch=sm_80", ..."""
from .._ffi.registry import register_object, get_global_func
from ..ir.base import Node


@register_object("target.Target")
class Target(Node):
    """A target parsed from TVM's target string; ``kind.name``, ``attrs``, ``keys``."""

    def __init__(self, target, host=None):  # pylint: disable=unused-argument
        if isinstance(target, Target):
            target = target.str
        if isinstance(target, dict):
            kind = target.get("kind", "llvm")
            opts = " ".join(f"-{k}={v}" for k, v in target.items() if k != "kind")
            target = f"{kind} {opts}".strip()
        self.__init_handle_by_constructor__(get_global_func("target.Target"), str(target))

    @property
    def kind(self):
        return _TargetKind(self.kind_name)

    def __str__(self):
        return self.str

    def __repr__(self):
        return f"Target({self.str!r})"

    @staticmethod
    def current(allow_none=True):  # pylint: disable=unused-argument
        return None


class _TargetKind:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def create(target):
    return Target(target)


__all__ = ["Target", "create"]

"""Compilation targets (``tvm.target.Target``): "llvm", "llvm -mcpu=native
--num-cores=4", "cuda -arch=sm_80", ... Kinds and their options are
registered in C++ (src/target/target_kind.cc); unknown kinds, unknown options,
ill-typed values and CPUs or features LLVM does not know raise ValueError."""
from .._ffi.registry import register_object, get_global_func
from ..ir.base import Node
from . import codegen
from ..error import TVMValueError


@register_object("target.Target")
class Target(Node):
    """A target parsed from TVM's target string; ``kind.name``, ``attrs``, ``keys``."""

    def __init__(self, target, host=None):
        if isinstance(target, Target):
            host = host if host is not None else target.host
            target = target.str
        if isinstance(target, dict):
            kind = target.get("kind", "llvm")
            def _value(v):
                if isinstance(v, bool):
                    return "true" if v else "false"
                if isinstance(v, (list, tuple)):
                    return ",".join(str(x) for x in v)
                return str(v)
            opts = " ".join(f"-{k}={_value(v)}" for k, v in target.items() if k != "kind")
            target = f"{kind} {opts}".strip()
        self.__init_handle_by_constructor__(get_global_func("target.Target"), str(target))
        self.__dict__["_host"] = None
        if host is not None:
            host = host if isinstance(host, Target) else Target(host)
            if "cpu" in list(self.keys) and host.str != self.str:
                raise TVMValueError(f"target host {host.str!r} differs from the CPU target {self.str!r}: "
                                    "for CPU targets the host is the target itself")
            self.__dict__["_host"] = host

    @property
    def host(self):
        """The host target given to the constructor or to T.target(..., host=...) (None when not given)."""
        host = self.__dict__.get("_host")
        if host is None:
            host = get_global_func("target.TargetGetHost")(self)
        return host

    @property
    def kind(self):
        return _TargetKind(self.kind_name)

    def __str__(self):
        return self.str

    def __repr__(self):
        return f"Target({self.str!r})"

    @staticmethod
    def list_kinds():
        """The names of the registered target kinds."""
        return [str(k) for k in get_global_func("target.ListTargetKinds")()]

    def __enter__(self):
        _CURRENT.append(self)
        return self

    def __exit__(self, *exc):
        _CURRENT.pop()

    @staticmethod
    def current(allow_none=True):
        """The target of the innermost ``with target:`` block; None (or ValueError
        when ``allow_none`` is False) outside one."""
        if _CURRENT:
            return _CURRENT[-1]
        if not allow_none:
            raise TVMValueError("no current target: use `with tvm.target.Target(...):`")
        return None


_CURRENT = []  # targets of the enclosing ``with target:`` blocks


class _TargetKind:
    def __init__(self, name):
        self.name = name

    @property
    def options(self):
        """The options this kind accepts, name -> type name ("bool", "int", "str")."""
        opts = get_global_func("target.ListTargetKindOptions")(self.name)
        return {str(k): str(v) for k, v in opts.items()}

    def __repr__(self):
        return self.name


def create(target):
    return Target(target)


__all__ = ["Target", "create", "codegen"]

"""Compilation targets (``tvm.target.Target``): "llvm", "llvm -mcpu=native
--num-cores=4", "cuda -arch=sm_80", ... Kinds and their options are
registered in C++ (src/target/target_kind.cc); unknown kinds, unknown options,
ill-typed values and CPUs or features LLVM does not know raise ValueError. A tag
("nvidia/nvidia-a100", src/target/tag.cc) stands for its kind and options;
``list_tags()`` lists them."""
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
        is_cpu = False
        if host is not None:
            host = host if isinstance(host, Target) else Target(host)
            is_cpu = "cpu" in list(get_global_func("target.Target")(str(target)).keys)
        if host is not None and not is_cpu:  # the C++ node carries the host too (the GPU build reads it)
            self.__init_handle_by_constructor__(get_global_func("target.TargetWithHost"), str(target), host.str)
        else:
            self.__init_handle_by_constructor__(get_global_func("target.Target"), str(target))
        self.__dict__["_host"] = None
        if host is not None:
            if is_cpu and host.str != self.str:
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
    def from_device(device):
        """The target of ``device`` (a Device or its name, as TVM's): a CPU gives the host
        target; a CUDA device "cuda -arch=sm_XY" with its thread, warp and shared-memory
        limits read from the device (shared memory at most 48 KiB, what a kernel's static
        shared arrays may use, as TVM's tags). ValueError for a device that does not exist here."""
        from ..runtime.device import Device, device as _device  # pylint: disable=import-outside-toplevel
        dev = device if isinstance(device, Device) else _device(device)
        if not dev.exist:
            raise TVMValueError(f"Target.from_device: device {dev} does not exist on this machine")
        if dev.device_type == 1:
            return default_host()
        if dev.device_type != 2:
            raise TVMValueError(f"Target.from_device: no target for device {dev}")
        opts = ["cuda"]
        version = dev.compute_version
        if version:
            opts.append("-arch=sm_" + str(version).replace(".", ""))
        shared = dev.max_shared_memory_per_block
        if shared is not None:  # static __shared__ arrays stop at 48 KiB (more needs dynamic shared memory)
            shared = min(int(shared), 49152)
        for opt, value in (("max_threads_per_block", dev.max_threads_per_block),
                           ("max_shared_memory_per_block", shared),
                           ("thread_warp_size", dev.warp_size)):
            if value is not None:
                opts.append(f"-{opt}={int(value)}")
        return Target(" ".join(opts))

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

    @property
    def device_type(self):
        """The DLPack device type the kind's kernels run on (1: CPU, 2: CUDA)."""
        return int(get_global_func("target.TargetKindDeviceType")(self.name))

    def get_attr(self, name, default=None):
        """The kind's attribute ``name`` (src/target/target_kind.h lists them), or ``default``:
        what the tuner, the default schedule and relax.build read instead of the kind's name."""
        value = get_global_func("target.TargetKindGetAttr")(self.name, name)
        return default if value is None else value

    def __eq__(self, other):
        return isinstance(other, _TargetKind) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


def kind_attr(target, name, default=None):
    """The attribute ``name`` of ``target``'s kind (a Target, target string or kind name)."""
    if not isinstance(target, Target) and "/" in str(target).split()[0]:
        target = Target(str(target))  # a tag
    kind = target.kind.name if isinstance(target, Target) else str(target).split()[0]
    return _TargetKind(kind).get_attr(name, default)


def kind_family(kind, attr):
    """(the value of the kind attribute ``attr`` of the kind named ``kind``, or None for
    an unknown kind or one without it; the sorted kinds that have it), for messages."""
    kinds = Target.list_kinds()
    have = sorted(k for k in kinds if _TargetKind(k).get_attr(attr) is not None)
    return (_TargetKind(kind).get_attr(attr) if kind in kinds else None), have


def list_tags():
    """The registered target tags ({"nvidia/nvidia-a100": Target, ...}), as TVM's."""
    tags = get_global_func("target.TargetTagListTags")()
    return {str(k): v for k, v in tags.items()}


def default_host():
    """The host target: "llvm" when Tessera is built with LLVM, else "c"."""
    return get_global_func("target.DefaultHost")()


def create(target):
    return Target(target)


__all__ = ["Target", "create", "codegen", "kind_attr", "kind_family", "default_host", "list_tags"]

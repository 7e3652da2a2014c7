"""``tvm.ir.VDevice``: a virtual device (a target, an index among the
devices of that target, a memory scope) as a Python value. Tessera's Relax
struct info does not carry virtual devices yet: ``R.Tensor(...,
vdevice=...)`` and ``TensorStructInfo(vdevice=...)`` raise
NotImplementedError; the value exists so code naming it imports and runs
where no tensor is placed on it."""
from ..error import TVMTypeError, TVMValueError


class VDevice:
    """``VDevice(target=None, vdevice_id=0, memory_scope="global")``."""

    def __init__(self, target=None, vdevice_id=0, memory_scope="global"):
        from ..target import Target  # pylint: disable=import-outside-toplevel

        if target is not None and not isinstance(target, Target):
            if not isinstance(target, (str, dict)):
                raise TVMTypeError(f"VDevice: target must be a Target, a target string or None, got "
                                   f"{type(target).__name__}")
            target = Target(target)
        if isinstance(vdevice_id, bool) or not isinstance(vdevice_id, int) or vdevice_id < 0:
            raise TVMValueError(f"VDevice: vdevice_id must be a non-negative int, got {vdevice_id!r}")
        if not isinstance(memory_scope, str):
            raise TVMTypeError(f"VDevice: memory_scope must be a str, got {type(memory_scope).__name__}")
        self.target, self.vdevice_id, self.memory_scope = target, vdevice_id, memory_scope

    def _key(self):
        return (str(self.target) if self.target is not None else None, self.vdevice_id, self.memory_scope)

    def __eq__(self, other):
        return isinstance(other, VDevice) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"VDevice({self._key()[0]!r}, {self.vdevice_id}, {self.memory_scope!r})"


__all__ = ["VDevice"]

"""Devices (``tvm.cpu(0)``, ``tvm.cuda(0)``, ``tvm.device("cuda", 1)``).

``Device.exist`` tells whether the device is usable here: CUDA devices need a
GPU and its driver, which Tessera loads at run time (nothing needs a GPU to
build or to run on the CPU).
"""
from .. import _core
from ..error import TVMTypeError

Device = _core.Device

kDLCPU = 1
kDLCUDA = 2


def _attr(name):
    return property(lambda self: self._get_attr(name), doc=f"Device attribute '{name}' (None if unknown).")


Device.max_threads_per_block = _attr("max_threads_per_block")
Device.warp_size = _attr("warp_size")
Device.compute_version = _attr("compute_version")
Device.device_name = _attr("name")
Device.multi_processor_count = _attr("multi_processor_count")
Device.max_shared_memory_per_block = _attr("max_shared_memory_per_block")
# Device names and, through their registered device types, the target kinds' names.
Device.STR2MASK = {"cpu": kDLCPU, "cuda": kDLCUDA, "gpu": kDLCUDA}
Device.STR2MASK.update({str(kind): int(_core._device_type_from_name(str(kind)))
                        for kind in _core._get_global_func("target.ListTargetKinds")()})


def device(dev_type, dev_id=0):
    """Makes a Device from a name ("cpu", "llvm", "cuda", "gpu", "cuda:1", or
    a target string such as "cuda -arch=sm_80") or a DLPack device code."""
    if isinstance(dev_type, Device):
        return dev_type
    if isinstance(dev_type, str):
        name = dev_type.split()[0] if dev_type.strip() else dev_type
        if ":" in name:
            name, _, idx = name.partition(":")
            dev_id = int(idx)
        return Device(_core._device_type_from_name(name), dev_id)
    if isinstance(dev_type, int):
        return Device(dev_type, dev_id)
    raise TVMTypeError(f"device() expects a device name or code, got {type(dev_type).__name__}")


def cpu(dev_id=0):
    """The host CPU."""
    return Device(kDLCPU, dev_id)


def cuda(dev_id=0):
    """NVIDIA GPU number ``dev_id`` (check ``.exist`` before use)."""
    return Device(kDLCUDA, dev_id)


gpu = cuda

__all__ = ["Device", "device", "cpu", "cuda", "gpu"]

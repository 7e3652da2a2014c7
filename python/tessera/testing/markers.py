"""Hardware and backend markers of ``tvm.testing``: ``requires_<feature>``
decorators that skip a test when Tessera lacks the backend or the machine lacks
the device, the targets tests may run on (``enabled_targets``, honouring
$TVM_TEST_TARGETS) and target parametrization."""
import importlib.util
import os
import struct

import pytest

# Target kinds Tessera compiles for, and the device each runs on.
_TARGET_DEVICES = {"llvm": "cpu", "c": "cpu", "cuda": "cuda", "nvptx": "cuda"}
# Kinds whose backend a build may leave out (CMake TESSERA_USE_LLVM=OFF).
_OPTIONAL_BACKENDS = ("llvm",)


def _cuda_exists():
    from ..runtime import cuda  # pylint: disable=import-outside-toplevel

    try:
        return bool(cuda(0).exist)
    except Exception:  # pylint: disable=broad-except
        return False


def _cuda_compute_version():
    from ..runtime import cuda  # pylint: disable=import-outside-toplevel

    if not _cuda_exists():
        return None
    version = cuda(0).compute_version
    return tuple(int(x) for x in str(version).split(".")) if version else None


class Feature:
    """A requirement: ``@requires_cuda`` (or ``requires_cuda.marks()`` for
    pytest marks) skips the test, naming the reason, unless ``available()``."""

    def __init__(self, name, long_name, available, reason=None, parents=()):
        self.name = name
        self.long_name = long_name
        self._available = available
        self._reason = reason
        self.parents = parents

    def available(self):
        return all(p.available() for p in self.parents) and bool(self._available())

    def marks(self, support_required="compile-and-run"):  # pylint: disable=unused-argument
        ok = self.available()
        reason = self._reason or f"{self.long_name} is not available here"
        return [pytest.mark.skipif(not ok, reason=reason), getattr(pytest.mark, self.name)]

    def __call__(self, func=None, *, support_required="compile-and-run"):
        if func is None:
            return lambda f: self(f, support_required=support_required)
        for mark in self.marks(support_required):
            func = mark(func)
        return func


def _never(_=None):
    return False


def _feature(name, long_name, available=_never, parents=(), reason=None):
    if reason is None and available is _never:
        reason = f"Tessera has no {long_name} support"
    return Feature(name, long_name, available, reason=reason, parents=parents)


def _cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


_gpu = _feature("gpu", "a GPU", _cuda_exists, reason="no GPU is available")
_cuda = _feature("cuda", "CUDA", _cuda_exists, reason="no CUDA device is available")
FEATURES = {
    "llvm": _feature("llvm", "LLVM", lambda: _backend_built("llvm"),
                     reason="Tessera is built without LLVM (CMake option TESSERA_USE_LLVM=OFF)"),
    "x86": _feature("x86", "x86", lambda: os.uname().machine in ("x86_64", "i686", "AMD64")),
    "gpu": _gpu,
    "cuda": _cuda,
    "tensorcore": _feature("tensorcore", "Tensor Cores", lambda: (_cuda_compute_version() or (0,)) >= (7,),
                           parents=(_cuda,), reason="no GPU with Tensor Cores is available"),
    "cudagraph": _feature("cudagraph", "CUDA graphs"),
    "cublas": _feature("cublas", "cuBLAS"),
    "cudnn": _feature("cudnn", "cuDNN"),
    "cutlass": _feature("cutlass", "CUTLASS"),
    "nvptx": _feature("nvptx", "NVPTX", _cuda_exists, reason="no CUDA device is available"),
    "rocm": _feature("rocm", "ROCm"),
    "matrixcore": _feature("matrixcore", "AMD Matrix Cores"),
    "opencl": _feature("opencl", "OpenCL"),
    "vulkan": _feature("vulkan", "Vulkan"),
    "metal": _feature("metal", "Metal"),
    "hexagon": _feature("hexagon", "Hexagon"),
    "arm_dot": _feature("arm_dot", "Arm dot-product instructions"),
    "aarch64_sve": _feature("aarch64_sve", "AArch64 SVE"),
    # the CPU's own instructions (tensor_intrin.x86's intrinsics build for LLVM)
    "x86_vnni": _feature("x86_vnni", "x86 VNNI", lambda: "avx512_vnni" in _cpu_flags(),
                         reason="the CPU has no AVX512-VNNI"),
    "x86_avx512": _feature("x86_avx512", "x86 AVX-512", lambda: {"avx512f", "avx512bw"} <= _cpu_flags(),
                           reason="the CPU has no AVX512-BW"),
    "cmsisnn": _feature("cmsisnn", "CMSIS-NN"),
    "ethosn": _feature("ethosn", "Arm Ethos-N"),
    "ethosu": _feature("ethosu", "Arm Ethos-U"),
    "micro": _feature("micro", "microTVM"),
    "rpc": _feature("rpc", "RPC"),
    "openclml": _feature("openclml", "OpenCLML"),
    "tensorrt": _feature("tensorrt", "TensorRT"),
    "multi_gpu": _feature("multi_gpu", "several GPUs",
                          lambda: _cuda_exists() and _device_exists("cuda", 1), reason="fewer than 2 GPUs"),
}


def _backend_built(kind):
    """Whether this build has a code generator for target kind ``kind``."""
    from .._ffi.registry import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func(f"target.build.{kind}", allow_missing=True) is not None


def _device_exists(kind, index=0):
    from ..runtime import device  # pylint: disable=import-outside-toplevel

    try:
        return bool(device(kind, index).exist)
    except Exception:  # pylint: disable=broad-except
        return False


def _host_kind():
    from ..target import default_host  # pylint: disable=import-outside-toplevel

    return default_host().kind.name


def _target_kind(target):
    return str(target).split()[0] if str(target).strip() else str(target)


def device_enabled(target):
    """Whether tests may run on ``target``: Tessera compiles for it, its device
    exists, and $TVM_TEST_TARGETS (if set) names its kind."""
    kind = _target_kind(target)
    if kind not in _TARGET_DEVICES or not _device_exists(_TARGET_DEVICES[kind]):
        return False
    if kind in _OPTIONAL_BACKENDS and not _backend_built(kind):
        return False
    wanted = os.environ.get("TVM_TEST_TARGETS")
    if wanted:
        return kind in {_target_kind(t) for t in wanted.split(";") if t.strip()}
    return True


def enabled_targets():
    """(target, device) pairs tests may run on: $TVM_TEST_TARGETS
    ("llvm;cuda") or Tessera's default (the host, "llvm" or without LLVM "c",
    plus "cuda" with a GPU)."""
    from ..runtime import device  # pylint: disable=import-outside-toplevel

    wanted = os.environ.get("TVM_TEST_TARGETS")
    names = [t.strip() for t in wanted.split(";") if t.strip()] if wanted else [_host_kind(), "cuda"]
    return [(t, device(_TARGET_DEVICES[_target_kind(t)])) for t in names if device_enabled(t)]


def parametrize_targets(*args):
    """Runs the test (taking ``target`` and, if it asks, ``dev``) once per
    target given (or per enabled target); targets not enabled here are skipped."""

    def wrap(func, targets):
        import inspect  # pylint: disable=import-outside-toplevel
        from ..runtime import device  # pylint: disable=import-outside-toplevel

        targets = list(targets) if targets else [t for t, _ in enabled_targets()] or [_host_kind()]
        params = []
        wants_dev = "dev" in inspect.signature(func).parameters
        per_target = getattr(func, "_tessera_target_marks", {})  # from exclude_targets/known_failing_targets
        for t in targets:
            marks = [] if device_enabled(t) else [pytest.mark.skip(reason=f"target {t} is not enabled here")]
            marks += [m for name, m in per_target.items() if _target_kind(name) == _target_kind(t)]
            dev = device(_TARGET_DEVICES.get(_target_kind(t), "cpu"))
            params.append(pytest.param(*((t, dev) if wants_dev else (t,)), marks=marks, id=str(t)))
        return pytest.mark.parametrize("target,dev" if wants_dev else "target", params)(func)

    if len(args) == 1 and callable(args[0]):
        return wrap(args[0], None)
    return lambda func: wrap(func, args)


def exclude_targets(*targets):
    """Skips the listed targets for this test (below @parametrize_targets)."""
    return _mark_targets(targets, pytest.mark.skip, "excluded")


def known_failing_targets(*targets):
    """Marks the listed targets as expected failures (below @parametrize_targets)."""
    return _mark_targets(targets, pytest.mark.xfail, "known failing")


def _mark_targets(targets, mark, what):
    def wrap(func):
        func._tessera_target_marks = getattr(func, "_tessera_target_marks", {})  # pylint: disable=protected-access
        for t in targets:
            func._tessera_target_marks[t] = mark(reason=f"target {t} is {what} for this test")
        return func

    return wrap


def requires_package(*packages):
    """Skips the test unless every Python package named is importable."""
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return pytest.mark.skipif(bool(missing), reason=f"requires package(s) {', '.join(missing)}")


def requires_cuda_compute_version(major_version, minor_version=0):
    """Skips the test unless a CUDA GPU of at least this compute capability exists."""
    version = _cuda_compute_version()
    ok = version is not None and version >= (major_version, minor_version)
    return pytest.mark.skipif(not ok, reason=f"requires CUDA compute capability >= {major_version}.{minor_version}")


def requires_nvcc_version(major_version, minor_version=0, release_version=0):  # pylint: disable=unused-argument
    """Tessera does not use nvcc: tests needing it are skipped."""
    return pytest.mark.skip(reason="Tessera does not compile with nvcc")


def skip_if_32bit(reason):
    return pytest.mark.skipif(struct.calcsize("P") == 4, reason=reason)

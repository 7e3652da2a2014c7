"""``tvm.contrib.nvcc``: compile CUDA C to PTX or cubin. Tessera has no nvcc
subprocess: it compiles through NVRTC (libnvrtc, loaded at run time; see
src/codegen/cuda/nvrtc.cc), found in $TESSERA_NVRTC_LIBRARY, $CUDA_HOME/lib64,
/usr/local/cuda/lib64, then PyPI's nvidia-cuda-nvrtc-cu12 (registered here).
Same entry points as TVM: compile_cuda, get_target_compute_version, have_fp16..."""
import importlib.util as _ilu
import os as _os

from .._ffi import get_global_func
from ..error import TVMValueError

_registered = False


def _register_pypi_nvrtc():
    """Tells the C++ loader where PyPI's nvidia-cuda-nvrtc-cu12 / -runtime-cu12 live (libnvrtc, cuda_fp16.h);
    cheap: locates the packages without importing them."""
    global _registered  # pylint: disable=global-statement
    if _registered:
        return
    _registered = True
    try:
        spec = _ilu.find_spec("nvidia")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations:
        return
    for root in spec.submodule_search_locations:
        lib = _os.path.join(root, "cuda_nvrtc", "lib")
        inc = _os.path.join(root, "cuda_runtime", "include")
        if _os.path.isdir(lib):
            get_global_func("codegen.NVRTCAddSearchPath")(lib, inc)


def nvrtc_info():
    """{"available", "why", "library", "version", "include_dirs"} of the NVRTC Tessera would use."""
    _register_pypi_nvrtc()
    ok, why, path, version, incs = get_global_func("codegen.NVRTCInfo")()
    return {"available": bool(ok), "why": str(why), "library": str(path), "version": str(version),
            "include_dirs": [str(d) for d in incs]}


def have_nvrtc():
    """Whether CUDA C can be compiled here (NVRTC found); for test skips."""
    return nvrtc_info()["available"]


def parse_compute_version(compute_version):
    """"8.6" -> (8, 6)."""
    parts = str(compute_version).split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        raise TVMValueError(f"compute version {compute_version!r} is not of the form major.minor") from None


def get_target_compute_version(target=None):
    """The compute version ("8.0") of `target`'s -arch, else of the current target, else of GPU 0."""
    from ..target import Target  # pylint: disable=import-outside-toplevel
    from ..runtime import cuda  # pylint: disable=import-outside-toplevel
    target = target if target is not None else Target.current(allow_none=True)
    if target is not None:
        target = target if isinstance(target, Target) else Target(target)
        arch = dict(target.attrs).get("arch")
        if arch:
            number = int(get_global_func("codegen.ParseCUDAArch")(str(arch))[0])
            return f"{number // 10}.{number % 10}"
    dev = cuda(0)
    if dev.exist:
        return str(dev.compute_version)
    raise TVMValueError("cannot tell the CUDA compute version: give the target an -arch (e.g. cuda -arch=sm_80) "
                        "or pass arch= explicitly (no GPU is present)")


def have_fp16(compute_version):
    major, minor = parse_compute_version(compute_version)
    return major > 5 or (major == 5 and minor >= 3)


def have_int8(compute_version):
    major, minor = parse_compute_version(compute_version)
    return major > 6 or (major == 6 and minor >= 1)


def have_bf16(compute_version):
    return parse_compute_version(compute_version)[0] >= 8


def have_tensorcore(compute_version=None, target=None):
    if compute_version is None:
        compute_version = get_target_compute_version(target)
    return parse_compute_version(compute_version)[0] >= 7


def compile_cuda(code, target_format="ptx", arch=None, options=None, path_target=None):
    """Compiles CUDA C `code` with NVRTC; returns the PTX or cubin as a bytearray.

    target_format: "ptx" or "cubin" ("fatbin" needs nvcc, which Tessera does not drive).
    arch: "sm_80", ["-arch=sm_80"]-style lists are accepted too; None: from the current target or GPU 0.
    options: extra NVRTC options (a string or a list), e.g. "--use_fast_math".
    path_target: also write the result to this file.
    """
    target_format = "ptx" if target_format is None else target_format
    if target_format not in ("ptx", "cubin"):
        raise TVMValueError(f"compile_cuda: target_format must be 'ptx' or 'cubin' (NVRTC), got {target_format!r}")
    if arch is None:
        major, minor = parse_compute_version(get_target_compute_version())
        arch = f"sm_{major}{minor}"
    if isinstance(arch, (list, tuple)):
        arch = arch[0] if arch else None
    arch = str(arch)
    for prefix in ("-arch=", "--gpu-architecture=", "-arch "):
        if arch.startswith(prefix):
            arch = arch[len(prefix):]
    if options is None:
        options = []
    elif isinstance(options, str):
        options = options.split()
    _register_pypi_nvrtc()
    binary, _, _ = get_global_func("codegen.NVRTCCompile")(code, arch, target_format, [str(o) for o in options])
    data = bytearray(str(binary).encode("latin-1"))
    if path_target:
        with open(path_target, "wb") as f:
            f.write(data)
    return data

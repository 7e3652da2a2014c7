"""``tvm.contrib.cc``: drives the system C/C++ compiler and archiver
(``create_shared``, ``create_executable``, ``create_staticlib``) the way
TVM's helper of that name does; a failing compiler raises RuntimeError with
its command and output. Tessera's own ``export_library`` links by itself and
does not take these as ``fcompile``."""
import os
import shutil
import subprocess

from ..error import TVMError


def _compiler(cc):
    cc = cc or os.environ.get("CXX") or "g++"
    if shutil.which(cc.split()[0]) is None:
        raise TVMError(f"tvm.contrib.cc: compiler {cc!r} not found")
    return cc.split()


def _as_list(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _run(cmd, cwd=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd)
    if proc.returncode != 0:
        raise TVMError(f"Compilation error ({' '.join(cmd)}):\n{proc.stdout}{proc.stderr}")


def create_shared(output, objects, options=None, cc=None, cwd=None):
    """Links ``objects`` (object files, archives, sources or linker flags) into the shared library ``output``;
    the compiler runs in ``cwd`` (relative paths are read there) when given."""
    _run(_compiler(cc) + ["-shared", "-fPIC", "-o", os.fspath(output)] + _as_list(objects) + _as_list(options), cwd)


def create_executable(output, objects, options=None, cc=None, cwd=None):
    """Links ``objects`` into the executable ``output``; the compiler runs in ``cwd`` when given."""
    _run(_compiler(cc) + ["-o", os.fspath(output)] + _as_list(objects) + _as_list(options), cwd)


def create_staticlib(output, inputs, ar=None):
    """Archives the object files ``inputs`` into the static library ``output``."""
    ar = ar or os.environ.get("AR") or "ar"
    if shutil.which(ar) is None:
        raise TVMError(f"tvm.contrib.cc: archiver {ar!r} not found")
    if os.path.exists(output):
        os.remove(output)
    _run([ar, "crs", os.fspath(output)] + _as_list(inputs))


create_shared.output_format = "so"
create_executable.output_format = ""
create_staticlib.output_format = "a"

__all__ = ["create_shared", "create_executable", "create_staticlib"]

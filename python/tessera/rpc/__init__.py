"""``tvm.rpc``: the local session (``rpc.LocalSession()``), which runs what a
remote session would, in this process: ``upload`` copies files into the
session's directory, ``load_module`` loads them from there, ``cpu()``/
``device()`` are this machine's devices. Network sessions (``rpc.Server``,
``rpc.connect``, trackers, proxies) are not implemented: using them raises
NotImplementedError naming them."""
import os
import shutil

from .._unavailable import missing_attribute
from ..error import TVMFileNotFoundError, TVMTypeError


class LocalSession:
    """A session whose "remote" side is this process."""

    def __init__(self):
        from ..contrib.utils import tempdir  # pylint: disable=import-outside-toplevel

        self._temp = tempdir()

    def _path(self, name):
        if not isinstance(name, str) or not name:
            raise TVMTypeError(f"LocalSession: a file name is expected, got {name!r}")
        return self._temp.relpath(os.path.basename(name) if os.path.isabs(name) else name)

    def upload(self, data, target=None):
        """Stores ``data`` (a local file path, or bytes with ``target`` naming the file) in the session."""
        if isinstance(data, (bytes, bytearray)):
            if not target:
                raise TVMTypeError("LocalSession.upload: bytes need a target file name")
            with open(self._path(target), "wb") as f:
                f.write(data)
            return
        data = os.fspath(data)
        if not os.path.isfile(data):
            raise TVMFileNotFoundError(f"LocalSession.upload: no such file: {data}")
        shutil.copyfile(data, self._path(target or os.path.basename(data)))

    def download(self, path):
        """The bytes of a file of the session."""
        full = self._path(path)
        if not os.path.isfile(full):
            raise TVMFileNotFoundError(f"LocalSession.download: no such file in the session: {path}")
        with open(full, "rb") as f:
            return f.read()

    def remove(self, path):
        """Deletes a file of the session."""
        full = self._path(path)
        if os.path.exists(full):
            os.remove(full)

    def listdir(self, path="."):
        """The file names in the session's directory."""
        return os.listdir(self._path(path))

    def load_module(self, path):
        """Loads a library uploaded to the session."""
        from ..runtime.module import load_module  # pylint: disable=import-outside-toplevel

        return load_module(self._path(path))

    def get_function(self, name):
        """A registered global function of the session."""
        from .._ffi.registry import get_global_func  # pylint: disable=import-outside-toplevel

        return get_global_func(name)

    def device(self, dev_type, dev_id=0):
        from ..runtime import device  # pylint: disable=import-outside-toplevel

        return device(dev_type, dev_id)

    def cpu(self, dev_id=0):
        return self.device("cpu", dev_id)

    def cuda(self, dev_id=0):
        return self.device("cuda", dev_id)


__getattr__ = missing_attribute("rpc")

__all__ = ["LocalSession"]

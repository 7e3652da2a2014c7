"""``tvm.contrib.popen_pool.PopenWorker``: runs a function in a separate
Python process (fresh interpreter state, e.g. to load a library that
registers globals) and returns its result or re-raises its exception; a call
past its timeout kills the worker and raises TimeoutError (tvm.error's twin). Functions travel
with cloudpickle, so closures work."""
import os
import pickle
import select
import struct
import subprocess
import sys

from ..error import TVMError, TVMOSError, TVMTimeoutError

_WORKER = r"""
import os, pickle, struct, sys
import cloudpickle
out = os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)  # what the function prints goes to stderr, the reply pipe stays clean
src = sys.stdin.buffer
while True:
    head = src.read(8)
    if len(head) < 8:
        break
    fn, args, kwargs = cloudpickle.loads(src.read(struct.unpack("<Q", head)[0]))
    try:
        reply = (True, fn(*args, **kwargs))
    except BaseException as err:  # sent back to the caller
        reply = (False, err)
    try:
        data = cloudpickle.dumps(reply)
    except Exception as err:
        data = cloudpickle.dumps((False, RuntimeError(f"PopenWorker: result not picklable: {err}")))
    out.write(struct.pack("<Q", len(data)) + data)
    out.flush()
"""


class PopenWorker:
    """A worker process: ``send(fn, args, kwargs, timeout)`` then ``recv()``."""

    def __init__(self, initializer=None, initargs=(), maximum_uses=None, stdout=None, stderr=None):
        self._initializer, self._initargs = initializer, tuple(initargs)
        self._maximum_uses = maximum_uses
        self._stdout, self._stderr = stdout, stderr
        self._proc = None
        self._uses = 0
        self._timeout = None
        self._pending = False

    def _start(self):
        import cloudpickle  # pylint: disable=import-outside-toplevel,unused-import

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get("PYTHONPATH", "")])
        self._proc = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, env=env)
        self._uses = 0
        if self._initializer is not None:
            self._write(self._initializer, self._initargs, {})
            self._read(None)

    def _write(self, fn, args, kwargs):
        import cloudpickle  # pylint: disable=import-outside-toplevel

        data = cloudpickle.dumps((fn, tuple(args), dict(kwargs or {})))
        self._proc.stdin.write(struct.pack("<Q", len(data)) + data)
        self._proc.stdin.flush()

    def _read_exact(self, n, deadline_s):
        fd = self._proc.stdout.fileno()
        chunks, left = [], n
        while left:
            if deadline_s is not None:
                ready, _, _ = select.select([fd], [], [], deadline_s)
                if not ready:
                    self.kill()
                    raise TVMTimeoutError(f"PopenWorker: no result within {deadline_s}s")
            chunk = os.read(fd, left)
            if not chunk:
                code = self._proc.wait()
                self._proc = None
                raise TVMOSError(f"PopenWorker: the worker process exited (code {code})")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _read(self, timeout):
        size = struct.unpack("<Q", self._read_exact(8, timeout))[0]
        ok, value = pickle.loads(self._read_exact(size, timeout))
        if not ok:
            raise value
        return value

    def send(self, fn, args=(), kwargs=None, timeout=None):
        """Starts ``fn(*args, **kwargs)`` in the worker (starting the worker when needed)."""
        if self._pending:
            raise TVMError("PopenWorker.send: the previous result has not been received")
        if self._proc is None or self._proc.poll() is not None or (
                self._maximum_uses and self._uses >= self._maximum_uses):
            self.kill()
            self._start()
        self._write(fn, args, kwargs)
        self._uses += 1
        self._timeout = timeout
        self._pending = True

    def recv(self):
        """The result of the last ``send`` (its exception re-raised here)."""
        if not self._pending:
            raise TVMError("PopenWorker.recv: nothing was sent")
        self._pending = False
        return self._read(self._timeout)

    def kill(self):
        """Stops the worker process."""
        if self._proc is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        self._pending = False

    def __del__(self):
        try:
            self.kill()
        except Exception:  # pylint: disable=broad-except
            pass


__all__ = ["PopenWorker"]

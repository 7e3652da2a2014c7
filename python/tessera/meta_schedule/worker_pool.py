"""Worker processes for the builder and the runner: each call runs a named function in a
separate (spawned) Python process with a time limit. A call that crashes the worker
(segfault, abort, os._exit) or runs past its limit kills that worker, starts a fresh
one and reports the failure to the caller instead of raising in the tuning process."""
import importlib
import multiprocessing
import threading
import traceback

from ..error import TVMError, TVMValueError


class WorkerFailure(Exception):
    """A worker call that crashed, timed out or raised; ``kind`` is "crash", "timeout",
    "error" or "bootstrap" (the worker died while importing the main script)."""

    def __init__(self, kind, message):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


BOOTSTRAP_HINT = ("worker processes are spawned and import the main script first; a script that starts tuning "
                   "when imported must guard its entry point with `if __name__ == \"__main__\":`")


class RestartWorker(Exception):
    """Raised by a function run in a worker: reported as that call's error, after which the
    worker process exits and the next call starts a fresh one (e.g. a CUDA context a
    faulting kernel left unusable)."""


def _worker_main(conn):
    conn.send(("ready", None))  # the main script and this module imported: bootstrap done
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        module, name, args = job
        try:
            fn = getattr(importlib.import_module(module), name)
            result = ("ok", fn(*args))
        except BaseException as err:  # noqa: BLE001 -- report every failure to the parent
            result = ("error", f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=6)}")
            if isinstance(err, RestartWorker):
                conn.send(("restart", result[1]))
                return
        conn.send(result)


class Worker:
    """One worker process, restarted after a crash or timeout."""

    def __init__(self):
        self._ctx = multiprocessing.get_context("spawn")
        self._proc = None
        self._conn = None

    def _start(self):
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child,), daemon=True)
        try:
            proc.start()
        finally:
            child.close()
        self._proc, self._conn = proc, parent
        self._ready = False

    def _kill(self):
        if self._proc is not None and self._proc.pid is not None:  # started (a failed start has no pid)
            self._proc.kill()
            self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = None
        self._conn = None

    def call(self, module, name, args, timeout):
        """Runs ``module.name(*args)`` in the worker; its result, or WorkerFailure."""
        if self._proc is None or not self._proc.is_alive():
            self._kill()
            self._start()
        try:
            self._conn.send((module, name, args))
            while True:
                if timeout is not None and not self._conn.poll(timeout):
                    self._kill()
                    raise WorkerFailure("timeout", f"{name} ran past its time limit of {timeout} s")
                status, value = self._conn.recv()
                if status != "ready":
                    break
                self._ready = True
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            code = self._proc.exitcode if self._proc is not None else None
            if self._proc is not None:
                self._proc.join(timeout=5)
                code = self._proc.exitcode
            started = self._ready
            self._kill()
            if not started:
                raise WorkerFailure("bootstrap", f"{name}: the worker process died while starting, before it could "
                                    f"run anything (exit code {code}): {BOOTSTRAP_HINT}") from None
            raise WorkerFailure("crash", f"{name}: the worker process died (exit code {code})") from None
        if status == "restart":  # the worker exits after this error: the next call starts a fresh one
            self._kill()
        if status != "ok":
            raise WorkerFailure("error", value)
        return value

    def close(self):
        if self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
                self._proc.join(timeout=2)
            except (OSError, BrokenPipeError):
                pass
        self._kill()


class WorkerPool:
    """``n`` Workers; ``map`` runs one call per item, up to ``n`` at a time, and returns
    for each item its result or the WorkerFailure it met; a worker that cannot even
    start (it died importing the main script) raises TVMError saying what to do."""

    def __init__(self, n):
        if n < 1:
            raise TVMValueError(f"a worker pool needs at least one worker, got {n}")
        self.workers = [Worker() for _ in range(n)]

    def map(self, module, name, arg_list, timeout):
        results = [None] * len(arg_list)
        lock = threading.Lock()
        next_item = [0]

        def drive(worker):
            while True:
                with lock:
                    i = next_item[0]
                    next_item[0] += 1
                if i >= len(arg_list):
                    return
                try:
                    results[i] = worker.call(module, name, arg_list[i], timeout)
                except WorkerFailure as err:
                    results[i] = err

        threads = [threading.Thread(target=drive, args=(w,)) for w in self.workers[:max(1, len(arg_list))]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for res in results:
            if isinstance(res, WorkerFailure) and res.kind == "bootstrap":
                # Not about this item: no worker can ever start, so tuning cannot go on.
                raise TVMError(res.message)
        return results

    def close(self):
        for w in self.workers:
            w.close()

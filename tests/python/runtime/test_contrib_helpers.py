"""tvm.contrib helpers TVM's tests use: utils.tempdir, cc (the system
compiler: a shared library built from C and called through ctypes, a static
archive), popen_pool.PopenWorker (results, exceptions and a timeout from a
separate process), and rpc.LocalSession (upload, load_module, devices) running
an exported Relax executable checked against NumPy."""
import ctypes
import os

import numpy as np
import pytest
import tessera as tvm
from tessera import relax, rpc
from tessera.contrib import cc, popen_pool, utils


def test_tempdir_relpath_and_removal():
    tmp = utils.tempdir()
    path = tmp.relpath("a.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("x")
    assert tmp.listdir() == ["a.txt"]
    root = tmp.temp_dir
    tmp.remove()
    assert not os.path.exists(root)


def test_cc_create_shared_and_staticlib():
    tmp = utils.tempdir()
    src = tmp.relpath("f.c")
    with open(src, "w", encoding="utf-8") as f:
        f.write("int twice_plus(int x, int y) { return 2 * x + y; }\n")
    so = tmp.relpath("libf.so")
    cc.create_shared(so, [src], cc="gcc")
    lib = ctypes.CDLL(so)
    assert lib.twice_plus(20, 2) == 42
    obj = tmp.relpath("f.o")
    import subprocess  # pylint: disable=import-outside-toplevel
    subprocess.run(["gcc", "-c", "-fPIC", src, "-o", obj], check=True)
    cc.create_staticlib(tmp.relpath("libf.a"), [obj])
    assert os.path.getsize(tmp.relpath("libf.a")) > 0
    with pytest.raises(RuntimeError, match="Compilation error"):
        cc.create_shared(tmp.relpath("bad.so"), [tmp.relpath("missing.c")], cc="gcc")
    # cwd: relative sources and output are resolved there (refused when it is elsewhere).
    cc.create_shared("librel.so", ["f.c"], cc="gcc", cwd=tmp.temp_dir)
    assert ctypes.CDLL(tmp.relpath("librel.so")).twice_plus(1, 1) == 3
    with pytest.raises(RuntimeError, match="Compilation error"):
        cc.create_shared("librel2.so", ["f.c"], cc="gcc", cwd=os.path.dirname(tmp.temp_dir))


def _square_sum(values):
    return sum(v * v for v in values)


def test_popen_worker_result_exception_timeout():
    worker = popen_pool.PopenWorker()
    worker.send(_square_sum, ([1, 2, 3],))
    assert worker.recv() == 14
    pid = os.getpid()
    worker.send(lambda: os.getpid() != pid)  # a closure, run in another process
    assert worker.recv() is True
    worker.send(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        worker.recv()
    import time  # pylint: disable=import-outside-toplevel
    worker.send(time.sleep, (30,), timeout=0.5)
    with pytest.raises(TimeoutError):
        worker.recv()
    worker.send(_square_sum, ([4],))  # a fresh worker after the timeout
    assert worker.recv() == 16
    worker.kill()


def test_rpc_local_session_runs_an_exported_executable():
    x = relax.Var("x", relax.TensorStructInfo((3, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit(relax.op.multiply(x, x))
        bb.emit_func_output(out)
    tmp = utils.tempdir()
    path = tmp.relpath("exec.so")
    relax.build(bb.get(), target="llvm").export_library(path)
    remote = rpc.LocalSession()
    remote.upload(path)
    assert "exec.so" in remote.listdir()
    dev = remote.cpu()
    vm = relax.VirtualMachine(remote.load_module("exec.so"), dev)
    a = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a, dev)).numpy(), a * a, rtol=1e-6)
    assert remote.download("exec.so") == open(path, "rb").read()  # pylint: disable=consider-using-with
    with pytest.raises(FileNotFoundError):
        remote.load_module("absent.so")
    with pytest.raises(NotImplementedError, match="rpc.connect"):
        rpc.connect("127.0.0.1", 9090)

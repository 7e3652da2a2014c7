"""`tvm.runtime.load_module` on a path that is not a regular file (issue K2
item 6): a FIFO used to block forever and a directory raised libstdc++'s
"basic_filebuf::underflow"; both now raise ValueError naming the path and
what it is, before anything is read. Subprocess cases (harness.py) with a
short time limit, so a hang fails the test."""
import os
import socket
import tempfile

import pytest

from .harness import expect_error


@pytest.mark.parametrize("kind", ["fifo", "directory", "socket", "char_device"])
def test_load_module_of_non_regular_file_raises_value_error(kind):
    tmp = tempfile.mkdtemp(prefix="tessera_rel_")
    path = os.path.join(tmp, "lib.so")
    sock = None
    if kind == "fifo":
        os.mkfifo(path)
        what = "FIFO"
    elif kind == "directory":
        os.mkdir(path)
        what = "directory"
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        what = "socket"
    else:
        path, what = "/dev/null", "character device"
    try:
        expect_error(f"tvm.runtime.load_module({path!r})", "ValueError", what, timeout=30)
        expect_error(f"tvm.runtime.load_module({path!r})", "tvm.error.TVMError", path, timeout=30)
    finally:
        if sock is not None:
            sock.close()


def test_load_module_of_missing_file_still_raises_file_not_found():
    expect_error("tvm.runtime.load_module('/nonexistent/dir/lib.so')", "FileNotFoundError", "/nonexistent/dir/lib.so")

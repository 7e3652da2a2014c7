"""Fuzz target (d): tvm.runtime.load_module on corrupted exported libraries.
A small elementwise kernel is built and exported once; each input truncates
and/or overwrites bytes of that file (byte offsets chosen by the fuzzer),
writes it to a fresh path and loads it. Loading must succeed or raise a
TVMError subclass naming the file. Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_load_module.py"""
import itertools
import os
import tempfile

import fuzz_common as fc
from fuzz_common import tvm

_TMP = tempfile.mkdtemp(prefix="tessera-fuzz-lib-")
_COUNTER = itertools.count()


_SRC = '''
@T.prim_func
def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + T.float32(1)
'''
_func = tvm.script.from_source(_SRC).with_attr("global_symbol", "add_one")
_PATH = os.path.join(_TMP, "reference.so")
tvm.build(_func, target="llvm").export_library(_PATH)
with open(_PATH, "rb") as _f:
    REFERENCE = _f.read()


def body(fdp):
    data = bytearray(REFERENCE)
    if fdp.ConsumeBool():
        del data[fdp.ConsumeIntInRange(0, len(data)):]
    for _ in range(fdp.ConsumeIntInRange(0, 16)):
        if not data or fdp.remaining_bytes() == 0:
            break
        # Bias offsets toward the headers: most of the structure lives in the first pages.
        hi = len(data) - 1 if fdp.ConsumeBool() else min(len(data) - 1, 4095)
        pos = fdp.ConsumeIntInRange(0, hi)
        data[pos] = fdp.ConsumeIntInRange(0, 255)
    path = os.path.join(_TMP, f"m{next(_COUNTER)}.so")
    with open(path, "wb") as f:
        f.write(data)
    try:
        tvm.runtime.load_module(path)
    except Exception as e:  # noqa: BLE001
        desc = fc.check_exception(e, "load_module")
        if desc:
            raise fc.Finding(desc) from e
    finally:
        os.unlink(path)


if __name__ == "__main__":
    fc.main("load_module", body)

"""tests/compat/parse_corpus.py, the TVMScript corpus measurement, on a small
hand-made tree shaped like TVM's tests/python: what it extracts and counts
(top level, class members, nested, under pytest.raises), and the reasons it
reports, checked against the known contents."""
import os
import subprocess
import sys
import textwrap

import pytest

RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "compat", "parse_corpus.py")

GOOD = '''
import tvm
from tvm.script import tir as T, ir as I
import pytest

N = 8


@T.prim_func
def good(A: T.Buffer((N,), "float32")):
    for i in range(N):
        A[i] = T.float32(1)


@T.prim_func
def unknown(A: T.Buffer((N,), "float32")):
    A[0] = T.no_such_builtin(1)


class TestCase:
    @T.prim_func
    def before(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(0)


def test_nested():
    M = 4

    @T.prim_func
    def inner(A: T.Buffer((M,), "float32")):
        A[0] = T.float32(2)

    with pytest.raises(Exception):
        @T.prim_func
        def broken(A: T.Buffer((4,), "float32")):
            A[0] = undefined_name
'''

MODULE = '''
from tvm.script import tir as T, ir as I


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(3)
'''


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("tvm_tests")
    for directory in ("tir-schedule", "tir-transform", "tvmscript"):
        os.makedirs(root / directory)
    (root / "tir-schedule" / "test_a.py").write_text(textwrap.dedent(GOOD))
    (root / "tvmscript" / "test_b.py").write_text(textwrap.dedent(MODULE))
    (root / "tir-transform" / "not_a_test.py").write_text(textwrap.dedent(GOOD))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(os.path.dirname(__file__), "..", "..", "..", "python")
    proc = subprocess.run([sys.executable, RUNNER, str(root), "--nested", "--list-failures", "10"], capture_output=True,
                          text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_counts_per_directory(corpus):
    lines = {line.split()[0]: line.split() for line in corpus.splitlines() if line[:1].isalpha()}
    # tir-schedule: good, unknown, TestCase.before at top level (2 parse); inner nested (parses); broken not counted.
    assert lines["tir-schedule"][1:4] == ["2/3", "66.7%", "1/1"] and lines["tir-schedule"][-1] == "1"
    assert lines["tvmscript"][1:3] == ["1/1", "100.0%"]
    assert lines["tir-transform"][1:3] == ["0/0", "n/a"]  # only test_*.py files are read
    assert lines["total"][1] == "3/4"


def test_failure_reasons_and_list(corpus):
    assert "1  parse: ParseError: unknown TVMScript function '_'" in corpus
    assert "tir-schedule/test_a.py:" in corpus and "unknown: " in corpus and "T.no_such_builtin" in corpus

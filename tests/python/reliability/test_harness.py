"""The harness itself: a crash, a hang and a runaway allocation are each
reported as such instead of taking pytest down."""
from .harness import run_case, expect_error


def test_a_segfault_is_reported_as_a_crash():
    res = run_case("import ctypes; ctypes.string_at(0)")
    assert res.crashed and not res.timed_out


def test_a_hang_is_reported_as_timed_out():
    res = run_case("while True: pass", timeout=2)
    assert res.timed_out


def test_the_memory_cap_holds():
    res = run_case("x = bytearray(8 * 1024 ** 3)", mem_mb=1024)
    assert res.returncode != 0 and "MemoryError" in res.stderr


def test_expect_error_checks_class_and_message():
    expect_error("tvm.tir.Var(1, 'int32')", "TypeError", "")

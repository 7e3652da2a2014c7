"""Issue 9, parser items: hostile or mistaken TVMScript text must give a
ParseError at line:column, never a wrapped constant, a silently dropped
statement, a cut message or an encoding error. Each case runs in a
subprocess (harness.py) where the input could crash the process."""
import pytest

import tessera as tvm

from .harness import expect_error


def body_source(body):
    return "@T.prim_func\ndef f():\n" + "".join("    " + line + "\n" for line in body)


def parse_error(source):
    with pytest.raises(tvm.error.ParseError) as info:
        tvm.script.from_source(source)
    return str(info.value)


# ---- (11) float arguments to integer scalar constructors -------------------------

@pytest.mark.parametrize("expr,dtype", [
    ("T.int32(1e10)", "int32"), ("T.int8(1000.0)", "int8"), ("T.uint8(-1.0)", "uint8"),
    ("T.int64(1e19)", "int64"), ("T.int32(2147483648.0)", "int32"), ("T.int32(T.float32('inf'))", "int32"),
    ("T.int16(T.float64('nan'))", "int16"), ("T.int32(T.float32(1e10))", "int32"),
])
def test_out_of_range_float_to_int_is_a_parse_error(expr, dtype):
    message = parse_error(body_source([f"T.evaluate({expr})"]))
    first = message.splitlines()[0]
    assert first.startswith("<string>:3:"), message
    assert "cannot convert the float constant" in first and f"to {dtype}" in first, message
    col = int(first.split(":")[2])
    assert message.splitlines()[1][4:][col - 1:].startswith(expr.split("(")[1][:3]), message


@pytest.mark.parametrize("expr,dtype,value", [
    ("T.int32(2147483647.0)", "int32", 2147483647), ("T.int32(-2147483648.0)", "int32", -2147483648),
    ("T.int32(1.9)", "int32", 1), ("T.int32(-1.9)", "int32", -1),  # truncation toward zero, as TVM's cast
    ("T.uint8(255.0)", "uint8", 255), ("T.int8(-0.5)", "int8", 0), ("T.int64(9.0e18)", "int64", 9 * 10**18),
])
def test_in_range_float_to_int_truncates_toward_zero(expr, dtype, value):
    f = tvm.script.from_source(body_source([f"T.evaluate({expr})"]))
    const = f.body.value
    assert isinstance(const, tvm.tir.IntImm) and const.dtype == dtype and const.value == value


def test_cast_of_float_constant_checks_the_range_outside_the_parser_too():
    with pytest.raises(ValueError, match="out of its range"):
        tvm.tir.const(300.0, "float32").astype("int8")
    assert tvm.tir.const(-7.5, "float64").astype("int32").value == -7


# ---- (12) an unknown T. attribute is an error where it is bound ----------------------

def test_source_cut_at_an_axis_attribute_is_an_error():
    source = body_source(["for i in range(4):", "    with T.block('b'):", "        vi = T.axis.spat"])
    message = parse_error(source)
    assert message.startswith("<string>:5:18: error: unknown TVMScript name 'T.axis.spat'"), message


@pytest.mark.parametrize("name", ["T.flot32", "T.axis.spat", "T.no_such", "T.grid.x"])
def test_binding_an_unknown_name_fails(name):
    message = parse_error(body_source([f"x = {name}", "T.evaluate(0)"]))
    assert f"unknown TVMScript name '{name}'" in message and message.startswith("<string>:3:9:"), message


def test_binding_known_names_still_works():
    f = tvm.script.from_source(body_source(["m = T.max", "ax = T.axis", "t = T.float32", "T.evaluate(m(1, 2))"]))
    assert f.body.value.value == 2


# ---- NUL and lone surrogates in the source ------------------------------------------

def test_nul_in_code_gives_a_located_parse_error():
    expect_error(r'''
tvm.script.from_source("@T.prim_func\ndef f():\n    T.evaluate(0)\x00\n")
''', "tvm.error.ParseError", "<string>:3:18: error: the source contains a NUL character (U+0000)")


def test_nul_in_a_comment_is_refused_and_the_message_is_whole():
    res = expect_error(r'''
tvm.script.from_source("@T.prim_func\ndef f():\n    # x\x00y\n    T.evaluate(0)\n")
''', "tvm.error.ParseError", "<string>:3:8: error: the source contains a NUL character")
    del res
    message = parse_error("@T.prim_func\ndef f():\n    # x\x00y\n    T.evaluate(0)\n")
    assert "\x00" not in message and message.splitlines()[1] == "        # x?y", message


def test_lone_surrogate_gives_a_located_parse_error():
    expect_error(r'''
tvm.script.from_source("@T.prim_func\ndef f():\n    T.evaluate(0)\n    x = '\ud800'\n")
''', "tvm.error.ParseError", "<string>:4:10: error: the source contains a lone surrogate \\ud800")
    message = parse_error("@T.prim_func\ndef f():\n    T.evaluate(0)  # \udcff\n")
    lines = message.splitlines()
    assert lines[0].startswith("<string>:3:22:"), message
    assert lines[2].index("^") == lines[1].index("\\udcff") and lines[2].count("^") == 6, message


def test_control_character_is_named_not_printed_raw():
    message = parse_error(body_source(["T.evaluate(0)\x01"]))
    assert "unexpected control character U+0001" in message and "\x01" not in message, message

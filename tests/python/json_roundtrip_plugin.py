"""pytest plugin (``-p json_roundtrip_plugin``): every module or function the
TVMScript parser returns during the run is saved with ``tvm.ir.save_json``,
loaded back and checked: structurally equal to the original, and saving the
loaded copy gives the same text (names and spans included). A mismatch fails
the test that parsed the module. test_ir_serialization.py runs the TIR test
files under this plugin."""
import tessera as tvm

_STATS = {"roundtrips": 0}


def pytest_configure(config):  # pylint: disable=unused-argument
    parse = tvm.get_global_func("script.ParseTIR")

    def parse_and_roundtrip(*args):
        result = parse(*args)
        text = tvm.ir.save_json(result)
        loaded = tvm.ir.load_json(text)
        tvm.ir.assert_structural_equal(result, loaded, map_free_vars=True)
        if tvm.ir.save_json(loaded) != text:
            raise AssertionError("JSON round trip is not a fixed point for a parsed module")
        _STATS["roundtrips"] += 1
        return result

    tvm.register_func("script.ParseTIR", parse_and_roundtrip, override=True)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"json-roundtrip: {_STATS['roundtrips']} parsed modules round-tripped")

"""pytest plugin (``-p json_roundtrip_plugin``): every module or function the
TVMScript parser returns during the run is saved with ``tvm.ir.save_json``,
loaded back and checked: structurally equal to the original, and saving the
loaded copy gives the same text (names and spans included); a module with
Relax functions also prints the same (struct info annotations included). A mismatch fails
the test that parsed the module. test_ir_serialization.py runs the TIR test
files under this plugin."""
import tessera as tvm

_STATS = {"roundtrips": 0}


def _has_relax(obj):
    try:
        function = tvm.relax.Function
    except (AttributeError, NotImplementedError):
        return False
    if isinstance(obj, tvm.IRModule):
        return any(isinstance(f, function) for _, f in obj.functions.items())
    return isinstance(obj, function)


def pytest_configure(config):  # pylint: disable=unused-argument
    parse = tvm.get_global_func("script.ParseTIR")

    def parse_and_roundtrip(*args):
        result = parse(*args)
        text = tvm.ir.save_json(result)
        loaded = tvm.ir.load_json(text)
        tvm.ir.assert_structural_equal(result, loaded, map_free_vars=True)
        if tvm.ir.save_json(loaded) != text:
            raise AssertionError("JSON round trip is not a fixed point for a parsed module")
        if _has_relax(result):
            # Struct info (annotations) is not compared by structural equality
            # everywhere; the printout shows all of it.
            before, after = result.script(show_meta=True), loaded.script(show_meta=True)
            if before != after:
                raise AssertionError(f"a Relax module prints differently after a JSON round trip:\n{before}\n---\n{after}")
        _STATS["roundtrips"] += 1
        return result

    tvm.register_func("script.ParseTIR", parse_and_roundtrip, override=True)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"json-roundtrip: {_STATS['roundtrips']} parsed modules round-tripped")

"""Fuzz target (b): printer -> parser round trip. A mutated seed that parses
is printed with .script(), parsed again and must be structurally equal to the
first parse; a printed text that no longer parses or differs is a finding.
Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_roundtrip.py"""
import fuzz_common as fc
from fuzz_common import tvm

SEEDS = fc.load_seeds()


def body(fdp):
    text = fc.mutate_text(SEEDS[fdp.ConsumeIntInRange(0, len(SEEDS) - 1)], fdp, max_ops=4)
    try:
        first = tvm.script.from_source(text)
    except Exception as e:  # noqa: BLE001
        desc = fc.check_exception(e, "from_source")
        if desc:
            raise fc.Finding(desc) from e
        return
    try:
        printed = first.script()
    except Exception as e:  # noqa: BLE001
        raise fc.Finding(f"script() of a parsed module: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from e
    try:
        second = tvm.script.from_source(printed)
    except Exception as e:  # noqa: BLE001
        raise fc.Finding(f"printed text does not parse: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from e
    try:
        tvm.ir.assert_structural_equal(first, second, map_free_vars=True)
    except Exception as e:  # noqa: BLE001
        raise fc.Finding(f"round trip not structurally equal: {str(e).splitlines()[0][:200]}") from e


if __name__ == "__main__":
    fc.main("roundtrip", body)

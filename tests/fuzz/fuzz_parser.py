"""Fuzz target (a): the TVMScript parser. Each input picks a seed program from
seeds.txt and edits it (fuzz_common.mutate_text); tvm.script.from_source must
either succeed or raise a TVMError subclass (ParseError) -- never a signal,
an InternalError or another exception. Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_parser.py"""
import fuzz_common as fc
from fuzz_common import tvm

SEEDS = fc.load_seeds()


def body(fdp):
    text = fc.mutate_text(SEEDS[fdp.ConsumeIntInRange(0, len(SEEDS) - 1)], fdp)
    try:
        tvm.script.from_source(text)
    except Exception as e:  # noqa: BLE001
        desc = fc.check_exception(e, "from_source")
        if desc:
            raise fc.Finding(desc) from e


if __name__ == "__main__":
    fc.main("parser", body)

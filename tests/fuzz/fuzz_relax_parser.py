"""Fuzz target (e): the Relax TVMScript parser. Each input picks a Relax module
of seeds_relax.txt (extracted from the conformance chapters and the Relax tests)
and edits it with Relax tokens; tvm.script.from_source must either succeed or
raise a TVMError subclass. A module that parses must also print, and its printed
text must parse back to a structurally equal module (print -> parse is a fixed
point). Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_relax_parser.py"""
import fuzz_common as fc
from fuzz_common import tvm

SEEDS = fc.load_seeds("seeds_relax.txt")


def body(fdp):
    text = fc.mutate_text(SEEDS[fdp.ConsumeIntInRange(0, len(SEEDS) - 1)], fdp, tokens=fc.RELAX_TOKENS)
    fc.check_parse_round_trip(text)


if __name__ == "__main__":
    fc.main("relax_parser", body)

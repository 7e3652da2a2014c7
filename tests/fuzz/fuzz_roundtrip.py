"""Fuzz target (b): printer -> parser round trip. A mutated seed that parses
is printed with .script(), parsed again and must be structurally equal to the
first parse; a printed text that no longer parses or differs is a finding.
Run: FUZZ_SECONDS=60 python tests/fuzz/fuzz_roundtrip.py"""
import fuzz_common as fc
from fuzz_common import tvm

SEEDS = fc.load_seeds()


def body(fdp):
    text = fc.mutate_text(SEEDS[fdp.ConsumeIntInRange(0, len(SEEDS) - 1)], fdp, max_ops=4)
    fc.check_parse_round_trip(text)


if __name__ == "__main__":
    fc.main("roundtrip", body)

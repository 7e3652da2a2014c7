"""The Relax TVMScript parser on malformed input: a ParseError with a
location, never a crash (each case in a capped subprocess)."""
import pytest

from .harness import expect_error

IF_HEAD = '''
@I.ir_module
class M:
    @R.function
    def main(cond: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if cond:
            y = R.add(x, x)
        else:
'''


@pytest.mark.parametrize("last", ["y = R.mult", "y = R.add", "y = R", "y = R.nn"])
def test_if_branch_ending_in_a_non_relax_value(last):
    """Found by fuzz_relax_parser (a truncated `y = R.multiply(...)`): the branch
    bound no Relax value and the parser read past an empty block (SIGSEGV)."""
    text = IF_HEAD + "            " + last + "\n        return y\n"
    expect_error(f"tvm.script.from_source({text!r})", "tvm.error.ParseError", "last statement of each branch")

"""The README's examples run as written (they are the first thing a user tries):
every ```python block of its "## Example" section, each in a fresh namespace."""
import pathlib
import re
import runpy

import pytest

README = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
SECTION = re.search(r"## Example\n(.*?)(?=\n## )", README, re.S).group(1)
BLOCKS = re.findall(r"```python\n(.*?)```", SECTION, re.S)


def test_readme_has_the_tir_and_the_relax_example():
    assert len(BLOCKS) == 2
    assert "tvm.tir.Schedule" in BLOCKS[0] and "relax.VirtualMachine" in BLOCKS[1]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(tmp_path, index):
    script = tmp_path / f"readme_example_{index}.py"  # TVMScript needs its source in a file
    script.write_text(BLOCKS[index])
    runpy.run_path(str(script))

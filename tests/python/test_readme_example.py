"""The README's example runs as written (it is the first thing a user tries)."""
import pathlib
import re
import runpy


def test_readme_example_runs(tmp_path):
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    code = re.search(r"## Example\n\n```python\n(.*?)```", readme, re.S).group(1)
    script = tmp_path / "readme_example.py"  # TVMScript needs its source in a file
    script.write_text(code)
    runpy.run_path(str(script))

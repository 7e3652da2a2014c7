"""Reliability harness: runs a snippet of Python that uses Tessera in a fresh
subprocess under a memory cap and a time limit, so that a crash (a signal),
a runaway allocation or a hang fails the test instead of killing pytest.
Used by every test in tests/python/reliability/."""
import os
import resource
import subprocess
import sys
import textwrap
from dataclasses import dataclass

_PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))


@dataclass
class CaseResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool

    @property
    def crashed(self):
        """Killed by a signal (segfault, abort, SIGFPE, SIGBUS, OOM kill)."""
        return self.returncode < 0

    def describe(self):
        what = "timed out" if self.timed_out else f"exit status {self.returncode}"
        return f"{what}\n--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"


def run_case(code, timeout=60, mem_mb=4096, env=None):
    """Runs ``code`` (dedented) with ``import tessera as tvm`` available in a
    subprocess limited to ``mem_mb`` MiB of address space and ``timeout`` s."""
    code = textwrap.dedent(code)

    def limit():
        cap = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = _PYTHON_DIR + (os.pathsep + full_env["PYTHONPATH"] if full_env.get("PYTHONPATH") else "")
    full_env.setdefault("OMP_NUM_THREADS", "2")
    if env:
        full_env.update(env)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                              preexec_fn=limit, env=full_env, check=False)
        return CaseResult(proc.returncode, proc.stdout, proc.stderr, False)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return CaseResult(-9, out, err, True)


def expect_error(code, error, match, timeout=60, mem_mb=4096):
    """Runs ``code``, which must raise ``error`` (a class name such as
    "ValueError", checked through isinstance inside the subprocess) with a
    message containing ``match``; fails on a crash, a hang or anything else."""
    wrapped = f"""
import tessera as tvm
try:
{textwrap.indent(textwrap.dedent(code), "    ")}
except {error} as _e:
    _msg = str(_e)
    if {match!r} not in _msg:
        print("WRONG MESSAGE:", _msg)
        raise SystemExit(3)
    print("RAISED-AS-EXPECTED")
    raise SystemExit(0)
except BaseException as _e:
    print("WRONG EXCEPTION:", type(_e).__mro__, _e)
    raise SystemExit(4)
print("NO EXCEPTION")
raise SystemExit(5)
"""
    res = run_case(wrapped, timeout=timeout, mem_mb=mem_mb)
    assert not res.crashed and res.returncode == 0 and "RAISED-AS-EXPECTED" in res.stdout, res.describe()
    return res

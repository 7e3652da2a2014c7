"""Shared driver for the atheris fuzz targets in tests/fuzz/ (one file per
target): seed loading, a byte-driven text mutator, classification of what a
target raised (TVMError subclass = fine; InternalError or any other exception =
finding), and the entry point that `make fuzz` and the pytest smoke test use."""
import os
import random
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import tessera as tvm  # noqa: E402


def load_seeds(name="seeds.txt"):
    """The TVMScript programs of tests/fuzz/<name> (split on the marker line):
    seeds.txt holds TensorIR programs, seeds_relax.txt Relax modules."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        parts = f.read().split("#### SEED ####\n")
    return [p for p in parts if p.strip()]


# Tokens the mutator inserts: TVMScript syntax, edge values, odd characters.
TOKENS = ["T.", "(", ")", "[", "]", ":", ",", "=", "+", "-", "*", "//", "%", "**", "\n", "    ", "\t",
          "0", "1", "-1", "2**31", "2**40", "1e10", "-0.0", "None", "True", '"float32"', '"int8"', '"handle"',
          '"float32x4"', "T.axis.spatial(", "T.axis.reduce(", "T.block(", "with ", "for ", " in range(",
          "T.grid(", "T.serial(", "T.Buffer((", "T.alloc_buffer((", "T.int32(", "T.int8(", "T.float32(",
          "T.if_then_else(", "T.While(", "T.reads(", "T.writes(", "T.init()", "if ", "else:", "return",
          "@T.prim_func\n", "def f():\n", "'", '"', '"""', "#", "\\", "\x00", "\ud800", "é", "lambda"]

# The Relax targets' tokens: TOKENS plus Relax syntax (a separate list, so that
# the saved reproducers of the TensorIR targets keep decoding to the same edits).
RELAX_TOKENS = TOKENS + [
          "R.", "R.Tensor((", "R.Tuple(", "R.Shape([", "R.Object", "R.Prim(", "R.dataflow()", "R.output(",
          "R.call_tir(", "R.call_dps_packed(", "R.add(", "R.matmul(", "R.nn.relu(", "R.sum(", "R.reshape(",
          "R.permute_dims(", "R.const(", "R.match_cast(", "R.shape(", "@R.function\n", "@I.ir_module\n",
          "cls.", "metadata[", '"m"', '"n"', "R.Tensor(ndim=", "dtype=", "axis=", "keepdims=True", "-> "]


def mutate_text(text, fdp, max_ops=8, tokens=TOKENS):
    """Applies 1..max_ops edits chosen by the fuzzer's bytes to ``text``,
    inserting tokens from ``tokens``."""
    for _ in range(fdp.ConsumeIntInRange(1, max_ops)):
        if fdp.remaining_bytes() == 0:
            break
        n = len(text)
        op = fdp.ConsumeIntInRange(0, 5)
        pos = fdp.ConsumeIntInRange(0, n)
        length = fdp.ConsumeIntInRange(0, 64)
        if op == 0:  # delete a span
            text = text[:pos] + text[pos + length:]
        elif op == 1:  # insert a token
            text = text[:pos] + tokens[fdp.ConsumeIntInRange(0, len(tokens) - 1)] + text[pos:]
        elif op == 2:  # duplicate a span
            text = text[:pos] + text[pos:pos + length] + text[pos:]
        elif op == 3:  # replace a character
            text = text[:pos] + chr(fdp.ConsumeIntInRange(0, 127)) + text[pos + 1:]
        elif op == 4:  # truncate
            text = text[:pos]
        else:  # move a span elsewhere
            span = text[pos:pos + length]
            rest = text[:pos] + text[pos + length:]
            to = fdp.ConsumeIntInRange(0, len(rest))
            text = rest[:to] + span + rest[to:]
    return text


class Finding(Exception):
    """A result that is neither success nor a user-facing TVMError."""


def check_exception(exc, what):
    """Returns None if ``exc`` is an acceptable user error, else a one-line
    description of the finding."""
    if isinstance(exc, tvm.error.InternalError):
        return f"{what}: InternalError: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    if isinstance(exc, tvm.error.TVMError):
        return None
    first = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{what}: {type(exc).__name__} (not a TVMError): {first}"


def check_parse_round_trip(text):
    """Parses ``text``; a TVMError ends the case (a user error, fine). A module
    that parses must print, and the printed text must parse back to a
    structurally equal module. Raises Finding otherwise."""
    try:
        first = tvm.script.from_source(text)
    except Exception as e:  # noqa: BLE001
        desc = check_exception(e, "from_source")
        if desc:
            raise Finding(desc) from e
        return
    try:
        printed = first.script()
    except Exception as e:  # noqa: BLE001
        raise Finding(f"script() of a parsed module: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from e
    try:
        second = tvm.script.from_source(printed)
    except Exception as e:  # noqa: BLE001
        raise Finding(f"printed text does not parse: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from e
    try:
        tvm.ir.assert_structural_equal(first, second, map_free_vars=True)
    except Exception as e:  # noqa: BLE001
        raise Finding(f"round trip not structurally equal: {str(e).splitlines()[0][:200]}") from e


class Recorder:
    """Collects findings (deduplicated by their first line) and saves the first
    reproducer of each into tests/fuzz/corpus/<target>/finding-<n>."""

    def __init__(self, target, save=True):
        self.target, self.save = target, save
        self.dir = os.path.join(HERE, "corpus", target)
        self.seen = {}
        self.execs = 0
        self.start = time.time()

    def record(self, desc, data, tb=""):
        key = ":".join(desc.split(":", 2)[:2])  # call + exception class: one reproducer each
        if key in self.seen:
            self.seen[key][1] += 1
            return
        self.seen[key] = [desc, 1]
        if self.save:
            os.makedirs(self.dir, exist_ok=True)
            n = self._next_free_number()  # never overwrite an earlier run's findings
            with open(os.path.join(self.dir, f"finding-{n}"), "wb") as f:
                f.write(data)
            with open(os.path.join(self.dir, f"finding-{n}.txt"), "w") as f:
                f.write(desc + "\n" + tb)
        print(f"[fuzz {self.target}] FINDING {desc}", file=sys.stderr, flush=True)

    def _next_free_number(self):
        taken = [int(name[len("finding-"):]) for name in os.listdir(self.dir)
                 if name.startswith("finding-") and name[len("finding-"):].isdigit()]
        return max(taken, default=0) + 1

    def summary(self):
        took = time.time() - self.start
        lines = [f"[fuzz {self.target}] {self.execs} executions in {took:.0f} s, {len(self.seen)} distinct findings"]
        lines += [f"  x{n}: {d}" for d, n in self.seen.values()]
        return "\n".join(lines)


def make_test_one_input(target, body, recorder):
    """Wraps ``body(data, fdp)`` so that findings are recorded (not fatal);
    signals still stop libFuzzer, which saves the input as crash-*."""
    import atheris

    def test_one_input(data):
        recorder.execs += 1
        fdp = atheris.FuzzedDataProvider(data)
        try:
            body(fdp)
        except Finding as e:
            recorder.record(str(e), data, traceback.format_exc())
        except RecursionError as e:  # Python-level recursion in a helper: still a finding
            recorder.record(check_exception(e, "call") or str(e), data, traceback.format_exc())
        except Exception as e:  # noqa: BLE001
            desc = check_exception(e, "call")
            if desc:
                recorder.record(desc, data, traceback.format_exc())
    return test_one_input


def main(target, body, instrument_modules=()):
    """`python tests/fuzz/fuzz_<target>.py`: runs atheris for FUZZ_SECONDS
    (default 60) over tests/fuzz/corpus/<target>/, then prints the figures."""
    import atheris
    seconds = int(os.environ.get("FUZZ_SECONDS", "60"))
    corpus = os.path.join(HERE, "corpus", target)
    os.makedirs(corpus, exist_ok=True)
    work = os.environ.get("FUZZ_WORK_CORPUS", os.path.join("/tmp", f"tessera-fuzz-{target}"))
    os.makedirs(work, exist_ok=True)
    recorder = Recorder(target)
    import atexit
    atexit.register(lambda: print(recorder.summary(), file=sys.stderr, flush=True))
    args = [sys.argv[0], f"-max_total_time={seconds}", f"-artifact_prefix={corpus}/",
            "-rss_limit_mb=4096", "-timeout=20", "-max_len=4096", "-print_final_stats=1", work, corpus]
    atheris.instrument_all()  # Python-level coverage (the C++ core is not instrumented)
    atheris.Setup(args, make_test_one_input(target, body, recorder))
    atheris.Fuzz()


def smoke(target, body, iterations=20, seed=0):
    """Runs ``iterations`` random inputs through a target without atheris'
    engine (for the pytest smoke test); returns the Recorder."""
    recorder = Recorder(target, save=False)
    fn = make_test_one_input(target, body, recorder)
    rng = random.Random(seed)
    for _ in range(iterations):
        fn(bytes(rng.getrandbits(8) for _ in range(rng.randint(4, 200))))
    return recorder

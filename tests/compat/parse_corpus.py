"""TVMScript parse corpus: how much of TVM's own test TVMScript Tessera parses and round-trips.

    python tests/compat/parse_corpus.py /path/to/tvm/tests/python [--nested] [--list-failures N] [--json F]

(uses this checkout's python/tessera unless another tessera is importable).

Reads TVM's test files from the path given (never vendored into Tessera) in the directories
tir-schedule, tir-transform and tvmscript, extracts every function or class decorated with
`@T.prim_func` / `@I.ir_module` / `@tvm.script.ir_module` (with or without arguments), parses each on
its own with Tessera under the `import tessera as tvm` alias, and checks that parse(print(m)) == m
structurally. Each file runs in a worker subprocess (a crash or hang costs only that file's
remaining functions, which are then retried one per subprocess).

What is counted:
  * top level: decorated definitions at module level, and decorated functions in the body of a
    module-level class (TVM's `tvm.testing.CompareBeforeAfter` classes: `before`, `expected`).
    Free names resolve in the test module's globals, obtained by executing the module's statements
    other than the decorated definitions, each on its own (a failing import or assignment is skipped).
  * nested (with --nested, reported apart): decorated definitions inside test functions. Their free
    names resolve in the module globals plus the literal assignments and default arguments of the
    enclosing functions; closure values computed at run time (parametrized fixtures) cannot be known,
    so an unresolved name there is a limit of the measurement, reported as its own reason.
  * definitions under `with pytest.raises(...)` are expected to fail in TVM too: not counted.
"""
import argparse
import ast
import collections
import importlib
import importlib.abc
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap

DIRECTORIES = ("tir-schedule", "tir-transform", "tvmscript")
SCRIPT_DECORATORS = ("T.prim_func", "I.ir_module", "tvm.script.ir_module", "ir_module", "prim_func",
                     "tvm.script.tir.prim_func", "tvm.script.ir.ir_module", "tir.prim_func")
WORKER_TIMEOUT_S = 300
SINGLE_TIMEOUT_S = 60


# ---------------------------------------------------------------------------------------------
# Extraction (no Tessera needed)

def _dotted(node):
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _script_decorator(node):
    for deco in getattr(node, "decorator_list", ()):
        name = _dotted(deco)
        if name in SCRIPT_DECORATORS:
            return name
    return None


def _under_pytest_raises(stack):
    for node in stack:
        if isinstance(node, ast.With):
            for item in node.items:
                name = _dotted(item.context_expr) or ""
                if name.endswith("raises") or name.endswith("warns"):
                    return True
    return False


def _literal_bindings(func_stack):
    """name -> source of literal values bound by the enclosing functions (defaults, simple assignments)."""
    out = {}
    for fn in func_stack:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = fn.args.args[len(fn.args.args) - len(fn.args.defaults):]
        for arg, default in zip(args, fn.args.defaults):
            out[arg.arg] = ast.unparse(default)
        for stmt in fn.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                out[stmt.targets[0].id] = ast.unparse(stmt.value)
    return out


def extract(path):
    """[(index, kind, name, lineno, source, nested, expected_fail, bindings)] for one file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines(keepends=True)
    found = []

    def visit(node, stack, func_stack, in_class_at_top):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                deco = _script_decorator(child)
                if deco is not None:
                    start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                    src = textwrap.dedent("".join(lines[start - 1:child.end_lineno]))
                    nested = bool(func_stack)
                    found.append({
                        "index": len(found), "kind": "class" if isinstance(child, ast.ClassDef) else "function",
                        "name": child.name, "lineno": start, "source": src, "nested": nested,
                        "expected_fail": _under_pytest_raises(stack), "bindings": _literal_bindings(func_stack),
                        "line_offset": start - 1,
                    })
                    continue  # a module's methods are part of it
                is_func = not isinstance(child, ast.ClassDef)
                visit(child, stack + [child], func_stack + [child] if is_func else func_stack,
                      isinstance(child, ast.ClassDef) and not func_stack)
            else:
                visit(child, stack + [child], func_stack, in_class_at_top)

    visit(tree, [], [], False)
    return found


# ---------------------------------------------------------------------------------------------
# The tvm alias

class _TvmAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import tvm.x.y` gives tessera.x.y (the same module object)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tvm" or fullname.startswith("tvm."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        real = "tessera" + spec.name[3:]
        return importlib.import_module(real)

    def exec_module(self, module):
        pass


def install_alias():
    repo_python = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
    if importlib.util.find_spec("tessera") is None and os.path.isdir(repo_python):
        sys.path.insert(0, os.path.normpath(repo_python))  # this checkout's package
    if not any(isinstance(f, _TvmAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, _TvmAlias())
    import tessera  # noqa: F401  pylint: disable=import-outside-toplevel
    sys.modules.setdefault("tvm", sys.modules["tessera"])


def module_namespace(path):
    """The test module's globals without its decorated definitions: each other statement executed alone."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    ns = {"__name__": "tvm_test_module", "__file__": path}
    sys.path.insert(0, os.path.dirname(path))
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and _script_decorator(stmt):
            continue
        if isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test):
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stmt = ast.FunctionDef(name=stmt.name, args=stmt.args, body=stmt.body, decorator_list=[],
                                   returns=stmt.returns, type_comment=None, type_params=[]) \
                if sys.version_info >= (3, 12) else \
                ast.FunctionDef(name=stmt.name, args=stmt.args, body=stmt.body, decorator_list=[],
                                returns=stmt.returns, type_comment=None)
        if isinstance(stmt, ast.ClassDef):
            continue  # test classes (CompareBeforeAfter) would parse their members while defining
        code = ast.Module(body=[stmt], type_ignores=[])
        ast.fix_missing_locations(code)
        try:
            exec(compile(code, path, "exec"), ns)  # pylint: disable=exec-used
        except BaseException:  # pylint: disable=broad-except
            pass
    return ns


# ---------------------------------------------------------------------------------------------
# One definition

def _first_line(msg):
    msg = str(msg).strip()
    return msg.splitlines()[0] if msg else "<empty message>"


def classify(stage, err):
    """A short reason for the histogram: the error message with names and numbers blanked."""
    msg = _first_line(err)
    msg = re.sub(r"^[^:]*:\d+:\d+: (error: )?", "", msg)  # file:line:col
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"\"[^\"]*\"", "\"_\"", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    msg = msg[:110]
    return f"{stage}: {type(err).__name__}: {msg}"


def run_one(entry, namespace, path):
    """(status, reason, detail): status in ok / parse / print / reparse / roundtrip."""
    import tessera  # pylint: disable=import-outside-toplevel
    from tessera.script import _parser  # pylint: disable=import-outside-toplevel

    names = dict(namespace)
    for key, src in entry["bindings"].items():
        try:
            names[key] = eval(src, dict(namespace))  # pylint: disable=eval-used
        except BaseException:  # pylint: disable=broad-except
            pass
    resolver = _parser.make_resolver(names)
    try:
        mod = _parser._parse_tir(entry["source"], path, entry["line_offset"], resolver)  # pylint: disable=protected-access
    except BaseException as err:  # pylint: disable=broad-except
        return "parse", classify("parse", err), _first_line(err)
    try:
        text = mod.script()
    except BaseException as err:  # pylint: disable=broad-except
        return "print", classify("print", err), _first_line(err)
    try:
        again = _parser._parse_tir(text, "<printed>", 0, _parser.make_resolver({}))  # pylint: disable=protected-access
    except BaseException as err:  # pylint: disable=broad-except
        return "reparse", classify("reparse", err), _first_line(err)
    try:
        tessera.ir.assert_structural_equal(mod, again, map_free_vars=True)
    except BaseException as err:  # pylint: disable=broad-except
        return "roundtrip", classify("roundtrip", err), _first_line(err)
    return "ok", "", ""


def worker(path, indices):
    install_alias()
    entries = extract(path)
    namespace = module_namespace(path)
    for entry in entries:
        if indices and entry["index"] not in indices:
            continue
        status, reason, detail = run_one(entry, namespace, path)
        print(json.dumps({"index": entry["index"], "status": status, "reason": reason, "detail": detail}),
              flush=True)


def _run_worker(path, indices, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", path] + [str(i) for i in indices]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        out, rc = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        rc = "timeout"
    results = {}
    for line in out.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            results[rec["index"]] = rec
    return results, rc


def measure_file(path):
    entries = extract(path)
    if not entries:
        return entries, {}
    results, _ = _run_worker(path, [], WORKER_TIMEOUT_S)
    for entry in entries:
        if entry["index"] in results:
            continue
        one, rc = _run_worker(path, [entry["index"]], SINGLE_TIMEOUT_S)
        if entry["index"] in one:
            results[entry["index"]] = one[entry["index"]]
        else:
            why = "hang (timeout)" if rc == "timeout" else f"crash (exit status {rc})"
            results[entry["index"]] = {"index": entry["index"], "status": "crash", "reason": why, "detail": why}
    return entries, results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", help="TVM's tests/python directory")
    ap.add_argument("--nested", action="store_true", help="also report definitions nested in test functions")
    ap.add_argument("--list-failures", type=int, default=0, metavar="N",
                    help="list up to N failing definitions (file:line name: reason)")
    ap.add_argument("--only", default=None, help="only files whose name contains this")
    ap.add_argument("--json", default=None, help="write per-definition results to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.worker:
        worker(args.tests, {int(i) for i in rest})
        return 0

    per_dir = collections.OrderedDict()
    reasons = {"top": collections.Counter(), "nested": collections.Counter()}
    failures = []
    records = []
    for directory in DIRECTORIES:
        root = os.path.join(args.tests, directory)
        if not os.path.isdir(root):
            print(f"missing directory: {root}", file=sys.stderr)
            return 2
        counts = {"top": [0, 0], "nested": [0, 0], "expected_fail": 0}
        for name in sorted(os.listdir(root)):
            if not (name.startswith("test_") and name.endswith(".py")):
                continue
            if args.only and args.only not in name:
                continue
            path = os.path.join(root, name)
            entries, results = measure_file(path)
            for entry in entries:
                if entry["expected_fail"]:
                    counts["expected_fail"] += 1
                    continue
                group = "nested" if entry["nested"] else "top"
                res = results[entry["index"]]
                counts[group][0] += 1
                ok = res["status"] == "ok"
                counts[group][1] += ok
                records.append({"file": f"{directory}/{name}", "line": entry["lineno"], "name": entry["name"],
                                "nested": entry["nested"], **res})
                if not ok:
                    reasons[group][res["reason"]] += 1
                    if group == "top" or args.nested:
                        failures.append(f"{directory}/{name}:{entry['lineno']} {entry['name']}: {res['detail']}")
        per_dir[directory] = counts

    def pct(a, b):
        return f"{100.0 * a / b:5.1f}%" if b else "  n/a"

    print(f"{'directory':<16}{'top-level ok/total':>22}{'':>8}" + (f"{'nested ok/total':>20}{'':>8}" if args.nested else "")
          + f"{'expected-fail':>15}")
    tot = {"top": [0, 0], "nested": [0, 0]}
    for directory, counts in per_dir.items():
        line = f"{directory:<16}{counts['top'][1]:>12}/{counts['top'][0]:<9}{pct(*counts['top'][::-1]):>8}"
        if args.nested:
            line += f"{counts['nested'][1]:>10}/{counts['nested'][0]:<9}{pct(*counts['nested'][::-1]):>8}"
        line += f"{counts['expected_fail']:>15}"
        print(line)
        for g in tot:
            tot[g][0] += counts[g][0]
            tot[g][1] += counts[g][1]
    line = f"{'total':<16}{tot['top'][1]:>12}/{tot['top'][0]:<9}{pct(*tot['top'][::-1]):>8}"
    if args.nested:
        line += f"{tot['nested'][1]:>10}/{tot['nested'][0]:<9}{pct(*tot['nested'][::-1]):>8}"
    print(line)
    for group in ("top", "nested") if args.nested else ("top",):
        print(f"\nfirst failure reasons ({group}-level):")
        for reason, count in reasons[group].most_common():
            print(f"{count:6}  {reason}")
    if args.list_failures:
        print("\nfailures:")
        for line in failures[:args.list_failures]:
            print("  " + line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

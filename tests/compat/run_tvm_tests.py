#!/usr/bin/env python3
"""Runs Apache TVM v0.18's tests (read from a TVM checkout the user names;
nothing is copied into Tessera) against Tessera through a `tvm` module alias
(tvm_alias.py), one pytest subprocess per file with a timeout, and prints
per-file pass/fail/skip counts. A file that fails to load counts each test it
defines as an error. Tests that fail because they build their input with
tvm.te (issue [E]) are counted apart.

    python tests/compat/run_tvm_tests.py /path/to/tvm/tests/python/tir-schedule [-v] [-k split_fuse]
    python tests/compat/run_tvm_tests.py /path/to/tvm/tests/python/relax --suite fusion
    python tests/compat/run_tvm_tests.py /path/to/test_a.py /path/to/test_b.py

A directory with neither -k nor --suite runs: for tir-schedule, the files of
the primitives Tessera has (FILES); otherwise every test_*.py in it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The primitives Tessera has (issue [T] "Proof").
FILES = ["split_fuse", "reorder", "for_kind", "compute_at", "compute_inline", "cache_read_write", "reduction",
         "rfactor", "blockize", "tensorize", "sampling", "trace", "storage_align", "set_scope", "transform_layout",
         "state", "utilities", "reindex", "pad_einsum", "merge", "partition",
         "set_axis_separator", "decompose_padding", "rolling_buffer", "cache_index"]


# Named file lists (relative to a TVM tests/python/relax directory) that issues measure.
SUITES = {
    # [F] graph rewriting and fusion
    "fusion": ["test_transform_fuse_ops.py", "test_transform_fuse_tir.py", "test_transform_fold_constant.py",
               "test_transform_cse.py", "test_expr_functor.py", "test_dataflow_pattern.py",
               "test_transform_canonicalize_bindings.py", "test_transform_lambda_lift.py"],
    # [X] TVM compatibility of the graph level
    "relax-core": ["test_vm_build.py", "test_blockbuilder_core.py", "test_tvmscript_parser.py",
                   "test_tvmscript_printer_relax.py", "test_struct_info.py", "test_analysis_struct_info_analysis.py",
                   "test_analysis_well_formed.py", "test_op_binary.py", "test_op_unary.py", "test_op_manipulate.py",
                   "test_op_nn.py", "test_op_nn_convolution.py", "test_op_linear_algebra.py", "test_op_statistical.py",
                   "test_transform_bind_params.py", "test_transform_legalize_ops_binary.py",
                   "test_transform_legalize_ops_manipulate.py", "test_transform_legalize_ops_nn.py",
                   "test_transform_static_plan_block_memory.py", "test_transform_dead_code_elimination.py",
                   "test_transform_normalize.py", "test_vm_execbuilder.py", "test_vm_codegen_only.py",
                   "test_e2e_op_dynamic.py"],
    # [I] the model importers (the ONNX file reads onnx.mapping: onnx_mapping_shim.py provides it)
    "frontends": ["test_frontend_onnx.py", "test_frontend_from_fx.py", "test_frontend_from_exported_program.py"],
}


def resolve_files(paths, keys=None, suite=None):
    """(label, path) of every test file to run, from files and directories."""
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append((os.path.basename(p)[:-3], p))
            continue
        if not os.path.isdir(p):
            out.append((p, p))  # reported as missing
            continue
        schedule_dir = os.path.basename(os.path.normpath(p)) == "tir-schedule"
        if suite:
            names = SUITES[suite]
        elif keys:
            names = [f"test_tir_schedule_{k}.py" if schedule_dir else (k if k.endswith(".py") else f"test_{k}.py")
                     for k in keys]
        elif schedule_dir:
            names = [f"test_tir_schedule_{k}.py" for k in FILES]
        else:
            names = sorted(f for f in os.listdir(p) if f.startswith("test_") and f.endswith(".py"))
        for n in names:
            label = n[len("test_tir_schedule_"):-3] if n.startswith("test_tir_schedule_") else n[:-3]
            out.append((label, os.path.join(p, n)))
    return out


def _unparsed(record):
    text = record.get("text", "") + record.get("reason", "")
    return "UnparsedTVMScript" in text or "tessera.error.ParseError" in text


def _needs_te(record):
    text = record.get("text", "") + record.get("reason", "")
    return "tessera.te." in text or "create_prim_func" in text


def run_file(path, timeout, lenient=False):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.jsonl")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([HERE, os.path.join(ROOT, "python")] +
                                            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["TESSERA_COMPAT_REPORT"] = report
        if lenient:
            env["TESSERA_COMPAT_LENIENT_PARSE"] = "1"
        # -c /dev/null and --noconftest: neither Tessera's nor TVM's pytest
        # configuration (TVM's conftest loads TVM's own plugin) is read.
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "tvm_alias", "-p", "no:cacheprovider", "--noconftest",
               "-c", os.devnull, "--rootdir", tmp, "-o", "addopts=", path]
        try:
            proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, timeout=timeout)
            status = f"rc={proc.returncode}"
            tail = proc.stdout[-3000:] + proc.stderr[-3000:]
        except subprocess.TimeoutExpired:
            status, tail = f"timeout after {timeout}s", ""
        records = []
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                records = [json.loads(line) for line in f if line.strip()]
    return records, status, tail


def _defined_tests(path):
    """How many test functions a file defines (what a file that does not load loses)."""
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.lstrip().startswith("def test_")) or 1


def _last_error_line(record):
    lines = [l[4:] for l in record.get("text", "").splitlines() if l.startswith("E   ")]
    return lines[-1] if lines else record["reason"].strip().splitlines()[0] if record["reason"].strip() else ""


def summarize(records, path):
    """Counts by outcome; a file that fails to load counts each test it defines as an error."""
    counts = Counter()
    for r in records:
        weight = _defined_tests(path) if r["when"] == "collect" else 1
        if r["outcome"] in ("failed", "error") and _needs_te(r):
            counts["te"] += weight
        elif r["outcome"] in ("failed", "error") and _unparsed(r):
            counts["parse"] += weight
        else:
            counts[r["outcome"]] += weight
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="TVM test directories (e.g. tests/python/tir-schedule, "
                                                 "tests/python/relax) and/or test files")
    parser.add_argument("-k", "--only", action="append",
                        help="run only these file keys of a directory (e.g. split_fuse for "
                             "test_tir_schedule_split_fuse.py, transform_cse for test_transform_cse.py)")
    parser.add_argument("--suite", choices=sorted(SUITES), help="a named list of files of a relax directory")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failure with its reason")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per file (default 600)")
    parser.add_argument("--json", help="write every test's record to this file")
    parser.add_argument("--lenient-parse", action="store_true",
                        help="measurement aid: a TVMScript definition that does not parse no longer stops its file "
                             "from loading; the tests using it are counted apart (column 'parse')")
    args = parser.parse_args()
    total = Counter()
    everything = {}
    print(f"{'file':<40}{'pass':>6}{'fail':>6}{'error':>6}{'skip':>6}{'te[E]':>7}{'parse':>7}  status")
    for key, path in resolve_files(args.paths, args.only, args.suite):
        if not os.path.exists(path):
            print(f"{key:<40} missing: {path}")
            continue
        records, status, tail = run_file(path, args.timeout, args.lenient_parse)
        everything[key] = records
        c = summarize(records, path)
        total.update(c)
        print(f"{key:<40}{c['passed']:>6}{c['failed']:>6}{c['error']:>6}{c['skipped']:>6}{c['te']:>7}{c['parse']:>7}"
              f"  {status}")
        if not records:
            print("    no test reported; pytest said:\n    " + tail.replace("\n", "\n    "))
        if args.verbose:
            for r in records:
                if r["outcome"] in ("failed", "error"):
                    tag = "te[E]" if _needs_te(r) else "parse" if _unparsed(r) else r["outcome"]
                    where = "(file does not load)" if r["when"] == "collect" else r["nodeid"].split("::", 1)[-1]
                    print(f"    {tag:<7}{where}: {_last_error_line(r)[:300]}")
    counted = total["passed"] + total["failed"] + total["error"]
    print(f"{'total':<40}{total['passed']:>6}{total['failed']:>6}{total['error']:>6}{total['skipped']:>6}"
          f"{total['te']:>7}{total['parse']:>7}")
    if counted:
        print(f"pass rate (excluding skips and te[E]): {100.0 * total['passed'] / (counted + total['parse']):.1f}% "
              f"({total['passed']}/{counted + total['parse']})")
    if total["parse"]:
        print(f"pass rate of the tests whose TVMScript parses: {100.0 * total['passed'] / counted:.1f}% "
              f"({total['passed']}/{counted})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(everything, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

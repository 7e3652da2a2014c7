#!/usr/bin/env bash
# The one script run on the GPU machine (issue [H]; docs/backends.md, "Building
# without LLVM / on a GPU machine"): prints the environment, builds Tessera
# without LLVM (host code through target "c"), then runs the CUDA tests, the
# chapter 6 conformance file and benchmarks/gpu.py, each under a time limit,
# saving every log to $OUT. Exits 0 even when steps fail (the logs are the
# result) and ends with a pass/fail summary per step. Runs in the repository root.
#
#   OUT=dir            where logs go (default: gpu_check_out/)
#   GPU_CHECK_SMOKE=1  CPU-only dry run: the same build, then a few CPU tests
#                      of the C host backend instead of the GPU steps
#   JOBS=n             build parallelism (default: nproc)
#   GPU_CHECK_BUDGET=s wall-time budget in seconds for all steps (default 450);
#                      a step gets at most its own limit and what is left, in
#                      this order: configure, build, conformance, CUDA tests, benchmark
#   GPU_CONFORMANCE=f  the chapter 6 conformance file (default
#                      tests/gpu_conformance/test_ch6_gpu_tensorize.py, which
#                      the caller copies there; absent: the step is skipped)
#   BUILD_DIR=dir      the build tree (default build-gpu; kept between runs)
#   GPU_CHECK_OPT=...  optimization flags of the build (default "-O2")
#   GPU_CHECK_BUILD_LIMIT=s  the build's time limit (default 330)
#   GPU_CHECK_CMAKE_ARGS="..."  more CMake arguments (e.g. -DTESSERA_BUNDLED_HEADERS=ON)
#   GPU_CHECK_SKIP_BUILD=1  no build: test the package already in python/tessera
#   GPU_TEST_FILES="a.py b.py"  the GPU test files (default: every tests/python/*/test_cuda_*.py, *gpu*.py)
#   GPU_BENCH_ARGS="..."  arguments of benchmarks/gpu.py (e.g. --quick, --time-limit 75)
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${OUT:-$ROOT/gpu_check_out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SMOKE=${GPU_CHECK_SMOKE:-0}
JOBS=${JOBS:-$(nproc)}
BUDGET=${GPU_CHECK_BUDGET:-450}
BUILD_DIR=${BUILD_DIR:-build-gpu}
CONFORMANCE=${GPU_CONFORMANCE:-tests/gpu_conformance/test_ch6_gpu_tensorize.py}
OPT=${GPU_CHECK_OPT:--O2}
PY=${PYTHON:-$(command -v python3 || command -v python)}
START=$(date +%s)
STEPS=()   # "name|status|seconds|detail"

log() { echo "[gpu_check $(($(date +%s) - START))s] $*"; }
left() { echo $((BUDGET - ($(date +%s) - START))); }

# run_step NAME LIMIT CMD...: runs CMD with its output in $OUT/NAME.log (and on
# the console), under min(LIMIT, budget left) seconds; records the outcome.
run_step() {
  local name=$1 limit=$2
  shift 2
  local budget_left
  budget_left=$(left)
  if [ "$budget_left" -lt "$limit" ]; then limit=$budget_left; fi
  if [ "$limit" -lt 10 ]; then
    STEPS+=("$name|NOT RUN|0|the time budget (${BUDGET}s) is spent")
    log "$name: not run (time budget spent)"
    return 1
  fi
  log "$name: start (limit ${limit}s)"
  local t0 rc
  t0=$(date +%s)
  timeout -k 10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  local secs=$(($(date +%s) - t0))
  tail -n 25 "$OUT/$name.log"
  local status=PASS detail
  detail=$(grep -E "^(=+ )?[0-9]+ (passed|failed|skipped|deselected|error)" "$OUT/$name.log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    status=TIMEOUT
  elif [ $rc -eq 5 ] && [ -n "$detail" ]; then
    status=PASS  # pytest: nothing selected
  elif [ $rc -ne 0 ]; then
    status="FAIL(rc=$rc)"
  fi
  STEPS+=("$name|$status|$secs|${detail:-rc=$rc}")
  log "$name: $status in ${secs}s ${detail}"
  [ "$status" = PASS ]
}

summary() {
  echo
  echo "================ gpu_check summary ($(($(date +%s) - START))s in all; logs in $OUT) ================"
  printf "%-14s %-12s %6s  %s\n" step status seconds detail
  for s in "${STEPS[@]}"; do
    IFS='|' read -r n st secs d <<< "$s"
    printf "%-14s %-12s %6s  %s\n" "$n" "$st" "$secs" "$d"
  done | tee "$OUT/summary.txt"
}
trap summary EXIT

# ---- 1. the environment ------------------------------------------------------
environment() {
  echo "## date, host"; date -u; uname -a; echo "cores: $(nproc)"; free -g 2>/dev/null | head -2
  echo "## GPU"; nvidia-smi 2>&1 || echo "nvidia-smi: not available"
  echo "## nvcc"; nvcc --version 2>&1 || ls /usr/local/cuda*/bin/nvcc 2>&1
  echo "## CUDA_HOME=${CUDA_HOME:-} CUDA_PATH=${CUDA_PATH:-}"; ls -d /usr/local/cuda* 2>&1
  echo "## libcuda / libnvrtc (ldconfig, toolkit, pip wheels)"
  ldconfig -p 2>/dev/null | grep -E "libcuda\.so|libnvrtc" || echo "(not in the ldconfig cache)"
  ls /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/lib64/libcuda.so* /usr/local/nvidia/lib64/libcuda.so* 2>/dev/null
  for d in "${CUDA_HOME:-/usr/local/cuda}" /usr/local/cuda; do ls "$d"/lib64/libnvrtc* "$d"/lib64/libcudart.so* 2>/dev/null; done
  "$PY" - <<'EOF'
import glob, importlib.util, os, site, sys
print("## python", sys.version.replace("\n", " "), sys.executable)
import sysconfig
inc = sysconfig.get_paths()["include"]
print("Python.h:", os.path.join(inc, "Python.h") if os.path.exists(os.path.join(inc, "Python.h")) else f"ABSENT in {inc}")
roots = [p for p in site.getsitepackages() + [site.getusersitepackages()] if os.path.isdir(p)]
for pat in ("nvidia/*/lib/libnvrtc*", "nvidia/*/lib/libcudart*", "nvidia/*/include/cuda_fp16.h",
            "nvidia/*/include/nvrtc.h", "torch/lib/libnvrtc*", "torch/include/ATen/dlpack.h"):
    hits = [h for r in roots for h in glob.glob(os.path.join(r, pat))]
    print(f"{pat}: {hits or 'none'}")
for mod in ("torch", "numpy", "nanobind", "scikit_build_core", "pytest", "scipy", "onnx"):
    spec = importlib.util.find_spec(mod)
    ver = ""
    if spec:
        try:
            ver = getattr(__import__(mod), "__version__", "")
        except Exception as e:  # pylint: disable=broad-except
            ver = f"(import failed: {e})"
    print(f"{mod}: {ver if spec else 'NOT INSTALLED'}")
try:
    import torch
    print("torch.cuda.is_available:", torch.cuda.is_available(), "cuda", torch.version.cuda,
          torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
except Exception as e:  # pylint: disable=broad-except
    print("torch:", e)
EOF
  echo "## CUDA headers"
  for h in cuda.h cuda_runtime.h cuda_fp16.h cuda_bf16.h nvrtc.h mma.h; do
    found=$(ls "${CUDA_HOME:-/usr/local/cuda}"/include/$h /usr/local/cuda/include/$h /usr/include/$h 2>/dev/null | head -1)
    echo "$h: ${found:-absent}"
  done
  echo "## compilers and tools"
  for t in cc c++ gcc g++ cmake ninja ccache; do echo "$t: $(command -v $t) $($t --version 2>&1 | head -1)"; done
  echo "## header-only dependencies"
  ls /usr/include/nlohmann/json.hpp /usr/include/dlpack/dlpack.h 2>&1
  echo "## git"; git log --oneline -3 2>&1; git status --short 2>&1 | head -20
}
log "environment -> $OUT/environment.log"
environment > "$OUT/environment.log" 2>&1
cat "$OUT/environment.log"
STEPS+=("environment|PASS|0|see environment.log")

# ---- 2. configure + build (no LLVM, no C++ tests, only the Python extension) ----
GENERATOR=Ninja
command -v ninja > /dev/null || { GENERATOR="Unix Makefiles"; log "no ninja: building with make"; }
CMAKE_ARGS=(-S . -B "$BUILD_DIR" -G "$GENERATOR" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=$OPT -DNDEBUG"
            -DTESSERA_USE_LLVM=OFF -DTESSERA_BUILD_TESTS=OFF -DPython_EXECUTABLE="$PY")
if [ -n "${GPU_CHECK_CMAKE_ARGS:-}" ]; then read -r -a extra <<< "$GPU_CHECK_CMAKE_ARGS"; CMAKE_ARGS+=("${extra[@]}"); fi
if [ "${GPU_CHECK_SKIP_BUILD:-0}" = 1 ]; then
  STEPS+=("build|NOT RUN|0|GPU_CHECK_SKIP_BUILD=1: the package already in python/tessera is tested")
else
  run_step configure 90 cmake "${CMAKE_ARGS[@]}"
  # The translation units the build compiles (for the record).
  (cd "$BUILD_DIR" 2>/dev/null && ninja -t commands _core 2>/dev/null | grep -c " -c ") > "$OUT/translation_units.txt" 2>&1
  log "translation units to compile: $(cat "$OUT/translation_units.txt")"
  if ! run_step build "${GPU_CHECK_BUILD_LIMIT:-330}" cmake --build "$BUILD_DIR" -j "$JOBS" --target _core -- -k 0; then
    log "the build failed (every error is in $OUT/build.log); retrying with common standard headers force-included"
    grep -E "error:" "$OUT/build.log" | sort -u > "$OUT/build_errors.txt"
    FORCED="-include cstdint -include cstring -include optional -include functional -include stdexcept -include memory -include limits -include algorithm"
    run_step configure2 60 cmake "${CMAKE_ARGS[@]}" "-DCMAKE_CXX_FLAGS=$FORCED"
    if ! run_step build2 "${GPU_CHECK_BUILD_LIMIT:-330}" cmake --build "$BUILD_DIR" -j "$JOBS" --target _core -- -k 0; then
      log "the build failed again: no tests run (see $OUT/build2.log)"
      exit 0
    fi
  fi
fi

# Tests import the package built into python/tessera.
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
unset TESSERA_LIBRARY_PATH
run_step import 60 "$PY" -c "import tessera as tvm; print('host target:', tvm.target.default_host()); \
print('cuda(0).exist:', tvm.cuda(0).exist); print('backends:', [k for k in tvm.target.Target.list_kinds() \
if tvm.get_global_func('target.build.' + k, allow_missing=True)])"

PYTEST=("$PY" -m pytest -q -rfEs -p no:cacheprovider -o addopts="" --durations=10)
if [ "$SMOKE" = 1 ]; then
  # ---- CPU dry run: the C host backend end to end ---------------------------
  run_step smoke_tests 240 "${PYTEST[@]}" --junitxml="$OUT/smoke_tests.xml" \
    tests/python/codegen/test_codegen_c.py tests/python/codegen/test_codegen_llvm.py -k "not vectorized_loops"
fi

# ---- 3. the chapter 6 conformance file (copied into the tree by the caller) ----
if [ -f "$CONFORMANCE" ]; then
  # As `make test-conformance`: the printer fixed point on; tests needing LLVM skip, saying so.
  run_step conformance 150 env PYTHONPATH="$ROOT/tests/python:$PYTHONPATH" "${PYTEST[@]}" \
    --junitxml="$OUT/conformance.xml" -p fixed_point_plugin -p tessera.testing.missing_backend \
    --rootdir "$(dirname "$CONFORMANCE")" "$CONFORMANCE"
else
  STEPS+=("conformance|NOT RUN|0|$CONFORMANCE is absent (copy test_ch6_gpu_tensorize.py there)")
  log "conformance: $CONFORMANCE is absent"
fi

# ---- 4. the CUDA tests: test_cuda_*.py files and tests marked as needing CUDA ----
# The NVRTC/driver diagnostics first (each case in its own process: a crash is reported, not fatal).
run_step diag 90 "$PY" scripts/gpu_diag_nvrtc.py
# One pytest process per file: a crash in one file does not hide the others.
for f in ${GPU_TEST_FILES:-$(ls tests/python/*/test_cuda_*.py tests/python/*/test_*gpu*.py 2>/dev/null | sort -u)}; do
  run_step "$(basename "$f" .py)" 120 "${PYTEST[@]}" --junitxml="$OUT/$(basename "$f" .py).xml" "$f"
done

# ---- 5. the GPU benchmark -----------------------------------------------------
if [ -f benchmarks/gpu.py ] && [ "$SMOKE" != 1 ]; then
  run_step benchmark 120 "$PY" benchmarks/gpu.py ${GPU_BENCH_ARGS:-}
else
  STEPS+=("benchmark|NOT RUN|0|$([ "$SMOKE" = 1 ] && echo "smoke mode" || echo "benchmarks/gpu.py is absent")")
fi
exit 0

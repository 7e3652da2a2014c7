#!/usr/bin/env bash
# Installs every Debian and Python dependency Tessera needs, idempotently.
# Fast when already done: each step checks before it installs. Used by
# `make demo`, `make test` and CI; safe to run by hand on a fresh machine.
set -euo pipefail

DEB_PKGS=(
  build-essential ninja-build ccache cmake
  llvm-dev libclang-rt-14-dev
  libgtest-dev libdlpack-dev nlohmann-json3-dev
  dataset-fashion-mnist
  graphviz   # tvm.contrib.relax_viz / `tessera show --png`: the dot program
)
PY_PKGS=(
  "numpy" "torch==2.13.0" "onnx" "onnxruntime" "pytest" "pytest-timeout"
  "nanobind" "scikit-build-core" "atheris" "xgboost"
  "ray==2.60.0"   # meta_schedule's RayBuilder / RayRunner (tests start a local cluster)
  "tqdm" "pillow"   # make demo: progress bars, the PNG of predictions
  "graphviz"        # tvm.contrib.relax_viz: model pictures (drives Debian's graphviz)
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
# Check each Python requirement through importlib.metadata; install only the missing.
need=$("$PY" - "${PY_PKGS[@]}" <<'PYEOF'
import sys, re
from importlib import metadata
out = []
for req in sys.argv[1:]:
    name, _, ver = req.partition("==")
    try:
        have = metadata.version(name)
        if ver and have.split("+")[0] != ver:
            out.append(req)
    except metadata.PackageNotFoundError:
        out.append(req)
print(" ".join(out))
PYEOF
)
if [ -n "$need" ]; then
  echo "[setup] installing Python packages: $need"
  # shellcheck disable=SC2086
  "$PY" -m pip install -q $need
fi
# NVRTC + cuda_fp16.h for compiling generated CUDA C (tvm.contrib.nvcc, target "cuda"); optional: a CUDA
# toolkit's NVRTC ($CUDA_HOME, /usr/local/cuda) stands in where PyPI cannot be reached.
if ! "$PY" -c "import importlib.util as u; assert u.find_spec('nvidia.cuda_nvrtc') and u.find_spec('nvidia.cuda_runtime')" 2>/dev/null; then
  echo "[setup] installing NVRTC from PyPI: nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12"
  "$PY" -m pip install -q nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 \
    || echo "[setup] warning: NVRTC not installed (CUDA compile tests will skip unless a CUDA toolkit is present)"
fi
echo "[setup] ok"

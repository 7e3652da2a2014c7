"""``tvm.testing``: the helpers tests written for TVM use — numeric
comparison, pytest parameters and fixtures, requires_* markers that skip when
a backend or device is missing, enabled targets, and CompareBeforeAfter."""
import sys

from .asserts import assert_allclose, assert_prim_expr_equal
from .params import parameter, parameters, fixture
from .markers import (Feature, enabled_targets, device_enabled, parametrize_targets, exclude_targets,
                      known_failing_targets, requires_package, requires_cuda_compute_version,
                      requires_nvcc_version, skip_if_32bit)
from . import markers as _markers
from .compare import CompareBeforeAfter


def main():
    """Runs pytest on the calling script (``if __name__ == "__main__": tvm.testing.main()``)."""
    import pytest  # pylint: disable=import-outside-toplevel

    sys.exit(pytest.main([sys.argv[0]] + sys.argv[1:]))


# requires_gpu, requires_cuda, requires_llvm, ... (one Feature each, see markers.py).
for _name, _feature in _markers.FEATURES.items():
    globals()["requires_" + _name] = _feature

__all__ = ["assert_allclose", "assert_prim_expr_equal", "parameter", "parameters", "fixture", "Feature",
           "enabled_targets", "device_enabled", "parametrize_targets", "exclude_targets", "known_failing_targets",
           "requires_package", "requires_cuda_compute_version", "requires_nvcc_version", "skip_if_32bit",
           "CompareBeforeAfter", "main"] + \
          ["requires_" + n for n in _markers.FEATURES]
